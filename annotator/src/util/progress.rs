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

/// A share done of `what` (a trace read, by bytes): `revy: reading trace  42%`, updated by
/// [`ProgressBar::set_length`] and [`ProgressBar::set_position`]; hidden when stderr is not a
/// terminal. The one progress display beside [`bar`], both indicatif's.
pub fn share(what: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(0);
    pb.set_style(
        ProgressStyle::with_template("revy: {msg} {percent:>3}%")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb.set_message(what.to_string());
    pb
}

/// A long step (a build, a run): on a terminal, with `live`, one line that counts the time
/// up (`revy: building with `make` … 41s`); otherwise a line when it starts. Either way a
/// line when it ends, with the time taken.
pub struct Step {
    bar: Option<ProgressBar>,
    what: String,
    start: std::time::Instant,
}

impl Step {
    /// Starts the step; `live` only where nothing else writes to the terminal meanwhile
    /// (a build whose output is captured; not a run, whose program prints).
    pub fn start(what: impl Into<String>, live: bool) -> Step {
        let what = what.into();
        let bar = (live && std::io::stderr().is_terminal()).then(|| {
            let pb = ProgressBar::new_spinner();
            pb.set_style(
                ProgressStyle::with_template("revy: {msg} … {elapsed} {spinner}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            pb.set_message(what.clone());
            pb.enable_steady_tick(std::time::Duration::from_millis(200));
            pb
        });
        if bar.is_none() {
            eprintln!("revy: {what} …");
        }
        Step {
            bar,
            what,
            start: std::time::Instant::now(),
        }
    }

    /// Ends the step: `revy: {what}: {outcome} after 41.2 s`.
    pub fn finish(self, outcome: &str) {
        if let Some(pb) = &self.bar {
            pb.finish_and_clear();
        }
        eprintln!(
            "revy: {}: {outcome} after {}",
            self.what,
            seconds(self.start.elapsed().as_secs_f64())
        );
    }
}

/// `0.4 s`, `41 s`, `2 min 23 s`.
pub fn seconds(s: f64) -> String {
    if s < 10.0 {
        format!("{s:.1} s")
    } else if s < 120.0 {
        format!("{s:.0} s")
    } else {
        format!("{} min {:02.0} s", (s / 60.0) as u64, s % 60.0)
    }
}

/// A command as a step's label shows it: its first 32 characters.
pub(crate) fn short_command(cmd: &str) -> String {
    let one_line = cmd.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(32) {
        Some((i, _)) => format!("{}…", &one_line[..i]),
        None => one_line,
    }
}
