//! Hostile and everyday inputs to the store (issue 10, items 1–8): forged `.revy/` files,
//! edited and moved annotated files, symlinks and hard links, concurrent runs, signals to
//! `revy profile`, `revy init` names, and manifests/sources that used to fail badly.
//! Each test starts from a copy of projects/account (or a small project of its own).

use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::gate::Tool;
use common::revy_in as revy;

use common::snapshot;

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn account() -> tempfile::TempDir {
    common::copy_of("projects/account")
}

fn ok(dir: &Path, args: &[&str]) -> Output {
    let o = revy(dir, args);
    assert_eq!(o.status.code(), Some(0), "revy {args:?}: {}", err(&o));
    o
}

fn read(p: impl AsRef<Path>) -> String {
    std::fs::read_to_string(p).unwrap()
}

// ---- item 1: paths in Revy's own files ----

#[test]
fn saf_naming_a_file_outside_the_project_is_refused_with_its_line() {
    let t = account();
    let dir = t.path();
    ok(dir, &["parse"]);
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("Account.java");
    std::fs::copy(dir.join("src/bank/Account.java"), &victim).unwrap();
    let saf_path = dir.join(".revy/saf.toml");
    let saf = read(&saf_path);
    let before = snapshot(dir);
    for forged in [
        victim.to_str().unwrap().to_string(),
        "../../x/Account.java".into(),
    ] {
        let text = saf.replace(
            "file = \"src/bank/Account.java\"",
            &format!("file = {}", toml_str(&forged)),
        );
        assert_ne!(text, saf);
        std::fs::write(&saf_path, &text).unwrap();
        let line = text[..text.find(&toml_str(&forged)).unwrap()]
            .lines()
            .count();
        let o = revy(dir, &["annotate"]);
        assert_eq!(o.status.code(), Some(2), "{}", err(&o));
        assert!(
            err(&o).contains(&format!("saf.toml:{line}:")),
            "names the SAF line {line}: {}",
            err(&o)
        );
        assert_eq!(read(&victim), read(dir.join("src/bank/Account.java")));
        assert!(!dir.join(".revy/state.toml").exists());
        assert_eq!(snapshot(dir), before);
    }
}

fn toml_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

#[test]
fn journal_naming_paths_outside_the_project_is_refused_with_its_line() {
    let t = account();
    let dir = t.path();
    ok(dir, &["parse"]);
    ok(dir, &["annotate"]);
    let journal = dir.join(".revy/state.toml");
    let good = read(&journal);
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    let rel_victim = format!(
        "../{}/victim.txt",
        outside.path().file_name().unwrap().to_str().unwrap()
    );
    // A runtime entry whose removal would delete the victim, a file entry whose restore
    // would create one outside.
    let forged = [
        good.replacen(
            "path = \"src/_revy/runtime/Rv.java\"",
            &format!("path = \"{rel_victim}\""),
            1,
        ),
        good.replacen(
            "path = \"src/bank/Person.java\"",
            "path = \"../v/f.java\"",
            1,
        ),
    ];
    for text in forged {
        assert_ne!(text, good);
        std::fs::write(&journal, &text).unwrap();
        let o = revy(dir, &["restore"]);
        assert_eq!(o.status.code(), Some(2), "{}", err(&o));
        assert!(err(&o).contains("state.toml:"), "{}", err(&o));
        assert_eq!(read(&victim), "keep me");
        assert!(!dir.parent().unwrap().join("v").exists());
    }
    std::fs::write(&journal, &good).unwrap();
    ok(dir, &["restore"]);
}

// ---- item 2: restore proves its result ----

