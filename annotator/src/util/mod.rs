//! Small helpers with no knowledge of the pipeline: path sets, source text decoding,
//! signals and exit codes, a progress bar, escaping of text from outside.

pub mod escape;
pub(crate) mod hash;
pub(crate) mod pathset;
pub mod progress;
pub(crate) mod signals;
pub(crate) mod srctext;
