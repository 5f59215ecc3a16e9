//! Revy: a granularity profiler for Java and C++ built as a source-to-source instrumenter.
//!
//! The pipeline, one folder per stage (see ARCHITECTURE.md), each using only those below it:
//! [`instrument`] (manifest → front ends → project → SAF → selection → annotate → store) →
//! [`run`] (build and run with tracing, `profile` in one go) →
//! [`analyse`] (trace reading → walk → analysis, what-if → report, export).
//! [`util`] and [`error`] are leaves every stage may use.

pub mod analyse;
pub mod error;
pub mod instrument;
pub mod run;
pub mod util;
