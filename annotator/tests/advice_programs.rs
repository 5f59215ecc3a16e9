//! The programs of `tests/advice` (checked against Revy's predictions by
//! `tests/advice/check.sh`): each sequential version and its hand-parallelised version build
//! with their manifests' commands and print the same result, and each sequential manifest is
//! one `revy parse` accepts with something selected. Run at a few percent of their size
//! (`ADVICE_SCALE`); the speedups are measured by the script, never here.

mod common;
use common::gate::Tool;

use std::path::Path;
use std::process::{Command, Output};

const PROGRAMS: [&str; 8] = [
    "workers",
    "pipeline",
    "chain",
    "finegrained",
    "distribute",
    "telemetry",
    "channels",
    "preempted",
];

/// The hand-made versions of one program: `par` and any `par-…` beside it (pipeline has
/// two: Transformer active, Writer active), as `tests/advice/check.sh` measures them.
fn parallel_versions(program: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(program)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            p.join("revy.toml").is_file() && (name == "par" || name.starts_with("par-"))
        })
        .collect();
    v.sort();
    v
}

fn manifest_command(dir: &Path, key: &str) -> String {
    let text = std::fs::read_to_string(dir.join("revy.toml")).unwrap();
    let doc: toml::Table = toml::from_str(&text).unwrap();
    doc["project"][key].as_str().unwrap().to_string()
}

fn sh(dir: &Path, command: &str) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env("ADVICE_SCALE", "0.05")
        .output()
        .unwrap()
}

fn ok(what: &str, o: Output) -> Output {
    assert!(
        o.status.success(),
        "{what}: exit {:?}\n{}{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// Builds and runs one version; returns its stdout, after checking it timed itself.
fn build_and_run(dir: &Path) -> String {
    let what = dir.display();
    ok(
        &format!("build {what}"),
        sh(dir, &manifest_command(dir, "build")),
    );
    let run = ok(
        &format!("run {what}"),
        sh(dir, &manifest_command(dir, "run")),
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.lines().any(|l| l.starts_with("elapsed_ms=")),
        "{what} reports no elapsed_ms on stderr: {stderr}"
    );
    String::from_utf8(run.stdout).unwrap()
}

#[test]
fn each_parallel_version_prints_what_its_sequential_one_does() {
    if !common::gate::needs(&[Tool::Java, Tool::Cpp]) {
        return;
    }
    let t = common::copy_of("tests/advice");
    for name in PROGRAMS {
        let seq = build_and_run(&t.path().join(name).join("seq"));
        assert!(!seq.trim().is_empty(), "{name} prints its result");
        let versions = parallel_versions(&t.path().join(name));
        let want = if name == "pipeline" { 2 } else { 1 };
        assert_eq!(versions.len(), want, "{name}: {versions:?}");
        for v in versions {
            let par = build_and_run(&v);
            assert_eq!(
                seq,
                par,
                "{}: the parallel version computes the same",
                v.display()
            );
        }
    }
}

#[test]
fn each_sequential_manifest_selects_its_classes() {
    let t = common::copy_of("tests/advice");
    for name in PROGRAMS {
        let dir = t.path().join(name).join("seq");
        let out = Command::new(env!("CARGO_BIN_EXE_revy"))
            .arg("parse")
            .current_dir(&dir)
            .output()
            .unwrap();
        let out = ok(&format!("revy parse in {name}"), out);
        let text = String::from_utf8_lossy(&out.stdout);
        // "parsed N files: C classes (S selected), M methods (K selected and instrumentable)"
        let selected: usize = text
            .split(" methods (")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{name}: no selection count in {text}"));
        assert!(selected >= 2, "{name}: {text}");
    }
}
