//! `revy profile`: parse → annotate → build + run → restore (always) → analyse → report.
//!
//! Restoring is not optional: once annotation has touched the tree, the originals go back
//! whether annotation partly failed, the build or the program failed, or revy
//! got SIGINT, SIGTERM or SIGHUP (see `signals`: the signal only sets a flag; the build or
//! run child's process group is ended); revy then restores and exits with 128 + the signal.

use std::path::{Path, PathBuf};

use crate::analyse::report::Written;
use crate::error::{Error, Result};
use crate::instrument::manifest::{Manifest, Mode};
use crate::instrument::stages::{self, AnnotateReport, ParseReport};
use crate::instrument::store::RestoreSummary;
use crate::run::RunOutcome;
use crate::util::signals;

fn interrupted() -> bool {
    signals::caught().is_some()
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
    /// SIGINT, SIGTERM or SIGHUP (the signal's number): exit 128 + it.
    Interrupted(i32),
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
    let _lock = crate::instrument::lock::acquire(&m)?;
    crate::instrument::store::ensure_not_annotated(&m)?;
    if let Err(e) = signals::catch() {
        eprintln!("revy: warning: {e}; an interrupted run needs `revy restore`");
    }
    on_step(Step::Parsed(&stages::parse(&m)?));

    // Always verified when there is a build command: a profile never breaks the build.
    let (touched, annotated) = stages::annotate(&m, mode, m.build.is_some());
    if let Ok(a) = &annotated {
        on_step(Step::Annotated(a));
    }
    let run = run_annotated(&m, &annotated);
    // Always put the originals back once anything was written.
    restore_if_touched(&m, touched, on_step)?;
    annotated?;
    if let Some(sig) = signals::caught() {
        return Ok(ProfileReport::Interrupted(sig));
    }
    let outcome = match run.expect("ran after annotating") {
        Ok(o) => o,
        Err(e) => return Ok(ProfileReport::RunFailed(e)),
    };
    report_run(&m, output, outcome)
}

/// Builds (if not built while verifying) and runs the program, unless annotation failed or
/// revy was interrupted.
fn run_annotated(m: &Manifest, annotated: &Result<AnnotateReport>) -> Option<Result<RunOutcome>> {
    let mut run = None;
    if let (Ok(a), false) = (annotated, interrupted()) {
        run = Some(if a.verified_builds.is_some() {
            crate::run::run_built(m)
        } else {
            crate::run::run(m)
        });
    }
    run
}

/// Restores the sources if annotation touched them; the sources are safe after either way.
fn restore_if_touched(m: &Manifest, touched: bool, on_step: &mut dyn FnMut(Step)) -> Result<()> {
    if touched {
        match crate::instrument::store::restore(m) {
            Ok(s) => {
                signals::sources_safe();
                on_step(Step::Restored(&s))
            }
            Err(e) => {
                return Err(Error::Problems(format!(
                "{e}\nrevy: the sources are still annotated: fix the cause and run `revy restore`"
            )))
            }
        }
    } else {
        signals::sources_safe();
    }
    Ok(())
}

/// How the run ended, and its report when it wrote a trace.
fn report_run(m: &Manifest, output: Option<&Path>, outcome: RunOutcome) -> Result<ProfileReport> {
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
    let opts = crate::analyse::analysis::Options {
        manifest: Some(m.path.clone()),
        ..Default::default()
    };
    let written = crate::analyse::report::write(trace, &out, &opts)?;
    Ok(ProfileReport::Reported {
        trace: trace.clone(),
        report: out,
        written,
        failed,
    })
}
