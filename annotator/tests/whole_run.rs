//! Complete statistics for whole runs (issue 13, item 2): a Java and a C++ program count
//! their own calls; annotated with a tiny `max_size`, or with throttling forced low, the
//! analysis's per-method, per-class and per-instance call counts still equal the program's
//! counters (what the trace no longer records the runtime aggregates), throttled methods are
//! named with a time, the trace prints and reads back in the text form, and a garbled
//! aggregate record is a one-line error.

mod common;
use common::gate::Tool;
use common::revy_in;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use common::{ok, Lang};

fn sh(dir: &Path, cmd: &str, trace: &Path) -> String {
    let o = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .env("REVY_TRACE", trace)
        .output()
        .unwrap();
    ok(&o, cmd)
}

const JAVA_MAIN: &str = r#"package w;

import java.util.concurrent.atomic.AtomicLong;

public class Main {
    static final AtomicLong TICK = new AtomicLong(), VISIT = new AtomicLong(), WORK = new AtomicLong();

    public static void main(String[] args) throws Exception {
        final Counter c1 = new Counter(), c2 = new Counter();
        final Node a = new Node(3), b = new Node(5);
        Thread t = new Thread(new Runnable() {
            public void run() {
                for (int i = 0; i < 20000; i++) c2.tick(i);
            }
        });
        t.start();
        long s = 0;
        for (int i = 0; i < 400; i++) {
            s += a.visit(i % 7);
            s += b.work(i);
        }
        for (int i = 0; i < 30000; i++) c1.tick(i);
        t.join();
        // More objects than a thread's edge table holds: their calls fold into the class.
        long many = 0;
        for (int i = 0; i < 5000; i++) {
            Node n = new Node(i);
            s += n.work(i);
            many += n.calls;
        }
        System.out.println("tick=" + TICK.get() + " visit=" + VISIT.get() + " work=" + WORK.get()
                + " a=" + a.calls + " b=" + b.calls + " c1=" + c1.calls + " c2=" + c2.calls
                + " many=" + many + " s=" + (s + c1.total + c2.total));
    }
}

class Counter {
    long total, calls;

    void tick(int k) {
        Main.TICK.incrementAndGet();
        calls++;
        total += k;
    }
}

class Node {
    final int w;
    long calls;

    Node(int w) {
        this.w = w;
        calls++;
    }

    long visit(int depth) {
        Main.VISIT.incrementAndGet();
        calls++;
        return depth == 0 ? w : w + visit(depth - 1) + work(depth);
    }

    long work(int k) {
        Main.WORK.incrementAndGet();
        calls++;
        long x = 0;
        for (int i = 0; i < 50; i++) x += i ^ k;
        return x;
    }
}
"#;

const CPP_H: &str = r#"#pragma once
#include <atomic>
extern std::atomic<long> TICK, VISIT, WORK;
class Counter {
public:
    long total = 0, calls = 0;
    void tick(int k);
};
class Node {
public:
    explicit Node(int w) : w_(w) { ++calls; }
    long visit(int depth);
    long work(int k);
    long calls = 0;
private:
    int w_;
};
"#;

const CPP_MAIN: &str = r#"#include "w.h"
#include <cstdio>
#include <thread>
#include <vector>
std::atomic<long> TICK(0), VISIT(0), WORK(0);
void Counter::tick(int k) { ++TICK; ++calls; total += k; }
long Node::visit(int depth) {
    ++VISIT;
    ++calls;
    return depth == 0 ? w_ : w_ + visit(depth - 1) + work(depth);
}
long Node::work(int k) {
    ++WORK;
    ++calls;
    long x = 0;
    for (int i = 0; i < 50; ++i) x += i ^ k;
    return x;
}
int main() {
    Counter c1, c2;
    Node a(3), b(5);
    std::thread t([&c2] { for (int i = 0; i < 20000; ++i) c2.tick(i); });
    long s = 0;
    for (int i = 0; i < 400; ++i) {
        s += a.visit(i % 7);
        s += b.work(i);
    }
    for (int i = 0; i < 30000; ++i) c1.tick(i);
    t.join();
    // More objects than a thread's edge table holds: their calls fold into the class.
    long many = 0;
    std::vector<Node> nodes;
    nodes.reserve(5000);
    for (int i = 0; i < 5000; ++i) {
        nodes.emplace_back(i);
        s += nodes.back().work(i);
        many += nodes.back().calls;
    }
    std::printf("tick=%ld visit=%ld work=%ld a=%ld b=%ld c1=%ld c2=%ld many=%ld s=%ld\n",
                TICK.load(), VISIT.load(), WORK.load(), a.calls, b.calls, c1.calls, c2.calls, many,
                s + c1.total + c2.total);
    return 0;
}
"#;

