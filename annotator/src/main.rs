//! The `revy` command line: parses arguments, calls the library stages, and turns their
//! typed errors into one-line messages and exit codes (0 ok, 1 problems found, 2 bad input).

use std::path::{Path, PathBuf};
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
    /// Activity level (share of the total, 0..1) from which hints name candidates.
    #[arg(long, default_value_t = 0.10)]
    threshold: f64,
    /// Or an absolute active time, in the trace's unit, from which they do.
    #[arg(long)]
    min_time: Option<u64>,
    /// How many messages keep full detail (the most active by aggregate time).
    #[arg(long, default_value_t = 100_000)]
    detail_cap: usize,
    /// Rows per table in the text summary.
    #[arg(long, default_value_t = 15)]
    top: usize,
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
        Command::Trace {
            command: TraceCommand::Print { file },
        } => trace_print(&file),
        Command::Analyze(args) => analyze(&cli.manifest, args),
        Command::Report(_) => not_yet("report"),
        Command::Export(args) => export(&cli.manifest, args),
    }
}

/// The trace named on the command line, else the newest file in the manifest's trace folder.
fn trace_or_newest(manifest: &Path, trace: Option<PathBuf>) -> Result<PathBuf> {
    if let Some(t) = trace {
        return Ok(t);
    }
    let m = revy::manifest::Manifest::load(manifest)?;
    let dir = m.trace_dir();
    let newest = std::fs::read_dir(&dir)
        .ok()
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let md = e.metadata().ok()?;
            md.is_file().then(|| (md.modified().ok(), e.path()))
        })
        .max();
    newest.map(|(_, p)| p).ok_or_else(|| {
        Error::input(format!(
            "no trace in {}; run `revy run` first (or name a trace file)",
            dir.display()
        ))
    })
}

fn trace_print(file: &Path) -> Result<u8> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let status = match revy::trace::print_as_text(file, &mut out) {
        // A closed pipe (`| head`) is the reader's choice, not an error.
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => {
            return Ok(0)
        }
        r => r?,
    };
    drop(out);
    for w in &status.warnings {
        eprintln!("revy: warning: {w}");
    }
    Ok(0)
}

fn analyze(manifest: &Path, args: AnalyzeArgs) -> Result<u8> {
    let path = trace_or_newest(manifest, args.trace)?;
    if !(0.0..=1.0).contains(&args.threshold) {
        return Err(Error::input(
            "--threshold is a share of the total between 0 and 1 (e.g. 0.1)",
        ));
    }
    let opts = revy::analysis::Options {
        detail_cap: args.detail_cap,
        threshold_level: args.threshold,
        threshold_time: args.min_time,
        ..Default::default()
    };
    let a = revy::analysis::analyze_path_with(&path, &opts, &mut progress())?;
    clear_progress();
    match args.format {
        OutputFormat::Text => print!("{}", revy::analysis::render::text(&a, args.top)),
        OutputFormat::Json => {
            let json = serde_json::to_string_pretty(&a).map_err(|e| Error::input(e.to_string()))?;
            println!("{json}");
            for w in &a.trace.warnings {
                eprintln!("revy: warning: {w}");
            }
        }
    }
    Ok(0)
}

fn export(manifest: &Path, args: ExportArgs) -> Result<u8> {
    if args.chrome.is_none() && args.dot.is_none() && args.folded.is_none() {
        return Err(Error::input(
            "say what to export: --chrome F.json, --dot F.dot and/or --folded F.txt",
        ));
    }
    let path = trace_or_newest(manifest, args.trace)?;
    let targets = revy::export::Targets {
        chrome: args.chrome,
        dot: args.dot,
        folded: args.folded,
    };
    let done = revy::export::export(&path, &targets)?;
    for w in &done.warnings {
        eprintln!("revy: warning: {w}");
    }
    for (what, file) in &done.written {
        eprintln!("revy: wrote {what} to {}", file.display());
    }
    Ok(0)
}

/// Progress on a terminal (quiet otherwise): percentage of the trace read.
fn progress() -> impl FnMut(u64, u64) {
    use std::io::IsTerminal;
    let tty = std::io::stderr().is_terminal();
    move |done, total| {
        if tty && total > 0 {
            eprint!("\rrevy: reading trace {:>3}%", done * 100 / total);
        }
    }
}

fn clear_progress() {
    use std::io::IsTerminal;
    if std::io::stderr().is_terminal() {
        eprint!("\r\x1b[K");
    }
}
