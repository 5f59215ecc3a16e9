//! `revy profile`.

use std::path::{Path, PathBuf};

use clap::Args;
use revy::error::{Error, Result};

use super::annotate::{print_skipped, print_withdrawn};
use super::common::print_warnings;
use super::parse::print_diagnostics;
use super::restore::{print_rebuild, print_restored};

#[derive(Args)]
pub(crate) struct ProfileArgs {
    /// Exact message and object sizes (default: the manifest's [annotate] mode).
    #[arg(long, conflicts_with = "faster")]
    better: bool,
    /// Sampled sizes (static sizes, first element × length).
    #[arg(long)]
    faster: bool,
    /// Where to write the HTML report (default: .revy/report.html).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Leave the build outputs instrumented: do not run the build command again on the
    /// restored sources (by default it does, so no instrumented program is left behind).
    #[arg(long)]
    no_rebuild: bool,
}

pub(crate) fn cmd_profile(manifest: &Path, args: ProfileArgs) -> Result<()> {
    let mode = if args.better {
        Some(revy::instrument::manifest::Mode::Better)
    } else if args.faster {
        Some(revy::instrument::manifest::Mode::Faster)
    } else {
        None
    };
    let report = revy::run::profile::profile(
        manifest,
        mode,
        args.output.as_deref(),
        !args.no_rebuild,
        &mut print_step,
    )?;
    profile_outcome(report)
}

/// What `revy profile` says after each step, as the single commands would.
pub(crate) fn print_step(step: revy::run::profile::Step) {
    use revy::run::profile::Step;
    match step {
        Step::Parsed(p) => {
            print_diagnostics(p);
            println!(
                "parsed {} files: {} classes, {} methods selected",
                p.files, p.classes, p.selected_methods
            );
            let problems = p.problems();
            if problems > 0 {
                eprintln!(
                    "revy: {problems} parse problem(s); the declarations they spoil are left alone"
                );
            }
        }
        Step::Annotated(a) => {
            print_withdrawn(&a.withdrawn);
            print_skipped(&a.summary);
            let s = &a.summary;
            println!(
                "annotated {} files ({} mode): {} classes, {} methods",
                s.files, a.mode, s.classes, s.methods
            );
        }
        Step::Restored(r) => print_restored(r, "kept your edits in {}"),
        Step::Rebuilt(r) => print_rebuild(r),
    }
}

/// After Ctrl-C: which build outputs are still instrumented and what to do about them
/// (the sources are restored; the error line says so).
fn print_interrupted(build: Option<&str>, outputs: &[String]) {
    let Some(build) = build else {
        eprintln!("revy: the manifest has no build command: anything you built from the annotated sources is instrumented; build it again");
        return;
    };
    if outputs.is_empty() {
        eprintln!(
            "revy: no build output in the project was written from the annotated sources; \
             if `{build}` writes outside it, run it again before using those"
        );
        return;
    }
    eprintln!("revy: the build outputs are STILL INSTRUMENTED (built from the annotated sources before the interruption):");
    for o in outputs {
        eprintln!("revy:   {o}");
    }
    eprintln!(
        "revy: running them writes traces and is slower: rebuild them from the restored sources with `{build}` (or run `revy profile` again)"
    );
}

/// The run's and report's outcome of `revy profile`, or why there is none.
pub(crate) fn profile_outcome(report: revy::run::profile::ProfileReport) -> Result<()> {
    use revy::run::profile::ProfileReport;
    match report {
        ProfileReport::Interrupted {
            sig,
            build,
            outputs,
        } => {
            print_interrupted(build.as_deref(), &outputs);
            Err(Error::Interrupted(sig))
        }
        ProfileReport::RunFailed(e) => Err(Error::Problems(format!("{e}\nrevy: sources restored"))),
        ProfileReport::NoTrace { dir, failed } => Err(Error::Problems(match failed {
            Some(f) => format!("the run wrote no trace in {}: {f}", dir.display()),
            None => format!("the run wrote no trace in {}", dir.display()),
        })),
        ProfileReport::Reported {
            trace,
            report,
            written,
            failed,
        } => {
            print_warnings(&written.warnings);
            // A run of several processes has a trace each, analysed together.
            match revy::analyse::trace::multi::set_members(&trace) {
                Ok(Some(files)) => files
                    .iter()
                    .for_each(|f| println!("trace: {}", f.display())),
                _ => println!("trace: {}", trace.display()),
            }
            println!(
                "{} instances, {} messages",
                written.instances, written.messages
            );
            if let Some(h) = &written.top_hint {
                println!("{h}"); // "top proposal: …" or "top hint: …"
            }
            println!("report: {}", report.display());
            match failed {
                Some(f) => Err(Error::Problems(format!(
                    "{f}; the report shows the trace up to there"
                ))),
                None => Ok(()),
            }
        }
    }
}
