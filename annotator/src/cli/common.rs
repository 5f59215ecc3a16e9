//! What several commands share: finding the trace, writing to stdout, warnings, progress.

use std::path::{Path, PathBuf};

use revy::error::{Error, Result};

#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum OutputFormat {
    /// A summary for people, units scaled.
    Text,
    /// Every figure, for scripts (raw trace units; the schema is in docs/).
    Json,
}

/// The traces named on the command line (several as one trace set), else the newest trace
/// (`*.rvt`, `*.dtf`) in the manifest's trace folder.
/// Traces given as pipes are read into temp files first (commands read a trace twice).
pub(crate) fn spooled(traces: &[PathBuf]) -> Result<Vec<PathBuf>> {
    traces
        .iter()
        .map(|p| Ok(revy::analyse::trace::spool::materialize(p)?))
        .collect()
}

pub(crate) fn trace_or_newest(manifest: &Path, traces: Vec<PathBuf>) -> Result<PathBuf> {
    if !traces.is_empty() {
        return Ok(revy::analyse::trace::multi::join(&spooled(&traces)?)?);
    }
    let m = revy::instrument::manifest::Manifest::load(manifest)?;
    let dir = m.trace_dir();
    let newest = std::fs::read_dir(&dir)
        .ok()
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let md = e.metadata().ok()?;
            let p = e.path();
            (md.is_file() && revy::analyse::trace::is_trace_file(&p))
                .then(|| (md.modified().ok(), p))
        })
        .max();
    newest.map(|(_, p)| p).ok_or_else(|| {
        Error::input(format!(
            "no trace in {}; run `revy run` first (or name a trace file)",
            dir.display()
        ))
    })
}

/// Pretty JSON and a newline to stdout, written as it is serialised (a closed pipe is quiet).
pub(crate) fn json_to_stdout(v: &impl serde::Serialize) -> Result<()> {
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
pub(crate) fn stdout_quiet(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::io("<stdout>", e)),
        _ => Ok(()),
    }
}

pub(crate) fn print_warnings(warnings: &[String]) {
    for w in warnings {
        eprintln!("revy: warning: {w}");
    }
}
