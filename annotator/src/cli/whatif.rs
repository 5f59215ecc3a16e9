//! `revy whatif`.

use std::path::{Path, PathBuf};

use clap::Args;
use revy::error::{Error, Result};

use super::common::{print_warnings, stdout_quiet, trace_or_newest, OutputFormat};
use super::machine::ReplayArgs;

#[derive(Args)]
pub(crate) struct WhatifArgs {
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

/// Where the machine model's handoff and enqueue cost came from.
pub(crate) struct Sources {
    handoff: &'static str,
    enqueue: String,
}

/// The machine model of `revy whatif`: cores default to this machine's, the handoff to the
/// trace header's (`header_handoff`, the profiled machine's), else this machine's, the
/// enqueue cost to the one measured once for the project (`manifest`'s
/// `.revy/machine.toml`; `remeasure` measures it again); returns it with the sources.
#[allow(clippy::too_many_arguments)]
pub(crate) fn machine(
    unit: revy::analyse::trace::Unit,
    header_handoff: Option<f64>,
    cores: Option<usize>,
    handoff: Option<&str>,
    enqueue: Option<&str>,
    latency: Option<&str>,
    bandwidth: Option<&str>,
    (manifest, remeasure): (&Path, bool),
) -> Result<(revy::analyse::whatif::Params, Sources)> {
    use revy::analyse::whatif::{ns_to, parse_bandwidth, parse_duration_ns};
    let cores = match cores {
        Some(0) => return Err(Error::input("--cores must be at least 1")),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let given = handoff.map(parse_duration_ns).transpose()?;
    let (handoff_ns, source) = revy::analyse::whatif::handoff_for(given, header_handoff);
    let (enqueue_ns, enqueue_source) = match enqueue {
        Some(e) => (parse_duration_ns(e)?, "given".to_string()),
        None => {
            let project = manifest.is_file().then_some(manifest);
            let m = revy::analyse::enqueue::enqueue_cost(project, remeasure);
            (m.ns.min(handoff_ns), m.source)
        }
    };
    let latency = latency.map(parse_duration_ns).transpose()?.unwrap_or(0.0);
    let bandwidth = bandwidth.map(parse_bandwidth).transpose()?;
    let params = revy::analyse::whatif::Params {
        cores,
        handoff: ns_to(unit, handoff_ns),
        enqueue: ns_to(unit, enqueue_ns),
        latency: ns_to(unit, latency),
        // Bytes per second to bytes per trace unit.
        bandwidth: bandwidth.map(|b| b * unit.micros() * 1e-6),
    };
    let sources = Sources {
        handoff: source,
        enqueue: enqueue_source,
    };
    Ok((params, sources))
}

/// The machine model's arguments parsed once before the trace is read ([`machine`] does it
/// again with the trace's unit and handoff).
pub(crate) fn check_machine(args: &WhatifArgs) -> Result<()> {
    use revy::analyse::whatif::{parse_bandwidth, parse_duration_ns};
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

pub(crate) fn cmd_whatif(manifest: &Path, args: WhatifArgs) -> Result<()> {
    // Every argument is checked before the trace is read: a whole run's walks take seconds.
    for p in &args.active {
        revy::analyse::whatif::plan::parse_pattern(p)?;
    }
    check_machine(&args)?;
    let traces = vec![trace_or_newest(manifest, args.traces)?];
    let (loaded, plan) = revy::analyse::whatif::load_for(
        &traces,
        args.replay.options(manifest)?.compensation(),
        Some(manifest),
        &args.active,
        revy::analyse::analysis::Options::default().max_replay_messages,
    )?;
    let (params, sources) = machine(
        loaded.tree.unit(),
        loaded.tree.handoff_ns,
        args.replay.cores,
        args.replay.handoff.as_deref(),
        args.replay.enqueue.as_deref(),
        args.latency.as_deref(),
        args.bandwidth.as_deref(),
        (manifest, args.replay.remeasure),
    )?;
    let mut w = revy::analyse::whatif::predict(&loaded, &plan, &params, &args.active);
    w.handoff_source = sources.handoff;
    w.enqueue_source = sources.enqueue;
    match args.format {
        OutputFormat::Text => stdout_quiet(&revy::analyse::whatif::render_text(&w))?,
        OutputFormat::Json => {
            let json = serde_json::to_string_pretty(&w).map_err(|e| Error::input(e.to_string()))?;
            stdout_quiet(&format!("{json}\n"))?;
        }
    }
    print_warnings(&w.warnings);
    Ok(())
}
