//! The probe pair's split measured by the runtimes (`probe_inside_ns=`) holds for real
//! programs: a parent calling 50 empty instrumented children, in C++ and in Java, beside
//! the same code uninstrumented (the truth, timed by the program itself). Once the
//! header's inside part is taken off each child and its outside part off the parent per
//! child, both come out near the truth; taking the whole pair off each message's own time
//! (before the split) left the parent with most of its children's probe cost.
//!
//! Per-call 10th percentiles, of the truth's rounds too (a busy machine's preemptions and
//! slowed stretches land in some calls; the analysis's sums and means take them all). The analysis applies the same split (fidelity.rs,
//! `the_probe_pair_is_split_between_a_message_and_its_sender`).

mod common;
use common::gate::Tool;
use common::{ok, revy_in, Lang};

use std::process::Command;

const KIDS: f64 = 50.0;

const CPP_H: &str = r#"#pragma once
struct Leaf {
    unsigned long long n;
    Leaf() : n(1) {}
    unsigned long long tick(unsigned long long k);
};
struct Parent {
    Leaf* l;
    explicit Parent(Leaf* leaf) : l(leaf) {}
    unsigned long long run(int times);
};
"#;

const CPP_PLAIN: &str = r#"#pragma once
// Leaf and Parent's code, not instrumented: the truth.
struct PlainLeaf {
    unsigned long long n = 1;
    __attribute__((noinline)) unsigned long long tick(unsigned long long k) {
        n += k;
        return n;
    }
};
struct PlainParent {
    PlainLeaf* l;
    __attribute__((noinline)) unsigned long long run(int times) {
        unsigned long long s = 0;
        for (int i = 0; i < times; ++i) s += l->tick(i);
        return s;
    }
};
"#;

const CPP_MAIN: &str = r#"#include "w.h"
#include "../plain/plain.h"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
__attribute__((noinline)) unsigned long long Leaf::tick(unsigned long long k) {
    n += k;
    return n;
}
__attribute__((noinline)) unsigned long long Parent::run(int times) {
    unsigned long long s = 0;
    for (int i = 0; i < times; ++i) s += l->tick(i);
    return s;
}
static long long now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch()).count();
}
int main() {
    const int kids = 50, rounds = 1000;
    PlainLeaf pl;
    PlainParent pp{&pl};
    Leaf l;
    Parent p(&l);
    unsigned long long s = 0;
    std::vector<long long> run, leaf;
    for (int r = 0; r < rounds; ++r) {
        s += p.run(kids);
        long long t0 = now();
        s += pp.run(kids);
        long long t1 = now();
        for (int i = 0; i < kids; ++i) s += pl.tick(i);
        long long t2 = now();
        run.push_back(t1 - t0);
        leaf.push_back(t2 - t1);
    }
    std::sort(run.begin(), run.end());
    std::sort(leaf.begin(), leaf.end());
    long long r = run[rounds / 10], f = leaf[rounds / 10];
    std::printf("truth leaf=%.1f run=%lld s=%llu\n", double(f) / kids, r > f ? r - f : 0, s % 10);
    return 0;
}
"#;

const CPP: Lang = Lang {
    name: "cpp",
    sources: "src/**/*.{h,cpp}",
    build: "mkdir -p build && g++ -std=c++17 -O2 -o build/w src/main.cpp",
    run: "./build/w",
    files: &[
        ("src/w.h", CPP_H),
        ("plain/plain.h", CPP_PLAIN),
        ("src/main.cpp", CPP_MAIN),
    ],
};

const JAVA_LEAF: &str = "package w;

public class Leaf {
    long n = 1;

    public long tick(long k) {
        n += k;
        return n;
    }
}
";

const JAVA_PARENT: &str = "package w;

public class Parent {
    final Leaf l;

    public Parent(Leaf l) {
        this.l = l;
    }

    public long run(int times) {
        long s = 0;
        for (int i = 0; i < times; i++) {
            s += l.tick(i);
        }
        return s;
    }
}
";

const JAVA_PLAIN: &str = r#"package w;

/** Leaf and Parent's code, not instrumented: the truth. */
public final class Plain {
    long n = 1;

    public long tick(long k) {
        n += k;
        return n;
    }

    public long run(int times) {
        long s = 0;
        for (int i = 0; i < times; i++) {
            s += tick(i);
        }
        return s;
    }

    public static void main(String[] args) {
        final int kids = 50, rounds = 20000, timed = 2000;
        Plain p = new Plain();
        Parent q = new Parent(new Leaf());
        long s = 0;
        long[] run = new long[timed], leaf = new long[timed];
        for (int r = 0; r < rounds; r++) {
            if (r % 10 == 0) {
                s += q.run(kids);
            }
            long t0 = System.nanoTime();
            s += p.run(kids);
            long t1 = System.nanoTime();
            for (int i = 0; i < kids; i++) {
                s += p.tick(i);
            }
            long t2 = System.nanoTime();
            run[r % timed] = t1 - t0;
            leaf[r % timed] = t2 - t1;
        }
        java.util.Arrays.sort(run);
        java.util.Arrays.sort(leaf);
        long r = run[timed / 10], f = leaf[timed / 10];
        System.out.printf("truth leaf=%.1f run=%d s=%d%n", (double) f / kids, Math.max(0, r - f), s % 10);
    }
}
"#;

