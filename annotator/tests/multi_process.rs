//! Several processes of one run analysed together (issue 13, item 5): a C++ program runs an
//! annotated child process; the two traces, named as files or as their folder, give one analysis and
//! one export with a root per process, counts that add up, and times on one line.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;
use common::cpp_rt::{build_one_method, text};
use common::gate::Tool;
use common::revy_ok as revy;

/// The parent calls `work` 1000 times, runs itself as a child process (a fresh one, with its
/// own clock base) that calls it 500 times while the parent waits, then calls it 1000 times
/// more: on one time line the child's calls lie between the parent's two batches.
const PROGRAM: &str = r#"#include "revy_runtime.hpp"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
static int work(int k) {
    _revy_rt::Scope s(1, 0, 4);
    volatile int spin = 0;
    for (int j = 0; j < 5000; ++j) spin = spin + j;
    return k + 1;
}
int main(int argc, char** argv) {
    long sum = 0;
    if (argc > 1 && std::strcmp(argv[1], "child") == 0) {
        for (int i = 0; i < 500; ++i) sum += work(i);
        std::printf("child %ld\n", static_cast<long>(::getpid()));
        return 0;
    }
    for (int i = 0; i < 1000; ++i) sum += work(i);
    std::fflush(stdout);
    ::usleep(20000);
    if (std::system("./t child") != 0) return 1;
    ::usleep(20000);
    for (int i = 0; i < 1000; ++i) sum += work(i);
    std::printf("parent %ld\n", static_cast<long>(::getpid()));
    return sum > 0 ? 0 : 1;
}
"#;

/// Builds and runs the program; returns (folder of the traces, parent pid, child pid).
fn run_forking_program(dir: &Path) -> (PathBuf, u64, u64) {
    build_one_method(dir, "mp", 1 << 30, PROGRAM);
    std::fs::create_dir(dir.join("traces")).unwrap();
    run_again(dir, "traces/f.rvt", None)
}

/// Runs the built program again, its traces at `trace` (and `-PID` beside it for the
/// child), with `REVY_RUN` set to `run` when given.
fn run_again(dir: &Path, trace: &str, run: Option<&str>) -> (PathBuf, u64, u64) {
    let mut c = Command::new(dir.join("t"));
    c.current_dir(dir).env("REVY_TRACE", trace);
    if let Some(run) = run {
        c.env("REVY_RUN", run);
    }
    let r = c.output().unwrap();
    assert!(r.status.success(), "{}", text(&r.stderr));
    let out = text(&r.stdout);
    let pid = |who: &str| -> u64 {
        out.lines()
            .find_map(|l| l.strip_prefix(who))
            .unwrap_or_else(|| panic!("{out}"))
            .trim()
            .parse()
            .unwrap()
    };
    (dir.join("traces"), pid("parent "), pid("child "))
}

fn analyze(dir: &Path, traces: &[&str]) -> Value {
    let mut args = vec!["analyze", "--format", "json", "--no-compensate"];
    args.extend_from_slice(traces);
    serde_json::from_str(&revy(dir, &args)).unwrap()
}

fn work_calls(a: &Value) -> u64 {
    common::method_calls(a, "work")
}

#[test]
fn two_processes_analysed_together() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (traces, parent, child) = run_forking_program(dir);
    let (pf, cf) = ("traces/f.rvt".to_string(), format!("traces/f-{child}.rvt"));
    let alone: Vec<Value> = [&pf, &cf].iter().map(|f| analyze(dir, &[f])).collect();
    assert_eq!((work_calls(&alone[0]), work_calls(&alone[1])), (2000, 500));
    let by_files = analyze(dir, &[&pf, &cf]);
    let by_folder = analyze(dir, &[traces.to_str().unwrap()]);
    for a in [&by_files, &by_folder] {
        // Counts are the sums of the two processes'.
        assert_eq!(work_calls(a), 2500);
        assert_eq!(
            a["totals"]["messages"].as_u64(),
            Some(
                alone
                    .iter()
                    .map(|x| x["totals"]["messages"].as_u64().unwrap())
                    .sum()
            )
        );
        // A root and a static receiver per process, each naming its process.
        let labels: Vec<&str> = a["instances"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["label"].as_str().unwrap())
            .collect();
        for want in [
            format!("root@{parent}/1"),
            format!("root@{child}/1"),
            format!("P (static)@{parent}"),
            format!("P (static)@{child}"),
        ] {
            assert!(labels.contains(&want.as_str()), "{want} not in {labels:?}");
        }
        let mut pids: Vec<u64> = a["threads"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["pid"].as_u64().unwrap())
            .collect();
        pids.sort();
        let mut want = vec![parent, child];
        want.sort();
        assert_eq!(pids, want);
    }
    one_time_line_in_chrome(dir, &pf, &cf, parent, child);
}

