//! The only stage that writes into the user's tree: backups, atomic writes, the annotation
//! journal, restore and status.
//!
//! Invariants:
//! - originals are backed up (and fsynced) before any source file is replaced;
//! - every file write is atomic (temp file in the same folder, fsync, rename), so a kill at
//!   any moment leaves each file either original or fully annotated;
//! - the journal `.revy/state.toml` is written before the first source changes and removed
//!   only after the last one is restored, so `revy restore` always knows what to undo;
//! - a file edited after annotation is restored by removing only Revy's insertions, or the
//!   restore is refused with the list of files — never silently overwritten.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::edits::{self, Insertion};
use crate::error::{Error, Result};
use crate::manifest::{Manifest, Mode};
use crate::project::sha256_hex;

/// Writes `bytes` to `path` atomically, creating parent folders and keeping the
/// permissions of a file it replaces.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".revy-tmp-")
        .tempfile_in(parent)
        .map_err(|e| Error::io(parent, e))?;
    tmp.write_all(bytes).map_err(|e| Error::io(tmp.path(), e))?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
    }
    tmp.as_file().sync_all().map_err(|e| Error::io(path, e))?;
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(())
}

/// Removes temp files an interrupted [`atomic_write`] left in `dir`.
fn remove_stray_temps(dir: &Path) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with(".revy-tmp-") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

/// Writes a file under `.revy/` (SAF, journal, backups) atomically.
pub fn write_state_file(path: &Path, bytes: &[u8]) -> Result<()> {
    atomic_write(path, bytes)
}

/// Checks that `path` (an existing source) can be replaced, before anything is written.
fn check_writable(path: &Path) -> Result<()> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let dir_meta = std::fs::metadata(dir).map_err(|e| Error::io(dir, e))?;
    if meta.permissions().readonly() || dir_meta.permissions().readonly() {
        return Err(Error::input(format!(
            "{}: not writable; make it (and its folder) writable or exclude it, then annotate again",
            path.display()
        )));
    }
    // Root ignores permission bits, so also ask the OS.
    std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(|e| {
            Error::input(format!(
                "{}: cannot be written ({e}); fix its permissions or exclude it, then annotate again",
                path.display()
            ))
        })?;
    Ok(())
}

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

/// A fully computed annotation, ready to be written.
pub struct Plan {
    pub mode: Mode,
    /// (path relative to root, original text, insertions)
    pub files: Vec<(String, String, Vec<Insertion>)>,
    /// (path relative to root, contents)
    pub runtime: Vec<(String, String)>,
}

fn state_path(m: &Manifest) -> PathBuf {
    m.state_dir().join("state.toml")
}
fn backup_path(m: &Manifest, rel: &str) -> PathBuf {
    m.state_dir().join("backup").join(rel)
}
fn edits_path(m: &Manifest, rel: &str) -> PathBuf {
    m.state_dir().join("edits").join(format!("{rel}.json"))
}

