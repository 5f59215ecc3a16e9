//! A copy of the annotation journal (`.revy/state.toml`, `backup/`, `edits/`) outside the
//! project, where a build that deletes `.revy/` (`git clean -fdx`, `rm -rf .revy`) cannot
//! reach it: `$XDG_STATE_HOME/revy/journals/<hash of the project folder>/` (else
//! `~/.local/state/…`). Restore revives `.revy/` from it when the journal is gone.
//! Writing it is best effort: the journal in `.revy/` stays the one that counts.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::instrument::manifest::Manifest;

/// This project's copy folder, if a state home is known.
pub fn dir(m: &Manifest) -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_STATE_HOME").map(PathBuf::from) {
        Some(p) if p.is_absolute() => p,
        _ => PathBuf::from(std::env::var_os("HOME")?).join(".local/state"),
    };
    let root = std::fs::canonicalize(&m.root).ok()?;
    use std::os::unix::ffi::OsStrExt;
    let key = crate::util::hash::sha256_hex(root.as_os_str().as_bytes());
    Some(base.join("revy/journals").join(&key[..20]))
}

/// Copies `path` (a file under `.revy/`) into the copy folder; failures are ignored.
pub fn write(m: &Manifest, path: &Path, bytes: &[u8]) {
    let (Some(dir), Ok(rel)) = (dir(m), path.strip_prefix(m.state_dir())) else {
        return;
    };
    let target = dir.join(rel);
    if let Some(parent) = target.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    // Temp + rename so a kill never leaves a torn copy of the journal.
    let tmp = target.with_extension("revy-tmp");
    if std::fs::write(&tmp, bytes).is_ok() {
        let _ = std::fs::rename(&tmp, &target);
    }
    let _ = std::fs::write(dir.join("root"), m.root.to_string_lossy().as_bytes());
}

/// The copy's journal, when `.revy/`'s is gone and the copy holds one.
pub fn held(m: &Manifest) -> Option<PathBuf> {
    let dir = dir(m)?;
    (dir.join("state.toml").is_file() && !m.state_dir().join("state.toml").exists()).then_some(dir)
}

/// Puts the copy back as `.revy/` (journal last, so a kill leaves no journal without its
/// backups); returns the copy's folder, or None when there is none to revive.
pub fn revive(m: &Manifest) -> Result<Option<PathBuf>> {
    let Some(dir) = held(m) else {
        return Ok(None);
    };
    for sub in ["backup", "edits"] {
        for e in walkdir::WalkDir::new(dir.join(sub)).into_iter().flatten() {
            if e.file_type().is_file() {
                let rel = e.path().strip_prefix(&dir).expect("under the copy");
                let bytes = std::fs::read(e.path()).map_err(|err| Error::io(e.path(), err))?;
                crate::instrument::atomic::atomic_write(&m.state_dir().join(rel), &bytes)?;
            }
        }
    }
    let state = dir.join("state.toml");
    let bytes = std::fs::read(&state).map_err(|e| Error::io(&state, e))?;
    crate::instrument::atomic::atomic_write(&m.state_dir().join("state.toml"), &bytes)?;
    Ok(Some(dir))
}

/// Removes the copy (after a restore, or when it is stale).
pub fn remove(m: &Manifest) {
    if let Some(dir) = dir(m) {
        let _ = std::fs::remove_dir_all(dir);
    }
}
