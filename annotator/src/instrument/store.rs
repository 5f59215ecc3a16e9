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

/// How a file compares with what annotate wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileState {
    Annotated,
    Original,
    /// Edited since; restore removes only Revy's insertions and keeps the edits.
    EditedSince,
    /// Edited since in a way restore cannot undo safely: restore refuses.
    EditedRefused,
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
            Ok((st, crate::util::srctext::decode(bytes).ok()))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((FileState::Missing, None)),
        Err(e) => Err(Error::io(p, e)),
    }
}

/// The journal plus each annotated file's state, for `revy status`.
pub(crate) type StatusRows = (State, Vec<(String, FileState)>);

/// The copy of a deleted journal (its folder and state), if one is held.
pub fn copied_state(m: &Manifest) -> Option<(PathBuf, State)> {
    let dir = crate::instrument::journal_copy::held(m)?;
    let text = std::fs::read_to_string(dir.join("state.toml")).ok()?;
    let s: State = toml::from_str(&text).ok()?;
    check_state_paths(m, &dir.join("state.toml"), &text, &s).ok()?;
    Some((dir, s))
}

/// The files of a deleted journal's copy that are not original (still annotated, edited),
/// and its runtime files still present.
fn status_rows_of_copy(m: &Manifest) -> Result<Vec<String>> {
    let Some((_, s)) = copied_state(m) else {
        return Ok(Vec::new());
    };
    let mut left = Vec::new();
    for r in &s.files {
        if !matches!(
            file_state(m, r)?.0,
            FileState::Original | FileState::Missing
        ) {
            left.push(r.path.clone());
        }
    }
    left.extend(
        s.runtime
            .iter()
            .filter(|r| m.root.join(&r.path).exists())
            .map(|r| r.path.clone()),
    );
    Ok(left)
}

/// Per-file status lines for `revy status`; edited files say whether restore can keep the
/// edits (it is asked, not guessed).
pub fn status(m: &Manifest) -> Result<Option<StatusRows>> {
    let Some(state) = load_state(m)? else {
        // Journal deleted: the copy's view (by hashes; restore decides edited files).
        return Ok(copied_state(m).map(|(_, s)| {
            let rows = s
                .files
                .iter()
                .map(|r| {
                    (
                        r.path.clone(),
                        file_state(m, r).map_or(FileState::Missing, |x| x.0),
                    )
                })
                .collect();
            (s, rows)
        }));
    };
    let mut rows = Vec::new();
    for r in &state.files {
        let mut st = file_state(m, r)?.0;
        if st == FileState::EditedSince && matches!(decide(m, &state, r)?, Decision::Refuse(_)) {
            st = FileState::EditedRefused;
        }
        rows.push((r.path.clone(), st));
    }
    Ok(Some((state, rows)))
}

/// What restore did.
#[derive(Debug, Default)]
pub struct RestoreSummary {
    pub restored: usize,
    pub kept_edits: Vec<String>,
    pub runtime_removed: usize,
    /// Annotated files found moved, `old -> new`; restored where they are now.
    pub moved: Vec<String>,
    /// The journal `.revy/` was deleted and came back from its copy in this folder.
    pub revived_from: Option<PathBuf>,
}

/// Revy's own text in either language: a restored file must hold no more of these than
/// its original did.
fn marker_count(text: &str) -> usize {
    edits::MARKERS
        .iter()
        .map(|m| memchr::memmem::find_iter(text.as_bytes(), m).count())
        .sum()
}

/// Removes Revy's insertions from an edited file and proves the result: it holds no more of
/// Revy's text than the original did (a copied insertion, e.g. in a comment, could have
/// been removed instead of the live one), and by construction only inserted bytes went.
fn proven_unapply(original: &str, current: &str, ins: &[Insertion]) -> Option<String> {
    let text = edits::unapply(current, ins)?;
    (marker_count(&text) <= marker_count(original)).then_some(text)
}

