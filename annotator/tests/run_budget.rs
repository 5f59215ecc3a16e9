//! The run's size budget (issue 13, item 2): the processes of one run share `max_size`.
//! A Java and a C++ program are annotated with an 8 MiB limit and run several times as one
//! run — one after another (a suite's binaries: the budget file is found by process group)
//! and at once (`REVY_BUDGET` naming the file) — and the traces together stay under the
//! limit (one after another; at once, plus what each process writes past it: one block,
//! definitions, aggregates), the counter file holds exactly the bytes written, and the analysis of all traces still counts
//! every call. `REVY_BUDGET=off` gives each process its own limit again; `revy run` gives
//! each run a fresh budget; a Java and a C++ process share one budget file; a hand-edited
//! budget file is named in one line and left alone.

mod common;
use common::gate::Tool;
use common::revy_ok as revy;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::Lang;
use serde_json::Value;

const MAX: u64 = 8 << 20;
/// Each run alone writes more than MAX: 1.5 M calls are about 10.5 MB at Java's 7 bytes a
/// recorded call (bare ends), 13.5 MB at C++'s 9 (1 M Java calls no longer reached 8 MiB).
const CALLS: u64 = 1_500_000;

const CPP_MAIN: &str = r#"#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
class Counter {
public:
    long calls = 0;
    long tick(int i) { ++calls; return i & 3; }
};
int main(int argc, char** argv) {
    int n = argc > 1 ? std::atoi(argv[1]) : 1000;
    Counter c;
    long s = 0;
    for (int i = 0; i < n; ++i) s += c.tick(i);
    if (argc > 2) {  // stay alive (traced, its budget open) while another process starts
        std::printf("ready\n");
        std::fflush(stdout);
        std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(argv[2])));
    }
    std::printf("tick=%ld s=%ld\n", c.calls, s);
    return 0;
}
"#;

const JAVA_COUNTER: &str = r#"package w;

public class Counter {
    long calls;

    long tick(int i) {
        calls++;
        return i & 3;
    }
}
"#;

const JAVA_MAIN: &str = r#"package w;

public class Main {
    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        Counter c = new Counter();
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += c.tick(i);
        }
        System.out.println("tick=" + c.calls + " s=" + s);
    }
}
"#;

const CPP: Lang = Lang {
    name: "cpp",
    sources: "src/*.cpp",
    build: "mkdir -p build && g++ -std=c++17 -O1 -pthread -o build/w src/main.cpp",
    run: "./build/w",
    files: &[("src/main.cpp", CPP_MAIN)],
};

const JAVA: Lang = Lang {
    name: "java",
    sources: "src/**/*.java",
    build: "rm -rf build && mkdir -p build && javac -encoding UTF-8 -d build $(find src -name '*.java')",
    run: "java -cp build w.Main",
    files: &[
        ("src/w/Main.java", JAVA_MAIN),
        ("src/w/Counter.java", JAVA_COUNTER),
    ],
};

fn sh(dir: &Path, cmd: &str, env: &[(&str, &str)]) -> String {
    let o = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .env_remove("REVY_TRACE")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    common::ok(&o, cmd)
}

/// Annotates and builds the program in `tmp/NAME`; returns its folder.
fn build(lang: &Lang, tmp: &Path) -> PathBuf {
    let dir = tmp.join(lang.name);
    common::write_project(
        &dir,
        lang,
        &format!("{r} {CALLS} && {r} {CALLS}", r = lang.run),
        "path = \"traces\"\nmax_size = \"8MiB\"\nthrottle = false",
    );
    revy(&dir, &["parse"]);
    revy(&dir, &["annotate"]);
    sh(&dir, lang.build, &[]);
    dir
}

/// The trace files in `dir`, and their sizes.
fn traces(dir: &Path) -> Vec<(PathBuf, u64)> {
    let mut v: Vec<(PathBuf, u64)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rvt"))
        .map(|p| {
            let n = std::fs::metadata(&p).unwrap().len();
            (p, n)
        })
        .collect();
    v.sort();
    v
}

