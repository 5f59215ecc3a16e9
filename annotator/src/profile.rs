//! `revy profile`: parse → annotate → build + run → restore (always) → analyse → report.
//!
//! Restoring is not optional: once annotation has touched the tree, the originals go back
//! whether annotation partly failed, the build or the program failed, or revy
//! got SIGINT, SIGTERM or SIGHUP (see `signals`: the signal only sets a flag; the build or
//! run child's process group is ended); revy then restores and exits with 128 + the signal.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::manifest::{Manifest, Mode};
use crate::signals;

fn interrupted() -> bool {
    signals::caught().is_some()
}

fn parse(m: &Manifest) -> Result<usize> {
    let project = crate::project::load(m)?;
    let saf = crate::saf::build(m, &project);
    crate::store::write_state_file(&m.saf_path(), saf.to_toml().as_bytes())?;
    for d in &project.diagnostics {
        eprintln!("{d}");
    }
    let methods = saf
        .classes
        .iter()
        .flat_map(|c| &c.methods)
        .filter(|x| x.selected && x.annotatable)
        .count();
    println!(
        "parsed {} files: {} classes, {} methods selected",
        saf.files.len(),
        saf.classes.len(),
        methods
    );
    Ok(project.diagnostics.iter().filter(|d| !d.is_note()).count())
}

/// Annotates; returns whether anything was written (then the caller must restore).
fn annotate(m: &Manifest, mode: Mode) -> (bool, Result<()>) {
    let (plan, summary) = match crate::annotate::plan(m, mode) {
        Ok(x) => x,
        Err(e) => return (false, Err(e)),
    };
    if plan.files.is_empty() {
        return (
            false,
            Err(Error::Problems(format!(
                "{}: nothing selected can be instrumented; check [annotate] include/exclude",
                m.path.display()
            ))),
        );
    }
    let r = crate::store::commit(m, &plan);
    // A failed commit may have written part of the plan: the journal says so.
    let touched = r.is_ok() || matches!(crate::store::load_state(m), Ok(Some(_)));
    if r.is_ok() {
        for s in &summary.skipped {
            eprintln!("skipped: {s}");
        }
        println!(
            "annotated {} files ({mode} mode): {} classes, {} methods",
            summary.files, summary.classes, summary.methods
        );
    }
    (touched, r.map(|_| ()))
}

fn restore(m: &Manifest) -> Result<()> {
    let s = crate::store::restore(m)?;
    for k in &s.kept_edits {
        println!("kept your edits in {k}");
    }
    println!(
        "restored {} files, removed {} runtime files",
        s.restored, s.runtime_removed
    );
    Ok(())
}

/// The whole loop. Returns the exit code: 0 ok, 1 the build or run failed (sources restored),
/// 128 + the signal when interrupted (sources restored).
pub fn profile(manifest: &Path, mode: Option<Mode>, output: Option<&Path>) -> Result<u8> {
    let m = Manifest::load(manifest)?;
    let mode = mode.unwrap_or(m.mode);
    let _lock = crate::lock::acquire(&m)?;
    crate::store::ensure_not_annotated(&m)?;
    if let Err(e) = signals::catch() {
        eprintln!("revy: warning: {e}; an interrupted run needs `revy restore`");
    }
    let problems = parse(&m)?;
    if problems > 0 {
        eprintln!("revy: {problems} parse problem(s); the declarations they spoil are left alone");
    }

    let (touched, annotated) = annotate(&m, mode);
    let mut run = None;
    if annotated.is_ok() && !interrupted() {
        run = Some(crate::run::run(&m));
    }
    // Always put the originals back once anything was written.
    let restored = if touched { restore(&m) } else { Ok(()) };
    if restored.is_ok() {
        signals::sources_safe();
    }
    if let Err(e) = restored {
        return Err(Error::Problems(format!(
            "{e}\nrevy: the sources are still annotated: fix the cause and run `revy restore`"
        )));
    }
    annotated?;
    if let Some(sig) = signals::caught() {
        eprintln!(
            "revy: interrupted ({}); sources restored",
            signals::name(sig)
        );
        return Ok(signals::exit_code(sig));
    }
    let outcome = match run.expect("ran after annotating") {
        Ok(o) => o,
        Err(e) => {
            eprintln!("revy: error: {e}");
            eprintln!("revy: sources restored");
            return Ok(1);
        }
    };
    let failed = match outcome.exit_code {
        Some(0) => None,
        Some(c) => Some(format!("the program exited with code {c}")),
        None => Some("the program was killed by a signal".to_string()),
    };
    let Some(trace) = outcome.traces.last() else {
        eprintln!(
            "revy: error: the run wrote no trace in {}{}",
            m.trace_dir().display(),
            failed.map(|f| format!(" ({f})")).unwrap_or_default()
        );
        return Ok(1);
    };
    let out: PathBuf = output.map_or_else(|| m.state_dir().join("report.html"), Path::to_path_buf);
    let w = crate::report::write(trace, &out, &Default::default())?;
    for warning in &w.warnings {
        eprintln!("revy: warning: {warning}");
    }
    println!("trace: {}", trace.display());
    println!("{} instances, {} messages", w.instances, w.messages);
    if let Some(h) = &w.top_hint {
        println!("top hint: {h}");
    }
    println!("report: {}", out.display());
    match failed {
        Some(f) => {
            eprintln!("revy: error: {f}; the report shows the trace up to there");
            Ok(1)
        }
        None => Ok(0),
    }
}
