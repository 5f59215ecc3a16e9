//! Small helpers with no knowledge of the pipeline: path sets, source text decoding,
//! signals and exit codes, a progress bar, escaping of text from outside.

pub mod escape;
pub mod hash;
pub mod pathset;
pub mod progress;
pub mod signals;
pub mod srctext;
