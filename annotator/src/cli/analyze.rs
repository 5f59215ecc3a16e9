//! `revy analyze`.

use std::path::{Path, PathBuf};

use clap::Args;
use revy::error::Result;

use super::common::{json_to_stdout, print_warnings, stdout_quiet, trace_or_newest, OutputFormat};
use super::machine::{Cutoff, ReplayArgs};

#[derive(Args)]
pub(crate) struct AnalyzeArgs {
    /// The trace, or several traces of one run or a folder of them (default: the newest trace
    /// of the manifest's project).
    traces: Vec<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    format: OutputFormat,
    #[command(flatten)]
    cutoff: Cutoff,
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
    let opts = revy::analyse::analysis::Options {
        detail_cap: args.detail_cap,
        proposals: !args.no_proposals,
        ..args.cutoff.apply(args.replay.options(manifest)?)?
    };
    let bar = revy::util::progress::share("reading trace");
    let mut shown = |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    };
    let a = revy::analyse::analysis::analyze_path_with(&path, &opts, &mut shown);
    bar.finish_and_clear();
    let mut a = a?;
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
