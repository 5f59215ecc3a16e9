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
    assert!(annotated.contains("::_revy_rt::unborn"), "{annotated}");
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

// ---- item 18: nested manifests over the same files ----

/// A manifest in a parent folder and one in a child folder both cover `sub/main.cpp`. While
/// one of them has it annotated, the other's parse and annotate refuse, naming the folder of
/// the manifest holding it and what to do (before: the Revy code was reported as left
/// without a journal, "take them from version control"; with the journal's copy gone the
/// file was annotated a second time). Restoring the first lets the second annotate.
#[test]
fn nested_manifests_refuse_files_the_other_journal_holds() {
    if !common::gate::needs(&[common::gate::Tool::Cpp]) {
        return;
    }
    let (t, state) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let revy = |dir: &Path, args: &[&str]| {
        (Command::new(env!("CARGO_BIN_EXE_revy"))
            .args(args)
            .current_dir(dir))
        .env("XDG_STATE_HOME", state.path())
        .output()
        .unwrap()
    };
    let (top, sub) = (t.path(), t.path().join("sub"));
    std::fs::create_dir(&sub).unwrap();
    let manifest = |dir: &Path, sources: &str| {
        let toml = format!(
            "[project]\nname = \"n\"\nsources = [{sources}]\n\n[annotate]\ninclude = [\"*\"]\n"
        );
        std::fs::write(dir.join("revy.toml"), toml).unwrap();
    };
    manifest(top, "\"sub/*.cpp\"");
    manifest(&sub, "\"*.cpp\"");
    std::fs::write(sub.join("main.cpp"), WRAPPED).unwrap();
    let before = snapshot(top);
    for (first, second, other) in [(&sub, top, "sub"), (&top.to_path_buf(), sub.as_path(), "")] {
        assert_eq!(revy(first, &["parse"]).status.code(), Some(0));
        let a = revy(first, &["annotate"]);
        assert_eq!(a.status.code(), Some(0), "{}", text(&a));
        for cmd in ["parse", "annotate"] {
            let o = revy(second, &[cmd]);
            let e = text(&o);
            assert_eq!(o.status.code(), Some(2), "{cmd}: {e}");
            let named = first.canonicalize().unwrap();
            assert!(
                e.contains(&format!("annotated by the manifest in {}", named.display()))
                    && e.contains("main.cpp")
                    && e.contains("run `revy restore` with that manifest first"),
                "{cmd} ({other}): {e}"
            );
        }
        assert_eq!(revy(first, &["restore"]).status.code(), Some(0));
        assert_eq!(snapshot(top), before, "restore of {}", first.display());
    }
}

// ---- item 9: the runtime's names never meet the user's ----

const USER_REVY: &str = r#"#include <cstdio>
namespace revy {
struct Scope { int depth; };
inline int size_of(int x) { return x * 100; }
}
class Walker {
public:
    explicit Walker(int d) : s_{d} {}
    int walk(int k) const { return revy::size_of(k) + s_.depth; }
private:
    revy::Scope s_;
};
int main() { Walker w(2); std::printf("%d\n", w.walk(3)); return 0; }
"#;

/// A user `namespace revy` holding a `Scope` and a `size_of` of its own: Revy's runtime
/// namespace is `_revy_rt`, a reserved name no program may declare (before: "redefinition
/// of struct revy::Scope … where Revy inserted nothing"). Annotated, built, run with the
/// original's output, restored byte for byte.
#[test]
fn a_user_namespace_revy_does_not_meet_the_runtime() {
    if !common::gate::needs(&[common::gate::Tool::Cpp]) {
        return;
    }
    let t = project(USER_REVY);
    let dir = t.path();
    let want = build_run(dir);
    assert_eq!(want, "302\n");
    std::fs::remove_file(dir.join("prog")).unwrap();
    let before = snapshot(dir);
    assert_eq!(revy(dir, &["parse"]).status.code(), Some(0));
    let a = revy(dir, &["annotate"]);
    assert_eq!(a.status.code(), Some(0), "{}", text(&a));
    assert_eq!(build_run(dir), want, "annotated program's output");
    let annotated = std::fs::read_to_string(dir.join("main.cpp")).unwrap();
    assert!(
        annotated.contains("::_revy_rt::Scope _rv_s("),
        "{annotated}"
    );
    std::fs::remove_file(dir.join("prog")).unwrap();
    assert_eq!(revy(dir, &["restore"]).status.code(), Some(0));
    let _ = std::fs::remove_file(dir.join("prog")); // the rebuild after restoring
    assert_eq!(snapshot(dir), before);
}