const JAVA: Lang = Lang {
    name: "java",
    sources: "src/**/*.java",
    build: "rm -rf build && mkdir -p build && javac -encoding UTF-8 -d build $(find src -name '*.java')",
    run: "java -cp build w.Main",
    files: &[("src/w/Main.java", JAVA_MAIN)],
};

const CPP: Lang = Lang {
    name: "cpp",
    sources: "src/**/*.{h,cpp}",
    build: "mkdir -p build && g++ -std=c++17 -O1 -pthread -o build/w src/main.cpp",
    run: "./build/w",
    files: &[("src/w.h", CPP_H), ("src/main.cpp", CPP_MAIN)],
};

/// The program's own counters, from its output line `tick=… visit=… …`.
fn counters(out: &str) -> std::collections::BTreeMap<String, u64> {
    out.split_whitespace()
        .filter_map(|w| w.split_once('='))
        .filter_map(|(k, v)| Some((k.to_string(), v.parse().ok()?)))
        .collect()
}

/// Annotates a fresh copy with `trace` as its `[trace]` table, runs it, analyses the trace.
/// Returns (the program's counters, the analysis JSON, the trace path).
fn profile(
    lang: &Lang,
    trace: &str,
    tmp: &Path,
) -> (
    std::collections::BTreeMap<String, u64>,
    Value,
    std::path::PathBuf,
) {
    let dir = tmp.join("p");
    let _ = std::fs::remove_dir_all(&dir);
    common::write_project(&dir, lang, lang.run, trace);
    ok(&revy_in(&dir, &["parse"]), "revy parse");
    ok(&revy_in(&dir, &["annotate"]), "revy annotate");
    let rvt = tmp.join(format!("t{}.rvt", trace.len()));
    let _ = std::fs::remove_file(&rvt);
    sh(&dir, lang.build, &rvt);
    let out = sh(&dir, lang.run, &rvt);
    ok(&revy_in(&dir, &["restore"]), "revy restore");
    let json = ok(
        &revy_in(
            &dir,
            &["analyze", rvt.to_str().unwrap(), "--format", "json"],
        ),
        "revy analyze",
    );
    let a: Value = serde_json::from_str(&json).unwrap();
    common::check_schema(&a);
    (counters(&out), a, rvt)
}

use common::method_calls;

/// A class name without its package or namespace.
fn short(v: &Value) -> &str {
    let s = v.as_str().unwrap_or("");
    s.rsplit(['.', ':']).next().unwrap_or(s)
}

/// Messages received by the instances of `class` (objects only), sorted.
fn received(a: &Value, class: &str) -> Vec<u64> {
    let mut v: Vec<u64> = a["instances"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| short(&i["class"]) == class && i["kind"] == "object")
        .filter(|i| !i["label"].as_str().unwrap_or("").ends_with("#*"))
        .map(|i| i["received"].as_u64().unwrap())
        .collect();
    v.sort();
    v
}

