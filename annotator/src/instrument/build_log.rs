//! Running the manifest's build command with its output kept in `.revy/build.log`, the step
//! and its time shown (`revy annotate --verify`, `revy run`, `revy profile`'s rebuild).

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::error::{Error, Result};
use crate::instrument::manifest::Manifest;

/// A build's outcome; its whole output is in `log_path` (`.revy/build.log`).
#[derive(Debug)]
pub struct Built {
    pub status: std::process::ExitStatus,
    pub log: String,
    pub log_path: PathBuf,
}

impl Built {
    /// The error for a failed build: the command, its last lines and where the rest is.
    pub fn failure(&self, m: &Manifest, cmd: &str) -> Error {
        let lines: Vec<&str> = self.log.lines().filter(|l| !l.trim().is_empty()).collect();
        let tail = lines[lines.len().saturating_sub(20)..].join("\n  ");
        Error::Problems(format!(
            "{}: the build command failed ({}): `{cmd}`; its last lines:\n  {tail}\n(whole output: {})",
            m.path.display(),
            self.status,
            self.log_path.display()
        ))
    }
}

/// Runs a build command in the manifest folder with its output captured in
/// `.revy/build.log`, showing the step and its time (`what`: "building").
pub fn build_logged(m: &Manifest, what: &str, cmd: &str) -> Result<Built> {
    let dir = m.state_dir();
    let log_path = dir.join("build.log");
    let file = std::fs::create_dir_all(&dir)
        .and_then(|_| std::fs::File::create(&log_path))
        .map_err(|e| Error::io(&log_path, e))?;
    let err = file.try_clone().map_err(|e| Error::io(&log_path, e))?;
    let mut c = Command::new("sh");
    c.arg("-c").arg(cmd).current_dir(&m.root);
    c.stdin(Stdio::null()).stdout(file).stderr(err);
    let label = format!(
        "{what} with `{}`",
        crate::util::progress::short_command(cmd)
    );
    let step = crate::util::progress::Step::start(label, true);
    let st = crate::util::signals::status(&mut c).map_err(|e| {
        Error::input(format!(
            "{}: cannot start the build command `{cmd}`: {e}",
            m.path.display()
        ))
    });
    step.finish(&match &st {
        Ok(s) if s.success() => "done".to_string(),
        Ok(s) => format!("failed ({s})"),
        Err(_) => "not started".to_string(),
    });
    let status = st?;
    let bytes = std::fs::read(&log_path).unwrap_or_default();
    Ok(Built {
        status,
        log: String::from_utf8_lossy(&bytes).into_owned(),
        log_path,
    })
}
