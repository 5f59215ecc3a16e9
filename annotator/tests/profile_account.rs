//! `revy profile` on a copy of projects/account: the whole loop, and the sources come back
//! byte for byte whether the run works, the build fails, the program fails or Ctrl-C hits.

mod common;
use common::bin as revy;
use common::gate::Tool;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every file of the tree but Revy's state and the build output, with its bytes.
fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in walkdir::WalkDir::new(root)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".revy" && e.file_name() != "build")
    {
        let e = e.unwrap();
        if e.file_type().is_file() {
            let rel = e.path().strip_prefix(root).unwrap();
            out.insert(
                rel.to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            );
        }
    }
    out
}

/// A copy of projects/account with its manifest's build/run commands replaced.
fn project(build: Option<&str>, run: Option<&str>) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("account");
    common::copy_tree(&repo().join("projects/account"), &dir);
    let manifest = dir.join("revy.toml");
    let mut text = std::fs::read_to_string(&manifest).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for l in &mut lines {
        if let (Some(b), true) = (build, l.starts_with("build =")) {
            *l = format!("build = {b:?}");
        }
        if let (Some(r), true) = (run, l.starts_with("run =")) {
            *l = format!("run = {r:?}");
        }
    }
    text = lines.join("\n") + "\n";
    std::fs::write(&manifest, text).unwrap();
    (tmp, dir)
}

