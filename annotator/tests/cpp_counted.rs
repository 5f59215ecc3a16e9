//! Throttled C++ calls counted inline by the annotated program (the header's `push_counted`
//! / `end_counted`, no call into the runtime library): per-method and per-edge counts stay
//! exact whatever the shape — one receiver from two senders in turn, a repeated edge, a
//! recursion whose innermost level is the leaf, a method that is a leaf only sometimes.

mod common;
use common::gate::Tool;
use common::{ok, revy_in, Lang};

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;

const H: &str = r#"#pragma once
struct Leaf {
    long n = 0;
    long get(int k);
};
struct Caller {
    Leaf* l;
    long run(int times);
};
struct Rec {
    Leaf* l;
    long down(int d);
};
struct Outer {
    Leaf* l;
    long f(int i);
};
"#;

const MAIN: &str = r#"#include "w.h"
#include <cstdio>
long Leaf::get(int k) { return n += k; }
long Caller::run(int times) {
    long s = 0;
    for (int i = 0; i < times; ++i) s += l->get(i);
    return s;
}
long Rec::down(int d) { return d ? down(d - 1) + 1 : l->get(d); }
long Outer::f(int i) { return i % 3 == 0 ? l->get(i) : i; }
int main() {
    Leaf x, y;
    Caller a1{&x}, a2{&x}, a3{&y};
    Rec r{&x};
    Outer o{&x};
    long s = 0;
    for (int i = 0; i < 20000; ++i) {
        s += a1.run(1) + a2.run(1) + a3.run(2) + r.down(3) + o.f(i);
    }
    std::printf("s=%ld x=%ld y=%ld\n", s, x.n, y.n);
    return 0;
}
"#;

