//! `revy run`.

use revy::error::{Error, Result};

pub(crate) fn cmd_run(manifest: &std::path::Path) -> Result<()> {
    let m = revy::instrument::manifest::Manifest::load(manifest)?;
    let out = revy::run::run(&m)?;
    let dir = m.trace_dir();
    match (out.traces.as_slice(), out.failed_to_start()) {
        ([], None) => {
            return Err(Error::Problems(format!(
                "the run wrote no trace in {}; is the project annotated (`revy status`)?",
                dir.display()
            )))
        }
        ([], Some(f)) => {
            return Err(Error::Problems(format!(
                "the run wrote no trace in {}: {f}",
                dir.display()
            )))
        }
        ([one], _) => println!("trace: {}", one.display()),
        (several, _) => {
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
