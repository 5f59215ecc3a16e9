//! The `revy` binary: the command line lives in [`cli`].

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    // Every failure, "problems found" included, is an `Err`; its kind is the exit code.
    let r = cli::dispatch(cli);
    // Temp copies of traces given as pipes.
    revy::analyse::trace::spool::cleanup();
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("revy: error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}