/// The Chrome export puts each process on its own pid, and the child's calls between the
/// parent's two batches: the clocks were lined up on the headers' wall-clock anchors.
fn one_time_line_in_chrome(dir: &Path, pf: &str, cf: &str, parent: u64, child: u64) {
    revy(
        dir,
        &[
            "export",
            pf,
            cf,
            "--chrome",
            "c.json",
            "--perfetto",
            "p.pftrace",
        ],
    );
    let j: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("c.json")).unwrap()).unwrap();
    let slices: Vec<(u64, f64, f64)> = j["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| {
            let ts = e["ts"].as_f64().unwrap();
            (
                e["pid"].as_u64().unwrap(),
                ts,
                ts + e["dur"].as_f64().unwrap(),
            )
        })
        .collect();
    let of = |pid: u64| slices.iter().filter(move |s| s.0 == pid);
    assert_eq!((of(parent).count(), of(child).count()), (2000, 500));
    let first = of(child).map(|s| s.1).fold(f64::MAX, f64::min);
    let last = of(child).map(|s| s.2).fold(0.0, f64::max);
    let before = of(parent).filter(|s| s.2 <= first).count();
    let after = of(parent).filter(|s| s.1 >= last).count();
    assert_eq!((before, after), (1000, 1000), "child {first}..{last}");
    let named: Vec<u64> = j["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] == "process_name")
        .map(|e| e["pid"].as_u64().unwrap())
        .collect();
    assert!(
        named.contains(&parent) && named.contains(&child),
        "{named:?}"
    );
    // Perfetto: one process track (descriptor named after its pid) per process.
    let pf = std::fs::read(dir.join("p.pftrace")).unwrap();
    for pid in [parent, child] {
        let name = format!("revy trace, process {pid}");
        assert!(
            pf.windows(name.len()).any(|w| w == name.as_bytes()),
            "no process track for {pid}"
        );
    }
}

/// Two runs of the parent-and-child program into one folder, each run named by `REVY_RUN`:
/// every trace's header carries its run (the child inherits it), the folder is refused as
/// two runs, and `--merge-runs` reads the four traces as one. Fails before: no `run=`, and
/// the folder was read as four processes of one run.
#[test]
fn two_runs_in_one_folder_are_not_merged() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    build_one_method(dir, "mp", 1 << 30, PROGRAM);
    std::fs::create_dir(dir.join("traces")).unwrap();
    let (_, _, c1) = run_again(dir, "traces/f.rvt", Some("first"));
    let (_, _, c2) = run_again(dir, "traces/g.rvt", Some("second"));
    let run_of = |f: &str| {
        let r =
            revy::analyse::trace::TraceReader::open_header(&dir.join("traces").join(f)).unwrap();
        r.header().get("run").map(str::to_string)
    };
    assert_eq!(run_of("f.rvt").as_deref(), Some("first"));
    assert_eq!(run_of(&format!("f-{c1}.rvt")).as_deref(), Some("first"));
    assert_eq!(run_of("g.rvt").as_deref(), Some("second"));
    assert_eq!(run_of(&format!("g-{c2}.rvt")).as_deref(), Some("second"));
    let out = common::revy_in(dir, &["analyze", "traces", "--no-proposals"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("run first: f") && err.contains("run second: g"),
        "{err}"
    );
    let merged = analyze(dir, &["traces", "--merge-runs"]);
    assert_eq!(work_calls(&merged), 5000);
}

/// A process that recorded no event (started after the run spent its size budget) defines
/// its methods in the order its aggregates name them, not the order of the other traces:
/// its calls still go to their own methods in the merged analysis.
#[test]
fn a_trace_without_events_keeps_its_methods_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(
        dir.join("a.dtf"),
        "##### revy-trace 1 unit=ns lang=java pid=61 anchor_wall_ns=1000000000 anchor_t=0\n\
         ##### thread tid=1 name=main\n\
         <Msg cls=w.Main oid=0 mth=main sgn=!String^1! size=2 tid=1 t=100>\n\
         <Crt cls=w.Counter oid=1 size=8 tid=1 t=200>\n\
         <Msg cls=w.Counter oid=1 mth=tick sgn=!int^0! size=4 tid=1 t=300>\n\
         </Msg cls=w.Counter oid=1 mth=tick sgn=!int^0! tid=1 t=400>\n\
         </Msg cls=w.Main oid=0 mth=main sgn=!String^1! tid=1 t=500>\n\
         ##### end events=5\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("b.dtf"),
        "##### revy-trace 1 unit=ns lang=java pid=62 anchor_wall_ns=2000000000 anchor_t=0 budget=run\n\
         ##### aggregate tid=1 last_t=9000 folded=0 dropped=0\n\
         ##### aggregate-method tid=1 cls=w.Counter mth=tick sgn=!int^0! calls=1000 agg=6000 net=6000 size=4000 agg_min=5 agg_max=9 net_min=5 net_max=9 size_min=4 size_max=4\n\
         ##### aggregate-method tid=1 cls=w.Main mth=main sgn=!String^1! calls=1 agg=8000 net=2000 size=8 agg_min=8000 agg_max=8000 net_min=2000 net_max=2000 size_min=8 size_max=8\n\
         ##### aggregate-class tid=1 cls=w.Counter created=1 destroyed=0 size=8 size_max=8\n\
         ##### aggregate-edge tid=1 from=root cls=w.Main mth=main sgn=!String^1! oid=0 calls=1 agg=8000 net=2000 size=8\n\
         ##### aggregate-edge tid=1 from_cls=w.Main from_oid=0 cls=w.Counter mth=tick sgn=!int^0! oid=1 calls=1000 agg=6000 net=6000 size=4000\n\
         ##### truncated max_size=262144\n\
         ##### end events=0\n",
    )
    .unwrap();
    let a = analyze(dir, &["a.dtf", "b.dtf"]);
    let calls = |name: &str| common::method_calls(&a, name);
    assert_eq!(
        (calls("tick"), calls("main")),
        (1001, 2),
        "{}",
        a["methods"]
    );
}