/// Per-method, per-class and per-instance call counts equal the program's counters.
fn check_counts(c: &std::collections::BTreeMap<String, u64>, a: &Value, what: &str) {
    assert_eq!(c["tick"], 50_000, "{what}: {c:?}");
    for m in ["tick", "visit", "work"] {
        assert_eq!(method_calls(a, m), c[m], "{what}: calls of {m}");
    }
    // a and b are the two busiest Node instances (the others received 2 calls each, some
    // folded into `Node#*`).
    let mut nodes = [c["a"], c["b"]];
    nodes.sort();
    let got = received(a, "Node");
    assert_eq!(got[got.len() - 2..], nodes[..], "{what}: Node instances");
    let mut counters = vec![c["c1"], c["c2"]];
    counters.sort();
    assert_eq!(
        received(a, "Counter"),
        counters,
        "{what}: Counter instances"
    );
    let class_msgs: u64 = a["classes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| short(&k["class"]) == "Node")
        .map(|k| k["messages"].as_u64().unwrap())
        .sum();
    assert_eq!(
        class_msgs,
        c["a"] + c["b"] + c["many"],
        "{what}: class Node"
    );
    // Edges into the Counter instances carry all their calls.
    let edge_calls: u64 = a["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            short(&a["instances"][e["receiver"].as_u64().unwrap() as usize]["class"]) == "Counter"
        })
        .map(|e| e["calls"].as_u64().unwrap())
        .sum();
    assert_eq!(edge_calls, c["tick"], "{what}: edges into Counter");
    let total = a["totals"]["messages"].as_u64().unwrap();
    let recorded = a["totals"]["recorded_messages"].as_u64().unwrap();
    assert!(recorded < total, "{what}: {recorded} of {total}");
}

/// `revy estimate` of a throttled trace predicts (at scale 1) every call the program made,
/// and its trace size counts the calls the runtime only counted.
fn check_estimate(c: &std::collections::BTreeMap<String, u64>, rvt: &Path, name: &str) {
    let dir = rvt.parent().unwrap();
    let out = ok(
        &revy_in(
            dir,
            &["estimate", rvt.to_str().unwrap(), "--format", "json"],
        ),
        "revy estimate",
    );
    let e: Value = serde_json::from_str(&out).unwrap();
    let methods = e["methods"].as_array().unwrap();
    let calls = |m: &str| -> f64 {
        let suffix = [format!(".{m}"), format!("::{m}")];
        methods
            .iter()
            .filter(|x| {
                suffix
                    .iter()
                    .any(|s| x["pattern"].as_str().unwrap().ends_with(s))
            })
            .map(|x| x["predicted_calls"].as_f64().unwrap())
            .sum()
    };
    for m in ["tick", "visit", "work"] {
        assert_eq!(calls(m), c[m] as f64, "{name}: estimate's calls of {m}");
    }
    let tick = methods
        .iter()
        .find(|x| x["pattern"].as_str().unwrap().ends_with("tick"))
        .unwrap();
    assert_eq!(tick["throttled"], true, "{name}: {tick}");
    // Every tick would have written two events: the prediction exceeds the small trace.
    let per_event = e["bytes_per_event"].as_f64().unwrap();
    let predicted = e["predicted_bytes"].as_f64().unwrap();
    assert!(
        predicted >= 2.0 * per_event * c["tick"] as f64,
        "{name}: predicted {predicted} bytes"
    );
}

fn whole_run(lang: &Lang, name: &str) {
    let tmp = tempfile::tempdir().unwrap();
    // 1. A tiny size limit, no throttling: most calls come after the limit.
    let (c, a, rvt) = profile(lang, "max_size = \"16KiB\"\nthrottle = false", tmp.path());
    assert_eq!(a["trace"]["truncated"], true, "{name}");
    check_counts(&c, &a, &format!("{name}, max_size 16KiB"));
    let cov = &a["trace"]["coverage"];
    assert!(
        cov["aggregated_calls"].as_u64().unwrap() > 40_000,
        "{name}: {cov}"
    );
    // Past the edge table's bound (4,096 instances per thread) calls fold into their class.
    assert!(cov["folded_calls"].as_u64().unwrap() > 0, "{name}: {cov}");
    let folded = a["instances"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["label"].as_str().is_some_and(|l| l.ends_with("Node#*")));
    assert!(folded, "{name}: no folded Node instance");
    let warnings = a["trace"]["warnings"].to_string();
    assert!(warnings.contains("cover the recorded part"), "{warnings}");
    // The truncated-then-aggregated trace prints as text, and the text reads back the same.
    let back = via_text(
        tmp.path(),
        &rvt,
        &["##### aggregate-method ", "##### aggregate-edge "],
        name,
    );
    check_counts(&c, &back, &format!("{name}, text form"));

    // 2. Throttling forced low: methods with over 100 calls averaging under 1 ms stop
    // producing events; the trace names them with a time.
    let (c, a, rvt) = profile(lang, "throttle_calls = 100\nthrottle_us = 1000", tmp.path());
    assert_eq!(a["trace"]["truncated"], false, "{name}");
    check_estimate(&c, &rvt, name);
    check_counts(&c, &a, &format!("{name}, throttled"));
    let throttled = a["trace"]["coverage"]["throttled"].as_array().unwrap();
    let tick = throttled
        .iter()
        .find(|t| {
            t["method"]
                .as_str()
                .is_some_and(|m| m.ends_with("Counter.tick"))
        })
        .unwrap_or_else(|| panic!("{name}: tick not throttled: {throttled:?}"));
    assert!(tick["t"].as_u64().unwrap() > 0 && tick["calls"].as_u64().unwrap() > 100);
    // Events stop after the verdict: at most a few hundred ticks recorded per thread.
    let recorded = a["totals"]["recorded_messages"].as_u64().unwrap();
    assert!(recorded < 2_000, "{name}: {recorded} recorded");
    check_estimated(&a, &rvt, tick, name);
}

