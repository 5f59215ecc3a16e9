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
    /// Predict the run time if classes, instances or methods became active objects.
    Whatif(WhatifArgs),
    /// Write the self-contained HTML report.
    Report(ReportArgs),
    /// Export to Chrome trace JSON (Perfetto), Graphviz DOT, or folded stacks.
    Export(ExportArgs),
    /// Predict a full run's trace size and probe cost per method from a short run's traces.
    Estimate(EstimateArgs),
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
    /// Print any trace (text or compact) as text DTF lines; several traces of one run (or a
    /// folder of them) print merged on one time line.
    Print {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

#[derive(Args)]
struct AnalyzeArgs {
    /// The trace, or several traces of one run or a folder of them (default: the newest trace
    /// of the manifest's project).
    traces: Vec<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    format: OutputFormat,
    /// Activity level (share of the total, 0..1) from which hints name candidates.
    #[arg(long, default_value_t = 0.10)]
    threshold: f64,
    /// Or an absolute active time, in the trace's unit, from which they do.
    #[arg(long)]
    min_time: Option<u64>,
    /// How many messages, instances and edges the JSON lists (the most active ones)
    #[arg(long, default_value_t = 100_000)]
    detail_cap: usize,
    /// Rows per table in the text summary.
    #[arg(long, default_value_t = 15)]
    top: usize,
    /// Statistics and observations only: no replay of the candidates (on a whole run's
    /// trace the replays read it again and take most of the time).
    #[arg(long)]
    no_proposals: bool,
    #[command(flatten)]
    replay: ReplayArgs,
}

/// The machine model the proposals (`analyze`) and `whatif` replay on.
#[derive(Args)]
struct ReplayArgs {
    /// Cores of the machine to predict for (default: this machine's).
    #[arg(long)]
    cores: Option<usize>,
    /// Wake-up delay of a cross-thread message, e.g. `5us` (default: measured on this machine).
    #[arg(long)]
    handoff: Option<String>,
    /// CPU a sender spends posting an asynchronous message, e.g. `200ns` (default:
    /// measured, at most the handoff).
    #[arg(long)]
    enqueue: Option<String>,
    /// Keep the probe cost in the times.
    #[arg(long)]
    no_compensate: bool,
    /// Subtract this probe cost per message, in ns (default: the trace header's, at most
    /// the shortest message's net time).
    #[arg(long, conflicts_with = "no_compensate")]
    probe_ns: Option<f64>,
}

impl ReplayArgs {
    /// Analysis options with this machine model (the rest default).
    /// The analysis options; `manifest`'s SAF is used when none is beside the trace.
    fn options(&self, manifest: &Path) -> Result<revy::analysis::Options> {
        if self.cores == Some(0) {
            return Err(Error::input("--cores must be at least 1"));
        }
        let ns = |opt: &str, d: &Option<String>| {
            let parse = |d: &str| {
                revy::whatif::parse_duration_ns(d).map_err(|e| Error::input(format!("--{opt} {e}")))
            };
            d.as_deref().map(parse).transpose()
        };
        if self.probe_ns.is_some_and(|p| !p.is_finite() || p < 0.0) {
            return Err(Error::input("--probe-ns must be a number of ns, 0 or more"));
        }
        Ok(revy::analysis::Options {
            compensate: !self.no_compensate,
            probe_ns: self.probe_ns,
            cores: self.cores,
            handoff_ns: ns("handoff", &self.handoff)?,
            enqueue_ns: ns("enqueue", &self.enqueue)?,
            manifest: manifest.is_file().then(|| manifest.to_path_buf()),
            ..Default::default()
        })
    }
}

#[derive(Args)]
struct WhatifArgs {
    /// The traces of one run (default: the newest trace of the manifest's project).
    traces: Vec<PathBuf>,
    /// What becomes active: `pkg.Class`, `ns::Class`, `Class#ID`, `Class.method`, `*.get*`.
    #[arg(long, required = true, num_args = 1..)]
    active: Vec<String>,
    #[command(flatten)]
    replay: ReplayArgs,
    /// Place the active objects on another machine this far away, e.g. `100us`.
    #[arg(long)]
    latency: Option<String>,
    /// Bytes per second to that machine, e.g. `100MB/s`.
    #[arg(long)]
    bandwidth: Option<String>,
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
    /// The trace, or several traces of one run or a folder of them (default: the newest trace
    /// of the manifest's project).
    traces: Vec<PathBuf>,
    /// The HTML file to write.
    #[arg(short, long)]
    output: PathBuf,
    /// Activity level (share of the total, 0..1) from which hints name candidates.
    #[arg(long, default_value_t = 0.10)]
    threshold: f64,
    /// Or an absolute active time, in the trace's unit, from which they do.
    #[arg(long)]
    min_time: Option<u64>,
    /// An older trace to show side by side (did the change pay?).
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// The proposals' predictions, as `analyze` makes them.
    #[command(flatten)]
    replay: ReplayArgs,
}

#[derive(Args)]
struct ExportArgs {
    /// The trace, or several traces of one run or a folder of them (default: the newest).
    traces: Vec<PathBuf>,
    #[arg(long)]
    chrome: Option<PathBuf>,
    /// Perfetto's native protobuf trace (every message; one track per thread).
    #[arg(long)]
    perfetto: Option<PathBuf>,
    #[arg(long)]
    dot: Option<PathBuf>,
    #[arg(long)]
    folded: Option<PathBuf>,
    /// Folded frames name instances (`Class#oid.method`) instead of `Class.method`.
    #[arg(long)]
    by_instance: bool,
    /// Chrome, DOT, folded: drop messages shorter than this (trace units).
    #[arg(long, default_value_t = 0)]
    min_time: u64,
    /// Chrome, DOT, folded: keep messages that end at or after this time (trace units).
    #[arg(long)]
    from: Option<u64>,
    /// Chrome, DOT, folded: keep messages that start at or before this time (trace units).
    #[arg(long)]
    to: Option<u64>,
    /// Chrome: the N longest messages; DOT: the N edges with most net time; folded: the N
    /// heaviest stacks.
    #[arg(long)]
    top: Option<usize>,
    /// A folder for Parquet tables (messages, instances, methods, threads); see docs/parquet.md.
    #[arg(long)]
    parquet: Option<PathBuf>,
}

#[derive(Args)]
struct EstimateArgs {
    /// Trace files or folders (default: the newest trace of the manifest's project).
    traces: Vec<PathBuf>,
    /// The full run is this many times the traced one.
    #[arg(long, conflicts_with = "full_secs")]
    scale: Option<f64>,
    /// Or: the full run lasts this many seconds (scale = this / traced span).
    #[arg(long)]
    full_secs: Option<f64>,
    /// Trace size to stay under (e.g. 1GiB): prints the exclude lines that get there.
    #[arg(long)]
    budget: Option<String>,
    /// Per-call probe cost in ns (default: the measured one for the trace's language).
    #[arg(long)]
    probe_ns: Option<f64>,
    /// Throttle rule: more calls than this in the full run ... (default: the manifest's
    /// `[trace] throttle_calls`, else 100000)
    #[arg(long)]
    throttle_calls: Option<u64>,
    /// ... averaging under this many microseconds (default: `[trace] throttle_us`, else 10).
    #[arg(long)]
    throttle_us: Option<f64>,
    #[arg(long, value_enum, default_value = "text")]
    format: OutputFormat,
    /// Rows in the text summary.
    #[arg(long, default_value_t = 20)]
    top: usize,
}

fn cmd_estimate(manifest: &Path, args: EstimateArgs) -> Result<()> {
    use revy::estimate as est;
    let traces = if args.traces.is_empty() {
        vec![trace_or_newest(manifest, Vec::new())?]
    } else {
        est::expand(&args.traces)?
    };
    // The manifest's `[trace]` rule when there is a manifest (its errors are reported).
    let rule = if manifest.exists() {
        revy::manifest::Manifest::load(manifest)?
            .trace_throttle
            .unwrap_or_default()
    } else {
        revy::manifest::Throttle::default()
    };
    let opts = est::Options {
        scale: args.scale,
        full_secs: args.full_secs,
        budget: args.budget.as_deref().map(est::parse_budget).transpose()?,
        probe_ns: args.probe_ns,
        throttle_calls: args.throttle_calls.unwrap_or(rule.calls),
        throttle_us: args.throttle_us.unwrap_or(rule.us),
    };
    let e = est::estimate(&traces, &opts)?;
    match args.format {
        OutputFormat::Text => stdout_quiet(&est::render(&e, args.top))?,
        OutputFormat::Json => {
            let json = serde_json::to_string_pretty(&e).map_err(|e| Error::input(e.to_string()))?;
            stdout_quiet(&format!("{json}\n"))?;
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Every failure, "problems found" included, is an `Err`; its kind is the exit code.
    match dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("revy: error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

fn dispatch(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Init { dir, force } => cmd_init(&dir, force),
        Command::Parse => cmd_parse(&cli.manifest),
        Command::Annotate(a) => cmd_annotate(&cli.manifest, a),
        Command::Restore => cmd_restore(&cli.manifest),
        Command::Status => cmd_status(&cli.manifest),
        Command::Run => cmd_run(&cli.manifest),
        Command::Profile(args) => cmd_profile(&cli.manifest, args),
        Command::Trace {
            command: TraceCommand::Print { files },
        } => cmd_trace_print(&revy::trace::multi::join(&files)?),
        Command::Analyze(args) => cmd_analyze(&cli.manifest, args),
        Command::Whatif(args) => cmd_whatif(&cli.manifest, args),
        Command::Report(args) => cmd_report(&cli.manifest, args),
        Command::Export(args) => cmd_export(&cli.manifest, args),
        Command::Estimate(args) => cmd_estimate(&cli.manifest, args),
    }
}

/// The traces named on the command line (several as one trace set), else the newest trace
/// (`*.rvt`, `*.dtf`) in the manifest's trace folder.
fn trace_or_newest(manifest: &Path, traces: Vec<PathBuf>) -> Result<PathBuf> {
    if !traces.is_empty() {
        return revy::trace::multi::join(&traces);
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
            let p = e.path();
            (md.is_file() && revy::trace::is_trace_file(&p)).then(|| (md.modified().ok(), p))
        })
        .max();
    newest.map(|(_, p)| p).ok_or_else(|| {
        Error::input(format!(
            "no trace in {}; run `revy run` first (or name a trace file)",
            dir.display()
        ))
    })
}

fn cmd_trace_print(file: &Path) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let status = match revy::trace::print_as_text(file, &mut out) {
        // A closed pipe (`| head`) is the reader's choice, not an error.
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => {
            return Ok(())
        }
        r => r?,
    };
    drop(out);
    print_warnings(&status.warnings);
    Ok(())
}

fn cmd_analyze(manifest: &Path, args: AnalyzeArgs) -> Result<()> {
    let path = trace_or_newest(manifest, args.traces)?;
    if !(0.0..=1.0).contains(&args.threshold) {
        return Err(Error::input(
            "--threshold is a share of the total between 0 and 1 (e.g. 0.1)",
        ));
    }
    let opts = revy::analysis::Options {
        detail_cap: args.detail_cap,
        threshold_level: args.threshold,
        threshold_time: args.min_time,
        proposals: !args.no_proposals,
        ..args.replay.options(manifest)?
    };
    let mut a = revy::analysis::analyze_path_with(&path, &opts, &mut progress())?;
    clear_progress();
    match args.format {
        OutputFormat::Text => stdout_quiet(&revy::analysis::render::text(&a, args.top))?,
        OutputFormat::Json => {
            // Past --detail-cap rows, the most active instances and edges (a whole run's
            // 17 M instances were 9 GB of JSON); streamed as it is serialised.
            a.cut_lists();
            json_to_stdout(&a)?;
            print_warnings(&a.trace.warnings);
        }
    }
    // The process ends here: its memory goes back to the system at once, where freeing a
    // million instances' tables piece by piece took 9 ms.
    std::mem::forget(a);
    Ok(())
}

/// Pretty JSON and a newline to stdout, written as it is serialised (a closed pipe is quiet).
fn json_to_stdout(v: &impl serde::Serialize) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let r = serde_json::to_writer_pretty(&mut out, v)
        .map_err(std::io::Error::from)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    match r {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::io("<stdout>", e)),
        _ => Ok(()),
    }
}

