//! The `revy` command line: parses arguments, calls the library stages, and turns their
//! typed errors into one-line messages and exit codes (0 ok, 1 problems found, 2 bad input).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use revy::error::{Error, Result};

#[derive(Parser)]
#[command(
    name = "revy",
    version,
    about = "Granularity profiler for Java and C++ programs"
)]
struct Cli {
    /// The project manifest.
    #[arg(short, long, global = true, default_value = "revy.toml")]
    manifest: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write a starter revy.toml for the Java/C++ sources under DIR.
    Init {
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// Overwrite an existing revy.toml.
        #[arg(long)]
        force: bool,
    },
    /// Parse all sources and write the static artifacts file (SAF).
    Parse,
    /// Instrument the selection recorded in the SAF (backs up the originals first).
    Annotate(AnnotateArgs),
    /// Put every original source back, byte for byte.
    Restore,
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
    /// Write the self-contained HTML report.
    Report(ReportArgs),
    /// Export to Chrome trace JSON (Perfetto), Graphviz DOT, or folded stacks.
    Export(ExportArgs),
}

#[derive(Args)]
struct AnnotateArgs {
    /// Exact message and object sizes (walks arguments at run time).
    #[arg(long, conflicts_with = "faster")]
    better: bool,
    /// Sampled sizes (static sizes, first element × length).
    #[arg(long)]
    faster: bool,
}

#[derive(Args)]
pub struct ProfileArgs {
    #[arg(long, conflicts_with = "faster")]
    better: bool,
    #[arg(long)]
    faster: bool,
    /// Where to write the HTML report (default: .revy/report.html).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

#[derive(Subcommand)]
enum TraceCommand {
    /// Print any trace (text or compact) as text DTF lines.
    Print { file: PathBuf },
}

#[derive(Args)]
struct AnalyzeArgs {
    /// The trace (default: the newest trace of the manifest's project).
    trace: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    format: OutputFormat,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum OutputFormat {
    Text,
    Json,
}

#[derive(Args)]
struct ReportArgs {
    trace: Option<PathBuf>,
    #[arg(short, long)]
    output: PathBuf,
}

#[derive(Args)]
struct ExportArgs {
    trace: Option<PathBuf>,
    #[arg(long)]
    chrome: Option<PathBuf>,
    #[arg(long)]
    dot: Option<PathBuf>,
    #[arg(long)]
    folded: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("revy: error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

fn not_yet(what: &str) -> Result<u8> {
    Err(Error::input(format!(
        "`revy {what}` is not available in this build yet"
    )))
}

fn dispatch(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Init { .. } => not_yet("init"),
        Command::Parse => not_yet("parse"),
        Command::Annotate(_) => not_yet("annotate"),
        Command::Restore => not_yet("restore"),
        Command::Status => not_yet("status"),
        Command::Run => not_yet("run"),
        Command::Profile(_) => not_yet("profile"),
        Command::Trace { .. } => not_yet("trace"),
        Command::Analyze(_) => not_yet("analyze"),
        Command::Report(_) => not_yet("report"),
        Command::Export(_) => not_yet("export"),
    }
}