#[test]
fn restore_refuses_when_a_copy_of_an_insertion_would_stay_live() {
    let t = account();
    let dir = t.path();
    ok(dir, &["parse"]);
    let original = snapshot(dir);
    ok(dir, &["annotate"]);
    let acct = dir.join("src/bank/Account.java");
    let annotated = read(&acct);
    let line = annotated
        .lines()
        .find(|l| l.contains("transfer(") && l.contains("Rv.enter("))
        .unwrap()
        .to_string();
    // The user keeps a copy of the annotated line as a comment just above it.
    let edited = annotated.replacen(&line, &format!("// {}\n{line}", line.trim()), 1);
    std::fs::write(&acct, &edited).unwrap();
    let st = revy(dir, &["status"]);
    assert!(
        !out(&st).contains("keeps those edits") && out(&st).contains("refuses"),
        "{}",
        out(&st)
    );
    let o = revy(dir, &["restore"]);
    let now = read(&acct);
    let live_code_clean = now
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .all(|l| !l.contains("_revy.runtime."));
    assert!(
        o.status.code() == Some(2) || live_code_clean,
        "restore exited {:?} and left Revy's code live:\n{now}",
        o.status.code()
    );
    if o.status.code() == Some(2) {
        assert!(err(&o).contains("src/bank/Account.java"), "{}", err(&o));
        assert_eq!(now, edited, "a refused restore changes nothing");
        std::fs::write(&acct, &annotated).unwrap();
        ok(dir, &["restore"]);
        assert_eq!(snapshot(dir), original);
    }
}

// ---- item 3: names in generated commands ----

#[test]
fn init_quotes_file_names_in_generated_commands() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("proj");
    std::fs::create_dir_all(dir.join("src dir")).unwrap();
    std::fs::write(
        dir.join("src dir/m$(touch PWNED).cpp"),
        "int helper() { return 1; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src dir/main file.cpp"),
        "int helper();\nstruct A { int f() { return helper(); } };\nint main() { A a; return a.f() - 1; }\n",
    )
    .unwrap();
    ok(&dir, &["init"]);
    let o = revy(&dir, &["run"]);
    assert!(
        !dir.join("PWNED").exists() && !t.path().join("PWNED").exists(),
        "a file name ran a command"
    );
    assert!(
        err(&o).contains("no trace") || o.status.code() == Some(0),
        "build with spaces in names: {} {}",
        out(&o),
        err(&o)
    );
    assert!(dir.join("build/proj").exists(), "{}", err(&o));
}

// ---- item 4: symlinks and hard links ----

