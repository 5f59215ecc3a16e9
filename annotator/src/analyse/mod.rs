//! Reading traces and making sense of them: the trace format, the one streaming walk over
//! a trace's events, the analysis, the what-if simulator, the report, exports and the
//! size estimate.

pub mod analysis;
pub(crate) mod calibrate;
pub mod enqueue;
pub mod estimate;
pub mod events;
pub mod export;
pub mod machine;
pub(crate) mod probe;
pub mod report;
pub mod run;
pub(crate) mod walk;
pub mod whatif;

/// The trace format: the `revy-trace` crate (annotator/trace/), readers and writers of both
/// forms, used here under its old path.
pub use revy_trace as trace;
