//! `revy estimate`.

use std::path::{Path, PathBuf};

use clap::Args;
use revy::error::{Error, Result};

use super::common::{stdout_quiet, trace_or_newest, OutputFormat};

#[derive(Args)]
pub(crate) struct EstimateArgs {
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

pub(crate) fn cmd_estimate(manifest: &Path, args: EstimateArgs) -> Result<()> {
    use revy::analyse::estimate as est;
    let traces = if args.traces.is_empty() {
        vec![trace_or_newest(manifest, Vec::new())?]
    } else {
        est::expand(&super::common::spooled(&args.traces)?)?
    };
    // The manifest's `[trace]` rule when there is a manifest (its errors are reported).
    let rule = if manifest.exists() {
        revy::instrument::manifest::Manifest::load(manifest)?
            .trace_throttle
            .unwrap_or_default()
    } else {
        revy::instrument::manifest::Throttle::default()
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