// ---- item 20: a class whose end does not parse ----

/// A logger (shaped like spdlog's) whose template member holds a try-macro block with
/// `#ifdef … #else … #endif` inside: the parser invents a `}` and ends the class early.
const LOGGER_FILES: [(&str, &str); 4] = [
    (
        "common.h",
        r#"#pragma once
#include <cstdio>
#include <stdexcept>
#ifdef X_NO_EXCEPTIONS
#    define X_TRY
#    define X_LOGGER_CATCH(location)
#else
#    define X_TRY try
#    define X_LOGGER_CATCH(location)                                   \
        catch (const std::exception &ex)                              \
        {                                                             \
            std::printf("%d: %s\n", location, ex.what());             \
        }                                                             \
        catch (...)                                                   \
        {                                                             \
            std::printf("unknown\n");                                 \
            throw;                                                    \
        }
#endif
"#,
    ),
    (
        "logger.h",
        r#"#pragma once
#include "common.h"

namespace x {
class logger {
public:
    explicit logger(int base);
    int count() const;
    int twice() const { return 2 * n_; }

    template <typename... Args>
    void log_(int loc, const char* fmt, Args&&... args) {
        X_TRY {
            char buf[64];
#ifdef X_USE_STD_FORMAT
            std::snprintf(buf, sizeof buf, fmt, args...);
#else
            std::snprintf(buf, sizeof buf, fmt, std::forward<Args>(args)...);
#endif
            n_ += buf[0] != 0;
        }
        X_LOGGER_CATCH(loc)
    }

private:
    int n_;
};
}  // namespace x
"#,
    ),
    (
        "logger.cpp",
        r#"#include <utility>
#include "logger.h"

namespace x {
logger::logger(int base) : n_(base) {}
int logger::count() const { return n_; }
}  // namespace x
"#,
    ),
    (
        "main.cpp",
        r#"#include <utility>
#include "logger.h"

class Other {
public:
    explicit Other(int k) : k_(k) {}
    int k() const { return k_; }

private:
    int k_;
};

int main() {
    x::logger l(1);
    l.log_(__LINE__, "%d", 3);
    l.log_(__LINE__, "%s", "b");
    Other o(5);
    std::printf("%d %d %d\n", l.count(), l.twice(), o.k());
    return 0;
}
"#,
    ),
];

/// The class is withdrawn whole (members, inline and out-of-class methods); the rest is
/// probed, the build passes with the original's output and restore is exact (before: its
/// constructor and methods were probed with `this->_rv_tag`, the member landed inside a
/// method body: "'class x::logger' has no member named '_rv_tag'").
#[test]
fn a_class_whose_body_cannot_be_read_is_withdrawn_whole() {
    if !common::gate::needs(&[common::gate::Tool::Cpp]) {
        return;
    }
    let build = "g++ -std=c++17 -Wall -Wextra -o prog main.cpp logger.cpp";
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    common::write_files(dir, &LOGGER_FILES);
    let manifest = format!(
        "[project]\nname = \"l\"\nsources = [\"*.cpp\", \"*.h\"]\nbuild = \"{build}\"\n\n[annotate]\ninclude = [\"*\"]\n"
    );
    std::fs::write(dir.join("revy.toml"), manifest).unwrap();
    let run = |what: &str| {
        let b = sh(dir, build);
        assert!(b.status.success(), "{what} build: {}", text(&b));
        let r = sh(dir, "./prog && rm prog");
        assert!(r.status.success(), "{what} run: {}", text(&r));
        String::from_utf8_lossy(&r.stdout).into_owned()
    };
    let want = run("original");
    assert_eq!(want, "3 6 5\n");
    let before = snapshot(dir);
    let p = revy(dir, &["parse"]);
    assert!(
        text(&p).contains("logger.h:14:25: missing '}'"),
        "{}",
        text(&p)
    );
    let a = revy(dir, &["annotate"]);
    assert_eq!(a.status.code(), Some(1), "parse problems: {}", text(&a));
    for f in ["logger.h", "logger.cpp"] {
        let s = std::fs::read_to_string(dir.join(f)).unwrap();
        assert!(!s.contains("_rv_"), "{f} left alone:\n{s}");
    }
    let m = std::fs::read_to_string(dir.join("main.cpp")).unwrap();
    assert!(m.contains("_rv_s("), "Other is probed:\n{m}");
    assert_eq!(run("annotated"), want);
    assert_eq!(revy(dir, &["restore"]).status.code(), Some(0));
    let _ = std::fs::remove_file(dir.join("prog")); // the rebuild after restoring
    assert_eq!(snapshot(dir), before);
}
