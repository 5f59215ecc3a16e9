//! Small helpers with no knowledge of the pipeline: path sets, source text decoding,
//! signals and exit codes, a progress bar.

pub mod pathset;
pub mod progress;
pub mod signals;
pub mod srctext;
