//! Progress bars for long work, shown only when stderr is a terminal (quiet in pipes and CI).

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

/// A bar over `len` items labelled `what`; hidden when stderr is not a terminal.
pub fn bar(len: usize, what: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() || len < 200 {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len as u64);
    pb.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb.set_message(what.to_string());
    pb
}
