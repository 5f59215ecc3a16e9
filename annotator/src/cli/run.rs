//! `revy run`.

use revy::error::{Error, Result};

pub(crate) fn cmd_run(manifest: &std::path::Path) -> Result<()> {
    let m = revy::instrument::manifest::Manifest::load(manifest)?;
    let out = revy::run::run(&m)?;
    let no_trace = format!(
        "the run wrote no trace in {}; is the project annotated (`revy status`)?",
        m.trace_dir().display()
    );
    match out.traces.last() {
        Some(t) => println!("trace: {}", t.display()),
        None if out.exit_code == Some(0) => return Err(Error::Problems(no_trace)),
        None => eprintln!("revy: {no_trace}"),
    }
    match out.exit_code {
        Some(0) => Ok(()),
        Some(c) => Err(Error::Problems(format!("the program exited with code {c}"))),
        None => Err(Error::Problems("the program was killed by a signal".into())),
    }
}
