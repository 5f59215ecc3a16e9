//! `revy init`: writes a starter manifest for the Java/C++ sources under a folder, one that
//! `revy parse` accepts as is.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use crate::error::{Error, Result};
use crate::model::Lang;

/// What `init` found and wrote.
pub struct InitSummary {
    pub manifest: std::path::PathBuf,
    pub java_files: usize,
    pub cpp_files: usize,
}

/// Writes `DIR/revy.toml`. Refuses to overwrite unless `force`.
pub fn init(dir: &Path, force: bool) -> Result<InitSummary> {
    if !dir.is_dir() {
        return Err(Error::input(format!(
            "{}: not a folder; pass the folder holding your sources",
            dir.display()
        )));
    }
    let manifest = dir.join("revy.toml");
    if manifest.exists() && !force {
        return Err(Error::input(format!(
            "{}: already exists; edit it, or pass --force to replace it",
            manifest.display()
        )));
    }
    let mut globs = BTreeSet::new();
    let (mut java, mut cpp) = (0usize, 0usize);
    let mut java_dirs = BTreeSet::new();
    let mut cpp_units = Vec::new();
    let mut main_class = None;
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
        let Some(lang) = Lang::of_path(&rel) else {
            continue;
        };
        let ext = rel.rsplit('.').next().unwrap_or_default();
        let top = rel.split_once('/').map(|(t, _)| t);
        globs.insert(match top {
            Some(t) => format!("{}/**/*.{ext}", globset::escape(t)),
            None => format!("*.{ext}"),
        });
        match lang {
            Lang::Java => {
                java += 1;
                java_dirs.insert(top.unwrap_or(".").to_string());
                if main_class.is_none() {
                    main_class = find_main(entry.path());
                }
            }
            Lang::Cpp => {
                cpp += 1;
                if matches!(ext, "cpp" | "cc" | "cxx") {
                    cpp_units.push(rel.clone());
                }
            }
        }
    }
    if java + cpp == 0 {
        return Err(Error::input(format!(
            "{}: no .java/.cpp/.cc/.h/.hpp files found; run `revy init` in your project's folder",
            dir.display()
        )));
    }
    let name = std::fs::canonicalize(dir)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "project".into());
    let q = |s: &str| toml::Value::String(s.to_string()).to_string();
    let (build, run) = if java >= cpp {
        let dirs: Vec<_> = java_dirs.iter().map(|d| sh_quote(d)).collect();
        // `find -exec … {} +` hands the names over as arguments: no word splitting.
        (
            format!(
                "mkdir -p build && find {} -name '*.java' -exec javac -encoding UTF-8 -d build {{}} +",
                dirs.join(" ")
            ),
            format!(
                "java -cp build {}",
                sh_quote(&main_class.unwrap_or_else(|| "Main".into()))
            ),
        )
    } else if dir.join("CMakeLists.txt").exists() {
        (
            "cmake -S . -B build && cmake --build build".to_string(),
            format!("./build/{}", sh_quote(&name)),
        )
    } else {
        (
            format!(
                "mkdir -p build && g++ -std=c++17 -O1 -pthread -o build/{} {}",
                sh_quote(&name),
                cpp_units
                    .iter()
                    .map(|u| sh_quote(u))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            format!("./build/{}", sh_quote(&name)),
        )
    };
    let mut text = String::new();
    let _ = writeln!(
        text,
        "# Revy project manifest, written by `revy init`; edit freely."
    );
    let _ = writeln!(text, "[project]\nname = {}", q(&name));
    let list: Vec<String> = globs.iter().map(|g| q(g)).collect();
    let _ = writeln!(text, "sources = [{}]", list.join(", "));
    let _ = writeln!(text, "exclude = []");
    let _ = writeln!(text, "build = {}", q(&build));
    let _ = writeln!(text, "run = {}", q(&run));
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
    std::fs::write(&manifest, text).map_err(|e| Error::io(&manifest, e))?;
    Ok(InitSummary {
        manifest,
        java_files: java,
        cpp_files: cpp,
    })
}

/// `s` as one POSIX shell word: plain names as they are, anything else in single quotes
/// (so `$(…)`, spaces and globs in file names are never interpreted).
fn sh_quote(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./+,:@%=".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The qualified name of the class in `path` that declares `static void main(`, if any.
fn find_main(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    if !text.contains("static void main(") {
        return None;
    }
    let class = path.file_stem()?.to_string_lossy().into_owned();
    let package = text.lines().find_map(|l| {
        l.trim()
            .strip_prefix("package ")
            .map(|p| p.trim_end_matches(';').trim().to_string())
    });
    Some(match package {
        Some(p) => format!("{p}.{class}"),
        None => class,
    })
}
