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
    /// After restoring: whether the build outputs are the originals' again.
    Rebuilt(&'a Rebuild),
}

/// What became of the build outputs once the sources were restored.
pub enum Rebuild {
    /// The build command ran on the restored sources and passed.
    Done,
    /// It failed: the outputs may still be instrumented (the error says why).
    Failed(Error),
    /// `--no-rebuild`: the outputs are still instrumented.
    Skipped,
    /// No build command: whatever the user built while annotated is still instrumented.
    NoCommand,
}

/// Builds the restored sources again so no instrumented program is left behind (running
/// one writes traces and runs slower), unless told not to.
pub fn rebuild(m: &Manifest, wanted: bool) -> Rebuild {
    let Some(cmd) = m.build.as_deref() else {
        return Rebuild::NoCommand;
    };
    if !wanted {
        return Rebuild::Skipped;
    }
    match crate::instrument::build_log::build_logged(m, "rebuilding the restored sources", cmd) {
        Ok(b) if b.status.success() => Rebuild::Done,
        Ok(b) => Rebuild::Failed(b.failure(m, cmd)),
        Err(e) => Rebuild::Failed(e),
    }
}

/// How `revy profile` ended, once the sources are restored.
pub enum ProfileReport {
    /// SIGINT, SIGTERM or SIGHUP (`sig`): exit 128 + it. `build`: the manifest's build
    /// command; `outputs`: what it wrote from the annotated sources, still instrumented
    /// (`stale::written_since`).
    Interrupted {
        sig: i32,
        build: Option<String>,
        outputs: Vec<String>,
    },
    /// The build or run could not be started or waited for: exit 1.
    RunFailed(Error),
    /// The run wrote no trace (`failed` says how the program ended, if badly, with the end
    /// of its standard error): exit 1.
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
    rebuild_after: bool,
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
    let started = std::time::SystemTime::now();
    let (touched, annotated) = stages::annotate(&m, mode, m.build.is_some());
    if let Ok(a) = &annotated {
        on_step(Step::Annotated(a));
    }
    let run = run_annotated(&m, &annotated);
    // Always put the originals back once anything was written.
    restore_if_touched(&m, touched, on_step)?;
    if let Some(sig) = signals::caught() {
        // Whatever the build wrote since annotation began was built from annotated sources.
        let build = m.build.clone();
        let outputs = match build {
            Some(_) => crate::run::stale::written_since(&m, started),
            None => Vec::new(),
        };
        return Ok(ProfileReport::Interrupted {
            sig,
            build,
            outputs,
        });
    }
    if touched {
        on_step(Step::Rebuilt(&rebuild(&m, rebuild_after)));
    }
    annotated?;
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
    if outcome.traces.is_empty() {
        let dir = m.trace_dir();
        let failed = outcome.failed_to_start();
        return Ok(ProfileReport::NoTrace { dir, failed });
    }
    // Every process of the run (a client and its server, a parent and its children) wrote
    // its own trace: the report analyses them together, on one time line.
    let trace = &crate::analyse::trace::multi::join(&outcome.traces)?;
    let out: PathBuf = output.map_or_else(|| m.state_dir().join("report.html"), Path::to_path_buf);
    let opts = crate::analyse::analysis::Options {
        manifest: Some(m.path.clone()),
        events: m.events.clone(),
        remote: m.remote.clone(),
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
