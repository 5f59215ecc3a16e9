//! `revy profile`: parse → annotate → build + run → restore (always) → analyse → report.
//!
//! Restoring is not optional: once annotation has touched the tree, the originals go back
//! whether annotation partly failed, the build or the program failed, or the user pressed
//! Ctrl-C. While the program runs, SIGINT only sets a flag in revy (the child, in the same
//! process group, gets the signal from the terminal and decides for itself); revy then
//! restores and stops.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::{Error, Result};
use crate::manifest::{Manifest, Mode};
use crate::report::Written;
use crate::stages::{self, AnnotateReport, ParseReport};
use crate::store::RestoreSummary;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Exit code after Ctrl-C (128 + SIGINT), as shells report it.
pub const EXIT_INTERRUPTED: u8 = 130;

fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Installs the SIGINT handler (once per process). A handler, not SIG_IGN: an ignored
/// disposition would be inherited by the child, a handler is reset on exec.
fn catch_ctrl_c() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if let Err(e) = ctrlc::set_handler(|| {
            if INTERRUPTED.swap(true, Ordering::SeqCst) {
                eprintln!("revy: interrupted again; still restoring the sources");
            } else {
                eprintln!("revy: interrupted; restoring the sources");
            }
        }) {
            eprintln!(
                "revy: warning: cannot catch Ctrl-C ({e}); an interrupted run needs `revy restore`"
            );
        }
    });
}

/// A stage of `revy profile` that finished, reported as it happens (the program's own
/// output comes between them).
pub enum Step<'a> {
    Parsed(&'a ParseReport),
    Annotated(&'a AnnotateReport),
    Restored(&'a RestoreSummary),
}

/// How `revy profile` ended, once the sources are restored.
pub enum ProfileReport {
    /// Ctrl-C: exit 130.
    Interrupted,
    /// The build or run could not be started or waited for: exit 1.
    RunFailed(Error),
    /// The run wrote no trace (`failed` says how the program ended, if badly): exit 1.
    NoTrace {
        dir: PathBuf,
        failed: Option<String>,
    },
    /// The report was written; exit 1 if the program failed (`failed`), else 0.
    Reported {
        trace: PathBuf,
        report: PathBuf,
        written: Written,
        failed: Option<String>,
    },
}

/// The whole loop; `on_step` hears of each stage as it finishes. Errors before anything
/// was written, and a failed restore, are `Err`.
pub fn profile(
    manifest: &Path,
    mode: Option<Mode>,
    output: Option<&Path>,
    on_step: &mut dyn FnMut(Step),
) -> Result<ProfileReport> {
    let m = Manifest::load(manifest)?;
    let mode = mode.unwrap_or(m.mode);
    crate::store::ensure_not_annotated(&m)?;
    catch_ctrl_c();
    on_step(Step::Parsed(&stages::parse(&m)?));

    let (touched, annotated) = stages::annotate(&m, mode);
    if let Ok(a) = &annotated {
        on_step(Step::Annotated(a));
    }
    let mut run = None;
    if annotated.is_ok() && !interrupted() {
        run = Some(crate::run::run(&m));
    }
    // Always put the originals back once anything was written.
    if touched {
        match crate::store::restore(&m) {
            Ok(s) => on_step(Step::Restored(&s)),
            Err(e) => {
                return Err(Error::Problems(format!(
                "{e}\nrevy: the sources are still annotated: fix the cause and run `revy restore`"
            )))
            }
        }
    }
    annotated?;
    if interrupted() {
        return Ok(ProfileReport::Interrupted);
    }
    let outcome = match run.expect("ran after annotating") {
        Ok(o) => o,
        Err(e) => return Ok(ProfileReport::RunFailed(e)),
    };
    let failed = match outcome.exit_code {
        Some(0) => None,
        Some(c) => Some(format!("the program exited with code {c}")),
        None => Some("the program was killed by a signal".to_string()),
    };
    let Some(trace) = outcome.traces.last() else {
        let dir = m.trace_dir();
        return Ok(ProfileReport::NoTrace { dir, failed });
    };
    let out: PathBuf = output.map_or_else(|| m.state_dir().join("report.html"), Path::to_path_buf);
    let written = crate::report::write(trace, &out, &Default::default())?;
    Ok(ProfileReport::Reported {
        trace: trace.clone(),
        report: out,
        written,
        failed,
    })
}