/// Write `text` to stdout; a closed pipe (`| head -1`) is the reader's choice, not an error.
fn stdout_quiet(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::io("<stdout>", e)),
        _ => Ok(()),
    }
}

/// The machine model of `revy whatif`: cores default to this machine's, the handoff to the
/// trace header's (`header_handoff`, the profiled machine's), else this machine's; returns
/// it with where the handoff came from.
fn machine(
    unit: revy::trace::Unit,
    header_handoff: Option<f64>,
    cores: Option<usize>,
    handoff: Option<&str>,
    enqueue: Option<&str>,
    latency: Option<&str>,
    bandwidth: Option<&str>,
) -> Result<(revy::whatif::Params, &'static str)> {
    use revy::whatif::{ns_to, parse_bandwidth, parse_duration_ns};
    let cores = match cores {
        Some(0) => return Err(Error::input("--cores must be at least 1")),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let given = handoff.map(parse_duration_ns).transpose()?;
    let (handoff_ns, source) = revy::whatif::handoff_for(given, header_handoff);
    let enqueue_ns = match enqueue {
        Some(e) => parse_duration_ns(e)?,
        None => revy::whatif::measure_enqueue_ns().min(handoff_ns),
    };
    let latency = latency.map(parse_duration_ns).transpose()?.unwrap_or(0.0);
    let bandwidth = bandwidth.map(parse_bandwidth).transpose()?;
    let params = revy::whatif::Params {
        cores,
        handoff: ns_to(unit, handoff_ns),
        enqueue: ns_to(unit, enqueue_ns),
        latency: ns_to(unit, latency),
        // Bytes per second to bytes per trace unit.
        bandwidth: bandwidth.map(|b| b * unit.micros() * 1e-6),
    };
    Ok((params, source))
}

/// The machine model's arguments parsed once before the trace is read ([`machine`] does it
/// again with the trace's unit and handoff).
fn check_machine(args: &WhatifArgs) -> Result<()> {
    use revy::whatif::{parse_bandwidth, parse_duration_ns};
    // Cores, handoff and enqueue as `analyze` checks them.
    args.replay.options(Path::new(""))?;
    let named = |opt: &str, e: Error| Error::input(format!("--{opt} {e}"));
    if let Some(d) = &args.latency {
        parse_duration_ns(d).map_err(|e| named("latency", e))?;
    }
    if let Some(b) = &args.bandwidth {
        parse_bandwidth(b).map_err(|e| named("bandwidth", e))?;
    }
    Ok(())
}

fn cmd_whatif(manifest: &Path, args: WhatifArgs) -> Result<()> {
    // Every argument is checked before the trace is read: a whole run's walks take seconds.
    for p in &args.active {
        revy::whatif::plan::parse_pattern(p)?;
    }
    check_machine(&args)?;
    let traces = vec![trace_or_newest(manifest, args.traces)?];
    let (loaded, plan) = revy::whatif::load_for(
        &traces,
        args.replay.options(manifest)?.compensation(),
        Some(manifest),
        &args.active,
        revy::analysis::Options::default().max_replay_messages,
    )?;
    let (params, source) = machine(
        loaded.tree.unit(),
        loaded.tree.handoff_ns,
        args.replay.cores,
        args.replay.handoff.as_deref(),
        args.replay.enqueue.as_deref(),
        args.latency.as_deref(),
        args.bandwidth.as_deref(),
    )?;
    let mut w = revy::whatif::predict(&loaded, &plan, &params, &args.active);
    w.handoff_source = source;
    match args.format {
        OutputFormat::Text => stdout_quiet(&revy::whatif::render_text(&w))?,
        OutputFormat::Json => {
            let json = serde_json::to_string_pretty(&w).map_err(|e| Error::input(e.to_string()))?;
            stdout_quiet(&format!("{json}\n"))?;
        }
    }
    print_warnings(&w.warnings);
    Ok(())
}

fn cmd_report(manifest: &Path, args: ReportArgs) -> Result<()> {
    let path = trace_or_newest(manifest, args.traces)?;
    if !(0.0..=1.0).contains(&args.threshold) {
        return Err(Error::input(
            "--threshold is a share of the total between 0 and 1 (e.g. 0.1)",
        ));
    }
    let opts = revy::analysis::Options {
        threshold_level: args.threshold,
        threshold_time: args.min_time,
        ..args.replay.options(manifest)?
    };
    let w = revy::report::write_compared(&path, args.baseline.as_deref(), &args.output, &opts)?;
    print_warnings(&w.warnings);
    println!(
        "wrote {} ({} instances, {} messages; {:.1} KiB in {:.2}s)",
        args.output.display(),
        w.instances,
        w.messages,
        w.bytes as f64 / 1024.0,
        w.seconds
    );
    Ok(())
}

fn cmd_profile(manifest: &Path, args: ProfileArgs) -> Result<()> {
    let mode = if args.better {
        Some(revy::manifest::Mode::Better)
    } else if args.faster {
        Some(revy::manifest::Mode::Faster)
    } else {
        None
    };
    let report = revy::profile::profile(manifest, mode, args.output.as_deref(), &mut print_step)?;
    profile_outcome(report)
}

/// What `revy profile` says after each step, as the single commands would.
fn print_step(step: revy::profile::Step) {
    use revy::profile::Step;
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
    }
}

