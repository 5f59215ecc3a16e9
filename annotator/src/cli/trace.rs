//! `revy trace print`.

use std::path::{Path, PathBuf};

use clap::Subcommand;
use revy::error::Result;

use super::common::print_warnings;

#[derive(Subcommand)]
pub(crate) enum TraceCommand {
    /// Print any trace (text or compact) as text DTF lines; several traces of one run (or a
    /// folder of them) print merged on one time line.
    Print {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

pub(crate) fn cmd_trace_print(file: &Path) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let status = match revy::analyse::trace::print_as_text(file, &mut out) {
        // A closed pipe (`| head`) is the reader's choice, not an error.
        Err(revy::analyse::trace::Error::Io { source, .. })
            if source.kind() == std::io::ErrorKind::BrokenPipe =>
        {
            return Ok(())
        }
        r => r?,
    };
    drop(out);
    print_warnings(&status.warnings);
    Ok(())
}
