//! Revy: a granularity profiler for Java and C++ built as a source-to-source instrumenter.
//!
//! The pipeline, one module per stage (see ARCHITECTURE.md):
//! manifest → frontend (java, cpp) → project (parse all files) → saf (model + sizes) →
//! select → annotate (edits) → store (backup, atomic writes, restore) → run →
//! trace (reading) → analysis → report / export.

pub mod analysis;
pub mod annotate;
pub mod buildsys;
pub mod cppdefs;
pub mod edits;
pub mod error;
pub mod estimate;
pub mod export;
pub mod frontend;
pub mod init;
pub mod lang;
pub mod lock;
pub mod manifest;
pub mod model;
pub mod pathset;
pub mod profile;
pub mod progress;
pub mod project;
pub mod report;
pub mod run;
pub mod saf;
pub mod safepath;
pub mod select;
pub mod signals;
pub mod srctext;
pub mod stages;
pub mod store;
pub mod trace;
pub mod verify;
pub mod whatif;