/// Runs `revy -m DIR/revy.toml profile` from another folder (paths are the manifest's).
fn profile(dir: &Path, extra: &[&str]) -> Output {
    revy()
        .current_dir(dir.parent().unwrap())
        .arg("-m")
        .arg(dir.join("revy.toml"))
        .arg("profile")
        .args(extra)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn profile_runs_the_loop_and_restores() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let (_tmp, dir) = project(None, None);
    let before = snapshot(&dir);
    let o = profile(&dir, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(snapshot(&dir), before, "tree byte-identical after profile");
    assert!(!dir.join(".revy/state.toml").exists(), "no journal left");
    let report = dir.join(".revy/report.html");
    let html = std::fs::read_to_string(&report).unwrap();
    let d = revy::analyse::report::embedded_data(&html).expect("report data");
    let accounts = d["instances"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["class"] == "bank.Account")
        .count();
    assert_eq!(accounts, 3);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("instances,"), "{out}");
    // Exactly one line says it, once (it used to read "top hint: top hint: …").
    let tops: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("top hint:") || l.contains("top proposal:"))
        .collect();
    assert_eq!(tops.len(), 1, "{out}");
    let said_twice = ["top hint: top ", "top proposal: top "]
        .iter()
        .any(|p| tops[0].starts_with(p));
    assert!(tops[0].starts_with("top ") && !said_twice, "{out}");
    let last = out.lines().last().unwrap();
    assert!(
        last.starts_with("report: ") && last.ends_with("report.html"),
        "{out}"
    );
    // The program's own output went through unchanged.
    assert!(out.contains("Sorry, not enough money") || !out.is_empty());

    // `revy report` without a trace takes the newest one of the manifest's project.
    let o = revy()
        .current_dir(dir.parent().unwrap())
        .arg("-m")
        .arg(dir.join("revy.toml"))
        .args(["report", "-o", "again.html"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let again = std::fs::read_to_string(dir.parent().unwrap().join("again.html")).unwrap();
    let d2 = revy::analyse::report::embedded_data(&again).unwrap();
    assert_eq!(d2["trace"]["path"], d["trace"]["path"]);

    // -o writes elsewhere, relative to the current folder.
    let o = profile(&dir, &["--faster", "-o", "elsewhere.html"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(dir.parent().unwrap().join("elsewhere.html").exists());
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn profile_restores_when_the_build_fails() {
    let (_tmp, dir) = project(Some("echo broken build >&2; exit 2"), None);
    let before = snapshot(&dir);
    let o = profile(&dir, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("build command failed"), "{}", text(&o));
    assert!(text(&o).contains("restored"), "{}", text(&o));
    assert_eq!(
        snapshot(&dir),
        before,
        "tree byte-identical after a failed build"
    );
    assert!(!dir.join(".revy/state.toml").exists());
    assert!(!dir.join(".revy/report.html").exists());
}

#[test]
fn profile_restores_when_the_program_fails() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let (_tmp, dir) = project(None, Some("java -cp build bank.Main && exit 3"));
    let before = snapshot(&dir);
    let o = profile(&dir, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("exited with code 3"), "{}", text(&o));
    assert_eq!(snapshot(&dir), before);
    // The trace it wrote is still reported.
    assert!(dir.join(".revy/report.html").exists());
}

/// Starts `revy profile` in its own process group, as a terminal's foreground job (Ctrl-C
/// reaches revy and the child), waits for `flag` to appear, then sends SIGINT to the group.
fn profile_interrupted_at(dir: &Path, flag: &str, what: &str) -> Output {
    use std::os::unix::process::CommandExt;
    let child = revy()
        .arg("-m")
        .arg(dir.join("revy.toml"))
        .arg("profile")
        .process_group(0)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !dir.join(flag).exists() {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the {what} never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let st = Command::new("kill")
        .args(["-INT", "--", &format!("-{}", child.id())])
        .status()
        .unwrap();
    assert!(st.success());
    child.wait_with_output().unwrap()
}

/// The program the build below makes (under build/, which `snapshot` leaves out).
const BUILD_APP: &str = "mkdir -p build/bin && echo app > build/bin/app && chmod +x build/bin/app";

#[test]
fn profile_restores_on_ctrl_c() {
    let (_tmp, dir) = project(
        Some(BUILD_APP),
        Some("touch .revy/running; sleep 60; touch .revy/not-interrupted"),
    );
    let before = snapshot(&dir);
    let o = profile_interrupted_at(&dir, ".revy/running", "run");
    assert_eq!(o.status.code(), Some(130), "{}", text(&o));
    // It names what the build made from the annotated sources, and what to do about it.
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("STILL INSTRUMENTED") && err.contains("build/bin/app"),
        "{err}"
    );
    assert!(err.contains(&format!("`{BUILD_APP}`")), "{err}");
    assert!(
        err.contains("interrupted (SIGINT); sources restored"),
        "{err}"
    );
    // The program shares revy's stdout: had it outlived revy, the wait above would have
    // lasted through its sleep, and the file below would exist.
    assert!(!dir.join(".revy/not-interrupted").exists());
    assert_eq!(snapshot(&dir), before, "tree byte-identical after Ctrl-C");
    assert!(!dir.join(".revy/state.toml").exists());
}

/// Ctrl-C during the build of the annotated sources: restored, and the outputs that build
/// wrote so far are named as instrumented (before: only "interrupted (SIGINT); sources
/// restored", with build/ left holding them).
#[test]
fn ctrl_c_during_the_build_names_its_instrumented_outputs() {
    let build = format!("{BUILD_APP} && touch .revy/building && sleep 60");
    let (_tmp, dir) = project(Some(&build), Some("touch .revy/ran"));
    let before = snapshot(&dir);
    let o = profile_interrupted_at(&dir, ".revy/building", "build");
    assert_eq!(o.status.code(), Some(130), "{}", text(&o));
    assert_eq!(snapshot(&dir), before, "tree byte-identical after Ctrl-C");
    assert!(
        !dir.join(".revy/ran").exists(),
        "the program ran after Ctrl-C"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("STILL INSTRUMENTED") && err.contains("build/bin/app"),
        "{err}"
    );
    assert!(
        err.contains("rebuild them from the restored sources with `"),
        "{err}"
    );
    // Nothing was withdrawn: the build failed because it was ended, not for the annotation.
    assert!(!err.contains("withdrawn"), "{err}");
}

/// A program that reads the terminal, profiled from a terminal (a pty from `script`): it was
/// started in a background process group and stopped by SIGTTIN on its first read, so
/// `revy profile` hung; now it reads its line and the loop ends with the tree restored.
#[test]
fn profile_from_a_terminal_lets_the_program_read_it() {
    use std::io::Write;
    use std::process::Stdio;
    if !common::gate::needs(&[Tool::Script]) {
        return;
    }
    let (_tmp, dir) = project(
        Some("true"),
        Some("read line; echo \"got $line\" > .revy/got"),
    );
    let before = snapshot(&dir);
    let cmd = format!(
        "{} -m {} profile",
        env!("CARGO_BIN_EXE_revy"),
        dir.join("revy.toml").display()
    );
    let mut script = Command::new("script")
        .args(["-q", "-e", "-c", &cmd, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    script.stdin.take().unwrap().write_all(b"hello\n").unwrap();
    let t0 = Instant::now();
    while script.try_wait().unwrap().is_none() && t0.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(50));
    }
    if script.try_wait().unwrap().is_none() {
        let _ = Command::new("pkill").args(["-KILL", "-f", &cmd]).status();
        script.kill().unwrap();
        panic!("revy profile hung: the program could not read the terminal");
    }
    let o = script.wait_with_output().unwrap();
    let got = std::fs::read_to_string(dir.join(".revy/got")).unwrap_or_default();
    assert_eq!(got.trim(), "got hello", "{}", text(&o));
    assert_eq!(snapshot(&dir), before, "tree byte-identical after profile");
}

/// A run of two processes (a client and its server, here two bank programs at once) writes a
/// trace each: `profile` names both and its report analyses them together (before: only the
/// newest trace was named and analysed, the other lay unread beside it).
#[test]
fn profile_of_two_processes_analyses_both_traces() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let run = "java -cp build bank.Main & java -cp build bank.Main; wait";
    let (_tmp, dir) = project(None, Some(run));
    let out = profile(&dir, &[]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let traces: Vec<PathBuf> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("trace: "))
        .map(|t| dir.parent().unwrap().join(t))
        .collect();
    assert_eq!(traces.len(), 2, "{}", text(&out));
    let messages = |args: &[&Path]| -> u64 {
        let o = revy()
            .args(["analyze", "--format", "json", "--no-compensate"])
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["totals"]["messages"].as_u64().unwrap()
    };
    let each = messages(&[&traces[0]]) + messages(&[&traces[1]]);
    let line = format!("{each} messages");
    assert!(
        stdout.lines().any(|l| l.ends_with(&line)),
        "profile's summary should count both processes' {each} messages: {}",
        text(&out)
    );
}

/// `revy run` of two processes names both traces and how to analyse them together (before:
/// only the newest one was printed).
#[test]
fn run_of_two_processes_names_both_traces() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let build = "rm -rf build && mkdir -p build && javac -encoding UTF-8 -d build $(find src -name '*.java')";
    let run = format!("{build} && (java -cp build bank.Main & java -cp build bank.Main; wait)");
    let (_tmp, dir) = project(None, Some(&run));
    let m = dir.join("revy.toml");
    for cmd in [&["parse"][..], &["annotate"]] {
        let o = revy().arg("-m").arg(&m).args(cmd).output().unwrap();
        assert!(o.status.success(), "{cmd:?}: {}", text(&o));
    }
    let o = revy().arg("-m").arg(&m).arg("run").output().unwrap();
    let restored = revy().arg("-m").arg(&m).arg("restore").output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(restored.status.success(), "{}", text(&restored));
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let named = stdout.lines().filter(|l| l.starts_with("trace: ")).count();
    assert_eq!(named, 2, "{}", text(&o));
    assert!(
        stdout.contains("2 processes wrote traces; analyse them together: revy analyze "),
        "{}",
        text(&o)
    );
}
