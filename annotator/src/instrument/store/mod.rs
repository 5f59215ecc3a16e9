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

use crate::error::{Error, Result};
use crate::instrument::atomic::{atomic_write, remove_stray_temps};
use crate::instrument::edits::{self, Insertion};
use crate::instrument::manifest::{Manifest, Mode};
use crate::util::hash::sha256_hex;
use crate::util::srctext::encode;

/// The bytes a source's text stands for (see [`crate::util::srctext`]).
mod restore;
pub use restore::{copied_state, restore, status, FileState, RestoreSummary};
use restore::{read_backup, status_rows_of_copy};

fn bytes(text: String) -> Vec<u8> {
    match encode(&text) {
        std::borrow::Cow::Borrowed(_) => text.into_bytes(),
        std::borrow::Cow::Owned(b) => b,
    }
}

/// Writes a file under `.revy/` (SAF, journal, backups) atomically.
pub(crate) fn write_state_file(path: &Path, bytes: &[u8]) -> Result<()> {
    atomic_write(path, bytes)
}

/// Writes a journal file (state, backup, edits) under `.revy/` and into the copy outside the
/// project that survives a build deleting `.revy/`.
fn write_journal_file(m: &Manifest, path: &Path, bytes: &[u8]) -> Result<()> {
    crate::instrument::journal_copy::write(m, path, bytes);
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
    use std::os::unix::fs::MetadataExt;
    if meta.nlink() > 1 {
        return Err(Error::input(format!(
            "{}: has {} hard links; annotating would split them (a write replaces the file). \
             Exclude it or make it a single file, then annotate again",
            path.display(),
            meta.nlink()
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

pub use crate::instrument::journal::{FileRecord, Phase, RuntimeRecord, State};

/// A fully computed annotation, ready to be written.
pub struct Plan {
    pub mode: Mode,
    /// (path relative to root, original text, insertions)
    pub files: Vec<(String, String, Vec<Insertion>)>,
    /// (path relative to root, contents)
    pub runtime: Vec<(String, Vec<u8>)>,
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

pub(crate) fn load_state(m: &Manifest) -> Result<Option<State>> {
    let p = state_path(m);
    match std::fs::read_to_string(&p) {
        Ok(t) => {
            let s: State = toml::from_str(&t).map_err(|e| {
                Error::input(format!(
                    "{}: annotation journal is damaged ({}); your originals are in {}",
                    p.display(),
                    e.message().trim(),
                    m.state_dir().join("backup").display()
                ))
            })?;
            check_state_paths(m, &p, &t, &s)?;
            Ok(Some(s))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(p, e)),
    }
}

/// Refuses a journal naming any path outside the project (it was edited by hand or forged).
fn check_state_paths(m: &Manifest, p: &Path, text: &str, s: &State) -> Result<()> {
    let paths = s
        .files
        .iter()
        .map(|f| &f.path)
        .chain(s.runtime.iter().map(|r| &r.path))
        .chain(&s.created_dirs);
    for rel in paths {
        if let Some(why) = crate::instrument::safepath::escape_reason(&m.root, rel) {
            return Err(Error::input(format!(
                "{}:{}: path `{rel}` {why}; Revy only touches files inside {}. The journal \
                 was edited or damaged: restore your sources from version control and delete {}",
                p.display(),
                crate::instrument::safepath::line_of_value(text, rel),
                m.root.display(),
                p.display()
            )));
        }
    }
    Ok(())
}

fn save_state(m: &Manifest, s: &State) -> Result<()> {
    let text = toml::to_string(s).expect("state serialises");
    write_journal_file(m, &state_path(m), text.as_bytes())
}

/// Refuses when the tree is already annotated (or an annotate was interrupted), also when
/// a build deleted the journal `.revy/` but Revy's code is still in the sources.
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
    if let Some((copy, _)) = copied_state(m) {
        if !status_rows_of_copy(m)?.is_empty() {
            return Err(Error::input(format!(
                "{}: the journal .revy/ was deleted (by the build?) but the sources are still \
                 annotated; run `revy restore` (it uses the journal's copy in {}), then annotate again",
                m.root.display(),
                copy.display()
            )));
        }
        // Every file is back to its original (restored by hand): the copy is stale.
        crate::instrument::journal_copy::remove(m);
    }
    crate::instrument::nested::check_other_journals(m)?;
    let left = revy_code_left(m);
    if !left.is_empty() {
        return Err(orphaned_code(m, &left));
    }
    Ok(())
}

/// Texts only Revy writes into a source: the Java calls and runtime package, the C++ include.
const SIGNATURES: [&str; 3] = [
    "_revy.runtime.Rv.",
    "package _revy.runtime;",
    ".revy-runtime/revy_runtime.hpp",
];

/// Sources (and the C++ runtime folder) holding Revy's code, for a tree with no journal.
pub fn revy_code_left(m: &Manifest) -> Vec<String> {
    let mut left: Vec<String> = m
        .discover()
        .unwrap_or_default()
        .into_iter()
        .filter(|rel| {
            std::fs::read(m.root.join(rel)).is_ok_and(|b| {
                SIGNATURES
                    .iter()
                    .any(|s| memchr::memmem::find(&b, s.as_bytes()).is_some())
            })
        })
        .collect();
    // The user's sources first, Revy's own runtime files after them.
    left.sort_by_key(|rel| rel.contains("/_revy/runtime/") || rel.starts_with("_revy/runtime/"));
    let dirs = crate::instrument::lang::LangSpec::all().into_iter();
    for rt in dirs.filter_map(|s| s.runtime_dir) {
        if m.root.join(rt).is_dir() {
            left.push(format!("{rt}/"));
        }
    }
    left
}

/// The error for Revy code in a tree whose journal and its copy are both gone.
fn orphaned_code(m: &Manifest, left: &[String]) -> Error {
    let shown: Vec<String> = left
        .iter()
        .take(5)
        .map(|f| crate::util::escape::escape_name(f.as_bytes()))
        .collect();
    let more = if left.len() > 5 {
        format!(" and {} more", left.len() - 5)
    } else {
        String::new()
    };
    Error::input(format!(
        "{}: {} file(s) hold Revy's code but the journal .revy/ is gone (deleted by the \
         build?) and no copy of it is left: {}{more}; put their originals back from version \
         control (e.g. `git checkout -- <file>`, and delete Revy's runtime files), then run \
         revy again",
        m.root.display(),
        left.len(),
        shown.join(", ")
    ))
}

/// Writes a plan: backups and journal first, then each file atomically.
pub(crate) fn commit(m: &Manifest, plan: &Plan) -> Result<State> {
    let _lock = crate::instrument::lock::acquire(m)?;
    ensure_not_annotated(m)?;
    check_plan(m, plan)?;
    crate::instrument::journal_copy::remove(m);
    let (mut state, annotated) = journal(m, plan)?;
    save_state(m, &state)?;
    let written = write_plan(m, plan, &annotated).and_then(|()| {
        state.phase = Phase::Complete;
        save_state(m, &state)
    });
    match written {
        Ok(()) => Ok(state),
        Err(e) => Err(roll_back(m, e)),
    }
}

/// A write failed part way (disk full, file size limit): puts the originals back so the
/// tree builds as before, or says plainly that it is annotated and what to run.
fn roll_back(m: &Manifest, e: Error) -> Error {
    match restore(m) {
        Ok(_) => Error::input(format!(
            "{e}\nrevy: annotate stopped; every file was put back as it was (nothing is annotated)"
        )),
        Err(r) => Error::input(format!(
            "{e}\nrevy: the sources are partly ANNOTATED and putting the originals back failed \
             too ({r}); free some space, then run `revy restore`"
        )),
    }
}

/// Refuses a plan before anything is written: a path outside the project, a file that
/// cannot be written, two paths of one file, a runtime file that is not Revy's.
fn check_plan(m: &Manifest, plan: &Plan) -> Result<()> {
    let all = plan
        .files
        .iter()
        .map(|f| &f.0)
        .chain(plan.runtime.iter().map(|r| &r.0));
    for rel in all {
        if let Some(why) = crate::instrument::safepath::escape_reason(&m.root, rel) {
            return Err(Error::input(format!(
                "{}: {why}; Revy never writes outside {}: exclude it, or copy it into the project",
                m.display_path(rel).display(),
                m.root.display()
            )));
        }
    }
    let mut seen = std::collections::BTreeMap::new();
    for (rel, _, _) in &plan.files {
        check_writable(&m.root.join(rel))?;
        let real =
            std::fs::canonicalize(m.root.join(rel)).map_err(|e| Error::io(m.root.join(rel), e))?;
        if let Some(other) = seen.insert(real, rel) {
            return Err(Error::input(format!(
                "{} and {other} are the same file (a symlink); exclude one of them in {}, \
                 then parse and annotate again",
                m.display_path(rel).display(),
                m.path.display()
            )));
        }
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
    Ok(())
}

/// The backups and edit records of every file, and the state that lists them (phase
/// `Writing`); returns it with the annotated texts.
fn journal(m: &Manifest, plan: &Plan) -> Result<(State, Vec<String>)> {
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
        let original = encode(original);
        write_journal_file(m, &backup_path(m, rel), &original)?;
        let json = serde_json::to_vec(ins).expect("insertions serialise");
        write_journal_file(m, &edits_path(m, rel), &json)?;
        state.files.push(FileRecord {
            path: rel.clone(),
            original_sha256: sha256_hex(&original),
            annotated_sha256: sha256_hex(&encode(&text)),
        });
        annotated.push(text);
    }
    for (rel, contents) in &plan.runtime {
        state.runtime.push(RuntimeRecord {
            path: rel.clone(),
            sha256: sha256_hex(contents),
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
    Ok((state, annotated))
}

/// Test hook: `REVY_TEST_WRITE_DELAY_MS` widens the window between file writes so kill
/// tests can land inside it.
#[cfg(feature = "test-hooks")]
fn test_write_delay() -> Option<std::time::Duration> {
    std::env::var("REVY_TEST_WRITE_DELAY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(std::time::Duration::from_millis)
}

#[cfg(not(feature = "test-hooks"))]
fn test_write_delay() -> Option<std::time::Duration> {
    None
}

/// Each annotated file and runtime file, atomically.
fn write_plan(m: &Manifest, plan: &Plan, annotated: &[String]) -> Result<()> {
    let delay = test_write_delay();
    for ((rel, _, _), text) in plan.files.iter().zip(annotated) {
        if let Some(d) = delay {
            std::thread::sleep(d);
        }
        atomic_write(&m.root.join(rel), &encode(text))?;
    }
    for (rel, contents) in &plan.runtime {
        atomic_write(&m.root.join(rel), contents)?;
    }
    Ok(())
}

/// Rewrites an annotated tree to a new plan of the same files (`--verify` withdrawing
/// declarations). Files whose annotated text does not change are not touched, so the
/// build's own incremental behaviour rebuilds only what changed. Each changed file goes
/// back to its original first, then the journal records its new insertions, then the new
/// text is written: a kill at any point leaves every file original or matching the journal.
pub(crate) fn recommit(m: &Manifest, plan: &Plan) -> Result<usize> {
    let Some(mut state) = load_state(m)? else {
        return Err(Error::input(format!(
            "{}: not annotated; nothing to rewrite",
            m.root.display()
        )));
    };
    let mut changed = 0;
    for i in 0..state.files.len() {
        let rel = state.files[i].path.clone();
        let original = read_backup(m, &state.files[i])?;
        let ins: Vec<Insertion> = plan
            .files
            .iter()
            .find(|(p, _, _)| *p == rel)
            .map(|(_, _, ins)| ins.clone())
            .unwrap_or_default();
        let text = edits::apply(&original, &ins);
        let sha = sha256_hex(&encode(&text));
        if sha == state.files[i].annotated_sha256 {
            continue;
        }
        atomic_write(&m.root.join(&rel), &encode(&original))?;
        let json = serde_json::to_vec(&ins).expect("insertions serialise");
        write_journal_file(m, &edits_path(m, &rel), &json)?;
        state.files[i].annotated_sha256 = sha;
        save_state(m, &state)?;
        atomic_write(&m.root.join(&rel), &encode(&text))?;
        changed += 1;
    }
    // Generated runtime files (tables) may change too; new ones are not expected.
    for (rel, contents) in &plan.runtime {
        let sha = sha256_hex(contents);
        if let Some(r) = state.runtime.iter_mut().find(|r| r.path == *rel) {
            if r.sha256 != sha {
                r.sha256 = sha;
                save_state(m, &state)?;
                atomic_write(&m.root.join(rel), contents)?;
            }
        }
    }
    Ok(changed)
}
