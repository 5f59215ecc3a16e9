//! `revy init` on fresh projects of five build systems (tests/fixtures/init: Make, CMake, a
//! Maven layout built offline with javac, a Gradle layout, plain sources with headers in
//! include/): the manifest it writes works with `revy profile` unedited, the build's
//! progress is shown, and afterwards the build outputs are the originals' again (running
//! them writes no trace). Also `init -m`, a failing build's tail and a program that does
//! not start.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn revy(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_revy"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn ok(o: &Output, what: &str) -> String {
    assert!(
        o.status.success(),
        "{what}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        text(&o.stdout),
        text(&o.stderr)
    );
    text(&o.stdout)
}

/// A fresh copy of `tests/fixtures/init/NAME` in a temp folder named after it.
fn fixture(name: &str) -> (tempfile::TempDir, PathBuf) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/init")
        .join(name);
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join(name);
    common::copy_tree(&from, &dir);
    (t, dir)
}

/// Every trace file under `dir`, wherever a program may have written one.
fn traces(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|x| x == "rvt" || x == "dtf"))
        .collect()
}

fn manifest_value(dir: &Path, key: &str) -> String {
    let m: toml::Value =
        toml::from_str(&std::fs::read_to_string(dir.join("revy.toml")).unwrap()).unwrap();
    m["project"][key].as_str().unwrap().to_string()
}

/// init, then profile unedited; checks the program ran traced, the sources are the
/// fixture's again and the rebuilt program writes no trace.
fn init_then_profile(name: &str, detected: &str, prints: &str) -> (tempfile::TempDir, PathBuf) {
    let (t, dir) = fixture(name);
    let sources = common::snapshot(&dir);
    let out = ok(&revy(&dir, &["init"]), "init");
    assert!(out.contains(&format!("detected: {detected}")), "{out}");
    let o = revy(&dir, &["profile"]);
    let out = ok(&o, &format!("profile on the {name} fixture"));
    let err = text(&o.stderr);
    assert!(out.contains(prints), "the program's output:\n{out}");
    assert!(out.contains("report: "), "{out}");
    for step in [
        "building the annotated sources with `",
        "running `",
        "rebuilding the restored sources with `",
    ] {
        assert!(err.contains(step), "no '{step}' step in:\n{err}");
    }
    assert!(
        out.contains("the build outputs are the originals'"),
        "{out}"
    );
    let after = common::snapshot(&dir);
    for (rel, bytes) in &sources {
        assert!(after.get(rel) == Some(bytes), "{rel:?} is not the original");
    }
    // The program as built now is the original: running it writes no trace.
    let before = traces(&dir);
    assert!(!before.is_empty());
    let run = manifest_value(&dir, "run");
    let o = Command::new("sh")
        .arg("-c")
        .arg(&run)
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{run}: {}", text(&o.stderr));
    assert!(text(&o.stdout).contains(prints));
    assert_eq!(traces(&dir), before, "the rebuilt program wrote a trace");
    (t, dir)
}

#[test]
fn make_project() {
    let (_t, dir) = init_then_profile("make", "Make", "hits 0 size 8");
    assert_eq!(manifest_value(&dir, "build"), "make");
    assert_eq!(manifest_value(&dir, "run"), "out/lru-demo");
}

#[test]
fn cmake_project() {
    let (_t, dir) = init_then_profile("cmake", "CMake", "area 6168.0 6168.0");
    assert_eq!(manifest_value(&dir, "run"), "./build/shapes-demo");
    assert!(dir.join("build/compile_commands.json").is_file());
}

#[test]
fn maven_layout_builds_offline_with_javac() {
    let (_t, dir) = init_then_profile("maven", "Maven layout", "words 11 'the' 3");
    // The tests (JUnit, not on the class path offline) are neither built nor annotated.
    let m = std::fs::read_to_string(dir.join("revy.toml")).unwrap();
    assert!(m.contains("sources = [\"src/main/java/**/*.java\"]"), "{m}");
    assert!(m.contains("works offline"), "{m}");
    assert_eq!(
        manifest_value(&dir, "run"),
        "java -cp target/classes demo.WordCount"
    );
}

#[test]
fn gradle_layout_builds_offline_with_javac() {
    let (_t, dir) = init_then_profile("gradle", "Gradle layout", "total 1275 largest 50");
    assert_eq!(
        manifest_value(&dir, "run"),
        "java -cp build/classes/java/main tally.Main"
    );
}

#[test]
fn plain_sources_get_their_header_folders() {
    let (_t, dir) = init_then_profile("plain", "plain sources", "nodes 30 heaviest 22");
    assert!(manifest_value(&dir, "build").contains(" -Iinclude "));
}

#[test]
fn init_writes_the_manifest_named_with_m() {
    let (_t, dir) = fixture("plain");
    let out = ok(&revy(&dir, &["init", "-m", "other.toml"]), "init -m");
    assert!(out.contains("other.toml"), "{out}");
    assert!(dir.join("other.toml").is_file() && !dir.join("revy.toml").exists());
    ok(
        &revy(&dir, &["-m", "other.toml", "parse"]),
        "parse -m other.toml",
    );
    // A manifest outside the folder would not find its sources: refused in one line.
    let o = revy(&dir, &["init", "-m", "../elsewhere.toml"]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("elsewhere.toml") && err.contains("relative to its folder"),
        "{err}"
    );
}

#[test]
fn a_failing_build_shows_its_last_lines_and_log() {
    let (_t, dir) = fixture("plain");
    ok(&revy(&dir, &["init"]), "init");
    let m = std::fs::read_to_string(dir.join("revy.toml")).unwrap();
    let broken = m.replace(
        &format!("build = {:?}", manifest_value(&dir, "build")),
        "build = \"echo compiling; echo 'scene.cpp:3: error: boom' >&2; exit 3\"",
    );
    std::fs::write(dir.join("revy.toml"), broken).unwrap();
    let o = revy(&dir, &["run"]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("its last lines:\n  compiling\n  scene.cpp:3: error: boom"),
        "{err}"
    );
    assert!(err.contains(".revy/build.log"), "{err}");
    let log = std::fs::read_to_string(dir.join(".revy/build.log")).unwrap();
    assert!(log.contains("boom"));
}

#[test]
fn a_misspelled_main_class_says_the_program_did_not_start() {
    let (_t, dir) = fixture("gradle");
    ok(&revy(&dir, &["init"]), "init");
    let m = std::fs::read_to_string(dir.join("revy.toml")).unwrap();
    std::fs::write(
        dir.join("revy.toml"),
        m.replace(" tally.Main\"", " tally.Mian\""),
    )
    .unwrap();
    let o = revy(&dir, &["profile"]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    let last = err.lines().rev().take(8).collect::<Vec<_>>().join("\n");
    assert!(err.contains("failed before its first traced call"), "{err}");
    assert!(err.contains("(exit code 1)"), "{err}");
    assert!(err.contains("tally.Mian"), "the program's own words: {err}");
    assert!(!err.contains("is the project annotated"), "{last}");
}
