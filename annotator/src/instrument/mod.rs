//! Instrumenting a project: the manifest, the language table and front ends, the project
//! parse, the static artifacts file (SAF), the selection, the annotators and the store
//! that backs up, writes and restores sources.

pub mod annotate;
pub mod atomic;
pub mod build_log;
pub mod buildsys;
pub mod cppdefs;
pub mod edits;
pub mod events;
pub mod frontend;
pub mod init;
pub mod journal_copy;
pub mod lang;
pub mod lock;
pub mod manifest;
pub mod manifest_edit;
pub mod model;
pub mod nested;
pub mod project;
pub mod saf;
pub mod safepath;
pub mod select;
pub mod stages;
pub mod starter;
pub mod store;
pub mod verify;
