//! Instrumenting a project: the manifest, the language table and front ends, the project
//! parse, the static artifacts file (SAF), the selection, the annotators and the store
//! that backs up, writes and restores sources.

pub mod annotate;
pub(crate) mod atomic;
pub(crate) mod build_log;
pub(crate) mod buildsys;
pub(crate) mod cppdefs;
pub mod edits;
pub mod events;
pub mod frontend;
pub mod init;
pub(crate) mod journal;
pub(crate) mod journal_copy;
pub mod lang;
pub mod lock;
pub mod manifest;
pub mod manifest_edit;
pub mod model;
pub(crate) mod names;
pub mod nested;
pub mod project;
pub mod remote;
pub mod saf;
pub(crate) mod safepath;
pub(crate) mod select;
pub mod stages;
pub(crate) mod starter;
pub mod store;
pub mod verify;
