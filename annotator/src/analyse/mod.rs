//! Reading traces and making sense of them: the trace format, the one streaming walk over
//! a trace's events, the analysis, the what-if simulator, the report, exports and the
//! size estimate.

pub mod analysis;
pub mod estimate;
pub mod events;
pub mod export;
pub mod report;
pub mod trace;
pub mod walk;
pub mod whatif;