const CPP: Lang = Lang {
    name: "cpp",
    sources: "src/**/*.{h,cpp}",
    build: "mkdir -p build && g++ -std=c++17 -O2 -o build/w src/main.cpp",
    run: "./build/w",
    files: &[("src/w.h", H), ("src/main.cpp", MAIN)],
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

/// Writes `lang`'s project under `tmp/p` with throttling after 100 calls, annotates, builds
/// and runs it tracing to `tmp/t.rvt`; the program's output and `analyze`'s JSON.
fn throttled_run(lang: &Lang, tmp: &std::path::Path) -> (String, Value) {
    let dir = tmp.join("p");
    common::write_project(
        &dir,
        lang,
        lang.run,
        "throttle_calls = 100\nthrottle_us = 1000",
    );
    ok(&revy_in(&dir, &["parse"]), "revy parse");
    ok(&revy_in(&dir, &["annotate"]), "revy annotate");
    let rvt = tmp.join("t.rvt");
    sh(&dir, lang.build, &rvt);
    let out = sh(&dir, lang.run, &rvt);
    let args = ["analyze", rvt.to_str().unwrap(), "--format", "json"];
    let json = ok(&revy_in(&dir, &args), "revy analyze");
    (out, serde_json::from_str(&json).unwrap())
}

fn class_of(a: &Value, instance: &Value) -> String {
    let i = &a["instances"][instance.as_u64().unwrap() as usize];
    let c = i["class"].as_str().unwrap_or("");
    c.rsplit(['.', ':']).next().unwrap_or(c).to_string()
}

#[test]
fn cpp_counted_calls_keep_exact_edges() {
    exact_edges(&CPP);
}

/// The same at -O0 -g (CMake's Debug): `Probe::start`/`end` are then compiled under their own
/// `optimize` attribute (`REVY_HOT_O2`), the counted path's other code generation.
#[test]
fn cpp_counted_calls_keep_exact_edges_unoptimised() {
    exact_edges(&Lang {
        build: "mkdir -p build && g++ -std=c++17 -O0 -g -o build/w src/main.cpp",
        ..CPP
    });
}

fn exact_edges(lang: &Lang) {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (out, a) = throttled_run(lang, tmp.path());
    assert!(out.contains("x=") && out.contains("y="), "{out}");
    let n: u64 = 20_000;
    for (m, calls) in [
        ("get", 2 * n + 2 * n + n + n.div_ceil(3)),
        ("run", 3 * n),
        ("down", 4 * n),
        ("f", n),
    ] {
        assert_eq!(common::method_calls(&a, m), calls, "calls of {m}");
    }
    let throttled = a["trace"]["coverage"]["throttled"].to_string();
    for m in ["get", "run", "down"] {
        assert!(
            throttled.contains(&format!("{m}\"")),
            "{m} not throttled: {throttled}"
        );
    }
    // Edges between objects, by (sender class, receiver class): each one's calls.
    let mut edges: BTreeMap<(String, String), Vec<u64>> = BTreeMap::new();
    for e in a["edges"].as_array().unwrap() {
        let key = (class_of(&a, &e["sender"]), class_of(&a, &e["receiver"]));
        if ["Caller", "Rec", "Outer"].contains(&key.0.as_str()) {
            edges
                .entry(key)
                .or_default()
                .push(e["calls"].as_u64().unwrap());
        }
    }
    for v in edges.values_mut() {
        v.sort();
    }
    let want: BTreeMap<(String, String), Vec<u64>> = [
        (("Caller", "Leaf"), vec![n, n, 2 * n]),
        (("Rec", "Rec"), vec![3 * n]),
        (("Rec", "Leaf"), vec![n]),
        (("Outer", "Leaf"), vec![n.div_ceil(3)]),
    ]
    .into_iter()
    .map(|((s, r), v)| ((s.to_string(), r.to_string()), v))
    .collect();
    assert_eq!(edges, want);
}

const OBJ_H: &str = r#"#pragma once
struct Item {
    int v;
    explicit Item(int x);
};
struct Cell {
    int v;
    Cell();
    int touch();
};
struct Maker {
    Cell* keep;
    long make(int n);
};
"#;

const OBJ_MAIN: &str = r#"#include "o.h"
#include <cstdio>
Item::Item(int x) : v(x) {}
Cell::Cell() : v(0) {}
int Cell::touch() { return ++v; }
long Maker::make(int n) {
    long s = 0;
    for (int i = 0; i < n; ++i) {
        Item* it = new Item(i);
        Cell* c = new Cell();
        s += it->v + c->touch() + keep->touch();
        delete it;
        delete c;
    }
    return s;
}
int main() {
    Cell keep;
    Maker m{&keep}, m2{&keep};
    long s = 0;
    for (int r = 0; r < 3; ++r) s += m.make(5000) + m2.make(5000);
    std::printf("s=%ld keep=%d\n", s, keep.v);
    return 0;
}
"#;

/// Throttled constructors past a full aggregate table (each new object is a new receiver, so
/// their calls count on the folded edge, `ctor_counted` / `Counted::fresh`): calls and creations
/// stay exact, and an object older than the table's filling keeps its own edge (`keep`'s
/// `touch` calls from `m`, one method whose other calls fold).
#[test]
fn cpp_counted_constructors_past_a_full_table() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let lang = Lang {
        build: "mkdir -p build && g++ -std=c++17 -O2 -o build/o src/main.cpp",
        run: "./build/o",
        files: &[("src/o.h", OBJ_H), ("src/main.cpp", OBJ_MAIN)],
        ..CPP
    };
    let (out, a) = throttled_run(&lang, tmp.path());
    assert!(out.contains("keep=30000"), "{out}");
    let n: u64 = 30_000;
    for (m, calls) in [("Item", n), ("Cell", n + 1), ("touch", 2 * n), ("make", 6)] {
        assert_eq!(common::method_calls(&a, m), calls, "calls of {m}");
    }
    let throttled = a["trace"]["coverage"]["throttled"].to_string();
    for m in ["Item", "Cell", "touch"] {
        assert!(
            throttled.contains(&format!("{m}\"")),
            "{m} not throttled: {throttled}"
        );
    }
    for (class, made) in [("Item", n), ("Cell", n + 1)] {
        let row = a["classes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["class"].as_str().unwrap_or("").ends_with(class))
            .unwrap_or_else(|| panic!("no class {class}"));
        assert_eq!(row["created"].as_u64(), Some(made), "{class}: {row}");
    }
    // Calls into `keep` (the Cell made first): its constructor's, and `m`'s and `m2`'s `touch`.
    let insts = a["instances"].as_array().unwrap();
    let keep = insts
        .iter()
        .filter(|i| i["class"].as_str().unwrap_or("").ends_with("Cell"))
        .map(|i| i["oid"].as_u64().unwrap())
        .min()
        .unwrap();
    let mut into_keep: Vec<(String, u64)> = Vec::new();
    for e in a["edges"].as_array().unwrap() {
        let r = &insts[e["receiver"].as_u64().unwrap() as usize];
        if r["oid"].as_u64() == Some(keep) {
            let s = &insts[e["sender"].as_u64().unwrap() as usize];
            let label = s["label"].as_str().unwrap_or("").to_string();
            into_keep.push((label, e["calls"].as_u64().unwrap()));
        }
    }
    into_keep.sort();
    // `m` reached `keep` before the table filled (its own edge, every call after too); `m2`
    // after (folded into the classes' edge, not listed per instance)
    assert_eq!(
        into_keep,
        vec![("Maker#2".to_string(), n / 2), ("root@1".to_string(), 1)]
    );
}

/// Unrecorded calls on new edges past a full aggregate table (here: one method on 30,000
/// receivers, the trace past its size limit) fold into the class-level edge. Finding that an
/// edge is not in the table walked its slots (448 KiB: a cache miss per call, most of what
/// yaml-cpp's annotated suite spent there); the table's bitmap of inserted keys now answers
/// without a walk. The program's hook counts the walks; every call is still counted, and
/// exactly the first 4,096 receivers keep their own edges.
#[test]
fn cpp_new_edges_past_a_full_table_fold_without_walking_it() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    let program = r#"static unsigned long walks = 0;
#define REVY_TEST_AGG_WALK() (++walks)
#include "revy_runtime.hpp"
#include <cstdio>
static int work(unsigned long oid, int k) { _revy_rt::Scope s(1, oid, 4); return k + 1; }
int main() {
    long sum = 0;
    for (unsigned long i = 1; i <= 20000; ++i) sum += work(i, 1);
    unsigned long filling = walks;
    for (unsigned long i = 100001; i <= 110000; ++i) sum += work(i, 1);
    std::printf("sum=%ld filling=%lu after=%lu\n", sum, filling, walks - filling);
    return 0;
}
"#;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("w");
    common::cpp_rt::build_one_method(&dir, "walk", 4096, program);
    let r = common::cpp_rt::sh(&dir, "./t", &[("REVY_TRACE", "w.rvt")]);
    let out = common::cpp_rt::text(&r.stdout);
    assert!(
        r.status.success(),
        "{out}{}",
        common::cpp_rt::text(&r.stderr)
    );
    let field = |k: &str| -> u64 {
        let v = out.split_whitespace().find_map(|w| w.strip_prefix(k));
        v.unwrap_or_else(|| panic!("no {k} in {out}"))
            .parse()
            .unwrap()
    };
    assert_eq!(field("sum="), 60_000, "{out}");
    // while filling, each new edge walks to its empty slot
    assert!(field("filling=") >= 4096, "{out}");
    // after, only a key whose bit another key set walks (about 6 % of 4,096 bits in 65,536)
    assert!(field("after=") < 2_000, "{out}");
    let json = common::revy_ok(&dir, &["analyze", "w.rvt", "--format", "json"]);
    let a: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(common::method_calls(&a, "work"), 30_000);
    let cov = &a["trace"]["coverage"];
    let own = cov["aggregated_calls"].as_u64().unwrap() - cov["folded_calls"].as_u64().unwrap();
    assert_eq!(own, 4096, "{cov}");
}