/// `key=value` fields of a text-form line.
fn fields(line: &str) -> std::collections::HashMap<&str, &str> {
    line.split_whitespace()
        .filter_map(|w| w.split_once('='))
        .collect()
}

/// After the verdict a throttled method's calls are counted untimed: each is credited with an
/// estimate an `S` record gives (the median of the calls timed before the verdict, or later of
/// sampled calls), so every thread's aggregate of `tick` (a leaf, aggregated only once
/// throttled) has one of those times per call, and the analysis says so.
fn check_estimated(a: &Value, rvt: &Path, tick: &Value, name: &str) {
    let calls = tick["calls"].as_u64().unwrap();
    let row = a["methods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["method"] == "tick")
        .unwrap();
    assert_eq!(row["time_estimated_from"], calls, "{name}: {row}");
    let warnings = a["trace"]["warnings"].to_string();
    assert!(
        warnings.contains(&format!("estimated from the first {calls} calls")),
        "{name}: {warnings}"
    );
    let text = ok(
        &revy_in(
            rvt.parent().unwrap(),
            &["trace", "print", rvt.to_str().unwrap()],
        ),
        "revy trace print",
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("##### throttled ") && l.contains(" mth=tick ")),
        "{name}: no X record for tick"
    );
    let num = |f: &std::collections::HashMap<&str, &str>, k: &str| -> u64 { f[k].parse().unwrap() };
    // the estimates tick's counted calls may take: the verdict's, then any phase's (C++
    // samples its counted calls)
    let estimates: Vec<u64> = text
        .lines()
        .filter(|l| l.starts_with("##### estimate ") && l.contains(" mth=tick "))
        .map(|l| num(&fields(l), "per_call"))
        .collect();
    assert!(!estimates.is_empty(), "{name}: no S record for tick");
    let mut counted = 0;
    for l in text
        .lines()
        .filter(|l| l.starts_with("##### aggregate-method ") && l.contains(" mth=tick "))
    {
        let m = fields(l);
        let (lo, hi, agg, calls) = (
            num(&m, "agg_min"),
            num(&m, "agg_max"),
            num(&m, "agg"),
            num(&m, "calls"),
        );
        assert!(
            estimates.contains(&lo) && estimates.contains(&hi),
            "{name}: tick's aggregated calls are not all estimated at {estimates:?}: {l}"
        );
        assert!(lo * calls <= agg && agg <= hi * calls, "{name}: {l}");
        counted += calls;
    }
    assert!(counted > 40_000, "{name}: {counted} ticks aggregated");
}

// exit() inside a call: the throttled `run` (its 300th call) and the recorded `go` are still
// open when the process ends.
const JAVA_EXIT: &str = r#"package w;

public class Main {
    public static void main(String[] args) {
        new Outer().go(new Step(), 300);
        System.exit(1);
    }
}

class Step {
    long calls;

    void run(int i) {
        calls++;
        if (i == 299) {
            System.out.println("run=" + calls + " go=1");
            System.exit(0);
        }
    }
}

class Outer {
    void go(Step s, int n) {
        for (int i = 0; i < n; i++) s.run(i);
    }
}
"#;

const CPP_EXIT_H: &str = r#"#pragma once
class Step {
public:
    long calls = 0;
    void run(int i);
};
class Outer {
public:
    void go(Step& s, int n);
};
"#;

