//! The annotation journal's format, `.revy/state.toml`: which files an annotation changed
//! (with their hashes before and after) and which runtime files it added. The store writes
//! and reads its own; `nested.rs` reads other manifests'. The format needs nothing of the
//! store.

use serde::{Deserialize, Serialize};

use crate::instrument::manifest::Mode;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileRecord {
    pub path: String,
    pub original_sha256: String,
    pub annotated_sha256: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RuntimeRecord {
    pub path: String,
    pub sha256: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Files are being replaced; some may still be original.
    Writing,
    Complete,
}

/// The annotation journal.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct State {
    pub version: u32,
    pub mode: Mode,
    pub phase: Phase,
    pub files: Vec<FileRecord>,
    pub runtime: Vec<RuntimeRecord>,
    /// Folders created for runtime files, deepest last; removed on restore if empty.
    #[serde(default)]
    pub created_dirs: Vec<String>,
}