const JAVA: Lang = Lang {
    name: "java",
    sources: "src/**/*.java",
    build: "rm -rf build && mkdir -p build && javac -encoding UTF-8 -d build $(find src plain -name '*.java')",
    run: "java -cp build w.Plain",
    files: &[
        ("src/w/Leaf.java", JAVA_LEAF),
        ("src/w/Parent.java", JAVA_PARENT),
        ("plain/w/Plain.java", JAVA_PLAIN),
    ],
};

fn sh(dir: &std::path::Path, cmd: &str, trace: &std::path::Path) -> String {
    let o = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .env("REVY_TRACE", trace)
        .output()
        .unwrap();
    ok(&o, cmd)
}

/// `key=value` of `line` as a number.
fn field(line: &str, key: &str) -> f64 {
    let at = line
        .find(&format!("{key}="))
        .unwrap_or_else(|| panic!("{key} in {line}"));
    let v = line[at + key.len() + 1..]
        .split_whitespace()
        .next()
        .unwrap();
    v.trim_end_matches('>').parse().unwrap()
}

/// The 10th percentile: the calls a busy machine slowed least, as the calibration's
/// fastest batches and the truth's.
fn low(mut v: Vec<f64>) -> f64 {
    assert!(!v.is_empty());
    v.sort_by(f64::total_cmp);
    v[v.len() / 10]
}

/// Per recorded call of `run` (its net time, its children) and of `tick` (its net time),
/// from the trace's text form (one thread).
fn calls(text: &str) -> (Vec<(f64, f64)>, Vec<f64>) {
    let (mut stack, mut runs, mut ticks) = (Vec::<(String, f64, f64, f64)>::new(), vec![], vec![]);
    for l in text.lines() {
        let start = l.starts_with("<Msg ");
        if !start && !l.starts_with("</Msg ") {
            continue;
        }
        let mth = l
            .split("mth=")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .to_string();
        let t = field(l, "t");
        if start {
            stack.push((mth, t, 0.0, 0.0));
            continue;
        }
        let (m, s, child, kids) = stack.pop().unwrap();
        assert_eq!(m, mth, "{l}");
        let agg = t - s;
        if let Some(p) = stack.last_mut() {
            p.2 += agg;
            p.3 += 1.0;
        }
        match m.as_str() {
            "run" => runs.push((agg - child, kids)),
            "tick" => ticks.push(agg - child),
            _ => {}
        }
    }
    (runs, ticks)
}

fn check(lang: &Lang) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    common::write_project(&dir, lang, lang.run, "throttle = false");
    ok(&revy_in(&dir, &["parse"]), "revy parse");
    ok(&revy_in(&dir, &["annotate"]), "revy annotate");
    let rvt = tmp.path().join("t.rvt");
    sh(&dir, lang.build, &rvt);
    let out = sh(&dir, lang.run, &rvt);
    let (leaf, run) = (field(&out, "leaf"), field(&out, "run"));
    let r = rvt.to_str().unwrap();
    let a = ok(
        &revy_in(&dir, &["analyze", r, "--format", "json", "--no-proposals"]),
        "analyze",
    );
    let a: serde_json::Value = serde_json::from_str(&a).unwrap();
    let probe = &a["totals"]["probe"];
    let (pair, share) = (
        probe["used_ns"].as_f64().unwrap(),
        probe["inside_share"].as_f64().unwrap(),
    );
    assert!(pair > 0.0 && share > 0.0 && share < 1.0, "{probe}");
    let (inside, outside) = (pair * share, pair * (1.0 - share));
    let text = ok(&revy_in(&dir, &["trace", "print", r]), "trace print");
    let (runs, ticks) = calls(&text);
    assert!(
        runs.iter().all(|&(_, k)| k == KIDS),
        "every run sent {KIDS}"
    );
    let parent = low(runs
        .iter()
        .map(|&(n, k)| n - inside - outside * k)
        .collect());
    let child = low(ticks.iter().map(|&n| n - inside).collect());
    let why = format!(
        "{}: truth leaf {leaf} ns, parent's own {run} ns; compensated leaf {child:.1}, parent {parent:.1} (pair {pair:.1} ns, {inside:.1} inside)",
        lang.name
    );
    // Per child, the parent keeps at most half a pair more (or less) than the truth: with
    // the whole pair taken off its own time it kept the children's outside parts (C++
    // 15.8–30.6 ns a child against pairs of 21–33 ns, Java 50–75 ns against 80–107).
    let per_child = (parent - run) / KIDS;
    assert!(per_child.abs() <= 0.5 * pair, "{why}");
    // A leaf keeps what the cap leaves of the calibrated inside part: by rule nothing more
    // than the shortest leaf's own time is taken off (C++'s overlapping TSC reads can show
    // a 1 ns leaf), so its yardstick is the header's pair when that was capped.
    let header = probe["header_ns"].as_f64().unwrap_or(pair).max(pair);
    assert!(
        child <= leaf + 0.5 * header,
        "{why}, header pair {header:.1} ns"
    );
    eprintln!("{why}");
}

#[test]
fn cpp_parent_and_empty_children_come_out_near_the_truth() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    check(&CPP);
}

// A fresh-clone CI run once left the Java parent 53 ns per child over the truth (pair 93 ns,
// 40 inside). On this VM (2026-11-29) the analysis's cap at the shortest leaf scaled the
// outside part down with the inside whenever a leaf was a little under it (now bounded by
// `probe::Floor`), and the calibration's pairs skipped what annotated code runs around
// them (now `RvBuf.probeCall`).
#[test]
fn java_parent_and_empty_children_come_out_near_the_truth() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    check(&JAVA);
}