#[test]
fn symlinked_source_folder_outside_the_tree_is_refused() {
    let t = account();
    let dir = t.path();
    let outside = tempfile::tempdir().unwrap();
    std::fs::rename(dir.join("src/bank"), outside.path().join("bank")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("bank"), dir.join("src/bank")).unwrap();
    let before = snapshot(outside.path());
    ok(dir, &["parse"]);
    let o = revy(dir, &["annotate"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("symlink"), "{}", err(&o));
    assert_eq!(snapshot(outside.path()), before, "nothing written outside");
}

#[test]
fn symlinked_source_file_stays_a_link_and_hard_links_are_not_split() {
    let t = account();
    let dir = t.path();
    // Account.java becomes a link to a file inside the tree but outside the sources.
    std::fs::create_dir_all(dir.join("real")).unwrap();
    std::fs::rename(
        dir.join("src/bank/Account.java"),
        dir.join("real/Account.java"),
    )
    .unwrap();
    std::os::unix::fs::symlink("../../real/Account.java", dir.join("src/bank/Account.java"))
        .unwrap();
    ok(dir, &["parse"]);
    let original = read(dir.join("real/Account.java"));
    ok(dir, &["annotate"]);
    let link = dir.join("src/bank/Account.java");
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert!(read(dir.join("real/Account.java")).contains("_revy.runtime."));
    ok(dir, &["restore"]);
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert_eq!(read(dir.join("real/Account.java")), original);

    // A hard link: annotating would split it, so it is refused.
    std::fs::hard_link(
        dir.join("src/bank/Person.java"),
        dir.join("real/Person.java"),
    )
    .unwrap();
    ok(dir, &["parse"]);
    let o = revy(dir, &["annotate"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("hard link"), "{}", err(&o));
    assert_eq!(
        read(dir.join("real/Person.java")),
        read(dir.join("src/bank/Person.java"))
    );
}

// ---- item 5: one at a time ----

#[test]
fn a_second_annotate_is_refused_naming_the_lock_holder_and_dead_holders_are_taken_over() {
    let t = account();
    let dir = t.path();
    ok(dir, &["parse"]);
    let mut first = Command::new(env!("CARGO_BIN_EXE_revy"))
        .args(["annotate"])
        .current_dir(dir)
        .env("REVY_TEST_WRITE_DELAY_MS", "1500")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let journal = dir.join(".revy/state.toml");
    let started = std::time::Instant::now();
    while !journal.exists() && started.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let o = revy(dir, &["annotate"]);
    let r = revy(dir, &["restore"]);
    assert!(first.wait().unwrap().success());
    assert_eq!(o.status.code(), Some(2));
    let pid = first.id().to_string();
    assert!(
        err(&o).contains("lock") && err(&o).contains(&pid),
        "names the lock and pid {pid}: {}",
        err(&o)
    );
    assert_eq!(r.status.code(), Some(2), "restore waits its turn too");
    assert!(err(&r).contains(&pid), "{}", err(&r));
    // The holder is gone: its lock file (naming a dead pid) is taken over.
    assert_eq!(read(dir.join(".revy/lock")).trim(), pid);
    ok(dir, &["restore"]);
}

// ---- item 6: signals to `revy profile` ----

#[test]
fn profile_restores_on_sigterm_and_sighup_and_ends_the_child_group() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    for (sig, code) in [
        (libc_sig::TERM, 143),
        (libc_sig::HUP, 129),
        (libc_sig::INT, 130),
    ] {
        let t = account();
        let dir = t.path();
        let original = snapshot(dir);
        let marker = dir.join("child-alive");
        // The program never ends on its own; a grandchild keeps touching a file.
        let manifest = read(dir.join("revy.toml")).replace(
            "run = \"java -cp build bank.Main\"",
            "run = \"(while true; do touch child-alive; sleep 0.1; done) & wait\"",
        );
        std::fs::write(dir.join("revy.toml"), manifest).unwrap();
        let mut p = Command::new(env!("CARGO_BIN_EXE_revy"))
            .args(["profile"])
            .current_dir(dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        while !marker.exists() && started.elapsed().as_secs() < 120 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(marker.exists(), "the run started");
        Command::new("kill")
            .args([sig, &p.id().to_string()])
            .status()
            .unwrap();
        let st = p.wait().unwrap();
        assert_eq!(st.code(), Some(code), "exit code after kill {sig}");
        std::fs::remove_file(&marker).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(400));
        assert!(!marker.exists(), "the child's group still runs after {sig}");
        let mut now = snapshot(dir);
        now.remove(Path::new("revy.toml"));
        let mut want = original.clone();
        want.remove(Path::new("revy.toml"));
        assert_eq!(now, want, "sources restored after {sig}");
        assert!(!dir.join(".revy/state.toml").exists());
    }
}

mod libc_sig {
    pub const TERM: &str = "-TERM";
    pub const HUP: &str = "-HUP";
    pub const INT: &str = "-INT";
}

// ---- item 7: status, parse while annotated, moved files, full disk ----

#[test]
fn parse_while_annotated_is_refused() {
    let t = account();
    let dir = t.path();
    ok(dir, &["parse"]);
    let saf = read(dir.join(".revy/saf.toml"));
    ok(dir, &["annotate"]);
    let o = revy(dir, &["parse"]);
    assert_eq!(o.status.code(), Some(2), "{}", out(&o));
    assert!(err(&o).contains("revy restore"), "{}", err(&o));
    assert_eq!(read(dir.join(".revy/saf.toml")), saf, "SAF unchanged");
    ok(dir, &["restore"]);
    ok(dir, &["parse"]);
    ok(dir, &["annotate"]);
    ok(dir, &["restore"]);
}

#[test]
fn a_moved_annotated_file_is_restored_where_it_is_now() {
    let t = account();
    let dir = t.path();
    ok(dir, &["parse"]);
    let original = read(dir.join("src/bank/Account.java"));
    ok(dir, &["annotate"]);
    std::fs::create_dir_all(dir.join("src/moved")).unwrap();
    std::fs::rename(
        dir.join("src/bank/Account.java"),
        dir.join("src/moved/Account.java"),
    )
    .unwrap();
    let o = ok(dir, &["restore"]);
    assert_eq!(
        read(dir.join("src/moved/Account.java")),
        original,
        "{}",
        out(&o)
    );
    assert!(
        !dir.join("src/bank/Account.java").exists(),
        "not duplicated at the old place"
    );
    assert!(out(&o).contains("src/moved/Account.java"), "{}", out(&o));
}

#[test]
fn restore_on_a_full_disk_names_the_source_and_removes_runtime_files_first() {
    let t = account();
    let dir = t.path();
    ok(dir, &["parse"]);
    let original = snapshot(dir);
    ok(dir, &["annotate"]);
    // A file size limit of 0 makes every write fail like a full disk (EFBIG, SIGXFSZ ignored).
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f 0; exec '{}' restore",
            env!("CARGO_BIN_EXE_revy")
        ))
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(!err(&o).contains(".revy-tmp-"), "{}", err(&o));
    assert!(err(&o).contains("src/bank/"), "{}", err(&o));
    assert!(
        !dir.join("src/_revy/runtime/Rv.java").exists(),
        "runtime files are removed before sources are written"
    );
    ok(dir, &["restore"]);
    assert_eq!(snapshot(dir), original);
}

