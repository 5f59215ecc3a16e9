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

/// The replay's parameters at the fast and the slow end of a machine in two states, with
/// the share of the handoff's windows that were slow.
type Ends = Option<(
    revy::analyse::whatif::Params,
    revy::analyse::whatif::Params,
    f64,
)>;

/// The replay's parameters of `revy whatif`: the machine model resolved as every command
/// resolves it (`analyse::machine`), plus a remote placement's latency and bandwidth;
/// returned with the model (where the handoff came from, and whether the trace header's
/// disagrees) and where the post costs and the take came from (the project's, measured once for the
/// trace's language and kept in `.revy/machine.toml`, unless given).
fn params(
    args: &WhatifArgs,
    opts: &revy::analyse::analysis::Options,
    tree: &revy::analyse::whatif::Tree,
) -> Result<(
    revy::analyse::whatif::Params,
    revy::analyse::machine::Machine,
    [String; 4],
    Ends,
)> {
    use revy::analyse::machine::{resolve, resolve_ends, Measured};
    use revy::analyse::whatif::{parse_bandwidth, parse_duration_ns};
    let kept = revy::analyse::enqueue::kept_for(opts, tree.lang);
    let measured = Measured {
        handoff_ns: tree.handoff_ns,
        enqueue_ns: kept.enqueue.as_ref().map(|k| k.ns),
        wake_ns: kept.wake.as_ref().map(|k| k.ns),
        post_ns: kept.post.as_ref().map(|k| k.ns),
        enqueue_range: kept.enqueue.as_ref().and_then(|k| k.range),
        handoff_kept: revy::analyse::enqueue::kept_handoff_for(opts),
    };
    let source = |k: Option<revy::analyse::enqueue::Measured>, given: bool| match (k, given) {
        (Some(k), _) => k.source,
        (None, true) => "given".to_string(),
        (None, false) => "measured now on this machine (C++'s queue)".to_string(),
    };
    let sources = [
        source(kept.enqueue, opts.enqueue_ns.is_some()),
        source(kept.wake, opts.wake_ns.is_some()),
        source(kept.post, opts.post_ns.is_some()),
        revy::analyse::machine::take_source(opts.take_ns.is_some()).to_string(),
    ];
    let m = resolve(&opts.machine(), &measured)?;
    let latency = args.latency.as_deref().map(parse_duration_ns).transpose()?;
    let bandwidth = args.bandwidth.as_deref().map(parse_bandwidth).transpose()?;
    let at = |m: &revy::analyse::machine::Machine| {
        m.params(tree.unit(), latency.unwrap_or(0.0), bandwidth)
    };
    let params = at(&m);
    // Two states in the project's handoff: both ends too.
    let share = m.handoff_range.map_or(0.0, |r| r.slow_share);
    let ends = resolve_ends(&opts.machine(), &measured)?.map(|(f, s)| (at(&f), at(&s), share));
    Ok((params, m, sources, ends))
}

/// The machine model's arguments checked before the trace is read.
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
    let traces = vec![trace_or_newest(manifest, args.traces.clone())?];
    let opts = args.replay.options(manifest)?;
    let (loaded, plan) = revy::analyse::whatif::load_for(
        &traces,
        opts.compensation(),
        Some(manifest),
        &args.active,
        opts.max_replay_messages,
    )?;
    let (params, machine, [enqueue_source, wake_source, post_source, take_source], ends) =
        params(&args, &opts, &loaded.tree)?;
    let mut w = revy::analyse::whatif::predict(&loaded, &plan, &params, &args.active);
    w.handoff_range = ends.map(|(fast, slow, share)| {
        revy::analyse::whatif::predict_range(&loaded, &plan, &fast, &slow, share)
    });
    w.handoff_source = machine.handoff_source;
    w.enqueue_source = enqueue_source;
    w.wake_source = wake_source;
    w.post_source = post_source;
    w.take_source = take_source;
    w.warnings.extend(machine.handoff_note);
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
