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

/// Annotates and verifies the build (withdrawing what the compiler rejects); returns whether
/// anything is written (then the caller must restore) and whether the tree is built.
fn annotate(m: &Manifest, mode: Mode) -> (bool, Result<bool>) {
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
    if let Err(e) = r {
        return (touched, Err(e));
    }
    // Always verified: a failed verification has already restored the originals.
    let (summary, built) = match m.build.as_deref() {
        None => (summary, false),
        Some(_) => match crate::verify::verify(m, mode, &plan) {
            Ok(v) => {
                for x in &v.withdrawn {
                    eprintln!(
                        "withdrawn: {} — {} (compiler: {})",
                        x.decl, x.how, x.compiler
                    );
                }
                (v.summary.unwrap_or(summary), true)
            }
            Err(e) => {
                let still = matches!(crate::store::load_state(m), Ok(Some(_)));
                return (still, Err(e));
            }
        },
    };
    for s in &summary.skipped {
        eprintln!("skipped: {s}");
    }
    println!(
        "annotated {} files ({mode} mode): {} classes, {} methods",
        summary.files, summary.classes, summary.methods
    );
    (touched, Ok(built))
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
/// 130 interrupted (sources restored).
pub fn profile(manifest: &Path, mode: Option<Mode>, output: Option<&Path>) -> Result<u8> {
    let m = Manifest::load(manifest)?;
    let mode = mode.unwrap_or(m.mode);
    crate::store::ensure_not_annotated(&m)?;
    catch_ctrl_c();
    let problems = parse(&m)?;
    if problems > 0 {
        eprintln!("revy: {problems} parse problem(s); the declarations they spoil are left alone");
    }

    let (touched, annotated) = annotate(&m, mode);
    let mut run = None;
    if let (Ok(built), false) = (&annotated, interrupted()) {
        run = Some(if *built {
            crate::run::run_built(&m)
        } else {
            crate::run::run(&m)
        });
    }
    // Always put the originals back once anything was written.
    let restored = if touched { restore(&m) } else { Ok(()) };
    if let Err(e) = restored {
        return Err(Error::Problems(format!(
            "{e}\nrevy: the sources are still annotated: fix the cause and run `revy restore`"
        )));
    }
    annotated?;
    if interrupted() {
        eprintln!("revy: interrupted; sources restored");
        return Ok(EXIT_INTERRUPTED);
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
