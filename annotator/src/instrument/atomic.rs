//! Atomic file writes: a temp file in the same folder, fsync, rename. A kill at any moment
//! leaves the file either as it was or fully written. Used by the store (sources, journal,
//! backups) and the journal's copy outside the project.

use std::path::Path;

use crate::error::{Error, Result};

/// Writes `bytes` to `path` atomically, creating parent folders and keeping the
/// permissions of a file it replaces.
/// A symlink is kept: its target (checked to be inside the project) is replaced instead.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let shown = path;
    let path = &crate::instrument::safepath::write_target(path);
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    // Errors name the file being written, never the temp file (tempfile's errors carry it).
    let fail = |e: std::io::Error| Error::io(shown, plain(e));
    let mut tmp = tempfile::Builder::new()
        .prefix(".revy-tmp-")
        .tempfile_in(parent)
        .map_err(fail)?;
    tmp.write_all(bytes).map_err(fail)?;
    // Keep a replaced file's permissions; a new one gets rw-r--r-- (not the temp's 0600).
    let perms = std::fs::metadata(path)
        .map(|m| m.permissions())
        .unwrap_or_else(|_| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::Permissions::from_mode(0o644)
        });
    let _ = std::fs::set_permissions(tmp.path(), perms);
    tmp.as_file().sync_all().map_err(fail)?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

/// The OS error alone, without the path context tempfile adds to its message.
fn plain(e: std::io::Error) -> std::io::Error {
    match e.raw_os_error() {
        Some(code) => std::io::Error::from_raw_os_error(code),
        None => std::io::Error::new(e.kind(), e.kind().to_string()),
    }
}

/// Removes temp files an interrupted [`atomic_write`] left in `dir`.
pub(crate) fn remove_stray_temps(dir: &Path) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with(".revy-tmp-") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}