/// The counter a budget file holds.
fn counter(file: &Path) -> u64 {
    let s = std::fs::read_to_string(file).unwrap();
    assert_eq!(s.len(), 21, "{}: {s:?}", file.display());
    s.trim_end().parse().unwrap()
}

/// Calls of `tick` in the analysis of every trace in `dir`.
fn tick_calls(project: &Path, dir: &Path) -> u64 {
    let json = revy(
        project,
        &["analyze", dir.to_str().unwrap(), "--format", "json"],
    );
    let a: Value = serde_json::from_str(&json).unwrap();
    common::method_calls(&a, "tick")
}

/// What one process may write past the shared limit: the block that crosses it (64 KiB
/// buffers), its definitions, aggregates and end records.
const SLACK: u64 = 64 * 1024 + 4096;

fn one_after_another(lang: &Lang, project: &Path) {
    let run = format!("{r} {CALLS} && {r} {CALLS} && {r} {CALLS}", r = lang.run);
    sh(project, &run, &[("REVY_BUDGET", "")]);
    let dir = project.join("traces");
    let t = traces(&dir);
    assert_eq!(t.len(), 3, "{}: {t:?}", lang.name);
    let total: u64 = t.iter().map(|(_, n)| n).sum();
    let what = format!("{}, one after another: {t:?}", lang.name);
    // Without a shared budget each process would write about MAX. Events stop 1/64 short of
    // it, room for what the processes write past that point.
    assert!(total <= MAX, "{what}: {total} bytes");
    // The first spends the budget; the later ones start past it and record no event.
    let mut sizes: Vec<u64> = t.iter().map(|(_, n)| *n).collect();
    sizes.sort();
    assert!(sizes[2] > MAX / 2 && sizes[1] < 8192, "{what}");
    let budgets: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "budget"))
        .collect();
    assert_eq!(budgets.len(), 1, "{what}: {budgets:?}");
    let name = budgets[0].file_name().unwrap().to_str().unwrap();
    assert!(name.starts_with(".revy-run-"), "{name}");
    assert_eq!(counter(&budgets[0]), total, "{what}: the counter");
    assert_eq!(tick_calls(project, &dir), 3 * CALLS, "{what}");
    // The analysis of one of the later traces says whose limit stopped it.
    let json = revy(
        project,
        &["analyze", t[2].0.to_str().unwrap(), "--format", "json"],
    );
    let a: Value = serde_json::from_str(&json).unwrap();
    assert!(
        a["trace"]["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("at the run's size limit")),
        "{what}: {}",
        a["trace"]["warnings"]
    );
}

fn at_once(lang: &Lang, project: &Path, tmp: &Path) {
    let dir = tmp.join(format!("{}-at-once", lang.name));
    std::fs::create_dir_all(&dir).unwrap();
    let budget = dir.join("run.budget");
    let trace = dir.join("t.rvt");
    let run = format!(
        "for i in 1 2 3 4; do {} {CALLS} > /dev/null & done; wait",
        lang.run
    );
    sh(
        project,
        &run,
        &[
            ("REVY_BUDGET", budget.to_str().unwrap()),
            ("REVY_TRACE", trace.to_str().unwrap()),
        ],
    );
    let t = traces(&dir);
    assert_eq!(t.len(), 4, "{}: {t:?}", lang.name);
    let total: u64 = t.iter().map(|(_, n)| n).sum();
    let what = format!("{}, at once: {t:?}", lang.name);
    assert!(total <= MAX + 4 * SLACK, "{what}: {total} bytes");
    assert_eq!(counter(&budget), total, "{what}: the counter");
    assert_eq!(tick_calls(project, &dir), 4 * CALLS, "{what}");
}

fn own_limits(lang: &Lang, project: &Path, tmp: &Path) {
    let dir = tmp.join(format!("{}-own", lang.name));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("t.rvt");
    let run = format!("{r} {CALLS} && {r} {CALLS}", r = lang.run);
    sh(
        project,
        &run,
        &[
            ("REVY_BUDGET", "off"),
            ("REVY_TRACE", trace.to_str().unwrap()),
        ],
    );
    let t = traces(&dir);
    let what = format!("{}, REVY_BUDGET=off: {t:?}", lang.name);
    assert_eq!(t.len(), 2, "{what}");
    assert!(t.iter().all(|(_, n)| *n > MAX / 2), "{what}");
    assert!(std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .all(|e| e.path().extension().is_none_or(|x| x != "budget")));
}

