//! Complete statistics for whole runs (issue 13, item 2): a Java and a C++ program count
//! their own calls; annotated with a tiny `max_size`, or with throttling forced low, the
//! analysis's per-method, per-class and per-instance call counts still equal the program's
//! counters (what the trace no longer records the runtime aggregates), throttled methods are
//! named with a time, the trace prints and reads back in the text form, and a garbled
//! aggregate record is a one-line error.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn revy_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_revy"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn ok(o: &Output, what: &str) -> String {
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{what} failed:\n{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

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

struct Lang {
    sources: &'static str,
    build: &'static str,
    run: &'static str,
    files: &'static [(&'static str, &'static str)],
}

const JAVA: Lang = Lang {
    sources: "src/**/*.java",
    build: "rm -rf build && mkdir -p build && javac -encoding UTF-8 -d build $(find src -name '*.java')",
    run: "java -cp build w.Main",
    files: &[("src/w/Main.java", JAVA_MAIN)],
};

const CPP: Lang = Lang {
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
    for (rel, text) in lang.files {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    std::fs::write(
        dir.join("revy.toml"),
        format!(
            "[project]\nname = \"w\"\nsources = [{:?}]\nbuild = {:?}\nrun = {:?}\n\n[annotate]\nmode = \"faster\"\ninclude = [\"*\"]\n\n[trace]\n{trace}\n",
            lang.sources, lang.build, lang.run
        ),
    )
    .unwrap();
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

fn method_calls(a: &Value, name: &str) -> u64 {
    a["methods"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["method"] == name)
        .map(|m| m["calls"].as_u64().unwrap())
        .sum()
}

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
    let text = ok(
        &revy_in(tmp.path(), &["trace", "print", rvt.to_str().unwrap()]),
        "revy trace print",
    );
    assert!(text.contains("##### aggregate-method "), "{name}");
    assert!(text.contains("##### aggregate-edge "), "{name}");
    let dtf = tmp.path().join("t.dtf");
    std::fs::write(&dtf, &text).unwrap();
    let back = ok(
        &revy_in(
            tmp.path(),
            &["analyze", dtf.to_str().unwrap(), "--format", "json"],
        ),
        "revy analyze (text form)",
    );
    let back: Value = serde_json::from_str(&back).unwrap();
    check_counts(&c, &back, &format!("{name}, text form"));

    // 2. Throttling forced low: methods with over 100 calls averaging under 1 ms stop
    // producing events; the trace names them with a time.
    let (c, a, rvt) = profile(lang, "throttle_calls = 100\nthrottle_us = 1000", tmp.path());
    assert_eq!(a["trace"]["truncated"], false, "{name}");
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

/// After the verdict a throttled method's calls are counted untimed: each is credited with one
/// estimate (the mean of the later half of the calls timed before it), so every thread's
/// aggregate of `tick` (a leaf, aggregated only once throttled) has exactly that time per call,
/// and the analysis says so.
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
    let mut est = None;
    let mut counted = 0;
    for l in text
        .lines()
        .filter(|l| l.starts_with("##### aggregate-method ") && l.contains(" mth=tick "))
    {
        let m = fields(l);
        let est = *est.get_or_insert(num(&m, "agg_min"));
        assert_eq!(
            (num(&m, "agg_min"), num(&m, "agg_max"), num(&m, "agg")),
            (est, est, est * num(&m, "calls")),
            "{name}: tick's aggregated calls are not all estimated at {est}: {l}"
        );
        counted += num(&m, "calls");
    }
    assert!(counted > 40_000, "{name}: {counted} ticks aggregated");
}

#[test]
fn java_counts_cover_the_whole_run() {
    whole_run(&JAVA, "java");
}

#[test]
fn cpp_counts_cover_the_whole_run() {
    whole_run(&CPP, "cpp");
}
