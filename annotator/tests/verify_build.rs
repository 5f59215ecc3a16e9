//! `revy annotate --verify`: a construct Revy gets wrong on purpose (injected through the
//! test-only `REVY_TEST_BREAK` hook) is withdrawn declaration by declaration, the annotated
//! build passes, the report names it with the compiler's line, the program behaves as the
//! original, and `revy restore` gives back every byte. When the build fails where Revy
//! inserted nothing, every original is restored and the error says why.

mod common;
use common::gate::Tool;

use std::path::Path;
use std::process::{Command, Output};

/// `revy ARGS` in `dir`, breaking the build at `brk` through the test hook.
fn revy_breaking(dir: &Path, args: &[&str], brk: Option<&str>) -> Output {
    let mut c = common::bin();
    c.args(args).current_dir(dir).env_remove("REVY_TEST_BREAK");
    if let Some(b) = brk {
        c.env("REVY_TEST_BREAK", b);
    }
    c.output().unwrap()
}

fn sh(dir: &Path, cmd: &str) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .env("REVY_TRACE", "off")
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

fn manifest_cmd(dir: &Path, key: &str) -> String {
    let t: toml::Value =
        toml::from_str(&std::fs::read_to_string(dir.join("revy.toml")).unwrap()).unwrap();
    t["project"][key].as_str().unwrap().to_string()
}

/// Annotates `project` with `brk` injected and `--verify`; checks the withdrawals named in
/// `expect`, the unchanged behaviour and a byte-identical restore. Returns revy's output.
fn verified(project: &str, brk: &str, expect: &[&str]) -> String {
    let t = common::copy_of(project);
    let dir = t.path();
    let before = common::snapshot(dir);
    let build = manifest_cmd(dir, "build");
    let run = manifest_cmd(dir, "run");
    let original = sh(dir, &format!("{build} && {run}"));
    assert!(original.status.success(), "{}", text(&original));

    assert!(revy_breaking(dir, &["parse"], None).status.success());
    // Without --verify the injected construct breaks the build: the hook works.
    let plain = revy_breaking(dir, &["annotate"], Some(brk));
    assert!(plain.status.code().unwrap() <= 1, "{}", text(&plain));
    assert!(!sh(dir, &build).status.success(), "the hook broke nothing");
    assert!(revy_breaking(dir, &["restore"], None).status.success());
    assert_eq!(common::snapshot(dir), before);

    let out = revy_breaking(dir, &["annotate", "--verify"], Some(brk));
    let log = text(&out);
    assert_eq!(out.status.code(), Some(1), "{log}");
    assert!(log.contains("verified: the build passes"), "{log}");
    for e in expect {
        let line = log
            .lines()
            .find(|l| l.starts_with("withdrawn: ") && l.contains(e))
            .unwrap_or_else(|| panic!("no withdrawal naming {e:?}:\n{log}"));
        assert!(
            line.contains("(compiler: ") && line.contains("error"),
            "{line}"
        );
    }
    let withdrawn = log.lines().filter(|l| l.starts_with("withdrawn: ")).count();
    assert_eq!(
        withdrawn,
        expect.len(),
        "only the broken declarations go:\n{log}"
    );
    // Still annotated (the rest is instrumented), builds and behaves as the original.
    let annotated = sh(dir, &format!("{build} && {run}"));
    assert!(annotated.status.success(), "{}", text(&annotated));
    assert_eq!(annotated.stdout, original.stdout);
    assert!(common::snapshot(dir) != before, "nothing left annotated");
    assert!(revy_breaking(dir, &["restore"], None).status.success());
    assert_eq!(common::snapshot(dir), before);
    log
}

#[test]
fn cpp_broken_method_is_withdrawn_and_only_its_file_rewritten() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    let t = common::copy_of("projects/account-cpp");
    let dir = t.path();
    assert!(revy_breaking(dir, &["parse"], None).status.success());
    let out = revy_breaking(
        dir,
        &["annotate", "--verify"],
        Some("bank::Account.deposit"),
    );
    let log = text(&out);
    assert!(
        log.contains("withdrawn: src/account.cpp:") && log.contains("bank::Account::deposit"),
        "{log}"
    );
    // The rest stays instrumented and only account.cpp was rewritten after the first build.
    let annotated = std::fs::read_to_string(dir.join("src/account.cpp")).unwrap();
    assert!(annotated.contains("::_revy_rt::Scope"), "{annotated}");
    assert!(!annotated.contains("revy_test_break"), "{annotated}");
    let mtime = |p: &str| std::fs::metadata(dir.join(p)).unwrap().modified().unwrap();
    assert!(mtime("src/person.cpp") < mtime("src/account.cpp"));
    assert!(revy_breaking(dir, &["restore"], None).status.success());
}

#[test]
fn cpp_method_and_class_withdrawn_build_passes_restore_exact() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    verified(
        "projects/account-cpp",
        "bank::Account.withdraw,bank::Person",
        &[
            "bank::Account::withdraw — method instrumentation dropped",
            "bank::Person — class falls back to non-intrusive object IDs",
        ],
    );
}

