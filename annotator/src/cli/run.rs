//! `revy run`.

use revy::error::{Error, Result};

pub(crate) fn cmd_run(manifest: &std::path::Path) -> Result<()> {
    let m = revy::instrument::manifest::Manifest::load(manifest)?;
    let out = revy::run::run(&m)?;
    let no_trace = format!(
        "the run wrote no trace in {}; is the project annotated (`revy status`)?",
        m.trace_dir().display()
    );
    match out.traces.as_slice() {
        [] if out.exit_code == Some(0) => return Err(Error::Problems(no_trace)),
        [] => eprintln!("revy: {no_trace}"),
        [one] => println!("trace: {}", one.display()),
        several => {
            // One trace per process: name them all, and how to read them as one run.
            for t in several {
                println!("trace: {}", t.display());
            }
            let list: Vec<String> = several.iter().map(|t| shell_word(t)).collect();
            println!(
                "{} processes wrote traces; analyse them together: revy analyze {}",
                several.len(),
                list.join(" ")
            );
        }
    }
    match out.exit_code {
        Some(0) => Ok(()),
        Some(c) => Err(Error::Problems(format!("the program exited with code {c}"))),
        None => Err(Error::Problems("the program was killed by a signal".into())),
    }
}

/// A path as one word a POSIX shell reads back unchanged.
fn shell_word(p: &std::path::Path) -> String {
    let s = p.display().to_string();
    if s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-+:,@".contains(&b))
    {
        s
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}