const CPP_EXIT: &str = r#"#include "w.h"
#include <cstdio>
#include <cstdlib>
void Step::run(int i) {
    ++calls;
    if (i == 299) {
        std::printf("run=%ld go=1\n", calls);
        std::fflush(stdout);
        std::exit(0);
    }
}
void Outer::go(Step& s, int n) {
    for (int i = 0; i < n; ++i) s.run(i);
}
int main() {
    Step s;
    Outer o;
    o.go(s, 300);
    return 1;
}
"#;

/// Calls open at exit() count: the analysis's calls of the throttled method that called
/// exit() and of its recorded caller equal the program's counts.
fn open_at_exit(lang: &Lang, name: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let (c, a, rvt) = profile(lang, "throttle_calls = 100\nthrottle_us = 1000", tmp.path());
    assert_eq!(c["run"], 300, "{name}: {c:?}");
    assert_eq!(method_calls(&a, "go"), 1, "{name}: calls of go");
    assert_eq!(method_calls(&a, "run"), c["run"], "{name}: calls of run");
    let throttled = a["trace"]["coverage"]["throttled"].to_string();
    assert!(
        throttled.contains("run"),
        "{name}: run not throttled: {throttled}"
    );
    // run's time is inside go's: go's total time covers every run counted (as recorded: the
    // default compensation takes the header's probe cost, measured under load, off go).
    let raw = ok(
        &revy_in(
            tmp.path(),
            &[
                "analyze",
                rvt.to_str().unwrap(),
                "--format",
                "json",
                "--no-compensate",
            ],
        ),
        "revy analyze --no-compensate",
    );
    let raw: Value = serde_json::from_str(&raw).unwrap();
    let m = |n: &str| {
        raw["methods"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["method"] == n)
            .unwrap()
            .clone()
    };
    let (go, run) = (m("go"), m("run"));
    let total = |v: &Value| v["aggregate_time"]["total"].as_u64().unwrap();
    assert!(
        total(&go) >= total(&run) && total(&run) > 0,
        "{name}: go {go} run {run}"
    );
}

// Constructors with member initialiser lists (the runtime's `ctor_start` before the object's
// ID exists, `ctor_bind` in the body): nested (a temporary `Part` built inside `Whole`'s
// initialisers), calling methods from the initialisers, past `max_size` and throttled.
const CPP_CTOR_H: &str = r#"#pragma once
#include <atomic>
extern std::atomic<long> PART, WHOLE, VALUE;
class Part {
public:
    explicit Part(int v) : v_(v) { ++PART; }
    int value() const;
private:
    int v_;
};
class Whole {
public:
    Whole(int a, int b) : p_(a), q_(Part(b).value() + 1), sum_(p_.value() + q_.value()) { ++WHOLE; }
    int sum() const;
private:
    Part p_;
    Part q_;
    int sum_;
};
"#;

const CPP_CTOR: &str = r#"#include "w.h"
#include <cstdio>
#include <thread>
std::atomic<long> PART(0), WHOLE(0), VALUE(0);
int Part::value() const { ++VALUE; return v_; }
int Whole::sum() const { return sum_; }
static long build(int n) {
    long s = 0;
    for (int i = 0; i < n; ++i) {
        Whole w(i, i + 1);
        s += w.sum();
    }
    return s;
}
int main() {
    long s2 = 0;
    std::thread t([&s2] { s2 = build(1500); });
    long s = build(3000);
    t.join();
    std::printf("Part=%ld Whole=%ld value=%ld s=%ld\n", PART.load(), WHOLE.load(), VALUE.load(),
                s + s2);
    return 0;
}
"#;