enum Decision {
    Nothing,
    /// Write these bytes to this file (relative path); `kept` when the user's edits stay.
    Write {
        rel: String,
        bytes: Vec<u8>,
        kept: bool,
    },
    Refuse(String),
}

fn read_backup(m: &Manifest, r: &FileRecord) -> Result<String> {
    let backup = backup_path(m, &r.path);
    let bytes = std::fs::read(&backup).map_err(|e| {
        Error::input(format!(
            "{}: backup of {} is missing ({e}); restore it from version control",
            backup.display(),
            r.path
        ))
    })?;
    if sha256_hex(&bytes) != r.original_sha256 {
        return Err(Error::input(format!(
            "{}: backup does not match the original's hash; restore {} from version control",
            backup.display(),
            r.path
        )));
    }
    crate::util::srctext::decode(bytes).map_err(|_| {
        Error::input(format!(
            "{}: backup holds text Revy cannot have written; restore {} from version control",
            backup.display(),
            r.path
        ))
    })
}

fn read_insertions(m: &Manifest, rel: &str) -> Option<Vec<Insertion>> {
    std::fs::read(edits_path(m, rel))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
}

/// What restoring one journaled file takes.
fn decide(m: &Manifest, state: &State, r: &FileRecord) -> Result<Decision> {
    let (st, current) = file_state(m, r)?;
    let write = |rel: &str, bytes: Vec<u8>, kept| Decision::Write {
        rel: rel.to_string(),
        bytes,
        kept,
    };
    Ok(match st {
        FileState::Original => Decision::Nothing,
        FileState::Annotated => write(&r.path, bytes(read_backup(m, r)?), false),
        FileState::Missing => {
            let original = read_backup(m, r)?;
            match find_moved(m, state, r, &original)? {
                Some((rel, text)) => write(&rel, bytes(text), true),
                // Deleted: the original comes back where it was.
                None => write(&r.path, bytes(original), false),
            }
        }
        FileState::EditedSince | FileState::EditedRefused => {
            let original = read_backup(m, r)?;
            let done = match (read_insertions(m, &r.path), current) {
                (Some(ins), Some(cur)) => proven_unapply(&original, &cur, &ins),
                _ => None,
            };
            match done {
                Some(text) => write(&r.path, bytes(text), true),
                None => Decision::Refuse(r.path.clone()),
            }
        }
    })
}

/// An annotated file that is gone from its place may have been moved: looks for a source
/// file (not itself journaled) that is, or provably was, that annotated file.
fn find_moved(
    m: &Manifest,
    state: &State,
    r: &FileRecord,
    original: &str,
) -> Result<Option<(String, String)>> {
    let ins = read_insertions(m, &r.path).unwrap_or_default();
    let ext = Path::new(&r.path).extension();
    let walker = walkdir::WalkDir::new(&m.root)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !(e.file_name() == ".revy" || e.file_name() == ".git"));
    for e in walker.flatten() {
        if !e.file_type().is_file() || e.path().extension() != ext {
            continue;
        }
        let Ok(rel) = e.path().strip_prefix(&m.root) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if state.files.iter().any(|f| f.path == rel) {
            continue;
        }
        let Ok(raw) = std::fs::read(e.path()) else {
            continue;
        };
        if sha256_hex(&raw) == r.annotated_sha256 {
            return Ok(Some((rel, original.to_string())));
        }
        let Ok(text) = crate::util::srctext::decode(raw) else {
            continue;
        };
        if marker_count(&text) > marker_count(original) {
            if let Some(t) = proven_unapply(original, &text, &ins) {
                return Ok(Some((rel, t)));
            }
        }
    }
    Ok(None)
}

/// A journaled file to write back: its record, where it is now, the bytes, and whether
/// the user's edits stay.
type RestoreAction<'a> = (&'a FileRecord, String, Vec<u8>, bool);

