//! Issue 37's C++ items (hardening round 2) that need more than the `hardened` corpus
//! program's annotate-build-run-restore loop (cpp_annotate.rs): restore of edited files,
//! nested manifests. Each test failed before its fix.

use std::path::Path;
use std::process::{Command, Output};

mod common;

use common::snapshot;

fn revy(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_revy"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn sh(dir: &Path, cmd: &str) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .output()
        .unwrap()
}

const BUILD: &str = "g++ -std=c++17 -Wall -Wextra -o prog main.cpp";

/// A one-file C++ project: `revy.toml` plus `main.cpp` holding `src`.
fn project(src: &str) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(
        t.path().join("revy.toml"),
        format!(
            "[project]\nname = \"h\"\nsources = [\"*.cpp\", \"*.h\"]\nbuild = \"{BUILD}\"\nrun = \"./prog\"\n\n[annotate]\ninclude = [\"*\"]\n"
        ),
    )
    .unwrap();
    std::fs::write(t.path().join("main.cpp"), src).unwrap();
    t
}

/// Builds and runs the project as it is; its stdout.
fn build_run(dir: &Path) -> String {
    let b = sh(dir, BUILD);
    assert!(b.status.success(), "build: {}", text(&b));
    let r = sh(dir, "./prog");
    assert!(r.status.success(), "run: {}", text(&r));
    String::from_utf8_lossy(&r.stdout).into_owned()
}

// ---- item 1: restore of an edited file gives the user's code back ----

const WRAPPED: &str = r#"#include <cstdio>
static int f(int a) { return a * 10; }
static int g() { return 3; }
class Calc {
public:
    explicit Calc(int a) : x_(f(a) + 1) {}
    int value() const { return x_ + z_; }
private:
    int x_;
    int z_ = g() * 2;
};
int main() { Calc c(4); std::printf("%d\n", c.value()); return 0; }
"#;

/// A constructor's first initialiser and a default member initialiser that call something
/// are wrapped in a comma expression; after an edit elsewhere in the file, restore must
/// remove the wrapper's own `)`, not the first one it finds (before: `x_(f(a + 1))` and
/// `z_ = g( * 2)`, "kept your edits").
#[test]
fn restore_of_an_edited_file_keeps_wrapped_initialisers() {
    let t = project(WRAPPED);
    let dir = t.path();
    let want = build_run(dir);
    std::fs::remove_file(dir.join("prog")).unwrap();
    assert_eq!(revy(dir, &["parse"]).status.code(), Some(0));
    let a = revy(dir, &["annotate"]);
    assert_eq!(a.status.code(), Some(0), "{}", text(&a));
    let annotated = std::fs::read_to_string(dir.join("main.cpp")).unwrap();
    assert!(annotated.contains("::revy::unborn"), "{annotated}");
    assert_eq!(build_run(dir), want, "annotated program's output");
    std::fs::remove_file(dir.join("prog")).unwrap();
    std::fs::write(dir.join("main.cpp"), format!("{annotated}// a note\n")).unwrap();
    let r = revy(dir, &["restore"]);
    assert_eq!(r.status.code(), Some(0), "{}", text(&r));
    assert!(text(&r).contains("kept your edits"), "{}", text(&r));
    let restored = std::fs::read_to_string(dir.join("main.cpp")).unwrap();
    assert_eq!(restored, format!("{WRAPPED}// a note\n"));
    assert_eq!(build_run(dir), want, "restored program's output");
}

/// A copy of a marked `)` the user pasted elsewhere makes restore refuse rather than guess.
#[test]
fn restore_refuses_when_a_marked_close_was_copied() {
    let t = project(WRAPPED);
    let dir = t.path();
    assert_eq!(revy(dir, &["parse"]).status.code(), Some(0));
    assert_eq!(revy(dir, &["annotate"]).status.code(), Some(0));
    let annotated = std::fs::read_to_string(dir.join("main.cpp")).unwrap();
    let close = revy::instrument::edits::marked_close();
    let at = annotated.find("explicit Calc").unwrap();
    let edited = format!("{}/* {close} */{}", &annotated[..at], &annotated[at..]);
    std::fs::write(dir.join("main.cpp"), &edited).unwrap();
    let before = snapshot(dir);
    let r = revy(dir, &["restore"]);
    assert_eq!(r.status.code(), Some(2), "{}", text(&r));
    assert_eq!(snapshot(dir), before, "a refused restore changes nothing");
}

// ---- item 22: template implementation files named by the manifest ----

/// `.tcc`/`.txx` files are read as C++ headers (the `hardened` corpus program probes a
/// member defined in one); a file the manifest names outright that no language reads is an
/// error naming it and its line (before: skipped without a word, parse exit 0).
#[test]
fn a_named_source_revy_does_not_read_is_an_error() {
    let t = project("int main() { return 0; }\n");
    let dir = t.path();
    std::fs::write(dir.join("impl.weird"), "int x;\n").unwrap();
    std::fs::write(
        dir.join("revy.toml"),
        "[project]\nname = \"h\"\nsources = [\"*.cpp\", \"impl.weird\"]\n",
    )
    .unwrap();
    let p = revy(dir, &["parse"]);
    assert_eq!(p.status.code(), Some(2), "{}", text(&p));
    let e = text(&p);
    assert!(
        e.contains("revy.toml:3:") && e.contains("\"impl.weird\"") && e.contains(".tcc"),
        "{e}"
    );
}