/// The analysis's calls of the constructors and of the method their initialisers call equal
/// the program's counters, past `max_size` and throttled, and the annotated program prints
/// what the original prints.
fn ctor_init_lists(trace: &str, what: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let lang = Lang {
        files: &[("src/w.h", CPP_CTOR_H), ("src/main.cpp", CPP_CTOR)],
        ..CPP
    };
    let (c, a, _) = profile(&lang, trace, tmp.path());
    // The original, built and run alone.
    let orig = tmp.path().join("orig");
    common::write_files(&orig, lang.files);
    sh(&orig, lang.build, Path::new("off"));
    let want = counters(&sh(&orig, lang.run, Path::new("off")));
    assert_eq!(c, want, "{what}: annotated output differs");
    assert_eq!(c["Whole"], 4500, "{what}: {c:?}");
    for m in ["Part", "Whole", "value"] {
        assert_eq!(method_calls(&a, m), c[m], "{what}: calls of {m}");
    }
    let total = a["totals"]["messages"].as_u64().unwrap();
    let recorded = a["totals"]["recorded_messages"].as_u64().unwrap();
    assert!(recorded < total, "{what}: {recorded} of {total}");
    // What the initialisers call before the object's ID exists is sent by that object, not by
    // a phantom `Whole (static)` (oid 0), and every Whole whose edges were not folded into
    // `Whole#*` (the table's bound) sent 6 (3 Part constructors, 3 value()). Known gap: a
    // recorded constructor start whose block is flushed before the body binds its ID keeps
    // the placeholder 0, so that one construction (6 sends) lands on the phantom. On each of
    // the two threads one Whole may straddle the edge table's bound (some edges folded).
    let inst = a["instances"].as_array().unwrap();
    let n = |v: &Value| v.as_u64().unwrap();
    let flushed: u64 = inst
        .iter()
        .filter(|i| i["class"] == "Whole" && i["oid"] == 0)
        .map(|i| {
            assert!(
                n(&i["sent"]) <= 6 * n(&i["received"]),
                "{what}: a phantom Whole: {i}"
            );
            n(&i["received"])
        })
        .sum();
    let wholes: Vec<&Value> = inst
        .iter()
        .filter(|i| i["class"] == "Whole" && i["kind"] == "object")
        .filter(|i| !i["label"].as_str().unwrap_or("").ends_with("#*"))
        .filter(|i| i["received"] != 0 || i["sent"] != 0)
        .collect();
    let odd: Vec<String> = wholes
        .iter()
        .filter(|w| w["sent"] != 6)
        .map(|w| {
            format!(
                "{} received {} sent {}",
                w["label"], w["received"], w["sent"]
            )
        })
        .collect();
    assert!(
        wholes.len() > 400,
        "{what}: {} Whole instances",
        wholes.len()
    );
    assert!(
        odd.len() as u64 <= flushed + 2,
        "{what}: {} of {}: {:?}",
        odd.len(),
        wholes.len(),
        &odd[..odd.len().min(5)]
    );
}

#[test]
fn cpp_ctor_init_lists_past_max_size() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    ctor_init_lists("max_size = \"16KiB\"\nthrottle = false", "max_size 16KiB");
}

#[test]
fn cpp_ctor_init_lists_throttled() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    ctor_init_lists("throttle_calls = 100\nthrottle_us = 1000", "throttled");
}

#[test]
fn java_calls_open_at_exit_are_counted() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    open_at_exit(
        &Lang {
            files: &[("src/w/Main.java", JAVA_EXIT)],
            ..JAVA
        },
        "java",
    );
}

#[test]
fn cpp_calls_open_at_exit_are_counted() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    open_at_exit(
        &Lang {
            files: &[("src/w.h", CPP_EXIT_H), ("src/main.cpp", CPP_EXIT)],
            ..CPP
        },
        "cpp",
    );
}

#[test]
fn java_counts_cover_the_whole_run() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    whole_run(&JAVA, "java");
}

#[test]
fn cpp_counts_cover_the_whole_run() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    whole_run(&CPP, "cpp");
}

// Creations and destructions past `max_size`: the program counts its own objects.
const JAVA_OBJS: &str = r#"package w;

public class Main {
    public static void main(String[] args) {
        long s = 0;
        for (int i = 0; i < 10000; i++) {
            Item x = new Item(i);
            s += x.get();
        }
        System.out.println("made=" + Item.made + " s=" + s);
    }
}

class Item {
    static long made;
    final long v;

    Item(int v) {
        this.v = v;
        made++;
    }

    long get() {
        return v;
    }
}
"#;

const CPP_OBJS_H: &str = r#"#pragma once
extern long MADE, GONE, BIGS, BIGS_GONE;
class Item {
public:
    explicit Item(int v);
    ~Item();
    long get() const;
private:
    long v_;
};
// A selected subclass: its objects' creations name it (the base's tag is rewritten).
class Big : public Item {
public:
    explicit Big(int v);
    ~Big();
private:
    long w_[4];
};
"#;

