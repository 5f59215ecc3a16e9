//! `revy analyze`.

use std::path::{Path, PathBuf};

use clap::Args;
use revy::error::{Error, Result};

use super::common::{
    clear_progress, json_to_stdout, print_warnings, progress, stdout_quiet, trace_or_newest,
    OutputFormat,
};
use super::machine::ReplayArgs;

#[derive(Args)]
pub(crate) struct AnalyzeArgs {
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

pub(crate) fn cmd_analyze(manifest: &Path, args: AnalyzeArgs) -> Result<()> {
    let path = trace_or_newest(manifest, args.traces)?;
    if !(0.0..=1.0).contains(&args.threshold) {
        return Err(Error::input(
            "--threshold is a share of the total between 0 and 1 (e.g. 0.1)",
        ));
    }
    let opts = revy::analyse::analysis::Options {
        detail_cap: args.detail_cap,
        threshold_level: args.threshold,
        threshold_time: args.min_time,
        proposals: !args.no_proposals,
        ..args.replay.options(manifest)?
    };
    let mut a = revy::analyse::analysis::analyze_path_with(&path, &opts, &mut progress())?;
    clear_progress();
    match args.format {
        OutputFormat::Text => stdout_quiet(&revy::analyse::analysis::render::text(&a, args.top))?,
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
