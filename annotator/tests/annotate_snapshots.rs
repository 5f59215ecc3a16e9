//! Snapshot tests of the generated code, the product: each folder under
//! tests/fixtures/annotate/ is a project holding one kind of construct. `revy parse` then
//! `revy annotate --better` (and `--faster`) on a copy of it must turn every source file into
//! exactly `expected/<mode>/<path>` (a file absent there must stay unchanged), and
//! `revy restore` must give the originals back byte for byte.
//! Set REVY_BLESS=1 to rewrite the expectations after an intended change (then review the diff).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

const MODES: [&str; 2] = ["better", "faster"];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/annotate")
}

fn run(dir: &Path, args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_revy"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "revy {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The fixture's sources, relative to it (`src/…`).
fn sources(fixture: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(fixture.join("src"))
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().strip_prefix(fixture).unwrap().to_path_buf())
        .collect();
    out.sort();
    out
}

/// Annotates a copy of `fixture` in `mode`; returns the differences from the expectations.
fn check(fixture: &Path, mode: &str, bless: bool) -> Vec<String> {
    let name = fixture.file_name().unwrap().to_string_lossy().into_owned();
    let tmp = tempfile::tempdir().unwrap();
    common::copy_tree(&fixture.join("src"), &tmp.path().join("src"));
    std::fs::copy(fixture.join("revy.toml"), tmp.path().join("revy.toml")).unwrap();
    run(tmp.path(), &["parse"]);
    run(tmp.path(), &["annotate", &format!("--{mode}")]);
    let mut failures = Vec::new();
    for rel in sources(fixture) {
        let original = std::fs::read_to_string(fixture.join(&rel)).unwrap();
        let got = std::fs::read_to_string(tmp.path().join(&rel)).unwrap();
        let expected_path = fixture.join("expected").join(mode).join(&rel);
        if bless {
            if got != original {
                std::fs::create_dir_all(expected_path.parent().unwrap()).unwrap();
                std::fs::write(&expected_path, &got).unwrap();
            } else {
                let _ = std::fs::remove_file(&expected_path);
            }
            continue;
        }
        let want = std::fs::read_to_string(&expected_path).unwrap_or(original);
        if got != want {
            let diff: Vec<String> = (got.lines().zip(want.lines()).enumerate())
                .filter(|(_, (a, b))| a != b)
                .take(3)
                .map(|(i, (a, b))| format!("  line {}:\n    got  `{a}`\n    want `{b}`", i + 1))
                .collect();
            failures.push(format!(
                "{name} --{mode} {}: differs from {}\n{}",
                rel.display(),
                expected_path.display(),
                diff.join("\n")
            ));
        }
    }
    run(tmp.path(), &["restore"]);
    for rel in sources(fixture) {
        let back = std::fs::read(tmp.path().join(&rel)).unwrap();
        if back != std::fs::read(fixture.join(&rel)).unwrap() {
            failures.push(format!("{name} --{mode} {}: not restored", rel.display()));
        }
    }
    failures
}

#[test]
fn annotated_sources_match_snapshots() {
    let bless = std::env::var_os("REVY_BLESS").is_some();
    let mut failures = Vec::new();
    let mut count = 0;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("revy.toml").exists())
        .collect();
    dirs.sort();
    for fixture in &dirs {
        count += 1;
        for mode in MODES {
            failures.extend(check(fixture, mode, bless));
        }
    }
    assert!(count >= 4, "no fixtures under {}", fixtures().display());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
