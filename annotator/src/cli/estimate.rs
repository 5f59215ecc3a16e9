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
    /// With --budget: write the exclude line into the manifest's [annotate] table (keeping
    /// its comments and layout) instead of only printing it.
    #[arg(long, requires = "budget")]
    write: bool,
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
    let loaded = if manifest.exists() {
        Some(revy::instrument::manifest::Manifest::load(manifest)?)
    } else {
        None
    };
    let rule = (loaded.as_ref())
        .and_then(|m| m.trace_throttle)
        .unwrap_or_default();
    // The exclude patterns the user wrote (not the defaults), and where.
    let written: Vec<_> = (loaded.iter())
        .flat_map(|m| m.exclude_patterns.iter().filter(|p| !p.at.is_empty()))
        .collect();
    let at = (loaded.as_ref())
        .and_then(|m| std::fs::read_to_string(&m.path).ok())
        .and_then(|text| revy::instrument::manifest_edit::exclude_line(&text))
        .map(|line| format!("{}:{line}", manifest.display()))
        .unwrap_or_default();
    let manifest_exclude = (written.iter().map(|p| p.text.clone()).collect(), at);
    let opts = est::Options {
        scale: args.scale,
        full_secs: args.full_secs,
        budget: args.budget.as_deref().map(est::parse_budget).transpose()?,
        probe_ns: args.probe_ns,
        throttle_calls: args.throttle_calls.unwrap_or(rule.calls),
        throttle_us: args.throttle_us.unwrap_or(rule.us),
        manifest_exclude,
    };
    let e = est::estimate(&traces, &opts)?;
    if args.write {
        return write_exclude(manifest, &e, args.top);
    }
    match args.format {
        OutputFormat::Text => stdout_quiet(&est::render(&e, args.top))?,
        OutputFormat::Json => {
            let json = serde_json::to_string_pretty(&e).map_err(|e| Error::input(e.to_string()))?;
            stdout_quiet(&format!("{json}\n"))?;
        }
    }
    Ok(())
}

/// `--write`: the estimate as usual, then the exclude line put into the manifest.
fn write_exclude(manifest: &Path, e: &revy::analyse::estimate::Estimate, top: usize) -> Result<()> {
    use revy::analyse::estimate as est;
    if !manifest.is_file() {
        return Err(Error::input(format!(
            "--write: no manifest {} to write into (pass -m)",
            manifest.display()
        )));
    }
    let text = est::render(e, top);
    let all = est::advised_exclude(e);
    if all.is_empty() {
        return stdout_quiet(&format!("{text}(the manifest is unchanged)\n"));
    }
    // The advice to paste is replaced by what was done.
    stdout_quiet(text.split("\nto stay under").next().unwrap_or(&text))?;
    let line = revy::instrument::manifest_edit::set_exclude(manifest, &all)?;
    let shown: Vec<String> = all.iter().map(|x| format!("{x:?}")).collect();
    stdout_quiet(&format!(
        "\nwrote exclude = [{}] into {}:{line} ([annotate]); the next annotate or profile leaves them out\n",
        shown.join(", "),
        manifest.display()
    ))
}
