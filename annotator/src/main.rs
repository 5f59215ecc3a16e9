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
    /// Build the result with the manifest's build command and withdraw, declaration by
    /// declaration, whatever the compiler rejects.
    #[arg(long)]
    verify: bool,
}

#[derive(Args)]
pub struct ProfileArgs {
    /// Exact message and object sizes (default: the manifest's [annotate] mode).
    #[arg(long, conflicts_with = "faster")]
    better: bool,
    /// Sampled sizes (static sizes, first element × length).
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
    /// The trace (default: the newest trace of the manifest's project).
    trace: Option<PathBuf>,
    /// The HTML file to write.
    #[arg(short, long)]
    output: PathBuf,
    /// Activity level (share of the total, 0..1) from which hints name candidates.
    #[arg(long, default_value_t = 0.10)]
    threshold: f64,
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

fn dispatch(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Init { dir, force } => cmd_init(&dir, force),
        Command::Parse => cmd_parse(&cli.manifest),
        Command::Annotate(a) => cmd_annotate(&cli.manifest, a),
        Command::Restore => cmd_restore(&cli.manifest),
        Command::Status => cmd_status(&cli.manifest),
        Command::Run => cmd_run(&cli.manifest),
        Command::Profile(args) => profile(&cli.manifest, args),
        Command::Trace {
            command: TraceCommand::Print { file },
        } => trace_print(&file),
        Command::Analyze(args) => analyze(&cli.manifest, args),
        Command::Report(args) => report(&cli.manifest, args),
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

fn report(manifest: &Path, args: ReportArgs) -> Result<u8> {
    let path = trace_or_newest(manifest, args.trace)?;
    if !(0.0..=1.0).contains(&args.threshold) {
        return Err(Error::input(
            "--threshold is a share of the total between 0 and 1 (e.g. 0.1)",
        ));
    }
    let opts = revy::analysis::Options {
        threshold_level: args.threshold,
        ..Default::default()
    };
    let w = revy::report::write(&path, &args.output, &opts)?;
    for warning in &w.warnings {
        eprintln!("revy: warning: {warning}");
    }
    println!(
        "wrote {} ({} instances, {} messages; {:.1} KiB in {:.2}s)",
        args.output.display(),
        w.instances,
        w.messages,
        w.bytes as f64 / 1024.0,
        w.seconds
    );
    Ok(0)
}

fn profile(manifest: &Path, args: ProfileArgs) -> Result<u8> {
    let mode = if args.better {
        Some(revy::manifest::Mode::Better)
    } else if args.faster {
        Some(revy::manifest::Mode::Faster)
    } else {
        None
    };
    revy::profile::profile(manifest, mode, args.output.as_deref())
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

fn cmd_init(dir: &std::path::Path, force: bool) -> Result<u8> {
    let s = revy::init::init(dir, force)?;
    println!(
        "wrote {} ({} Java and {} C++ files); check build/run, then `revy parse`",
        s.manifest.display(),
        s.java_files,
        s.cpp_files
    );
    Ok(0)
}

fn cmd_parse(manifest: &std::path::Path) -> Result<u8> {
    let m = revy::manifest::Manifest::load(manifest)?;
    let started = std::time::Instant::now();
    let timings = std::env::var_os("REVY_TIMINGS").is_some();
    let project = revy::project::load(&m)?;
    let t_parse = started.elapsed();
    let saf = revy::saf::build(&m, &project);
    let t_build = started.elapsed();
    let out = m.saf_path();
    let text = saf.to_toml();
    let t_toml = started.elapsed();
    revy::store::write_state_file(&out, text.as_bytes())?;
    if timings {
        eprintln!(
            "timings: read+parse {:?}, saf {:?}, toml {:?}, write {:?}",
            t_parse,
            t_build - t_parse,
            t_toml - t_build,
            started.elapsed() - t_toml
        );
    }
    for d in &project.diagnostics {
        eprintln!("{d}");
    }
    let methods: usize = saf.classes.iter().map(|c| c.methods.len()).sum();
    let selected: usize = saf
        .classes
        .iter()
        .flat_map(|c| &c.methods)
        .filter(|m| m.selected && m.annotatable)
        .count();
    let selected_classes = saf
        .classes
        .iter()
        .filter(|c| c.selected && c.annotatable)
        .count();
    println!(
        "parsed {} files: {} classes ({} selected), {} methods ({} selected and instrumentable) in {:.2}s",
        saf.files.len(),
        saf.classes.len(),
        selected_classes,
        methods,
        selected,
        started.elapsed().as_secs_f64()
    );
    println!("wrote {}", out.display());
    let problems = project.diagnostics.iter().filter(|d| !d.is_note()).count();
    if problems == 0 {
        Ok(0)
    } else {
        eprintln!(
            "revy: {problems} problem(s) found; the declarations they spoil are marked not annotatable"
        );
        Ok(1)
    }
}

fn cmd_annotate(manifest: &std::path::Path, a: AnnotateArgs) -> Result<u8> {
    let m = revy::manifest::Manifest::load(manifest)?;
    let mode = if a.better {
        revy::manifest::Mode::Better
    } else if a.faster {
        revy::manifest::Mode::Faster
    } else {
        m.mode
    };
    let (plan, summary) = revy::annotate::plan(&m, mode)?;
    if plan.files.is_empty() {
        return Err(Error::Problems(format!(
            "{}: nothing selected can be instrumented; check [annotate] include/exclude and `revy parse` output",
            m.path.display()
        )));
    }
    revy::store::commit(&m, &plan)?;
    let (summary, withdrawn) = if a.verify {
        let v = revy::verify::verify(&m, mode, &plan)?;
        print_withdrawn(&v.withdrawn);
        println!("verified: the build passes ({} build(s))", v.builds);
        (v.summary.unwrap_or(summary), v.withdrawn.len())
    } else {
        (summary, 0)
    };
    for n in &summary.notes {
        println!("note: {n}");
    }
    for s in &summary.skipped {
        eprintln!("skipped: {s}");
    }
    println!(
        "annotated {} files ({mode} mode): {} classes, {} methods; added {} runtime files",
        summary.files, summary.classes, summary.methods, summary.runtime_files
    );
    println!("build and run as usual (or `revy run`); `revy restore` puts the originals back");
    if summary.skipped.is_empty() && summary.parse_problems == 0 && withdrawn == 0 {
        Ok(0)
    } else {
        eprintln!(
            "revy: {} selected declarations left alone, {withdrawn} withdrawn after the build, \
             {} parse problems (see `revy parse`)",
            summary.skipped.len(),
            summary.parse_problems
        );
        Ok(1)
    }
}

/// `withdrawn: path:line: Class::method — how (compiler: first line)`, one per declaration.
fn print_withdrawn(w: &[revy::verify::Withdrawal]) {
    for x in w {
        eprintln!(
            "withdrawn: {} — {} (compiler: {})",
            x.decl, x.how, x.compiler
        );
    }
}

fn cmd_restore(manifest: &std::path::Path) -> Result<u8> {
    let m = revy::manifest::Manifest::load(manifest)?;
    let s = revy::store::restore(&m)?;
    for k in &s.kept_edits {
        println!("kept your edits in {k} (removed only Revy's insertions)");
    }
    println!(
        "restored {} files, removed {} runtime files",
        s.restored, s.runtime_removed
    );
    Ok(0)
}

fn cmd_status(manifest: &std::path::Path) -> Result<u8> {
    use revy::store::{FileState, Phase};
    let m = revy::manifest::Manifest::load(manifest)?;
    let Some((state, rows)) = revy::store::status(&m)? else {
        println!("not annotated");
        return Ok(0);
    };
    let phase = match state.phase {
        Phase::Complete => "",
        Phase::Writing => " (interrupted: run `revy restore`)",
    };
    println!("annotated, {} mode{phase}", state.mode);
    let mut edited = 0;
    for (path, st) in rows {
        let what = match st {
            FileState::Annotated => "annotated",
            FileState::Original => "original",
            FileState::EditedSince => {
                edited += 1;
                "annotated, edited since"
            }
            FileState::Missing => "missing",
        };
        println!("  {what:<24} {path}");
    }
    for r in &state.runtime {
        println!("  {:<24} {}", "runtime", r.path);
    }
    if edited > 0 {
        println!("{edited} file(s) edited since annotation: `revy restore` keeps those edits");
    }
    Ok(0)
}

fn cmd_run(manifest: &std::path::Path) -> Result<u8> {
    let m = revy::manifest::Manifest::load(manifest)?;
    let out = revy::run::run(&m)?;
    match out.traces.last() {
        Some(t) => println!("trace: {}", t.display()),
        None => eprintln!(
            "revy: the run wrote no trace in {}; is the project annotated (`revy status`)?",
            m.trace_dir().display()
        ),
    }
    match out.exit_code {
        Some(0) => Ok(if out.traces.is_empty() { 1 } else { 0 }),
        Some(c) => Err(Error::Problems(format!("the program exited with code {c}"))),
        None => Err(Error::Problems("the program was killed by a signal".into())),
    }
}
