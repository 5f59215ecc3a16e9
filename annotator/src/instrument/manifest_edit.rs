//! Edits to `revy.toml` that keep the user's formatting: comments, order, spacing and the
//! other keys stay as written (toml_edit). Used by `revy estimate --budget … --write`.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};

/// Sets `[annotate] exclude` to `patterns` (adding the table or the key if missing), then
/// checks the manifest still loads before it replaces the file (atomically): a failure
/// leaves the file as it was. Returns the 1-based line of the `exclude` key as written.
pub fn set_exclude(manifest: &Path, patterns: &[String]) -> Result<usize> {
    let text = std::fs::read_to_string(manifest).map_err(|e| Error::io(manifest, e))?;
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        Error::input(format!(
            "{}: {}",
            manifest.display(),
            one_line(&e.to_string())
        ))
    })?;
    let annotate = doc
        .entry("annotate")
        .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
    let Some(table) = annotate.as_table_like_mut() else {
        return Err(Error::input(format!(
            "{}: `annotate` is not a table; add the exclude line by hand",
            manifest.display()
        )));
    };
    let array: toml_edit::Array = patterns.iter().map(String::as_str).collect();
    match table.get_mut("exclude") {
        // The key's own decoration (a comment above it) stays; the value is replaced.
        Some(item) => {
            let decor = item.as_value().map(|v| v.decor().clone());
            *item = toml_edit::value(array);
            if let (Some(d), Some(v)) = (decor, item.as_value_mut()) {
                *v.decor_mut() = d;
            }
        }
        None => {
            table.insert("exclude", toml_edit::value(array));
        }
    }
    let out = doc.to_string();
    let line = exclude_line(&out).unwrap_or(0);
    let dir = manifest.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| Error::io(dir, e))?;
    tmp.write_all(out.as_bytes())
        .map_err(|e| Error::io(manifest, e))?;
    // What is written must load as a manifest, or the user's file stays untouched.
    crate::instrument::manifest::Manifest::load(tmp.path()).map_err(|e| {
        Error::input(format!(
            "{}: the edited manifest would not load ({e}); left unchanged",
            manifest.display()
        ))
    })?;
    tmp.persist(manifest)
        .map_err(|e| Error::io(manifest, e.error))?;
    Ok(line)
}

/// The line of the `exclude` key in the `[annotate]` table of `text`, if any.
pub fn exclude_line(text: &str) -> Option<usize> {
    let mut in_annotate = false;
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.starts_with('[') {
            in_annotate = l.trim_start_matches('[').trim_end_matches(']').trim() == "annotate";
        } else if in_annotate && l.split('=').next().is_some_and(|k| k.trim() == "exclude") {
            return Some(i + 1);
        }
    }
    None
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edited(before: &str, patterns: &[&str]) -> String {
        let dir = tempfile::tempdir().unwrap();
        let m = dir.path().join("revy.toml");
        std::fs::write(&m, before).unwrap();
        let p: Vec<String> = patterns.iter().map(|s| s.to_string()).collect();
        set_exclude(&m, &p).unwrap();
        std::fs::read_to_string(&m).unwrap()
    }

    const HEAD: &str =
        "# my project\n[project]\nname = \"p\"  # the name\nsources = [\"*.java\"]\n";

    #[test]
    fn replaces_the_exclude_line_and_keeps_everything_else() {
        let before = format!("{HEAD}\n[annotate]\nmode = \"faster\"\n# slow ones\nexclude = [\"p.Z.old\"]\n\n[trace]\nmax_size = \"1GiB\"\n");
        let after = edited(&before, &["p.Z.old", "p.B.tiny"]);
        let want = before.replace(
            "exclude = [\"p.Z.old\"]",
            "exclude = [\"p.Z.old\", \"p.B.tiny\"]",
        );
        assert_eq!(after, want);
    }

    #[test]
    fn adds_the_key_or_the_table() {
        let before = format!("{HEAD}\n[annotate]\nmode = \"faster\"\n");
        let after = edited(&before, &["p.B.tiny"]);
        assert_eq!(after, format!("{before}exclude = [\"p.B.tiny\"]\n"));
        let after = edited(HEAD, &["p.B.tiny"]);
        assert!(after.starts_with(HEAD), "{after}");
        assert!(
            after.ends_with("[annotate]\nexclude = [\"p.B.tiny\"]\n"),
            "{after}"
        );
    }

    #[test]
    fn a_manifest_that_does_not_parse_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let m = dir.path().join("revy.toml");
        std::fs::write(&m, "[project\n").unwrap();
        let e = set_exclude(&m, &["x".into()]).unwrap_err().to_string();
        assert!(e.contains("revy.toml"), "{e}");
        assert_eq!(std::fs::read_to_string(&m).unwrap(), "[project\n");
    }
}