/// The run's and report's outcome of `revy profile`, or why there is none.
fn profile_outcome(report: revy::profile::ProfileReport) -> Result<()> {
    use revy::profile::ProfileReport;
    match report {
        ProfileReport::Interrupted(sig) => Err(Error::Interrupted(sig)),
        ProfileReport::RunFailed(e) => Err(Error::Problems(format!("{e}\nrevy: sources restored"))),
        ProfileReport::NoTrace { dir, failed } => Err(Error::Problems(format!(
            "the run wrote no trace in {}{}",
            dir.display(),
            failed.map(|f| format!(" ({f})")).unwrap_or_default()
        ))),
        ProfileReport::Reported {
            trace,
            report,
            written,
            failed,
        } => {
            print_warnings(&written.warnings);
            println!("trace: {}", trace.display());
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

fn cmd_export(manifest: &Path, args: ExportArgs) -> Result<()> {
    if args.chrome.is_none()
        && args.perfetto.is_none()
        && args.dot.is_none()
        && args.folded.is_none()
        && args.parquet.is_none()
    {
        return Err(Error::input(
            "say what to export: --chrome F.json, --perfetto F.pftrace, --dot F.dot, --folded F.txt and/or --parquet DIR",
        ));
    }
    if let (Some(f), Some(t)) = (args.from, args.to) {
        if f > t {
            return Err(Error::input(format!(
                "--from {f} is after --to {t}: give the window's start first"
            )));
        }
    }
    let path = trace_or_newest(manifest, args.traces)?;
    if let Some(dir) = &args.parquet {
        let (files, warnings) = revy::export::parquet::export(&path, dir)?;
        print_warnings(&warnings);
        eprintln!(
            "revy: wrote {} Parquet tables to {}",
            files.len(),
            dir.display()
        );
        if args.chrome.is_none()
            && args.perfetto.is_none()
            && args.dot.is_none()
            && args.folded.is_none()
        {
            return Ok(());
        }
    }
    let targets = revy::export::Targets {
        chrome: args.chrome,
        perfetto: args.perfetto,
        dot: args.dot,
        folded: args.folded,
        by_instance: args.by_instance,
        filter: revy::export::Filter {
            min_time: args.min_time,
            from: args.from,
            to: args.to,
            top: args.top,
        },
    };
    let done = revy::export::export(&path, &targets)?;
    print_warnings(&done.warnings);
    for (what, file) in &done.written {
        eprintln!("revy: wrote {what} to {}", file.display());
    }
    for d in &done.dropped {
        eprintln!("revy: {d}");
    }
    Ok(())
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

fn cmd_init(dir: &std::path::Path, force: bool) -> Result<()> {
    let s = revy::init::init(dir, force)?;
    let counts: Vec<String> = s
        .files
        .iter()
        .map(|(lang, n)| format!("{n} {}", lang.spec().display))
        .collect();
    println!(
        "wrote {} ({} files); check build/run, then `revy parse`",
        s.manifest.display(),
        counts.join(" and ")
    );
    Ok(())
}

fn cmd_parse(manifest: &std::path::Path) -> Result<()> {
    let m = revy::manifest::Manifest::load(manifest)?;
    let p = revy::stages::parse(&m)?;
    print_diagnostics(&p);
    println!(
        "parsed {} files: {} classes ({} selected), {} methods ({} selected and instrumentable) in {:.2}s",
        p.files, p.classes, p.selected_classes, p.methods, p.selected_methods, p.seconds
    );
    println!("wrote {}", p.saf_path.display());
    match p.problems() {
        0 => Ok(()),
        n => Err(Error::Problems(format!(
            "{n} problem(s) found; the declarations they spoil are marked not annotatable"
        ))),
    }
}

fn cmd_annotate(manifest: &std::path::Path, a: AnnotateArgs) -> Result<()> {
    let m = revy::manifest::Manifest::load(manifest)?;
    let mode = if a.better {
        revy::manifest::Mode::Better
    } else if a.faster {
        revy::manifest::Mode::Faster
    } else {
        m.mode
    };
    let report = revy::stages::annotate(&m, mode, a.verify).1?;
    let s = &report.summary;
    print_withdrawn(&report.withdrawn);
    if let Some(n) = report.verified_builds {
        println!("verified: the build passes ({n} build(s))");
    }
    for n in &s.notes {
        println!("note: {n}");
    }
    print_skipped(s);
    println!(
        "annotated {} files ({mode} mode): {} classes, {} methods; added {} runtime files",
        s.files, s.classes, s.methods, s.runtime_files
    );
    println!("build and run as usual (or `revy run`); `revy restore` puts the originals back");
    if !report.has_problems() {
        return Ok(());
    }
    Err(Error::Problems(format!(
        "{} selected declarations left alone, {} withdrawn after the build, {} parse problems (see `revy parse`)",
        s.skipped.len(),
        report.withdrawn.len(),
        s.parse_problems
    )))
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

fn print_diagnostics(p: &revy::stages::ParseReport) {
    for d in &p.diagnostics {
        eprintln!("{d}");
    }
}

fn print_skipped(s: &revy::annotate::Summary) {
    for k in &s.skipped {
        eprintln!("skipped: {k}");
    }
}

fn print_warnings(warnings: &[String]) {
    for w in warnings {
        eprintln!("revy: warning: {w}");
    }
}

/// `kept` is the line for a file whose edits were kept, with `{}` for its path.
fn print_restored(s: &revy::store::RestoreSummary, kept: &str) {
    for k in &s.kept_edits {
        println!("{}", kept.replace("{}", k));
    }
    for mv in &s.moved {
        println!("restored a moved file where it is now: {mv}");
    }
    println!(
        "restored {} files, removed {} runtime files",
        s.restored, s.runtime_removed
    );
}

fn cmd_restore(manifest: &std::path::Path) -> Result<()> {
    let m = revy::manifest::Manifest::load(manifest)?;
    let s = revy::store::restore(&m)?;
    // The counters runs outside `revy run` left (one per command line), once they are over.
    revy::trace::budget::prune_stale(&m.trace_dir());
    print_restored(&s, "kept your edits in {} (removed only Revy's insertions)");
    Ok(())
}

fn cmd_status(manifest: &std::path::Path) -> Result<()> {
    use revy::store::{FileState, Phase};
    let m = revy::manifest::Manifest::load(manifest)?;
    let Some((state, rows)) = revy::store::status(&m)? else {
        println!("not annotated");
        return Ok(());
    };
    let phase = match state.phase {
        Phase::Complete => "",
        Phase::Writing => " (interrupted: run `revy restore`)",
    };
    println!("annotated, {} mode{phase}", state.mode);
    let (mut edited, mut refused) = (0, 0);
    for (path, st) in rows {
        let what = match st {
            FileState::Annotated => "annotated",
            FileState::Original => "original",
            FileState::EditedSince => {
                edited += 1;
                "annotated, edited since"
            }
            FileState::EditedRefused => {
                refused += 1;
                "edited, restore refuses"
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
    if refused > 0 {
        println!(
            "{refused} file(s) edited in ways that touch Revy's insertions: `revy restore` \
             refuses until those edits are undone (originals are in {})",
            m.state_dir().join("backup").display()
        );
    }
    Ok(())
}

fn cmd_run(manifest: &std::path::Path) -> Result<()> {
    let m = revy::manifest::Manifest::load(manifest)?;
    let out = revy::run::run(&m)?;
    let no_trace = format!(
        "the run wrote no trace in {}; is the project annotated (`revy status`)?",
        m.trace_dir().display()
    );
    match out.traces.last() {
        Some(t) => println!("trace: {}", t.display()),
        None if out.exit_code == Some(0) => return Err(Error::Problems(no_trace)),
        None => eprintln!("revy: {no_trace}"),
    }
    match out.exit_code {
        Some(0) => Ok(()),
        Some(c) => Err(Error::Problems(format!("the program exited with code {c}"))),
        None => Err(Error::Problems("the program was killed by a signal".into())),
    }
}
