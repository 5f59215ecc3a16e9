//! The `revy` command line, one file per subcommand: parses arguments, calls the library stages, and turns their
//! typed errors into one-line messages and exit codes (0 ok, 1 problems found, 2 bad input).

mod analyze;
mod annotate;
mod common;
mod estimate;
mod export;
mod init;
mod machine;
mod parse;
mod profile;
mod report;
mod restore;
mod run;
mod status;
mod trace;
mod whatif;

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use revy::error::Result;

use analyze::{cmd_analyze, AnalyzeArgs};
use annotate::{cmd_annotate, AnnotateArgs};
use estimate::{cmd_estimate, EstimateArgs};
use export::{cmd_export, ExportArgs};
use init::cmd_init;
use parse::cmd_parse;
use profile::{cmd_profile, ProfileArgs};
use report::{cmd_report, ReportArgs};
use restore::cmd_restore;
use run::cmd_run;
use status::cmd_status;
use trace::{cmd_trace_print, TraceCommand};
use whatif::{cmd_whatif, WhatifArgs};

#[derive(Parser)]
#[command(
    name = "revy",
    version,
    about = "Granularity profiler for Java and C++ programs"
)]
pub(crate) struct Cli {
    /// The project manifest.
    #[arg(short, long, global = true, default_value = "revy.toml")]
    manifest: PathBuf,
    /// Read traces of different runs (their headers' run= differ) as one run; without it
    /// such a set of traces is refused.
    #[arg(long, global = true)]
    merge_runs: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Write a starter manifest (revy.toml, or the -m file) for the Java/C++ sources under
    /// DIR, with build and run commands read from its Make, CMake, Meson, Maven, Gradle or Ant
    /// files (or a plain compiler command).
    Init {
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// Overwrite an existing manifest.
        #[arg(long)]
        force: bool,
    },
    /// Parse all sources and write the static artifacts file (SAF).
    Parse,
    /// Instrument the selection recorded in the SAF (backs up the originals first).
    Annotate(AnnotateArgs),
    /// Put every original source back, byte for byte, then run the build command again so
    /// no instrumented program is left behind.
    Restore {
        /// Do not rebuild: the build outputs stay instrumented.
        #[arg(long)]
        no_rebuild: bool,
    },
    /// Show which files are annotated, in which mode, and whether they were edited since.
    Status,
    /// Run the manifest's build, then run command, with tracing on.
    Run,
    /// Parse, annotate, run, restore (always), analyse and report in one go.
    Profile(ProfileArgs),
    /// Work with trace files.
    Trace {
        #[command(subcommand)]
        command: TraceCommand,
    },
    /// Object call graph statistics and parallelisation hints.
    Analyze(AnalyzeArgs),
    /// Predict the run time if classes, instances or methods became active objects.
    Whatif(WhatifArgs),
    /// Write the self-contained HTML report.
    Report(ReportArgs),
    /// Export to Chrome trace JSON, Perfetto's protobuf trace, Graphviz DOT, folded stacks
    /// or Parquet tables.
    Export(ExportArgs),
    /// Predict a full run's trace size and probe cost per method from a short run's traces.
    Estimate(EstimateArgs),
}

pub(crate) fn dispatch(cli: Cli) -> Result<()> {
    revy::analyse::trace::multi::merge_runs(cli.merge_runs);
    match cli.command {
        Command::Init { dir, force } => {
            let given = (cli.manifest != std::path::Path::new("revy.toml"))
                .then_some(cli.manifest.as_path());
            cmd_init(&dir, given, force)
        }
        Command::Parse => cmd_parse(&cli.manifest),
        Command::Annotate(a) => cmd_annotate(&cli.manifest, a),
        Command::Restore { no_rebuild } => cmd_restore(&cli.manifest, !no_rebuild),
        Command::Status => cmd_status(&cli.manifest),
        Command::Run => cmd_run(&cli.manifest),
        Command::Profile(args) => cmd_profile(&cli.manifest, args),
        Command::Trace {
            command: TraceCommand::Print { files },
        } => cmd_trace_print(&revy::analyse::trace::multi::join(&common::spooled(
            &files,
        )?)?),
        Command::Analyze(args) => cmd_analyze(&cli.manifest, args),
        Command::Whatif(args) => cmd_whatif(&cli.manifest, args),
        Command::Report(args) => cmd_report(&cli.manifest, args),
        Command::Export(args) => cmd_export(&cli.manifest, args),
        Command::Estimate(args) => cmd_estimate(&cli.manifest, args),
    }
}