/// Puts every original back; files edited since annotation keep the user's edits (only
/// Revy's insertions are removed, and the result is checked to hold none of them). Refuses,
/// changing nothing, if that is impossible.
pub fn restore(m: &Manifest) -> Result<RestoreSummary> {
    let _lock = crate::instrument::lock::acquire(m)?;
    let mut summary = RestoreSummary::default();
    let state = match load_state(m)? {
        Some(s) => s,
        // A build deleted `.revy/`: its copy outside the project is put back first.
        None => match crate::instrument::journal_copy::revive(m)? {
            Some(copy) => {
                summary.revived_from = Some(copy);
                load_state(m)?.expect("revived journal")
            }
            None => return Err(not_annotated(m)),
        },
    };
    let actions = decide_restore(m, &state)?;
    remove_runtime(m, &state, &mut summary)?;
    write_originals(m, &actions, &mut summary)?;
    sweep_after_restore(m, &state);
    // The journal goes last: until here a re-run of restore can finish the job.
    std::fs::remove_file(state_path(m)).map_err(|e| Error::io(state_path(m), e))?;
    for sub in ["backup", "edits"] {
        let _ = std::fs::remove_dir_all(m.state_dir().join(sub));
    }
    crate::instrument::journal_copy::remove(m);
    Ok(summary)
}

/// Nothing to restore: say so, unless Revy's code is in the sources without a journal.
fn not_annotated(m: &Manifest) -> Error {
    let left = revy_code_left(m);
    if left.is_empty() {
        Error::input(format!(
            "{}: nothing to restore (not annotated)",
            m.root.display()
        ))
    } else {
        orphaned_code(m, &left)
    }
}

/// Decides every file's restore before anything is written, so a refusal writes nothing.
fn decide_restore<'a>(m: &Manifest, state: &'a State) -> Result<Vec<RestoreAction<'a>>> {
    let mut actions = Vec::new();
    let mut refused = Vec::new();
    for r in &state.files {
        match decide(m, state, r)? {
            Decision::Nothing => {}
            Decision::Write { rel, bytes, kept } => actions.push((r, rel, bytes, kept)),
            Decision::Refuse(p) => refused.push(p),
        }
    }
    if !refused.is_empty() {
        return Err(Error::input(format!(
            "restore refused: {} changed since annotation in ways that touch Revy's insertions \
             (or now hold a copy of them): {}; undo those edits (originals are in {}) and run \
             `revy restore` again",
            if refused.len() == 1 {
                "this file was"
            } else {
                "these files were"
            },
            refused.join(", "),
            m.state_dir().join("backup").display()
        )));
    }
    Ok(actions)
}

/// Removes the runtime files first: that frees space on a full disk before anything is written.
fn remove_runtime(m: &Manifest, state: &State, summary: &mut RestoreSummary) -> Result<()> {
    for r in &state.runtime {
        let p = m.root.join(&r.path);
        match std::fs::remove_file(&p) {
            Ok(()) => summary.runtime_removed += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(p, e)),
        }
    }
    Ok(())
}

/// Writes the decided texts, each checked to stay inside the project first.
fn write_originals(
    m: &Manifest,
    actions: &[RestoreAction],
    summary: &mut RestoreSummary,
) -> Result<()> {
    for (r, rel, bytes, kept) in actions {
        if let Some(why) = crate::instrument::safepath::escape_reason(&m.root, rel) {
            return Err(Error::input(format!(
                "{}: {why}",
                m.display_path(rel).display()
            )));
        }
        atomic_write(&m.root.join(rel), bytes)?;
        summary.restored += 1;
        if rel != &r.path {
            summary.moved.push(format!("{} -> {rel}", r.path));
        } else if *kept {
            summary.kept_edits.push(rel.clone());
        }
    }
    Ok(())
}

/// Sweeps temp files a kill during an atomic write can leave behind, then removes the
/// folders annotation created (only if empty).
fn sweep_after_restore(m: &Manifest, state: &State) {
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