/// `revy run` gives each run a budget file of its own (whatever the process group) and
/// removes it afterwards.
fn via_revy_run(lang: &Lang, project: &Path) {
    let dir = project.join("traces");
    let before: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    revy(project, &["run"]);
    let new: Vec<(PathBuf, u64)> = traces(&dir)
        .into_iter()
        .filter(|(p, _)| !before.contains(p))
        .collect();
    let what = format!("{}, revy run: {new:?}", lang.name);
    assert_eq!(new.len(), 2, "{what}");
    let total: u64 = new.iter().map(|(_, n)| n).sum();
    // Its own budget: the earlier runs of this process group spent theirs.
    assert!(total > MAX / 2 && total <= MAX, "{what}: {total} bytes");
    let after = std::fs::read_dir(&dir).unwrap().flatten().count();
    assert_eq!(after, before.len() + 2, "{what}: a budget file left behind");
}

/// A budget file that is not a counter (hand-edited): one line on stderr naming it, the run
/// keeps its own limit and every call, the file is left as it was.
fn hand_edited(lang: &Lang, project: &Path, tmp: &Path) {
    let dir = tmp.join(format!("{}-edited", lang.name));
    std::fs::create_dir_all(&dir).unwrap();
    let budget = dir.join("run.budget");
    std::fs::write(&budget, "about half\n").unwrap();
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!("{} {CALLS}", lang.run))
        .current_dir(project)
        .env("REVY_BUDGET", &budget)
        .env("REVY_TRACE", dir.join("t.rvt"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    let what = format!("{}, hand-edited budget: {err}", lang.name);
    assert!(o.status.success(), "{what}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{what}");
    assert!(
        lines[0].contains(budget.to_str().unwrap()) && lines[0].contains("unreadable"),
        "{what}"
    );
    assert_eq!(std::fs::read_to_string(&budget).unwrap(), "about half\n");
    assert_eq!(tick_calls(project, &dir.join("t.rvt")), CALLS, "{what}");
}

/// Processes that start together near the end of the budget: the first holds only its
/// header's share while it runs, so the second still gets room to record its events.
fn started_together(project: &Path, tmp: &Path) {
    let dir = tmp.join("together");
    std::fs::create_dir_all(&dir).unwrap();
    let budget = dir.join("run.budget");
    // 100 KiB left under the events' limit (MAX less 1/64); a chunk ahead is 128 KiB.
    let limit = MAX - MAX / 64;
    std::fs::write(&budget, format!("{:020}\n", limit - 100 * 1024)).unwrap();
    let (a, b) = (dir.join("a.rvt"), dir.join("b.rvt"));
    let cmd = format!(
        "REVY_TRACE={a} ./build/w 1 1500 > {out} & \
         while ! grep -q ready {out} 2>/dev/null; do sleep 0.05; done; \
         REVY_TRACE={b} ./build/w 10 > /dev/null; wait",
        a = a.display(),
        b = b.display(),
        out = dir.join("a.out").display()
    );
    sh(project, &cmd, &[("REVY_BUDGET", budget.to_str().unwrap())]);
    let json = revy(
        project,
        &["analyze", b.to_str().unwrap(), "--format", "json"],
    );
    let an: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(an["trace"]["truncated"], false, "{}", an["trace"]);
    assert_eq!(common::method_calls(&an, "tick"), 10);
    assert!(counter(&budget) <= MAX, "{}", counter(&budget));
}

#[test]
fn the_processes_of_a_run_share_max_size() {
    if !common::gate::needs(&[Tool::Cpp, Tool::Java]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut built = Vec::new();
    for lang in [&CPP, &JAVA] {
        let project = build(lang, tmp.path());
        if lang.name == "cpp" {
            started_together(&project, tmp.path());
        }
        one_after_another(lang, &project);
        at_once(lang, &project, tmp.path());
        own_limits(lang, &project, tmp.path());
        via_revy_run(lang, &project);
        hand_edited(lang, &project, tmp.path());
        built.push(project);
    }
    // A Java and a C++ process at once, one budget: the same file lock and counter.
    let dir = tmp.path().join("mixed");
    std::fs::create_dir_all(&dir).unwrap();
    let budget = dir.join("run.budget");
    let cmd = format!(
        "(cd {} && {} {CALLS} & cd {} && {} {CALLS} & wait) > /dev/null",
        built[0].display(),
        CPP.run,
        built[1].display(),
        JAVA.run
    );
    sh(
        tmp.path(),
        &cmd,
        &[
            ("REVY_BUDGET", budget.to_str().unwrap()),
            ("REVY_TRACE", dir.join("t.rvt").to_str().unwrap()),
        ],
    );
    let t = traces(&dir);
    let total: u64 = t.iter().map(|(_, n)| n).sum();
    assert_eq!(t.len(), 2, "mixed: {t:?}");
    assert!(total <= MAX + 2 * SLACK, "mixed: {t:?}");
    assert_eq!(counter(&budget), total, "mixed: the counter");
    for p in built {
        revy(&p, &["restore"]);
    }
}

/// The counters of runs outside `revy run` (one per shell command line) are removed by `revy
/// run` and `revy restore` once their process group is gone or its id belongs to a later
/// group; a live group's counter, `revy run`'s own and other files are left alone. (Before,
/// every command line that ran an annotated program left one behind.)
#[test]
fn stale_budget_counters_are_removed_live_ones_kept() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    use std::os::unix::process::CommandExt;
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("p");
    common::write_project(&project, &CPP, "true", "path = \"traces\"");
    let dir = project.join("traces");
    std::fs::create_dir_all(&dir).unwrap();
    // A group that is over: a process that led its own group and exited.
    let mut gone = Command::new("true").process_group(0).spawn().unwrap();
    let gone_pid = gone.id();
    gone.wait().unwrap();
    // A live group, and its leader's start time as the runtimes read it.
    let mut live = Command::new("sleep")
        .arg("60")
        .process_group(0)
        .spawn()
        .unwrap();
    let pid = live.id();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let start: u64 = stat[stat.rfind(')').unwrap() + 1..]
        .split_whitespace()
        .nth(19)
        .unwrap()
        .parse()
        .unwrap();
    let names = |list: &[&str]| -> Vec<String> { list.iter().map(|s| s.to_string()).collect() };
    let kept = names(&[
        &format!(".revy-run-{pid}-{start}.budget"),
        ".revy-run-k3Jx9q.budget",
        "notes.budget",
    ]);
    let stale = names(&[
        &format!(".revy-run-{gone_pid}-{}.budget", start + 1),
        &format!(".revy-run-{pid}-{}.budget", start + 1),
        &format!(".revy-run-{pid}-0.budget"),
    ]);
    let present = || -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let mut want = kept.clone();
    want.sort();
    for cmd in [&["run"][..], &["parse"], &["annotate"], &["restore"]] {
        for f in kept.iter().chain(&stale) {
            std::fs::write(dir.join(f), format!("{:020}\n", 4096)).unwrap();
        }
        // `run` fails here (the program writes no trace) after pruning: the exit status is
        // not the point.
        let _ = Command::new(env!("CARGO_BIN_EXE_revy"))
            .current_dir(&project)
            .args(cmd)
            .output()
            .unwrap();
        if cmd == ["run"] || cmd == ["restore"] {
            assert_eq!(present(), want, "after revy {cmd:?}");
        }
    }
    live.kill().unwrap();
    live.wait().unwrap();
    let _ = Command::new(env!("CARGO_BIN_EXE_revy"))
        .current_dir(&project)
        .arg("run")
        .output()
        .unwrap();
    assert_eq!(
        present(),
        vec![
            ".revy-run-k3Jx9q.budget".to_string(),
            "notes.budget".to_string()
        ],
        "the group is over"
    );
}
