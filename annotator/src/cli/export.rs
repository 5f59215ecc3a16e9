//! `revy export`.

use std::path::{Path, PathBuf};

use clap::Args;
use revy::error::{Error, Result};

use super::common::{print_warnings, trace_or_newest};

#[derive(Args)]
pub(crate) struct ExportArgs {
    /// The trace, or several traces of one run or a folder of them (default: the newest).
    traces: Vec<PathBuf>,
    /// Chrome trace-event JSON (chrome://tracing, Perfetto's UI, speedscope): one slice
    /// per message.
    #[arg(long)]
    chrome: Option<PathBuf>,
    /// Perfetto's native protobuf trace (every message; one track per thread).
    #[arg(long)]
    perfetto: Option<PathBuf>,
    /// Graphviz DOT of the object call graph (instances, edges weighted by net time).
    #[arg(long)]
    dot: Option<PathBuf>,
    /// Folded stacks (`a;b;c time`) for flamegraph.pl, inferno or speedscope.
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
    /// A folder for Parquet tables (messages, instances, methods, threads, and events with
    /// `[[events]]`); see docs/parquet.md.
    #[arg(long)]
    parquet: Option<PathBuf>,
}

pub(crate) fn cmd_export(manifest: &Path, args: ExportArgs) -> Result<()> {
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
    let events = super::machine::manifest_events(manifest)?;
    let remote = super::machine::manifest_remote(manifest)?;
    if let Some(dir) = &args.parquet {
        let (files, warnings) =
            revy::analyse::export::parquet::export(&path, dir, &events, &remote)?;
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
    let targets = revy::analyse::export::Targets {
        chrome: args.chrome,
        perfetto: args.perfetto,
        dot: args.dot,
        folded: args.folded,
        by_instance: args.by_instance,
        filter: revy::analyse::export::Filter {
            min_time: args.min_time,
            from: args.from,
            to: args.to,
            top: args.top,
        },
        events,
        remote,
    };
    let done = revy::analyse::export::export(&path, &targets)?;
    print_warnings(&done.warnings);
    for (what, file) in &done.written {
        eprintln!("revy: wrote {what} to {}", file.display());
    }
    for d in &done.dropped {
        eprintln!("revy: {d}");
    }
    Ok(())
}