const CPP_OBJS: &str = r#"#include "w.h"
#include <cstdio>
#include <memory>
#include <vector>
long MADE = 0, GONE = 0, BIGS = 0, BIGS_GONE = 0;
Item::Item(int v) : v_(v) { ++MADE; }
Item::~Item() { ++GONE; }
long Item::get() const { return v_; }
Big::Big(int v) : Item(v), w_{v, v, v, v} { ++BIGS; }
Big::~Big() { ++BIGS_GONE; }
int main() {
    long s = 0;
    for (int round = 0; round < 10; ++round) {
        std::vector<std::unique_ptr<Item>> items;
        for (int i = 0; i < 1000; ++i) {
            items.emplace_back(new Item(i));
            s += items.back()->get();
        }
    }
    {
        std::vector<std::unique_ptr<Big>> bigs;
        for (int i = 0; i < 500; ++i) {
            bigs.emplace_back(new Big(i));
            s += bigs.back()->get();
        }
    }
    // An Item's counters count the Item part of every Big too.
    std::printf("made=%ld gone=%ld bigs=%ld bigs_gone=%ld s=%ld\n", MADE - BIGS, GONE - BIGS_GONE,
                BIGS, BIGS_GONE, s);
    return 0;
}
"#;

/// The row of class `class` in an analysis.
fn class_row<'a>(a: &'a Value, class: &str) -> &'a Value {
    a["classes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| short(&k["class"]) == class)
        .unwrap_or_else(|| panic!("no class {class}: {}", a["classes"]))
}

/// Per-class creations, destructions, live objects and sizes equal the program's counts,
/// though most objects come after the size limit (in C++ also for a selected subclass, whose
/// creations the base's tag counts first); also after a round trip through the text form.
/// (Before the `O` record, `created` counted only the recorded part.)
fn objects_past_max_size(lang: &Lang, name: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let (c, a, rvt) = profile(lang, "max_size = \"16KiB\"\nthrottle = false", tmp.path());
    assert_eq!(a["trace"]["truncated"], true, "{name}");
    let made = c["made"];
    let gone = c.get("gone").copied().unwrap_or(0);
    assert_eq!(made, 10_000, "{name}: {c:?}");
    // C++ only: 500 objects of a selected subclass, created past the limit.
    let mut expect = vec![("Item", made, gone)];
    if let Some(&bigs) = c.get("bigs") {
        assert_eq!(bigs, 500, "{name}: {c:?}");
        expect.push(("Big", bigs, c["bigs_gone"]));
    }
    let check = |a: &Value, what: &str| {
        for &(class, made, gone) in &expect {
            let row = class_row(a, class);
            let field = |k: &str| row[k].as_u64().unwrap();
            assert_eq!(field("created"), made, "{name} {what}: {row}");
            assert_eq!(field("destroyed"), gone, "{name} {what}: {row}");
            assert_eq!(field("live"), made - gone, "{name} {what}: {row}");
            // Every object has its class's static size: the total is the count times it.
            let size = field("max_size");
            assert!(size > 0, "{name} {what}: {row}");
            assert_eq!(field("total_size"), made * size, "{name} {what}: {row}");
        }
    };
    check(&a, "compact");
    // Both paths were taken, and the coverage block says which part is counted only.
    let cov = &a["trace"]["coverage"];
    let unrecorded = cov["unrecorded_creations"].as_u64().unwrap();
    assert!(unrecorded > 0 && unrecorded < made, "{name}: {cov}");
    let warnings = a["trace"]["warnings"].to_string();
    assert!(warnings.contains("per-class creations"), "{warnings}");
    // The counts print as text and read back the same.
    let back = via_text(tmp.path(), &rvt, &["##### aggregate-class "], name);
    check(&back, "text");
}

#[test]
fn java_creations_past_max_size_are_counted() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    objects_past_max_size(
        &Lang {
            files: &[("src/w/Main.java", JAVA_OBJS)],
            ..JAVA
        },
        "java",
    );
}

#[test]
fn cpp_creations_and_destructions_past_max_size_are_counted() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    objects_past_max_size(
        &Lang {
            files: &[("src/w.h", CPP_OBJS_H), ("src/main.cpp", CPP_OBJS)],
            ..CPP
        },
        "cpp",
    );
}