pub fn load_state(m: &Manifest) -> Result<Option<State>> {
    let p = state_path(m);
    match std::fs::read_to_string(&p) {
        Ok(t) => toml::from_str(&t).map(Some).map_err(|e| {
            Error::input(format!(
                "{}: annotation journal is damaged ({}); your originals are in {}",
                p.display(),
                e.message().trim(),
                m.state_dir().join("backup").display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(p, e)),
    }
}

fn save_state(m: &Manifest, s: &State) -> Result<()> {
    let text = toml::to_string(s).expect("state serialises");
    atomic_write(&state_path(m), text.as_bytes())
}

/// Refuses when the tree is already annotated (or an annotate was interrupted).
pub fn ensure_not_annotated(m: &Manifest) -> Result<()> {
    if let Some(s) = load_state(m)? {
        let how = if s.phase == Phase::Writing {
            "an earlier annotate was interrupted"
        } else {
            "the sources are already annotated"
        };
        return Err(Error::input(format!(
            "{}: {how} ({} mode); run `revy restore` first, then annotate again",
            m.root.display(),
            s.mode
        )));
    }
    Ok(())
}

/// Writes a plan: backups and journal first, then each file atomically.
pub fn commit(m: &Manifest, plan: &Plan) -> Result<State> {
    ensure_not_annotated(m)?;
    for (rel, _, _) in &plan.files {
        check_writable(&m.root.join(rel))?;
    }
    for (rel, _) in &plan.runtime {
        let p = m.root.join(rel);
        if p.exists() {
            return Err(Error::input(format!(
                "{}: already exists and is not Revy's; move it away, then annotate again",
                p.display()
            )));
        }
    }
    let mut state = State {
        version: 1,
        mode: plan.mode,
        phase: Phase::Writing,
        files: Vec::new(),
        runtime: Vec::new(),
        created_dirs: Vec::new(),
    };
    let mut annotated = Vec::with_capacity(plan.files.len());
    for (rel, original, ins) in &plan.files {
        let text = edits::apply(original, ins);
        write_state_file(&backup_path(m, rel), original.as_bytes())?;
        let json = serde_json::to_vec(ins).expect("insertions serialise");
        write_state_file(&edits_path(m, rel), &json)?;
        state.files.push(FileRecord {
            path: rel.clone(),
            original_sha256: sha256_hex(original.as_bytes()),
            annotated_sha256: sha256_hex(text.as_bytes()),
        });
        annotated.push(text);
    }
    for (rel, contents) in &plan.runtime {
        state.runtime.push(RuntimeRecord {
            path: rel.clone(),
            sha256: sha256_hex(contents.as_bytes()),
        });
        // Remember folders we create so restore leaves no trace.
        let mut dir = Path::new(rel).parent();
        while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
            let s = d.to_string_lossy().replace('\\', "/");
            if !m.root.join(d).exists() && !state.created_dirs.contains(&s) {
                state.created_dirs.push(s);
            }
            dir = d.parent();
        }
    }
    state.created_dirs.sort_by_key(|d| d.len());
    save_state(m, &state)?;
    // Test hook: widens the window between file writes so kill tests can land inside it.
    let delay = std::env::var("REVY_TEST_WRITE_DELAY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(std::time::Duration::from_millis);
    for ((rel, _, _), text) in plan.files.iter().zip(&annotated) {
        if let Some(d) = delay {
            std::thread::sleep(d);
        }
        atomic_write(&m.root.join(rel), text.as_bytes())?;
    }
    for (rel, contents) in &plan.runtime {
        atomic_write(&m.root.join(rel), contents.as_bytes())?;
    }
    state.phase = Phase::Complete;
    save_state(m, &state)?;
    Ok(state)
}

/// How a file compares with what annotate wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileState {
    Annotated,
    Original,
    EditedSince,
    Missing,
}

fn file_state(m: &Manifest, r: &FileRecord) -> Result<(FileState, Option<String>)> {
    let p = m.root.join(&r.path);
    match std::fs::read(&p) {
        Ok(bytes) => {
            let h = sha256_hex(&bytes);
            let st = if h == r.annotated_sha256 {
                FileState::Annotated
            } else if h == r.original_sha256 {
                FileState::Original
            } else {
                FileState::EditedSince
            };
            Ok((st, String::from_utf8(bytes).ok()))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((FileState::Missing, None)),
        Err(e) => Err(Error::io(p, e)),
    }
}

/// The journal plus each annotated file's state, for `revy status`.
pub type StatusRows = (State, Vec<(String, FileState)>);

/// Per-file status lines for `revy status`.
pub fn status(m: &Manifest) -> Result<Option<StatusRows>> {
    let Some(state) = load_state(m)? else {
        return Ok(None);
    };
    let mut rows = Vec::new();
    for r in &state.files {
        rows.push((r.path.clone(), file_state(m, r)?.0));
    }
    Ok(Some((state, rows)))
}

/// What restore did.
#[derive(Debug, Default)]
pub struct RestoreSummary {
    pub restored: usize,
    pub kept_edits: Vec<String>,
    pub runtime_removed: usize,
}

/// Puts every original back; files edited since annotation keep the user's edits (only
/// Revy's insertions are removed). Refuses, changing nothing, if that is impossible.
pub fn restore(m: &Manifest) -> Result<RestoreSummary> {
    let Some(state) = load_state(m)? else {
        return Err(Error::input(format!(
            "{}: nothing to restore (not annotated)",
            m.root.display()
        )));
    };
    // Decide everything first so a refusal writes nothing.
    let mut actions: Vec<(PathBuf, Vec<u8>, bool)> = Vec::new();
    let mut refused = Vec::new();
    for r in &state.files {
        let (st, current) = file_state(m, r)?;
        let backup = backup_path(m, &r.path);
        let read_backup = || {
            std::fs::read(&backup).map_err(|e| {
                Error::input(format!(
                    "{}: backup of {} is missing ({e}); restore it from version control",
                    backup.display(),
                    r.path
                ))
            })
        };
        match st {
            FileState::Original => {}
            FileState::Annotated | FileState::Missing => {
                let bytes = read_backup()?;
                if sha256_hex(&bytes) != r.original_sha256 {
                    return Err(Error::input(format!(
                        "{}: backup does not match the original's hash; restore {} from version control",
                        backup.display(),
                        r.path
                    )));
                }
                actions.push((m.root.join(&r.path), bytes, false));
            }
            FileState::EditedSince => {
                let ep = edits_path(m, &r.path);
                let ins: Option<Vec<Insertion>> = std::fs::read(&ep)
                    .ok()
                    .and_then(|b| serde_json::from_slice(&b).ok());
                match (ins, current) {
                    (Some(ins), Some(cur)) => match edits::unapply(&cur, &ins) {
                        Some(text) => actions.push((m.root.join(&r.path), text.into_bytes(), true)),
                        None => refused.push(r.path.clone()),
                    },
                    _ => refused.push(r.path.clone()),
                }
            }
        }
    }
    if !refused.is_empty() {
        return Err(Error::input(format!(
            "restore refused: {} changed since annotation in ways that touch Revy's insertions: {}; \
             undo those edits (originals are in {}) and run `revy restore` again",
            if refused.len() == 1 { "this file was" } else { "these files were" },
            refused.join(", "),
            m.state_dir().join("backup").display()
        )));
    }
    let mut summary = RestoreSummary::default();
    for (path, bytes, kept) in &actions {
        atomic_write(path, bytes)?;
        summary.restored += 1;
        if *kept {
            summary.kept_edits.push(
                path.strip_prefix(&m.root)
                    .unwrap_or(path)
                    .display()
                    .to_string(),
            );
        }
    }
    for r in &state.runtime {
        let p = m.root.join(&r.path);
        match std::fs::remove_file(&p) {
            Ok(()) => summary.runtime_removed += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(p, e)),
        }
    }
    // A kill during an atomic write can leave its temp file behind: sweep them.
    let mut dirs: std::collections::BTreeSet<PathBuf> = state
        .files
        .iter()
        .map(|r| &r.path)
        .chain(state.runtime.iter().map(|r| &r.path))
        .filter_map(|p| m.root.join(p).parent().map(Path::to_path_buf))
        .collect();
    dirs.extend(state.created_dirs.iter().map(|d| m.root.join(d)));
    for d in dirs {
        remove_stray_temps(&d);
    }
    for d in state.created_dirs.iter().rev() {
        let _ = std::fs::remove_dir(m.root.join(d)); // only if empty
    }
    // The journal goes last: until here a re-run of restore can finish the job.
    std::fs::remove_file(state_path(m)).map_err(|e| Error::io(state_path(m), e))?;
    for sub in ["backup", "edits"] {
        let _ = std::fs::remove_dir_all(m.state_dir().join(sub));
    }
    Ok(summary)
}

/// Rewrites an annotated tree to a new plan of the same files (`--verify` withdrawing
/// declarations). Files whose annotated text does not change are not touched, so the
/// build's own incremental behaviour rebuilds only what changed. Each changed file goes
/// back to its original first, then the journal records its new insertions, then the new
/// text is written: a kill at any point leaves every file original or matching the journal.
pub fn recommit(m: &Manifest, plan: &Plan) -> Result<usize> {
    let Some(mut state) = load_state(m)? else {
        return Err(Error::input(format!(
            "{}: not annotated; nothing to rewrite",
            m.root.display()
        )));
    };
    let mut changed = 0;
    for i in 0..state.files.len() {
        let rel = state.files[i].path.clone();
        let backup = backup_path(m, &rel);
        let original = std::fs::read_to_string(&backup).map_err(|e| Error::io(&backup, e))?;
        let ins: Vec<Insertion> = plan
            .files
            .iter()
            .find(|(p, _, _)| *p == rel)
            .map(|(_, _, ins)| ins.clone())
            .unwrap_or_default();
        let text = edits::apply(&original, &ins);
        let sha = sha256_hex(text.as_bytes());
        if sha == state.files[i].annotated_sha256 {
            continue;
        }
        atomic_write(&m.root.join(&rel), original.as_bytes())?;
        let json = serde_json::to_vec(&ins).expect("insertions serialise");
        write_state_file(&edits_path(m, &rel), &json)?;
        state.files[i].annotated_sha256 = sha;
        save_state(m, &state)?;
        atomic_write(&m.root.join(&rel), text.as_bytes())?;
        changed += 1;
    }
    // Generated runtime files (tables) may change too; new ones are not expected.
    for (rel, contents) in &plan.runtime {
        let sha = sha256_hex(contents.as_bytes());
        if let Some(r) = state.runtime.iter_mut().find(|r| r.path == *rel) {
            if r.sha256 != sha {
                r.sha256 = sha;
                save_state(m, &state)?;
                atomic_write(&m.root.join(rel), contents.as_bytes())?;
            }
        }
    }
    Ok(changed)
}
