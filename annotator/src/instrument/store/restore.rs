//! Reading an annotated tree back: `revy status` (each file compared with what annotate
//! wrote) and `revy restore` (each file back to its original byte for byte, or its later
//! edits kept by removing only Revy's insertions; refused, naming the files, when neither
//! is proven).

use super::*;

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
pub(super) fn status_rows_of_copy(m: &Manifest) -> Result<Vec<String>> {
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

pub(super) fn read_backup(m: &Manifest, r: &FileRecord) -> Result<String> {
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
