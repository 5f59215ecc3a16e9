//! `revy run`.

use revy::error::{Error, Result};

pub(crate) fn cmd_run(manifest: &std::path::Path) -> Result<()> {
    let m = revy::instrument::manifest::Manifest::load(manifest)?;
    let out = revy::run::run(&m)?;
    let dir = m.trace_dir();
    match (out.traces.last(), out.failed_to_start()) {
        (Some(t), _) => println!("trace: {}", t.display()),
        (None, None) => {
            return Err(Error::Problems(format!(
                "the run wrote no trace in {}; is the project annotated (`revy status`)?",
                dir.display()
            )))
        }
        (None, Some(f)) => {
            return Err(Error::Problems(format!(
                "the run wrote no trace in {}: {f}",
                dir.display()
            )))
        }
    }
    match out.exit_code {
        Some(0) => Ok(()),
        Some(c) => Err(Error::Problems(format!("the program exited with code {c}"))),
        None => Err(Error::Problems("the program was killed by a signal".into())),
    }
}
