//! `revy init`: writes a starter manifest for the Java/C++ sources under a folder, one that
//! `revy parse` accepts as is.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::instrument::buildsys::Detected;
use crate::instrument::lang::LangSpec;
use crate::instrument::model::Lang;
use crate::instrument::starter::{self, Found};

/// What `init` found and wrote.
pub struct InitSummary {
    pub manifest: std::path::PathBuf,
    /// Source files found per language, in language-table order (languages with none left out).
    pub files: Vec<(Lang, usize)>,
    /// The build it recognised and the commands it wrote, with what to check.
    pub build: Detected,
}

/// Where `revy init` writes: `DIR/revy.toml`, or the `-m` file (a bare name goes in DIR; a
/// path must lie in DIR, since the manifest's globs are relative to its folder).
pub(crate) fn manifest_path(dir: &Path, given: Option<&Path>) -> Result<PathBuf> {
    let Some(given) = given else {
        return Ok(dir.join("revy.toml"));
    };
    let bare = given.parent().is_none_or(|p| p.as_os_str().is_empty());
    if bare {
        return Ok(dir.join(given));
    }
    let parent = given.parent().unwrap_or(Path::new("."));
    let same = match (std::fs::canonicalize(parent), std::fs::canonicalize(dir)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !same {
        return Err(Error::input(format!(
            "{}: a manifest's source globs are relative to its folder, so it must be in {}; pass a file name (-m other.toml) or run init there",
            given.display(),
            dir.display()
        )));
    }
    Ok(given.to_path_buf())
}

/// Writes the manifest (`DIR/revy.toml` unless `manifest` names another file in DIR).
/// Refuses to overwrite unless `force`.
pub fn init(dir: &Path, manifest: Option<&Path>, force: bool) -> Result<InitSummary> {
    if !dir.is_dir() {
        return Err(Error::input(format!(
            "{}: not a folder; pass the folder holding your sources",
            dir.display()
        )));
    }
    let manifest = manifest_path(dir, manifest)?;
    if manifest.exists() && !force {
        return Err(Error::input(format!(
            "{}: already exists; edit it, or pass --force to replace it",
            manifest.display()
        )));
    }
    let (globs, found) = scan(dir);
    // The language with the most files builds the project (ties: the table's order).
    let Some((spec, chosen)) = LangSpec::all()
        .into_iter()
        .zip(&found)
        .filter(|(_, f)| f.files > 0)
        .rev()
        .max_by_key(|(_, f)| f.files)
    else {
        let exts: Vec<String> = LangSpec::all()
            .iter()
            .flat_map(|s| s.extensions.iter().map(|e| format!(".{e}")))
            .collect();
        return Err(Error::input(format!(
            "{}: no {} files found; run `revy init` in your project's folder",
            dir.display(),
            exts.join("/")
        )));
    };
    let name = std::fs::canonicalize(dir)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "project".into());
    let build = crate::instrument::buildsys::detect(dir, &name, spec.lang, chosen);
    let globs = match &build.sources {
        // The build's own source folders, plus the other languages' globs.
        Some(own) => {
            let ext = |g: &String| g.rsplit('.').next().map(str::to_string);
            let own_exts: BTreeSet<_> = own.iter().filter_map(ext).collect();
            let mut g: BTreeSet<String> = globs
                .into_iter()
                .filter(|g| ext(g).is_none_or(|e| !own_exts.contains(&e)))
                .collect();
            g.extend(own.iter().cloned());
            g
        }
        None => globs,
    };
    let text = manifest_text(&name, &globs, &build);
    std::fs::write(&manifest, text).map_err(|e| Error::io(&manifest, e))?;
    let files = LangSpec::all()
        .into_iter()
        .zip(&found)
        .filter(|(_, f)| f.files > 0)
        .map(|(s, f)| (s.lang, f.files))
        .collect();
    Ok(InitSummary {
        manifest,
        files,
        build,
    })
}

/// Source globs (one per top folder and extension) and what was found per language, in
/// language-table order.
fn scan(dir: &Path) -> (BTreeSet<String>, Vec<Found>) {
    let mut globs = BTreeSet::new();
    let mut found: Vec<Found> = LangSpec::all().iter().map(|_| Found::default()).collect();
    let walker = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            let n = e.file_name().to_string_lossy();
            e.depth() == 0
                || !(n.starts_with('.') || n == "build" || n == "target" || n == "node_modules")
        });
    for entry in walker.flatten() {
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(dir) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        let Some(spec) = LangSpec::of_path(&rel) else {
            continue;
        };
        let ext = rel.rsplit('.').next().unwrap_or_default();
        let top = rel.split_once('/').map(|(t, _)| t);
        globs.insert(match top {
            Some(t) => format!("{}/**/*.{ext}", globset::escape(t)),
            None => format!("*.{ext}"),
        });
        let i = LangSpec::all()
            .iter()
            .position(|s| s.lang == spec.lang)
            .unwrap_or(0);
        let f = &mut found[i];
        f.files += 1;
        f.top_dirs.insert(top.unwrap_or(".").to_string());
        if starter::of(spec.lang).units.contains(&ext) {
            f.units.push(rel.clone());
        } else {
            let folder = rel.rsplit_once('/').map_or(".", |(d, _)| d);
            f.header_dirs.insert(folder.to_string());
            // `include/lib/x.h` is included as "lib/x.h": its `include` folder too.
            if let Some(i) = folder
                .find("include/")
                .filter(|&i| i == 0 || folder[..i].ends_with('/'))
            {
                f.header_dirs
                    .insert(folder[..i + "include".len()].to_string());
            }
        }
        if let (None, Some(entry_of)) = (&f.entry, starter::of(spec.lang).entry) {
            f.entry = entry_of(entry.path());
        }
    }
    (globs, found)
}

/// The starter manifest's text.
fn manifest_text(name: &str, globs: &BTreeSet<String>, d: &Detected) -> String {
    let q = |s: &str| toml::Value::String(s.to_string()).to_string();
    let mut text = String::new();
    let _ = writeln!(
        text,
        "# Revy project manifest, written by `revy init`; edit freely."
    );
    let _ = writeln!(text, "[project]\nname = {}", q(name));
    let list: Vec<String> = globs.iter().map(|g| q(g)).collect();
    let _ = writeln!(text, "sources = [{}]", list.join(", "));
    let _ = writeln!(text, "exclude = []");
    let _ = writeln!(text, "# Build: {}. Check:", d.system);
    for n in &d.notes {
        let _ = writeln!(text, "#   {n}");
    }
    let _ = writeln!(text, "build = {}", q(&d.build));
    let _ = writeln!(text, "run = {}", q(&d.run));
    let _ = writeln!(
        text,
        "\n[annotate]\nmode = \"better\"   # or \"faster\"\ninclude = [\"*\"]\nexclude = []\n"
    );
    let _ = writeln!(
        text,
        "[sizes]\nsystem = 32\npointer = 8\ncollection_sample = 8\n"
    );
    let _ = writeln!(
        text,
        "[trace]\npath = \".revy/traces\"\nmax_size = \"1GiB\""
    );
    text
}
