//! Snapshot tests of the SAF: each folder under tests/fixtures/saf/ is a project; `revy parse`
//! on a copy of it must write exactly `expected.saf.toml`, exit with `expected.exit` (default
//! 0) and print every line of `expected.stderr` (if present) on stderr.
//! Set REVY_BLESS=1 to rewrite the expectations after an intended change (then review the diff).

mod common;

use std::path::{Path, PathBuf};

use common::golden::Goldens;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/saf")
}

fn copy_tree(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from) {
        let e = e.unwrap();
        let rel = e.path().strip_prefix(from).unwrap();
        let dest = to.join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

fn parse(dir: &Path) -> (i32, String, String) {
    let out = common::revy_in(dir, &["parse"]);
    let saf = std::fs::read_to_string(dir.join(".revy/saf.toml")).unwrap_or_default();
    (
        out.status.code().unwrap_or(-1),
        saf,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn saf_snapshots_match() {
    let mut goldens = Goldens::new();
    let mut count = 0;
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let fixture = entry.unwrap().path();
        if !fixture.join("revy.toml").exists() {
            continue;
        }
        count += 1;
        let tmp = tempfile::tempdir().unwrap();
        copy_tree(&fixture, tmp.path());
        let (code, saf, stderr) = parse(tmp.path());
        let name = fixture.file_name().unwrap().to_string_lossy().into_owned();
        let exit = format!("{code}\n");
        goldens.check(&name, &fixture.join("expected.exit"), &exit, None);
        goldens.check(&name, &fixture.join("expected.saf.toml"), &saf, None);
        if let Ok(lines) = std::fs::read_to_string(fixture.join("expected.stderr")) {
            for l in lines.lines().filter(|l| !l.is_empty()) {
                if !stderr.contains(l) {
                    goldens.fail(format!("{name}: stderr lacks `{l}`; got:\n{stderr}"));
                }
            }
        }
        // Determinism: a second parse gives identical bytes.
        let (_, again, _) = parse(tmp.path());
        if again != saf {
            goldens.fail(format!("{name}: two parses gave different SAF bytes"));
        }
    }
    assert!(
        count >= 2,
        "no fixtures found under {}",
        fixtures().display()
    );
    goldens.finish();
}
