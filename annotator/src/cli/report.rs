//! `revy report`.

use std::path::{Path, PathBuf};

use clap::Args;
use revy::error::{Error, Result};

use super::common::{print_warnings, trace_or_newest};
use super::machine::{Cutoff, ReplayArgs};

#[derive(Args)]
pub(crate) struct ReportArgs {
    /// The trace, or several traces of one run or a folder of them (default: the newest trace
    /// of the manifest's project).
    traces: Vec<PathBuf>,
    /// The HTML file to write (default: .revy/report.html beside the manifest, as `profile`
    /// writes it; report.html here when there is no manifest).
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    cutoff: Cutoff,
    /// An older trace to show side by side (did the change pay?).
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// The proposals' predictions, as `analyze` makes them.
    #[command(flatten)]
    replay: ReplayArgs,
}

pub(crate) fn cmd_report(manifest: &Path, args: ReportArgs) -> Result<()> {
    let path = trace_or_newest(manifest, args.traces)?;
    let opts = revy::analyse::analysis::Options {
        ..args.cutoff.apply(args.replay.options(manifest)?)?
    };
    let output = match args.output {
        Some(o) => o,
        None if manifest.is_file() => {
            let dir = revy::instrument::manifest::Manifest::load(manifest)?.state_dir();
            std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
            dir.join("report.html")
        }
        None => PathBuf::from("report.html"),
    };
    let w = revy::analyse::report::write_compared(&path, args.baseline.as_deref(), &output, &opts)?;
    print_warnings(&w.warnings);
    println!(
        "wrote {} ({} instances, {} messages; {:.1} KiB in {:.2}s)",
        output.display(),
        w.instances,
        w.messages,
        w.bytes as f64 / 1024.0,
        w.seconds
    );
    Ok(())
}