#[test]
fn java_method_and_class_withdrawn_build_passes_restore_exact() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    verified(
        "projects/account",
        "bank.Account.deposit,bank.Person",
        &[
            "bank.Account.deposit — method instrumentation dropped",
            "bank.Person — class falls back to non-intrusive object IDs",
        ],
    );
}

#[test]
fn build_failing_outside_revys_code_restores_everything() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    let t = common::copy_of("projects/account-cpp");
    let dir = t.path();
    // The original itself does not build: a stray token in main.cpp's last line.
    let main = dir.join("src/main.cpp");
    let mut src = std::fs::read_to_string(&main).unwrap();
    src.push_str("int revy_fixture_broken = ;\n");
    std::fs::write(&main, src).unwrap();
    let before = common::snapshot(dir);
    assert!(revy_breaking(dir, &["parse"], None).status.code().unwrap() <= 1);
    let out = revy_breaking(dir, &["annotate", "--verify"], None);
    let log = text(&out);
    assert_eq!(out.status.code(), Some(1), "{log}");
    assert!(
        log.contains("the build command failed where Revy inserted nothing")
            && log.contains("main.cpp")
            && log.contains("every original is restored"),
        "{log}"
    );
    assert_eq!(common::snapshot(dir), before);
    assert!(!dir.join(".revy/state.toml").exists());
}

/// Issue 37 item 10: when `--verify` withdraws everything that was instrumented, the summary
/// and the tree agree — nothing is left annotated, no runtime file stays behind, `status`
/// says so (before: "annotated 0 files, added 0 runtime files" while `status` listed the
/// source and 11 runtime files).
#[test]
fn java_verify_withdrawing_everything_leaves_nothing_annotated() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    common::write_files(
        dir,
        &[
            (
                "revy.toml",
                "[project]\nname = \"w\"\nsources = [\"src/**/*.java\"]\n\
                 build = \"mkdir -p out && javac -d out $(find src -name '*.java')\"\n\
                 run = \"java -cp out Hello\"\n\n[annotate]\ninclude = [\"*\"]\n",
            ),
            (
                "src/Hello.java",
                "public class Hello {\n    static int twice(int x) { return 2 * x; }\n\
                 \x20   public static void main(String[] a) { System.out.println(twice(21)); }\n}\n",
            ),
        ],
    );
    let before = common::snapshot(dir);
    assert!(revy_breaking(dir, &["parse"], None).status.success());
    let out = revy_breaking(
        dir,
        &["annotate", "--verify"],
        Some("Hello,Hello.twice,Hello.main"),
    );
    let log = text(&out);
    assert_eq!(out.status.code(), Some(1), "{log}");
    assert!(
        log.contains("annotated 0 files") && log.contains("added 0 runtime files"),
        "{log}"
    );
    assert!(log.contains("every original is restored"), "{log}");
    let status = revy_breaking(dir, &["status"], None);
    assert_eq!(text(&status).trim(), "not annotated");
    let _ = std::fs::remove_dir_all(dir.join("out"));
    assert_eq!(common::snapshot(dir), before);
}

/// Issue 37 item 8: a compiler error in one of Revy's runtime files is named as Revy's, never
/// "where Revy inserted nothing" (before: that text, pointing at Revy's own file). Here the
/// user's build turns every javac lint and doclint warning (public API) into an error; the
/// user's code is clean, the runtime's public entry points lack `@param` tags.
#[test]
fn an_error_in_revys_runtime_is_named_as_revys() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    common::write_files(
        dir,
        &[
            (
                "revy.toml",
                "[project]\nname = \"w\"\nsources = [\"src/**/*.java\"]\n\
                 build = \"mkdir -p out && javac -Xlint:all -Xdoclint:all/protected -Werror -d out $(find src -name '*.java')\"\n\
                 run = \"java -cp out Hello\"\n\n[annotate]\ninclude = [\"*\"]\n",
            ),
            (
                "src/Hello.java",
                "/** Says it. */\npublic class Hello {\n    private Hello() {\n    }\n\n\
                 \x20   static int twice(int x) { return 2 * x; }\n\n\
                 \x20   /**\n     * Prints it.\n     *\n     * @param a unused\n     */\n\
                 \x20   public static void main(String[] a) { System.out.println(twice(21)); }\n}\n",
            ),
        ],
    );
    assert!(sh(dir, &manifest_cmd(dir, "build")).status.success());
    let _ = std::fs::remove_dir_all(dir.join("out"));
    let before = common::snapshot(dir);
    assert!(revy_breaking(dir, &["parse"], None).status.success());
    let out = revy_breaking(dir, &["annotate", "--verify"], None);
    let log = text(&out);
    assert_eq!(out.status.code(), Some(1), "{log}");
    assert!(
        log.contains("the build failed in Revy's own runtime")
            && log.contains("_revy/runtime/")
            && !log.contains("where Revy inserted nothing"),
        "{log}"
    );
    let _ = std::fs::remove_dir_all(dir.join("out"));
    assert_eq!(common::snapshot(dir), before, "every original is restored");
}
