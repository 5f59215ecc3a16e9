//! Keeps every path Revy reads from its own files (SAF, journal) or writes to inside the
//! manifest's folder, symlinks included. A hand-edited or hostile `.revy/` file gets an
//! error naming its line, never a write elsewhere.

use std::path::{Component, Path, PathBuf};

/// Why a relative path may not be used, or `None` when it stays inside `root` after
/// resolving every symlink that exists on the way (the file itself included).
pub fn escape_reason(root: &Path, rel: &str) -> Option<String> {
    let p = Path::new(rel);
    if rel.is_empty() {
        return Some("is empty".into());
    }
    for c in p.components() {
        match c {
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir => return Some("climbs out with `..`".into()),
            Component::RootDir | Component::Prefix(_) => return Some("is absolute".into()),
        }
    }
    let root_c = match std::fs::canonicalize(root) {
        Ok(r) => r,
        Err(e) => return Some(format!("cannot resolve the project folder ({e})")),
    };
    // The deepest part of the path that exists decides where the rest would land.
    let mut at = root.join(p);
    loop {
        if std::fs::symlink_metadata(&at).is_ok() {
            return match std::fs::canonicalize(&at) {
                Ok(c) if c.starts_with(&root_c) => None,
                Ok(c) => Some(format!(
                    "leads outside the project through a symlink (to {})",
                    c.display()
                )),
                Err(_) => Some("is a dangling or looping symlink".into()),
            };
        }
        if !at.pop() {
            return Some("cannot be resolved".into());
        }
    }
}

/// Refuses a `.revy/` that is a symlink leading outside the project: Revy's state (and the
/// backups written into it) stays inside too.
/// `root` is the manifest's folder, `state_dir` its `.revy/`.
pub fn check_state_dir(root: &Path, state_dir: &Path) -> crate::error::Result<()> {
    match escape_reason(root, ".revy") {
        None => Ok(()),
        Some(why) => Err(crate::error::Error::input(format!(
            "{}: {why}; Revy keeps its state inside the project: make .revy a plain folder",
            state_dir.display()
        ))),
    }
}

/// The resolved file a source path stands for: its symlink target (inside the project, as
/// checked by [`escape_reason`]) so writes keep the link, else the path itself.
pub fn write_target(path: &Path) -> PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(md) if md.file_type().is_symlink() => {
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// 1-based line of the first place `value` is written as a TOML string in `text` (1 if
/// not found), so errors about a value name the line a user can fix.
pub fn line_of_value(text: &str, value: &str) -> usize {
    let quoted = toml::Value::String(value.to_string()).to_string();
    text.find(&quoted)
        .map_or(1, |at| text[..at].matches('\n').count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_inside_pass_and_escapes_are_named() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        assert_eq!(escape_reason(root, "src/A.java"), None);
        assert_eq!(escape_reason(root, "new/dir/A.java"), None);
        assert!(escape_reason(root, "../x").unwrap().contains(".."));
        assert!(escape_reason(root, "/etc/passwd")
            .unwrap()
            .contains("absolute"));
        let out = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(out.path(), root.join("src/lib")).unwrap();
        assert!(escape_reason(root, "src/lib/B.java")
            .unwrap()
            .contains("symlink"));
        assert_eq!(
            line_of_value("a = 1\npath = \"x/y\"\n", "x/y"),
            2,
            "line of a quoted value"
        );
    }
}