/// `revy trace print` of `rvt` (which must show each of `lines`), written as `t.dtf` in `dir`
/// and analysed again: the text form must carry what the compact one does.
fn via_text(dir: &Path, rvt: &Path, lines: &[&str], name: &str) -> Value {
    let text = ok(
        &revy_in(dir, &["trace", "print", rvt.to_str().unwrap()]),
        "revy trace print",
    );
    for l in lines {
        assert!(text.contains(l), "{name}: no {l:?} line");
    }
    let dtf = dir.join("t.dtf");
    std::fs::write(&dtf, &text).unwrap();
    let back = ok(
        &revy_in(dir, &["analyze", dtf.to_str().unwrap(), "--format", "json"]),
        "revy analyze (text form)",
    );
    serde_json::from_str(&back).unwrap()
}

// Overloads that differ only in `const`, in a ref-qualifier, in a reference's kind or in a
// pointer's target's qualifiers: each is a method of its own, called a known number of times.
const CPP_OVL_H: &str = r#"#pragma once
#include <string>
class Box {
public:
    int& at(int i) { return v_[i]; }
    const int& at(int i) const { return v_[i]; }
    long put(const std::string& s);
    long put(std::string& s);
    long put(std::string&& s);
    long put(const char* s);
    long put(char* s);
    int get() & { return 1; }
    int get() && { return 2; }
private:
    int v_[4] = {1, 2, 3, 4};
};
"#;

const CPP_OVL: &str = r#"#include "w.h"
#include <cstdio>
#include <utility>
long Box::put(std::string const& s) { return (long)s.size(); }
long Box::put(std::string& s) { return (long)s.size() + 1; }
long Box::put(std::string&& s) { return (long)s.size() + 2; }
long Box::put(const char* s) { return (long)s[0]; }
long Box::put(char* s) { return (long)s[1]; }
int main() {
    Box b;
    const Box& cb = b;
    long s = 0;
    std::string m = "mutable";
    const std::string c = "const";
    char buf[] = "xy";
    for (int i = 0; i < 2; i++) s += b.at(i);
    for (int i = 0; i < 3; i++) s += cb.at(i);
    for (int i = 0; i < 4; i++) s += b.put(c);
    for (int i = 0; i < 5; i++) s += b.put(m);
    for (int i = 0; i < 6; i++) s += b.put(std::string("tmp"));
    for (int i = 0; i < 7; i++) s += b.put("lit");
    for (int i = 0; i < 8; i++) s += b.put(buf);
    for (int i = 0; i < 9; i++) s += b.get();
    for (int i = 0; i < 10; i++) s += Box().get();
    std::printf("s=%ld\n", s);
    return 0;
}
"#;

/// Each overload is its own row, with its own calls (before, `at(int)` and `at(int) const`
/// were one method, as were the three `put(std::string…)`), and the annotated program
/// prints what the original prints.
#[test]
fn cpp_overloads_are_methods_of_their_own() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let lang = Lang {
        files: &[("src/w.h", CPP_OVL_H), ("src/main.cpp", CPP_OVL)],
        ..CPP
    };
    let (c, a, _) = profile(&lang, "", tmp.path());
    let orig = tmp.path().join("orig");
    common::write_files(&orig, lang.files);
    sh(&orig, lang.build, Path::new("off"));
    assert_eq!(c, counters(&sh(&orig, lang.run, Path::new("off"))));
    let calls = |name: &str, sgn: &str| -> Vec<u64> {
        let ms = a["methods"].as_array().unwrap();
        ms.iter()
            .filter(|m| m["method"] == name && m["signature"] == sgn)
            .map(|m| m["calls"].as_u64().unwrap())
            .collect()
    };
    for (name, sgn, n) in [
        ("at", "!int^0!", 2),
        ("at", "!int^0!const", 3),
        ("put", "!const_std::string&^0!", 4),
        ("put", "!std::string&^0!", 5),
        ("put", "!std::string&&^0!", 6),
        ("put", "!const_char*^0!", 7),
        ("put", "!char*^0!", 8),
        ("get", "!!&", 9),
        ("get", "!!&&", 10),
    ] {
        assert_eq!(calls(name, sgn), vec![n], "{name}{sgn}: {}", a["methods"]);
    }
}