/// Past analyze's replay cap, the candidates of two processes are replayed on the focused
/// tree (per-process roots and static receivers renumbered): the same verdicts as a replay of
/// every message.
#[test]
fn two_processes_past_the_replay_cap_get_the_whole_replays_verdicts() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    use revy::analyse::analysis::{analyze_path, Options};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (traces, _, child) = run_forking_program(dir);
    let set = revy::analyse::trace::multi::join(&[
        traces.join("f.rvt"),
        traces.join(format!("f-{child}.rvt")),
    ])
    .unwrap();
    let o = |cap: u64| Options {
        cores: Some(2),
        handoff_ns: Some(100.0),
        enqueue_ns: Some(10.0),
        max_replay_messages: cap,
        // The parent's sleeps are most of the run: a low threshold makes `P` a candidate.
        // `work` spins for microseconds, far above a probe's cost even as a loaded machine
        // calibrates it (a class whose time is mostly probe cost is no candidate).
        threshold_level: 0.00001,
        compensate: false,
        ..Options::default()
    };
    let verdicts = |cap: u64| {
        let a = analyze_path(&set, &o(cap)).unwrap();
        assert_eq!(a.totals.recorded_messages, 2500);
        let notes = a
            .advice
            .as_ref()
            .map(|x| x.notes.clone())
            .unwrap_or_default();
        let v = common::verdicts(&a);
        (v, notes)
    };
    let ((whole, _), (focused, notes)) = (verdicts(1_000_000), verdicts(2000));
    assert!(
        notes
            .iter()
            .any(|n| n.contains("nodes for 2500 recorded messages")),
        "{notes:?}"
    );
    // Each process's static receiver of `work` is a candidate of its own; their class,
    // which has no object to make active, is not (it was replayed unchanged: "1.00×").
    assert!(
        whole
            .iter()
            .filter(|v| v.1.starts_with("P (static)@"))
            .count()
            == 2,
        "{whole:?}"
    );
    assert!(!whole.iter().any(|v| v.1 == "P"), "{whole:?}");
    common::assert_same_verdicts(&whole, &focused);
}

/// One process's trace: static `A.main` calling static `B.work` twice.
fn statics_trace(pid: u64, wall: u64) -> String {
    format!(
        "##### revy-trace 1 unit=ns lang=java pid={pid} anchor_wall_ns={wall} anchor_t=0\n\
         ##### thread tid=1 name=main\n\
         <Msg cls=A oid=0 mth=main sgn=!String^1! size=2 tid=1 t=100>\n\
         <Msg cls=B oid=0 mth=work sgn=!int^0! size=4 tid=1 t=200>\n\
         </Msg cls=B oid=0 mth=work sgn=!int^0! tid=1 t=300>\n\
         <Msg cls=B oid=0 mth=work sgn=!int^0! size=4 tid=1 t=400>\n\
         </Msg cls=B oid=0 mth=work sgn=!int^0! tid=1 t=500>\n\
         </Msg cls=A oid=0 mth=main sgn=!String^1! tid=1 t=600>\n\
         ##### end events=6\n"
    )
}

/// Analysed together, each process keeps one static receiver per class (before: every
/// static class of a process was folded into the first one met, `A (static)@101` with 3
/// calls and no `B (static)` at all).
#[test]
fn static_classes_stay_apart_in_a_trace_set() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("p101.dtf"), statics_trace(101, 1_000_000_000)).unwrap();
    std::fs::write(dir.join("p202.dtf"), statics_trace(202, 1_000_001_000)).unwrap();
    let a = analyze(dir, &["p101.dtf", "p202.dtf"]);
    let mut statics: Vec<(String, u64)> = a["instances"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == "class")
        .map(|i| {
            (
                i["label"].as_str().unwrap().to_string(),
                i["received"].as_u64().unwrap(),
            )
        })
        .collect();
    statics.sort();
    let want = [
        ("A (static)@101", 1),
        ("A (static)@202", 1),
        ("B (static)@101", 2),
        ("B (static)@202", 2),
    ];
    let want: Vec<(String, u64)> = want.iter().map(|(l, n)| (l.to_string(), *n)).collect();
    assert_eq!(statics, want);
}
