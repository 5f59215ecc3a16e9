//! Snapshot tests of the generated code, the product: each folder under
//! tests/fixtures/annotate/ is a project holding one kind of construct. `revy parse` then
//! `revy annotate --better` (and `--faster`) on a copy of it must turn every source file into
//! exactly `expected/<mode>/<path>` (a file absent there must stay unchanged), and
//! `revy restore` must give the originals back byte for byte.
//! Set REVY_BLESS=1 to rewrite the expectations after an intended change (then review the diff).

mod common;

use std::path::{Path, PathBuf};

use common::golden::Goldens;

const MODES: [&str; 2] = ["better", "faster"];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/annotate")
}

fn run(dir: &Path, args: &[&str]) {
    let out = common::revy_in(dir, args);
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

/// Annotates a copy of `fixture` in `mode` and compares (or blesses) every source.
fn check(fixture: &Path, mode: &str, goldens: &mut Goldens) {
    let name = fixture.file_name().unwrap().to_string_lossy().into_owned();
    let tmp = tempfile::tempdir().unwrap();
    common::copy_tree(&fixture.join("src"), &tmp.path().join("src"));
    std::fs::copy(fixture.join("revy.toml"), tmp.path().join("revy.toml")).unwrap();
    run(tmp.path(), &["parse"]);
    run(tmp.path(), &["annotate", &format!("--{mode}")]);
    for rel in sources(fixture) {
        let original = std::fs::read_to_string(fixture.join(&rel)).unwrap();
        let got = std::fs::read_to_string(tmp.path().join(&rel)).unwrap();
        // A file absent from expected/ must stay unchanged.
        goldens.check(
            &format!("{name} --{mode} {}", rel.display()),
            &fixture.join("expected").join(mode).join(&rel),
            &got,
            Some(&original),
        );
    }
    run(tmp.path(), &["restore"]);
    for rel in sources(fixture) {
        let back = std::fs::read(tmp.path().join(&rel)).unwrap();
        if back != std::fs::read(fixture.join(&rel)).unwrap() {
            goldens.fail(format!("{name} --{mode} {}: not restored", rel.display()));
        }
    }
}

#[test]
fn annotated_sources_match_snapshots() {
    let mut goldens = Goldens::new();
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
            check(fixture, mode, &mut goldens);
        }
    }
    assert!(count >= 4, "no fixtures under {}", fixtures().display());
    goldens.finish();
}