// ---- item 8: inputs that used to fail badly ----

fn small_cpp(manifest_extra: &str) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(
        t.path().join("revy.toml"),
        format!("[project]\nname = \"d\"\nsources = [\"*.cpp\", \"*.hpp\"]\n{manifest_extra}"),
    )
    .unwrap();
    std::fs::write(
        t.path().join("free.cpp"),
        "int f(int x) { return x + 1; }\nint main() { return f(1) - 2; }\n",
    )
    .unwrap();
    t
}

#[test]
fn dangling_symlinks_and_loops_under_the_root_do_not_stop_parse() {
    let t = small_cpp("exclude = [\"ex/**\"]\n");
    let dir = t.path();
    std::os::unix::fs::symlink("nowhere.cpp", dir.join("dangling.cpp")).unwrap();
    std::fs::create_dir_all(dir.join("ex")).unwrap();
    std::os::unix::fs::symlink("..", dir.join("ex/loop")).unwrap();
    let o = ok(dir, &["parse"]);
    assert!(out(&o).contains("parsed 1 files"), "{}", out(&o));
}

#[test]
fn zero_pointer_size_and_non_utf8_manifests_name_a_line() {
    let t = small_cpp("\n[sizes]\nsystem = 32\npointer = 0\n");
    let o = revy(t.path(), &["parse"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("revy.toml:7:1: sizes.pointer"),
        "{}",
        err(&o)
    );
    std::fs::write(
        t.path().join("revy.toml"),
        b"[project]\nname = \"d\xff\"\nsources = [\"*.cpp\"]\n",
    )
    .unwrap();
    let o = revy(t.path(), &["parse"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("revy.toml:2:10: not UTF-8"), "{}", err(&o));
}

#[test]
fn free_functions_only_give_a_valid_saf() {
    let t = small_cpp("");
    ok(t.path(), &["parse"]);
    let o = revy(t.path(), &["annotate"]);
    assert!(!err(&o).contains("not a valid SAF"), "{}", err(&o));
    assert!(err(&o).contains("nothing selected"), "{}", err(&o));
}

#[test]
fn cpp_structs_nested_past_the_limit_are_reported() {
    let t = small_cpp("");
    let n = 5000;
    let mut s: String = (0..n)
        .map(|i| format!("struct S{i} {{ int a{i}; "))
        .collect();
    s.push_str(&"};".repeat(n));
    std::fs::write(t.path().join("deep.hpp"), s).unwrap();
    let o = revy(t.path(), &["parse"]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(
        err(&o).contains("deep.hpp:") && err(&o).contains("nested more than"),
        "{}",
        err(&o)
    );
}

#[test]
fn a_state_folder_symlinked_outside_is_refused() {
    let t = account();
    let dir = t.path();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.join(".revy")).unwrap();
    for cmd in ["parse", "annotate", "restore"] {
        let o = revy(dir, &[cmd]);
        assert_eq!(o.status.code(), Some(2), "{cmd}: {}", err(&o));
        assert!(err(&o).contains("symlink"), "{cmd}: {}", err(&o));
    }
    assert_eq!(
        std::fs::read_dir(outside.path()).unwrap().count(),
        0,
        "nothing written outside"
    );
}

// ---- issue 37 ----

/// `revy` with its journal copies kept under `state` (never the user's home).
fn revy_in(dir: &Path, state: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_revy"))
        .args(args)
        .current_dir(dir)
        .env("XDG_STATE_HOME", state)
        .output()
        .unwrap()
}

#[test]
fn a_build_deleting_the_journal_is_restored_from_its_copy() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let (t, state) = (account(), tempfile::tempdir().unwrap());
    let dir = t.path();
    // The case: the build command wipes `.revy/` (like `git clean -fdx`).
    let manifest = read(dir.join("revy.toml")).replace("build = \"", "build = \"rm -rf .revy && ");
    std::fs::write(dir.join("revy.toml"), manifest).unwrap();
    let original = snapshot(dir);
    let o = revy_in(dir, state.path(), &["profile"]);
    assert!(
        out(&o).contains("restored from its copy"),
        "{}\n{}",
        out(&o),
        err(&o)
    );
    assert!(snapshot(dir) == original, "profile put the originals back");
    // By hand: annotate, delete `.revy/`, then status and restore.
    let o = revy_in(dir, state.path(), &["parse"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let o = revy_in(dir, state.path(), &["annotate"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    std::fs::remove_dir_all(dir.join(".revy")).unwrap();
    let o = revy_in(dir, state.path(), &["status"]);
    assert!(
        out(&o).contains("journal .revy/ was deleted"),
        "{}",
        out(&o)
    );
    assert!(
        out(&o).contains("annotated                src/bank/Account.java"),
        "{}",
        out(&o)
    );
    let o = revy_in(dir, state.path(), &["parse"]);
    assert_eq!(o.status.code(), Some(2), "parse refuses: {}", err(&o));
    assert!(err(&o).contains("revy restore"), "{}", err(&o));
    let o = revy_in(dir, state.path(), &["restore"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(snapshot(dir), original);
    let o = revy_in(dir, state.path(), &["status"]);
    assert_eq!(out(&o).trim(), "not annotated");
}

#[test]
fn revy_code_without_any_journal_is_reported_by_status_restore_and_profile() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let (t, state) = (account(), tempfile::tempdir().unwrap());
    let dir = t.path();
    let o = revy_in(dir, state.path(), &["parse"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let o = revy_in(dir, state.path(), &["annotate"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    // Both the journal and its copy are gone (another machine, a wiped home).
    std::fs::remove_dir_all(dir.join(".revy")).unwrap();
    let _ = std::fs::remove_dir_all(state.path().join("revy"));
    for cmd in ["status", "restore", "profile"] {
        let o = revy_in(dir, state.path(), &[cmd]);
        assert_eq!(o.status.code(), Some(2), "{cmd}: {}{}", out(&o), err(&o));
        let e = err(&o);
        assert!(
            e.contains("hold Revy's code but the journal .revy/ is gone")
                && e.contains("src/bank/Account.java")
                && e.contains("git checkout"),
            "{cmd}: {e}"
        );
    }
}

#[test]
fn a_write_failure_during_annotate_puts_every_original_back() {
    let t = account();
    let dir = t.path();
    ok(dir, &["parse"]);
    let original = snapshot(dir);
    // 16 blocks of 512 bytes: the sources and backups fit, the larger runtime files do not.
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f 16; exec '{}' annotate",
            env!("CARGO_BIN_EXE_revy")
        ))
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("put back as it was"), "{}", err(&o));
    assert!(
        snapshot(dir) == original,
        "the tree is as before the annotate"
    );
    assert_eq!(out(&ok(dir, &["status"])).trim(), "not annotated");
    ok(dir, &["annotate"]);
}

#[test]
fn a_trace_path_inside_revys_own_files_is_refused_with_its_line() {
    let t = account();
    let dir = t.path();
    let manifest = read(dir.join("revy.toml"));
    for bad in [
        ".revy/backup/traces",
        "./.revy/edits",
        ".revy/x/../backup",
        ".revy/state.toml",
    ] {
        let text = manifest.replace("path = \".revy/traces\"", &format!("path = {bad:?}"));
        std::fs::write(dir.join("revy.toml"), &text).unwrap();
        let o = revy(dir, &["parse"]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", err(&o));
        let line = text.lines().position(|l| l.starts_with("path =")).unwrap() + 1;
        assert!(
            err(&o).contains(&format!("revy.toml:{line}: trace.path"))
                && err(&o).contains("inside Revy's own files"),
            "{bad}: {}",
            err(&o)
        );
    }
    // The trace folder itself, and folders of one's own under `.revy/`, stay accepted.
    for good in [".revy/traces", ".revy/mine", "traces"] {
        let text = manifest.replace("path = \".revy/traces\"", &format!("path = {good:?}"));
        std::fs::write(dir.join("revy.toml"), &text).unwrap();
        ok(dir, &["parse"]);
    }
}

#[test]
fn parse_shows_terminal_escapes_from_source_text_escaped() {
    let t = account();
    let dir = t.path();
    // Clear screen and set the window title, in a stray line the parser rejects.
    std::fs::write(
        dir.join("src/bank/Bad.java"),
        "package bank;\nclass Bad {\n  \u{1b}[2J\u{1b}]0;owned\u{7} int x;\n}\n",
    )
    .unwrap();
    let o = revy(dir, &["parse"]);
    let all = format!("{}{}", out(&o), err(&o));
    assert!(all.contains("Bad.java:3"), "{all}");
    assert!(!all.contains('\u{1b}') && !all.contains('\u{7}'), "{all:?}");
    assert!(all.contains("\\u{1b}[2J"), "{all}");
}

/// "Also seen": one rule for the trace file `REVY_TRACE` names in both runtimes — the name
/// with `.rvt` appended unless it ends so (before: the C++ runtime wrote `t.rvt`, the Java
/// runtime `t`, which `revy run` and folder arguments do not take for a trace).
#[test]
fn both_runtimes_name_the_revy_trace_file_alike() {
    if !common::gate::needs(&[Tool::Java, Tool::Cpp]) {
        return;
    }
    for project in ["projects/account", "projects/account-cpp"] {
        let t = common::copy_of(project);
        let dir = t.path();
        ok(dir, &["parse"]);
        ok(dir, &["annotate"]);
        let m: toml::Value = toml::from_str(&read(dir.join("revy.toml"))).unwrap();
        let cmd = format!(
            "{} && {}",
            m["project"]["build"].as_str().unwrap(),
            m["project"]["run"].as_str().unwrap()
        );
        for (given, written) in [("named", "named.rvt"), ("also.rvt", "also.rvt")] {
            let o = Command::new("sh")
                .args(["-c", &cmd])
                .current_dir(dir)
                .env("REVY_TRACE", given)
                .output()
                .unwrap();
            assert!(o.status.success(), "{project}: {}", err(&o));
            assert!(
                dir.join(written).is_file(),
                "{project}: {given} -> {written}"
            );
            assert!(
                !dir.join("named").exists(),
                "{project}: wrote {given} as given"
            );
            let a = revy(dir, &["analyze", written]);
            assert_eq!(a.status.code(), Some(0), "{project}: {}", err(&a));
        }
        ok(dir, &["restore"]);
    }
}

/// Item 8: a modular Java project (`module-info.java` in the source root) is annotated,
/// builds as a module, runs with the original's output and writes a trace; restore gives
/// back every byte. The runtime joins the module, which gets ` requires java.management;`
/// as a marked insertion (before: javac "package java.lang.management is not visible" in
/// Revy's RvTrace.java, and `--verify` blamed "where Revy inserted nothing").
#[test]
fn a_modular_java_project_is_annotated_built_and_restored() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let build = "rm -rf build && javac -d build $(find src -name '*.java')";
    let run = "java -p build -m m.app/app.Main";
    common::write_files(
        dir,
        &[
            (
                "revy.toml",
                &format!(
                    "[project]\nname = \"mod\"\nsources = [\"src/**/*.java\"]\nbuild = \"{build}\"\n\
                     run = \"{run}\"\n\n[annotate]\ninclude = [\"*\"]\n"
                ),
            ),
            (
                "src/module-info.java",
                "/** The app, as a module. */\nmodule m.app {\n    requires java.logging;\n}\n",
            ),
            (
                "src/app/Main.java",
                "package app;\n\nimport java.util.logging.Logger;\n\npublic class Main {\n\
                 \x20   private final int base;\n\n    Main(int base) { this.base = base; }\n\n\
                 \x20   int twice(int x) { return base + 2 * x; }\n\n\
                 \x20   public static void main(String[] a) {\n        Main m = new Main(1);\n\
                 \x20       int s = 0;\n        for (int i = 0; i < 5; i++) s += m.twice(i);\n\
                 \x20       Logger.getLogger(\"app\").fine(\"quiet\");\n\
                 \x20       System.out.println(\"sum=\" + s);\n    }\n}\n",
            ),
        ],
    );
    let sh = |cmd: &str| {
        let o = Command::new("sh")
            .args(["-c", cmd])
            .current_dir(dir)
            .env("REVY_TRACE", dir.join("t.rvt"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{cmd}: {}", err(&o));
        out(&o)
    };
    let want = sh(&format!("{build} && REVY_TRACE=off {run}"));
    assert_eq!(want, "sum=25\n");
    let before = snapshot(dir);
    ok(dir, &["parse"]);
    ok(dir, &["annotate"]);
    let info = read(dir.join("src/module-info.java"));
    assert!(
        info.contains("module m.app { requires java.management; /*revy*/\n"),
        "{info}"
    );
    assert_eq!(sh(&format!("{build} && {run}")), want);
    let a = revy(dir, &["analyze", "t.rvt", "--format", "json"]);
    assert_eq!(a.status.code(), Some(0), "{}", err(&a));
    let json: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(common::method_calls(&json, "twice"), 5);
    std::fs::remove_file(dir.join("t.rvt")).unwrap();
    ok(dir, &["restore"]);
    assert!(snapshot(dir) == before, "restore gives back every byte");
}

/// Item 10: a field, a local and a method named `revy` (and a nested class named `runtime`)
/// never meet Revy's inserted names: the runtime's package is `_revy.runtime` (before: every
/// inserted `revy.runtime.Rv…` call failed, "int cannot be dereferenced"). Annotated, built,
/// run with the original's output, restored byte for byte.
#[test]
fn java_names_called_revy_do_not_hide_the_runtime() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let build = "rm -rf build && javac -d build $(find src -name '*.java')";
    let run = "java -cp build app.Main";
    common::write_files(
        dir,
        &[
            (
                "revy.toml",
                &format!(
                    "[project]\nname = \"names\"\nsources = [\"src/**/*.java\"]\nbuild = \"{build}\"\n\
                     run = \"{run}\"\n\n[annotate]\ninclude = [\"*\"]\n"
                ),
            ),
            (
                "src/app/Main.java",
                "package app;\n\npublic class Main {\n    private int revy = 3;\n\n\
                 \x20   static class runtime {\n        int revy() { return 1; }\n    }\n\n\
                 \x20   int f(int x) {\n        String revy = \"r\";\n\
                 \x20       return x + this.revy + revy.length() + new runtime().revy();\n    }\n\n\
                 \x20   public static void main(String[] a) {\n\
                 \x20       System.out.println(new Main().f(4));\n    }\n}\n",
            ),
        ],
    );
    let sh = |cmd: &str| {
        let o = Command::new("sh")
            .args(["-c", cmd])
            .current_dir(dir)
            .env("REVY_TRACE", dir.join("t.rvt"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{cmd}: {}", err(&o));
        out(&o)
    };
    let want = sh(&format!("{build} && REVY_TRACE=off {run}"));
    assert_eq!(want, "9\n");
    let before = snapshot(dir);
    ok(dir, &["parse"]);
    ok(dir, &["annotate"]);
    assert_eq!(sh(&format!("{build} && {run}")), want);
    let a = revy(dir, &["analyze", "t.rvt", "--format", "json"]);
    assert_eq!(a.status.code(), Some(0), "{}", err(&a));
    let json: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(common::method_calls(&json, "f"), 1);
    std::fs::remove_file(dir.join("t.rvt")).unwrap();
    ok(dir, &["restore"]);
    assert!(snapshot(dir) == before, "restore gives back every byte");
}

/// "Also seen": `revy status` shows a file name holding a newline (or an escape) on one
/// line, escaped, so no name can forge another status line.
#[test]
fn status_escapes_newlines_in_file_names() {
    let t = account();
    let dir = t.path();
    let odd = "src/bank/Odd\n  annotated                Fake.java";
    std::fs::write(
        dir.join(odd),
        "package bank;\n\nclass Odd {\n    int one() { return 1; }\n}\n",
    )
    .unwrap();
    ok(dir, &["parse"]);
    ok(dir, &["annotate"]);
    let s = out(&ok(dir, &["status"]));
    assert!(
        s.contains("src/bank/Odd\\u{a}  annotated                Fake.java"),
        "{s}"
    );
    assert!(
        !s.lines()
            .any(|l| l.starts_with("  annotated                Fake")),
        "{s}"
    );
    ok(dir, &["restore"]);
}
