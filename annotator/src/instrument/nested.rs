//! Manifests nested over the same files: a manifest in a parent or child folder whose
//! journal holds some of this manifest's sources. Annotating them again would insert a
//! second `#include`, probe Revy's own code and leave two journals that each restore only
//! their half, so parse and annotate refuse and name the other manifest's folder.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::instrument::journal::State;
use crate::instrument::manifest::Manifest;

/// Refuses when another manifest's journal (in a folder above or below this manifest's)
/// holds one of this manifest's sources.
pub(crate) fn check_other_journals(m: &Manifest) -> Result<()> {
    let root = std::fs::canonicalize(&m.root).unwrap_or_else(|_| m.root.clone());
    let others = journals_above(&root)
        .into_iter()
        .chain(journals_below(&root))
        .collect::<Vec<_>>();
    if others.is_empty() {
        return Ok(());
    }
    let ours: HashSet<String> = m.discover()?.into_iter().collect();
    for dir in others {
        if let Some(rel) = held_file(&dir, &root, &ours) {
            return Err(Error::input(format!(
                "{}: annotated by the manifest in {} (its journal {} holds it), and this \
                 manifest's sources include it too; run `revy restore` with that manifest \
                 first, or exclude the file from one of the two manifests",
                m.root.join(&rel).display(),
                dir.display(),
                dir.join(".revy").display()
            )));
        }
    }
    Ok(())
}

/// The first of `ours` (relative to `root`) that the journal in `dir` holds.
fn held_file(dir: &Path, root: &Path, ours: &HashSet<String>) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(".revy").join("state.toml")).ok()?;
    // A damaged journal is its own manifest's business; it claims nothing here.
    let state: State = toml::from_str(&text).ok()?;
    let paths = (state.files.iter().map(|f| &f.path)).chain(state.runtime.iter().map(|r| &r.path));
    paths
        .filter_map(|p| dir.join(p).strip_prefix(root).ok().map(slash_path))
        .find(|rel| ours.contains(rel))
}

fn slash_path(p: &Path) -> String {
    let parts: Vec<String> = p
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// Folders above `root` holding a journal.
fn journals_above(root: &Path) -> Vec<PathBuf> {
    root.ancestors()
        .skip(1)
        .filter(|d| d.join(".revy").join("state.toml").is_file())
        .map(Path::to_path_buf)
        .collect()
}

/// Folders below `root` holding a journal (Revy's own and VCS folders are not entered).
fn journals_below(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut it = walkdir::WalkDir::new(root).follow_links(false).into_iter();
    while let Some(e) = it.next() {
        let Ok(e) = e else { continue };
        if e.depth() == 0 || !e.file_type().is_dir() {
            continue;
        }
        let n = e.file_name();
        if n == ".revy" || n == ".git" {
            it.skip_current_dir();
        }
        let dir = e.path().parent().unwrap_or(root);
        if n == ".revy" && dir != root && e.path().join("state.toml").is_file() {
            out.push(dir.to_path_buf());
        }
    }
    out
}
