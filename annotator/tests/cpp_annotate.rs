//! End-to-end tests of the C++ annotator and runtime: each project (projects/account-cpp and
//! every folder of tests/cpp-corpus/) is copied, built and run as is; then parsed, annotated
//! in each mode, built with its unchanged build command and run with tracing on. Output and
//! exit code must be identical, no new compiler warnings may appear, the trace must decode
//! with balanced start/end per thread, and `revy restore` must give back every byte.

mod common;
use common::gate::Tool;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::trace::{decode, Ev, Trace};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every file's bytes, excluding build outputs and Revy's own folder.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut m = BTreeMap::new();
    for e in walkdir::WalkDir::new(dir) {
        let e = e.unwrap();
        let rel = e.path().strip_prefix(dir).unwrap();
        if rel.starts_with("build") || rel.starts_with(".revy") || !e.file_type().is_file() {
            continue;
        }
        m.insert(
            rel.to_string_lossy().into_owned(),
            std::fs::read(e.path()).unwrap(),
        );
    }
    m
}

struct Manifest {
    build: String,
    run: String,
}

fn manifest(dir: &Path) -> Manifest {
    let t: toml::Value =
        toml::from_str(&std::fs::read_to_string(dir.join("revy.toml")).unwrap()).unwrap();
    let p = &t["project"];
    Manifest {
        build: p["build"].as_str().unwrap().to_string(),
        run: p["run"].as_str().unwrap().to_string(),
    }
}

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

fn sh(dir: &Path, cmd: &str, envs: &[(&str, &str)]) -> Ran {
    let mut c = Command::new("sh");
    c.arg("-c").arg(cmd).current_dir(dir);
    for (k, v) in envs {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

impl From<std::process::Output> for Ran {
    fn from(out: std::process::Output) -> Ran {
        Ran {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

fn warnings(s: &str) -> usize {
    s.lines().filter(|l| l.contains("warning:")).count()
}

/// Checks the structural invariants every trace of a clean run must meet.
/// A `key=number` field of a trace header.
fn header_ns(header: &str, key: &str) -> Option<f64> {
    header
        .split(' ')
        .find_map(|f| f.strip_prefix(key)?.strip_prefix('=')?.parse().ok())
}

fn check_trace(t: &Trace, what: &str) {
    assert!(
        t.header.contains("unit=ns") && t.header.contains("lang=cpp"),
        "{what}: header"
    );
    // The runtime's start-up measurements: probe cost and thread handoff, in ns (a handoff
    // of 0 says the machine was too busy for a batch of round trips in 20 ms).
    let probe = header_ns(&t.header, "probe_ns");
    assert!(
        probe.is_some_and(|v| v > 0.0 && v < 1e7),
        "{what}: probe_ns {probe:?} in {}",
        t.header
    );
    let handoff = header_ns(&t.header, "handoff_ns");
    assert!(
        handoff.is_some_and(|v| (0.0..1e7).contains(&v)),
        "{what}: handoff_ns {handoff:?} in {}",
        t.header
    );
    // How it was measured: batches and their spread (the median batch is never below the
    // 25th percentile); what a counted call costs its caller (0: not throttling).
    let (batches, p50) = (
        header_ns(&t.header, "handoff_batches"),
        header_ns(&t.header, "handoff_p50"),
    );
    assert!(
        batches.is_some() && p50.is_some_and(|p| p >= handoff.unwrap()),
        "{what}: handoff spread in {}",
        t.header
    );
    let counted = header_ns(&t.header, "counted_ns");
    assert!(
        counted.is_some_and(|v| (0.0..1e6).contains(&v)),
        "{what}: counted_ns {counted:?} in {}",
        t.header
    );
    assert_eq!(t.end, Some(t.events.len() as u64), "{what}: E count");
    assert!(!t.truncated, "{what}: truncated");
    // A recorded call's end carries its time only (kind 7, the end of the thread's innermost
    // open start; the header says `ends=bare`), unless it carries its on-CPU time (kind 5).
    assert!(
        t.header.contains("ends=bare"),
        "{what}: no ends=bare in {}",
        t.header
    );
    let timed_ends = (t.events.iter())
        .filter(|(_, _, e)| matches!(e, Ev::End { cpu: None, .. }))
        .count();
    assert_eq!(
        t.bare_ends as usize, timed_ends,
        "{what}: ends naming their call"
    );
    let mut stacks: HashMap<u64, Vec<(u64, u64)>> = HashMap::new();
    let mut live: HashMap<u64, u64> = HashMap::new();
    let mut dead = std::collections::HashSet::new();
    for (tid, _, ev) in &t.events {
        match ev {
            Ev::Start { mth, oid, .. } => stacks.entry(*tid).or_default().push((*mth, *oid)),
            Ev::End { mth, oid, .. } => {
                let top = stacks.entry(*tid).or_default().pop();
                assert_eq!(
                    top,
                    Some((*mth, *oid)),
                    "{what}: unbalanced end on thread {tid}"
                );
            }
            Ev::Crt { cls, oid, .. } => {
                assert!(
                    live.insert(*oid, *cls).is_none(),
                    "{what}: oid {oid} created twice"
                );
            }
            Ev::Dst { cls, oid } => {
                assert_eq!(
                    live.remove(oid),
                    Some(*cls),
                    "{what}: Dst of unknown oid {oid}"
                );
                dead.insert(*oid);
            }
            Ev::Key { .. } => {}
        }
    }
    for (tid, s) in &stacks {
        assert!(
            s.is_empty(),
            "{what}: thread {tid} left {} open messages",
            s.len()
        );
    }
}

struct Outcome {
    trace: Trace,
    annotate_out: String,
    /// `revy parse`'s output when it found problems (exit 1), else empty.
    parse_problems: String,
}

/// The whole loop on a copy of `project` in `mode`; returns the decoded trace.
fn round_trip(project: &Path, mode: &str) -> Outcome {
    let name = project.file_name().unwrap().to_string_lossy().into_owned();
    let what = format!("{name} ({mode})");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    common::copy_tree(project, dir);
    let m = manifest(dir);
    let original = snapshot(dir);

    let b0 = sh(dir, &m.build, &[]);
    assert_eq!(b0.code, 0, "{what}: original build failed:\n{}", b0.stderr);
    let r0 = sh(dir, &m.run, &[]);

    let p = Ran::from(common::revy_in(dir, &["parse"]));
    assert!(p.code <= 1, "{what}: parse: {}{}", p.stdout, p.stderr);
    let parse_problems = if p.code == 0 {
        String::new()
    } else {
        format!("{}{}", p.stdout, p.stderr)
    };
    // The plan's insertions undo exactly (what restore relies on when files were edited).
    let mf = revy::instrument::manifest::Manifest::load(&dir.join("revy.toml")).unwrap();
    let md = if mode == "better" {
        revy::instrument::manifest::Mode::Better
    } else {
        revy::instrument::manifest::Mode::Faster
    };
    let (plan, _) = revy::instrument::annotate::plan(&mf, md).unwrap();
    for (rel, text, ins) in &plan.files {
        // Every insertion carries Revy's marker: restore of an edited file can prove it
        // removed exactly them (a bare `)` was once taken for the user's).
        for i in ins {
            assert!(
                revy::instrument::edits::is_marked(&i.text),
                "{what}: {rel}: unmarked insertion {:?} at {}",
                i.text,
                i.offset
            );
        }
        let annotated = revy::instrument::edits::apply(text, ins);
        assert_eq!(
            revy::instrument::edits::unapply(&annotated, ins).as_deref(),
            Some(text.as_str()),
            "{what}: {rel}: unapply does not give the original"
        );
    }
    let a = Ran::from(common::revy_in(dir, &["annotate", &format!("--{mode}")]));
    assert!(a.code <= 1, "{what}: annotate: {}{}", a.stdout, a.stderr);
    let annotate_out = format!("{}{}", a.stdout, a.stderr);

    let b1 = sh(dir, &m.build, &[]);
    assert_eq!(
        b1.code, 0,
        "{what}: annotated build failed:\n{}\n{annotate_out}",
        b1.stderr
    );
    assert_eq!(
        warnings(&b1.stderr),
        warnings(&b0.stderr),
        "{what}: annotation added compiler warnings:\n{}",
        b1.stderr
    );
    let trace_path = dir.join("trace.rvt");
    let r1 = sh(dir, &m.run, &[("REVY_TRACE", trace_path.to_str().unwrap())]);
    assert_eq!(r1.stdout, r0.stdout, "{what}: stdout differs");
    assert_eq!(r1.stderr, r0.stderr, "{what}: stderr differs");
    assert_eq!(r1.code, r0.code, "{what}: exit code differs");
    let trace = decode(&std::fs::read(&trace_path).unwrap());
    check_trace(&trace, &what);

    // REVY_TRACE=off: no trace, same behaviour.
    let r2 = sh(dir, &m.run, &[("REVY_TRACE", "off")]);
    assert_eq!(
        r2.stdout, r0.stdout,
        "{what}: stdout differs with tracing off"
    );
    let traces = dir.join(".revy/traces");
    // (The run's budget file may be there: Revy's folder, not a trace.)
    let written = std::fs::read_dir(&traces).map_or(0, |d| {
        d.flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "rvt"))
            .count()
    });
    assert_eq!(
        written, 0,
        "{what}: a trace was written to {traces:?} despite REVY_TRACE"
    );
    std::fs::remove_file(&trace_path).unwrap();

    let rs = Ran::from(common::revy_in(dir, &["restore"]));
    assert_eq!(rs.code, 0, "{what}: restore: {}{}", rs.stdout, rs.stderr);
    let restored = snapshot(dir);
    assert_eq!(
        restored.keys().collect::<Vec<_>>(),
        original.keys().collect::<Vec<_>>(),
        "{what}: restore left or lost files"
    );
    for (k, v) in &original {
        assert!(restored[k] == *v, "{what}: {k} not restored byte for byte");
    }
    Outcome {
        trace,
        annotate_out,
        parse_problems,
    }
}

fn method_id(t: &Trace, name: &str) -> u64 {
    *t.methods
        .iter()
        .find(|(_, (_, n, _))| n == name)
        .unwrap_or_else(|| panic!("method {name} not in trace"))
        .0
}

#[test]
fn account_cpp_in_both_modes() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    for mode in ["better", "faster"] {
        let o = round_trip(&repo().join("projects/account-cpp"), mode);
        let t = &o.trace;
        assert!(t.header.contains(&format!("mode={mode}")));
        let crt = |c: &str| {
            t.events
                .iter()
                .filter(|(_, _, e)| matches!(e, Ev::Crt { cls, .. } if t.classes[cls] == c))
                .count()
        };
        assert_eq!(crt("bank::Account"), 3, "{}", o.annotate_out);
        assert_eq!(crt("bank::Person"), 3);
        let dst = t
            .events
            .iter()
            .filter(|(_, _, e)| matches!(e, Ev::Dst { .. }))
            .count();
        assert_eq!(dst, 6);
        // transfer(double, Account&): a double plus the Account's static size (two ints and
        // a double = 16 bytes in the SAF's thesis count).
        let tr = method_id(t, "transfer");
        let acc = t
            .classes
            .iter()
            .find(|(_, n)| *n == "bank::Account")
            .map(|(id, _)| *id)
            .unwrap();
        let sizes: Vec<u64> = t
            .events
            .iter()
            .filter_map(|(_, _, e)| match e {
                Ev::Start { mth, size, .. } if *mth == tr => Some(*size),
                _ => None,
            })
            .collect();
        assert_eq!(sizes.len(), 3);
        let acc_size = t
            .events
            .iter()
            .find_map(|(_, _, e)| match e {
                Ev::Crt { cls, size, .. } if *cls == acc => Some(*size),
                _ => None,
            })
            .unwrap();
        assert!(sizes.iter().all(|s| *s == 8 + acc_size), "{sizes:?}");
        // Every thread is main here.
        assert!(t.events.iter().all(|(tid, _, _)| *tid == 1));
        assert_eq!(t.threads.get(&1).map(String::as_str), Some("main"));
    }
}

#[test]
fn cpp_corpus_in_both_modes() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    let corpus = repo().join("tests/cpp-corpus");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("revy.toml").exists())
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty());
    let only = std::env::var("REVY_CORPUS").ok();
    for d in dirs {
        let name = d.file_name().unwrap().to_string_lossy().into_owned();
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        for mode in ["better", "faster"] {
            let o = round_trip(&d, mode);
            let starts = o
                .trace
                .events
                .iter()
                .filter(|(_, _, e)| matches!(e, Ev::Start { .. }))
                .count();
            assert!(
                starts > 0,
                "{name} ({mode}): no messages traced\n{}",
                o.annotate_out
            );
            if let Ok(expect) = std::fs::read_to_string(d.join("expect.txt")) {
                check_expectations(&name, &o, &expect);
            }
        }
    }
}

/// `expect.txt` lines: `skipped SUBSTRING`, `note SUBSTRING`, `traced METHOD`,
/// `threads N` (at least N threads traced), `created CLASS N` (exactly N creations),
/// `better-size METHOD N` (better mode: every call's message size), `size METHOD N` (both
/// modes), `one-id CLASS METHOD…` (see [`check_one_id`]), `live CLASS METHOD…` (see
/// [`check_live`]), `ctor-covers A B R` (A's time ≥ R × B's), `parse-clean` (`revy parse`
/// finds no problem).
fn check_expectations(name: &str, o: &Outcome, expect: &str) {
    let t = &o.trace;
    for line in expect
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let (k, v) = line.split_once(' ').unwrap_or((line, ""));
        match k {
            "skipped" | "note" => assert!(
                o.annotate_out
                    .lines()
                    .any(|l| l.starts_with(k) && l.contains(v)),
                "{name}: expected `{line}` in:\n{}",
                o.annotate_out
            ),
            "traced" => {
                let id = method_id(t, v);
                assert!(
                    t.events
                        .iter()
                        .any(|(_, _, e)| matches!(e, Ev::Start { mth, .. } if *mth == id)),
                    "{name}: {v} never ran"
                );
            }
            "threads" => {
                let n: usize = v.parse().unwrap();
                let tids: std::collections::HashSet<u64> =
                    t.events.iter().map(|(tid, _, _)| *tid).collect();
                assert!(tids.len() >= n, "{name}: {} threads traced", tids.len());
            }
            "created" => {
                let (c, n) = v.rsplit_once(' ').unwrap();
                let n: usize = n.parse().unwrap();
                let got = t
                    .events
                    .iter()
                    .filter(|(_, _, e)| matches!(e, Ev::Crt { cls, .. } if t.classes[cls] == c))
                    .count();
                assert_eq!(got, n, "{name}: creations of {c}");
            }
            "parse-clean" => assert!(
                o.parse_problems.is_empty(),
                "{name}: revy parse found problems:\n{}",
                o.parse_problems
            ),
            "one-id" => check_one_id(name, t, v),
            "live" => check_live(name, t, v),
            "ctor-covers" => {
                // `ctor-covers A B R`: method A's fastest call takes at least R × method B's
                // fastest (the minimum: the machine may be busy during any one call).
                let w: Vec<&str> = v.split_whitespace().collect();
                let (a, b) = (durations(t, w[0]), durations(t, w[1]));
                let r: f64 = w[2].parse().unwrap();
                let min = |d: &[u64]| d.iter().copied().min().unwrap_or(0);
                let (sa, sb) = (min(&a), min(&b));
                assert!(
                    !a.is_empty() && !b.is_empty() && sa as f64 >= r * sb as f64,
                    "{name}: {} took {sa} ns, {} {sb} ns ({a:?} vs {b:?})",
                    w[0],
                    w[1]
                );
            }
            // `size METHOD N`: every call of METHOD weighs N bytes (`better-size`: in better
            // mode only).
            "size" => check_sizes(name, t, v),
            "better-size" if t.header.contains("mode=better") => check_sizes(name, t, v),
            "better-size" => {}
            _ => panic!("{name}: bad expect line {line}"),
        }
    }
}

/// `live CLASS METHOD…`: every call of the methods has as receiver 0 (no ID yet) or an
/// object of CLASS created before it and not yet destroyed — never a stale or garbage ID.
fn check_live(name: &str, t: &Trace, v: &str) {
    let mut w = v.split_whitespace();
    let class = w.next().unwrap();
    let ids: Vec<u64> = w.flat_map(|m| method_ids(t, m)).collect();
    assert!(!ids.is_empty(), "{name}: no such methods in {v}");
    let mut alive = std::collections::HashSet::new();
    let mut calls = 0;
    for (_, _, e) in &t.events {
        match e {
            Ev::Crt { cls, oid, .. } if t.classes[cls] == class => {
                alive.insert(*oid);
            }
            Ev::Dst { oid, .. } => {
                alive.remove(oid);
            }
            Ev::Start { mth, oid, .. } if ids.contains(mth) => {
                calls += 1;
                assert!(
                    *oid == 0 || alive.contains(oid),
                    "{name}: a call of {v} on {oid}, not a live {class} (alive: {alive:?})"
                );
            }
            _ => {}
        }
    }
    assert!(calls > 0, "{name}: {v} never ran");
}

/// Every call of the method named in `v` (`METHOD N`) weighs N bytes.
fn check_sizes(name: &str, t: &Trace, v: &str) {
    let (m, n) = v.rsplit_once(' ').unwrap();
    let n: u64 = n.parse().unwrap();
    let ids = method_ids(t, m);
    let sizes: Vec<u64> = (t.events.iter())
        .filter_map(|(_, _, e)| match e {
            Ev::Start { mth, size, .. } if ids.contains(mth) => Some(*size),
            _ => None,
        })
        .collect();
    assert!(
        !sizes.is_empty() && sizes.iter().all(|s| *s == n),
        "{name}: sizes of {m}: {sizes:?}, expected {n}"
    );
}

/// Every method id of that name (overrides and overloads included).
fn method_ids(t: &Trace, name: &str) -> Vec<u64> {
    let ids: Vec<u64> = (t.methods.iter())
        .filter(|(_, (_, n, _))| n == name)
        .map(|(id, _)| *id)
        .collect();
    assert!(!ids.is_empty(), "method {name} not in trace");
    ids
}

/// Durations of the calls of method `name` (start to matching end, per thread).
fn durations(t: &Trace, name: &str) -> Vec<u64> {
    let ids = method_ids(t, name);
    let mut open: HashMap<u64, Vec<(u64, u64)>> = HashMap::new();
    let mut out = Vec::new();
    for (tid, time, e) in &t.events {
        match e {
            Ev::Start { mth, .. } => open.entry(*tid).or_default().push((*mth, *time)),
            Ev::End { mth, .. } => {
                let (m, t0) = open.get_mut(tid).and_then(|s| s.pop()).unwrap();
                assert_eq!(m, *mth);
                if ids.contains(mth) {
                    out.push(time - t0);
                }
            }
            _ => {}
        }
    }
    out
}

/// `one-id CLASS METHOD…`: every object created as CLASS (one Crt each) is the receiver of
/// every listed method, whichever of its parts (bases) declares it: one object, one ID.
fn check_one_id(name: &str, t: &Trace, v: &str) {
    let mut w = v.split_whitespace();
    let class = w.next().unwrap();
    let oids: Vec<u64> = (t.events.iter())
        .filter_map(|(_, _, e)| match e {
            Ev::Crt { cls, oid, .. } if t.classes[cls] == class => Some(*oid),
            _ => None,
        })
        .collect();
    assert!(!oids.is_empty(), "{name}: no {class} created");
    for m in w {
        let ids = method_ids(t, m);
        let receivers: std::collections::HashSet<u64> = (t.events.iter())
            .filter_map(|(_, _, e)| match e {
                Ev::Start { mth, oid, .. } if ids.contains(mth) => Some(*oid),
                _ => None,
            })
            .collect();
        for oid in &oids {
            assert!(
                receivers.contains(oid),
                "{name}: {m} never ran on the {class} object {oid}; its receivers: {receivers:?}"
            );
        }
    }
}

// ---- the runtime on its own ------------------------------------------------------------------

const TEST_CONFIG: &str = r#"#ifndef REVY_CONFIG_HPP_INCLUDED
#define REVY_CONFIG_HPP_INCLUDED
#include <cstdint>
namespace _revy_rt { namespace config {
inline const char* project() { return "rt"; }
inline const char* trace_dir() { return "TRACE_DIR"; }
constexpr std::uint64_t max_size = MAX_SIZEull;
constexpr std::uint64_t throttle_calls = 0;
constexpr std::uint64_t throttle_ns = 0;
inline const char* mode() { return "better"; }
constexpr bool better = true;
constexpr std::uint64_t collection_sample = 8;
constexpr std::uint64_t system_size = 32;
constexpr std::uint32_t class_count = 1;
inline const char* const* class_names() { static const char* const t[] = {"", "ns::Obj"}; return t; }
struct Method { std::uint32_t cls; const char* name; const char* sgn; };
constexpr std::uint32_t method_count = 3;
inline const Method* methods() { static const Method t[] = {{0, "", ""}, {1, "work", "!int^0!"}, {1, "inner", "!!"}, {1, "late", "!!"}}; return t; }
}}
#endif
"#;

const TEST_PROGRAM: &str = r#"#include "revy_runtime.hpp"
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>
namespace ns {
struct Obj {
    int inner() { ::_revy_rt::Scope _rv_s(2, this->_rv_tag.oid, 0); return 1; }
    int late() { ::_revy_rt::Scope _rv_s(3, this->_rv_tag.oid, 0); return 2; }
    int work(int k) {
        ::_revy_rt::Scope _rv_s(1, this->_rv_tag.oid, ::_revy_rt::size_of(k));
        return inner() + k;
    }
    ::_revy_rt::Tag<1, 4> _rv_tag;
};
}
ns::Obj global_obj;  // created before main, destroyed after it
int main(int argc, char** argv) {
    int per = argc > 1 ? std::atoi(argv[1]) : 1000;
    std::vector<std::thread> ts;
    for (int t = 0; t < 4; ++t)
        ts.emplace_back([per] { ns::Obj o; for (int i = 0; i < per; ++i) o.work(i); });
    for (auto& t : ts) t.join();
    std::vector<std::string> v{"ab", "cde"};
    std::printf("%d %llu\n", global_obj.work(1), (unsigned long long)::_revy_rt::pack_size(1, 2.0, v));
    if (argc > 2) { ns::Obj o; o.work(5); if (o.late() == 2) std::abort(); }
    return 0;
}
"#;

fn build_runtime_program(dir: &Path, max_size: u64) -> PathBuf {
    let traces = dir.join("traces");
    std::fs::write(
        dir.join("revy_config.hpp"),
        TEST_CONFIG
            .replace("TRACE_DIR", traces.to_str().unwrap())
            .replace("MAX_SIZE", &max_size.to_string()),
    )
    .unwrap();
    for f in ["revy_runtime.hpp", "revy_runtime_impl.hpp"] {
        std::fs::copy(repo().join("runtime-cpp").join(f), dir.join(f)).unwrap();
    }
    std::fs::write(dir.join("t.cpp"), TEST_PROGRAM).unwrap();
    let b = sh(
        dir,
        "g++ -std=c++17 -Wall -Wextra -Werror -fno-exceptions -fno-rtti -O1 -pthread -o t t.cpp",
        &[],
    );
    assert_eq!(b.code, 0, "runtime does not compile cleanly:\n{}", b.stderr);
    dir.join("t")
}

/// The runtime compiles cleanly (warnings are errors) under every standard a corpus project
/// may build with, with and without exceptions and RTTI, and the program runs the same.
#[test]
fn runtime_compiles_under_cxx11_to_cxx20() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    build_runtime_program(dir, 1 << 30);
    for std in ["c++11", "c++14", "c++17", "c++20", "gnu++11"] {
        for extra in ["", "-fno-exceptions -fno-rtti", "-O0 -g"] {
            let b = sh(
                dir,
                &format!("g++ -std={std} -Wall -Wextra -Werror -O1 {extra} -pthread -o t11 t.cpp"),
                &[],
            );
            assert_eq!(b.code, 0, "-std={std} {extra}:\n{}", b.stderr);
            // Each run writes a new file (an existing name gets `s-PID.rvt`).
            let _ = std::fs::remove_file(dir.join("s.rvt"));
            let r = sh(dir, "./t11 100", &[("REVY_TRACE", "s.rvt")]);
            assert_eq!(
                (r.code, r.stdout.as_str()),
                (0, "2 17\n"),
                "{std}: {}",
                r.stderr
            );
            let t = decode(&std::fs::read(dir.join("s.rvt")).unwrap());
            check_trace(&t, std);
            check_calls(&t, 100, std);
        }
    }
    shared_form_compiles_and_records(dir);
}

/// `TEST_PROGRAM` run with `per` calls per thread: every call of `work` and `inner` (4
/// threads and main's one) started and ended on its object, `inner` inside `work`.
fn check_calls(t: &Trace, per: usize, what: &str) {
    let (work, inner) = (method_id(t, "work"), method_id(t, "inner"));
    let mut open: HashMap<u64, Vec<(u64, u64)>> = HashMap::new();
    let (mut starts, mut ends) = (HashMap::new(), HashMap::new());
    for (tid, _, ev) in &t.events {
        match *ev {
            Ev::Start { mth, oid, .. } => {
                let stack = open.entry(*tid).or_default();
                if mth == inner {
                    assert_eq!(
                        stack.last().map(|s| s.0),
                        Some(work),
                        "{what}: inner outside work"
                    );
                    assert_eq!(
                        stack.last().map(|s| s.1),
                        Some(oid),
                        "{what}: inner's object"
                    );
                }
                stack.push((mth, oid));
                *starts.entry(mth).or_insert(0) += 1;
            }
            Ev::End { mth, oid, .. } => {
                assert_eq!(
                    open.entry(*tid).or_default().pop(),
                    Some((mth, oid)),
                    "{what}"
                );
                *ends.entry(mth).or_insert(0) += 1;
            }
            _ => {}
        }
    }
    for m in [work, inner] {
        assert_eq!(
            starts.get(&m),
            Some(&(4 * per + 1)),
            "{what}: starts of {m}"
        );
        assert_eq!(ends.get(&m), Some(&(4 * per + 1)), "{what}: ends of {m}");
    }
}

/// The shared form: the implementation built into a library as `revy annotate` builds it;
/// a translation unit compiles the light header alone (none of the implementation), cleanly
/// under every standard, and the program records the same trace through the library. A
/// library of another annotation (stamp) is refused with one line, the program untraced.
fn shared_form_compiles_and_records(dir: &Path) {
    let lib = dir.join("librevy_runtime.so");
    let config = std::fs::read_to_string(dir.join("revy_config.hpp")).unwrap();
    let shared = |stamp: &str| {
        config
            .replacen(
                "#include <cstdint>",
                &format!(
                    "#include <cstdint>\n#define REVY_RUNTIME_LIB \"{}\"",
                    lib.display()
                ),
                1,
            )
            .replacen(
                "namespace config {",
                &format!(
                    "namespace config {{\ninline const char* stamp() {{ return \"{stamp}\"; }}"
                ),
                1,
            )
    };
    std::fs::write(dir.join("revy_config.hpp"), shared("s1")).unwrap();
    let b = sh(
        dir,
        "echo '#include \"revy_runtime_impl.hpp\"' | g++ -x c++ - -DREVY_RUNTIME_BUILDING_LIB \
         -I. -O2 -fPIC -shared -pthread -fvisibility=hidden -Wall -Wextra -Werror \
         -o librevy_runtime.so",
        &[],
    );
    assert_eq!(b.code, 0, "library:\n{}", b.stderr);
    let pre = sh(dir, "g++ -std=c++11 -E t.cpp", &[]);
    for detail in [
        "ThreadBuf",
        "AggTable",
        "unordered_map",
        "condition_variable",
    ] {
        assert!(
            !pre.stdout.contains(detail),
            "the light header pulls in {detail}"
        );
    }
    for std in ["c++11", "c++14", "c++17", "c++20"] {
        let b = sh(
            dir,
            &format!("g++ -std={std} -Wall -Wextra -Werror -O1 -fno-exceptions -fno-rtti -pthread -o ts t.cpp"),
            &[],
        );
        assert_eq!(b.code, 0, "shared -std={std}:\n{}", b.stderr);
        let _ = std::fs::remove_file(dir.join("s.rvt"));
        let r = sh(dir, "./ts 100", &[("REVY_TRACE", "s.rvt")]);
        assert_eq!(
            (r.code, r.stdout.as_str(), r.stderr.as_str()),
            (0, "2 17\n", "")
        );
        let t = decode(&std::fs::read(dir.join("s.rvt")).unwrap());
        check_trace(&t, &format!("shared {std}"));
        check_calls(&t, 100, &format!("shared {std}"));
    }
    // A program of another annotation never loads this library.
    std::fs::write(dir.join("revy_config.hpp"), shared("s2")).unwrap();
    let b = sh(dir, "g++ -std=c++17 -O1 -pthread -o ts t.cpp", &[]);
    assert_eq!(b.code, 0, "{}", b.stderr);
    let _ = std::fs::remove_file(dir.join("s.rvt"));
    let r = sh(dir, "./ts 100", &[("REVY_TRACE", "s.rvt")]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "2 17\n"));
    assert!(
        r.stderr.contains("cannot load the C++ runtime") && r.stderr.contains("annotate again")
    );
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(!dir.join("s.rvt").exists());
    std::fs::write(dir.join("revy_config.hpp"), config).unwrap();
}

#[test]
fn runtime_threads_limits_crashes_and_file_names() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    build_runtime_program(dir, 1 << 30);

    // Many threads, several buffer flushes each.
    let r = sh(dir, "./t 20000", &[("REVY_TRACE", "a.rvt")]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "2 17\n"), "{}", r.stderr);
    let t = decode(&std::fs::read(dir.join("a.rvt")).unwrap());
    check_trace(&t, "threads");
    let starts = |t: &Trace| {
        t.events
            .iter()
            .filter(|(_, _, e)| matches!(e, Ev::Start { .. }))
            .count()
    };
    assert_eq!(starts(&t), 4 * 20000 * 2 + 2);
    let tids: std::collections::BTreeSet<u64> = t.events.iter().map(|e| e.0).collect();
    assert_eq!(tids.into_iter().collect::<Vec<_>>(), vec![1, 2, 3, 4, 5]);
    assert_eq!(t.threads[&1], "main");
    // The global object's creation (before main) and destruction (after it) are recorded.
    let crt = t
        .events
        .iter()
        .filter(|(_, _, e)| matches!(e, Ev::Crt { .. }))
        .count();
    assert_eq!(crt, 5);

    // Default location: a new file per run under the baked-in folder.
    for _ in 0..2 {
        assert_eq!(sh(dir, "./t 10", &[]).code, 0);
    }
    let names: Vec<String> = std::fs::read_dir(dir.join("traces"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    // Two traces and the run's budget file (these runs share one process group, the test's).
    assert_eq!(names.len(), 3, "{names:?}");
    let rvt = |n: &&String| n.starts_with("rt-") && n.ends_with(".rvt");
    assert_eq!(names.iter().filter(rvt).count(), 2, "{names:?}");
    assert!(
        names
            .iter()
            .any(|n| n.starts_with(".revy-run-") && n.ends_with(".budget")),
        "{names:?}"
    );

    // A crash: the events so far are flushed, there is no end mark, the signal is kept.
    let r = sh(dir, "./t 10 crash", &[("REVY_TRACE", "c.rvt")]);
    assert_ne!(r.code, 0);
    let c = decode(&std::fs::read(dir.join("c.rvt")).unwrap());
    assert_eq!(c.end, None);
    assert!(starts(&c) >= 4 * 10 * 2 + 2, "{}", starts(&c));

    // Size limit: stops recording, says so, still ends cleanly.
    let tmp2 = tempfile::tempdir().unwrap();
    build_runtime_program(tmp2.path(), 100_000);
    let r = sh(tmp2.path(), "./t 20000", &[("REVY_TRACE", "l.rvt")]);
    assert_eq!(r.code, 0);
    let bytes = std::fs::read(tmp2.path().join("l.rvt")).unwrap();
    // The block crossing the limit is written whole, then every thread's last block (they
    // hold calls begun before the limit): less than one 64 KiB block per thread over it.
    assert!(bytes.len() <= 100_000 + 5 * 65_536, "{}", bytes.len());
    let l = decode(&bytes);
    assert!(l.truncated);
    assert_eq!(l.end, Some(l.events.len() as u64));
    // Every call is counted: as a start event or in the threads' aggregates.
    assert_eq!(starts(&l) as u64 + l.aggregated, 4 * 20000 * 2 + 2);
    // A crash past the limit: a method first called there (`late`) is counted and defined
    // (the decoder refuses an aggregate naming an undefined method).
    let r = sh(tmp2.path(), "./t 20000 crash", &[("REVY_TRACE", "lc.rvt")]);
    assert_ne!(r.code, 0);
    let lc = decode(&std::fs::read(tmp2.path().join("lc.rvt")).unwrap());
    assert!(lc.truncated && lc.end.is_none());
    assert!(
        lc.methods.values().any(|m| m.1 == "late"),
        "{:?}",
        lc.methods
    );
    assert_eq!(starts(&lc) as u64 + lc.aggregated, 4 * 20000 * 2 + 2 + 3);
    // And every creation and destruction: as an event or in the `O` records' counts.
    let count = |t: &Trace, dst: bool| {
        let n = t.events.iter();
        n.filter(|(_, _, e)| matches!(e, Ev::Dst { .. }) == dst && e.kind() <= 2)
            .count() as u64
    };
    let (made, gone) = (l.objects.values()).fold((0, 0), |a, x| (a.0 + x.0, a.1 + x.1));
    assert_eq!(count(&l, false) + made, count(&t, false), "{:?}", l.objects);
    assert_eq!(count(&l, true) + gone, count(&t, true), "{:?}", l.objects);
}

/// A trace write that fails (here the file-size limit, SIGXFSZ ignored as a shell may) is
/// said on stderr once, like the Java runtime, and the program runs on unchanged (before:
/// nothing was said, the trace just stopped).
#[test]
fn runtime_says_when_trace_writes_fail() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    build_runtime_program(dir, 1 << 30);
    let r = sh(
        dir,
        "ulimit -f 64; trap '' XFSZ; ./t 20000",
        &[("REVY_TRACE", "f.rvt")],
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, "2 17\n"), "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "revy: cannot write the trace: File too large; the trace ends here\n"
    );
}

/// Every C++ creation is credited to its most-derived class, on every run: 3 × 20,000 shapes
/// under an abstract `geo::Shape` (whose root tag the derived parts' SubTags rewrite). Before,
/// a buffer flush falling between a Shape's Crt and its SubTag — where depends on the time
/// deltas' varint widths — left `Crt cls=geo::Shape` and one shape short, on some runs.
#[test]
fn creations_credited_to_the_most_derived_class_every_run() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("src/shapes.h"),
        r#"#pragma once
#include <vector>
namespace geo {
class Shape {
public:
    virtual ~Shape() {}
    virtual double area() const = 0;
    int kind() const { return kind_; }
protected:
    explicit Shape(int k) : kind_(k) {}
private:
    int kind_;
};
class Square : public Shape {
public:
    explicit Square(double s) : Shape(1), s_(s) {}
    double area() const override { return s_ * s_; }
private:
    double s_;
};
class Circle : public Shape {
public:
    explicit Circle(double r) : Shape(2), r_(r) {}
    double area() const override { return 3 * r_ * r_; }
private:
    double r_;
};
class Polygon : public Shape {
public:
    explicit Polygon(int n) : Shape(3), pts_(static_cast<unsigned>(n % 5 + 3), 1.0) {}
    double area() const override { return static_cast<double>(pts_.size()); }
private:
    std::vector<double> pts_;
};
}
"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("src/main.cpp"),
        r#"#include <cstdio>
#include "shapes.h"
int main() {
    double sum = 0;
    for (int i = 0; i < 20000; ++i) {
        geo::Square s(i % 7);
        geo::Circle c(i % 5);
        geo::Polygon p(i);
        sum += s.area() + c.area() + p.area() + s.kind();
    }
    std::printf("%.0f\n", sum);
    return 0;
}
"#,
    )
    .unwrap();
    for (run, t) in traced_runs(dir, "shapes", "\"src/*.h\", \"src/*.cpp\"", 10)
        .iter()
        .enumerate()
    {
        let mut by: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, _, e) in &t.events {
            if let Ev::Crt { cls, .. } = e {
                *by.entry(t.classes[cls].as_str()).or_default() += 1;
            }
        }
        let want: BTreeMap<&str, usize> = [
            ("geo::Circle", 20000),
            ("geo::Polygon", 20000),
            ("geo::Square", 20000),
        ]
        .into_iter()
        .collect();
        assert_eq!(by, want, "run {run}");
    }
}

/// A creation is credited to its most-derived class, and a constructor's start (logged
/// before its initialisers) gets its object's ID, even when the constructor logged more
/// events than the buffer keeps for patching (issue 34): `Big`'s initialiser and `Deep`'s
/// base's body each run 20,000 recorded calls (more than the 64 KiB buffer holds) between the root's Crt (or the start) and the
/// derived part. Before, the Crt left the buffer first: `Crt cls=z::Base`, and the starts and
/// ends of `Big::Big` / `Deep::Deep` had oid 0, every run.
#[test]
fn long_constructors_keep_their_class_and_oid() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("src/main.cpp"),
        r#"#include <cstdio>
namespace z {
class Step {
public:
    int bump(int x) { return x + 1; }
    static int many(int n) {
        Step s;
        int v = 0;
        for (int i = 0; i < n; ++i) v = s.bump(v);
        return v;
    }
};
class Base {
public:
    virtual ~Base() {}
    int k() const { return k_; }
protected:
    explicit Base(int n) : k_(n) {
        if (n > 1) k_ = Step::many(n);
    }
private:
    int k_;
};
class Big : public Base {
public:
    explicit Big(int n) : Base(1), v_(Step::many(n)) {}
    int v() const { return v_; }
private:
    int v_;
};
class Deep : public Base {
public:
    explicit Deep(int n) : Base(n), w_(2) {}
    int w() const { return w_; }
private:
    int w_;
};
}
int main() {
    long sum = 0;
    for (int i = 0; i < 12; ++i) {
        z::Big b(i % 3 ? 20000 : 5);
        z::Deep d(i % 2 ? 20000 : 5);
        sum += b.v() + b.k() + d.w() + d.k();
    }
    std::printf("%ld\n", sum);
    return 0;
}
"#,
    )
    .unwrap();
    for (run, t) in traced_runs(dir, "longctor", "\"src/*.cpp\"", 3)
        .iter()
        .enumerate()
    {
        let mut by: BTreeMap<&str, usize> = BTreeMap::new();
        let mut zero: BTreeMap<String, usize> = BTreeMap::new();
        for (_, _, e) in &t.events {
            match e {
                Ev::Crt { cls, .. } => *by.entry(t.classes[cls].as_str()).or_default() += 1,
                Ev::Start { mth, oid: 0, .. } | Ev::End { mth, oid: 0, .. } => {
                    let (cls, name, _) = &t.methods[mth];
                    let cls = t.classes[cls].as_str();
                    if cls == "z::Big" || cls == "z::Deep" {
                        *zero.entry(format!("{cls}.{name}")).or_default() += 1;
                    }
                }
                _ => {}
            }
        }
        assert_eq!(by.get("z::Base"), None, "run {run}: {by:?}");
        assert_eq!(by.get("z::Big"), Some(&12), "run {run}: {by:?}");
        assert_eq!(by.get("z::Deep"), Some(&12), "run {run}: {by:?}");
        assert!(zero.is_empty(), "run {run}: events with oid 0: {zero:?}");
    }
}

/// Annotates the C++ program in `dir/src` (every class, better mode, no throttling), builds
/// `src/main.cpp` as `name` and returns the decoded traces of `runs` runs.
fn traced_runs(dir: &Path, name: &str, sources: &str, runs: usize) -> Vec<Trace> {
    let build = format!("g++ -std=c++17 -O1 -o {name} src/main.cpp");
    std::fs::write(
        dir.join("revy.toml"),
        format!(
            "[project]\nname = \"{name}\"\nsources = [{sources}]\nbuild = \"{build}\"\n\
             run = \"./{name}\"\n[annotate]\nmode = \"better\"\ninclude = [\"*\"]\n\
             [trace]\npath = \".revy/traces\"\nthrottle = false\n"
        ),
    )
    .unwrap();
    common::revy_ok(dir, &["parse"]);
    common::revy_ok(dir, &["annotate"]);
    let b = sh(dir, &build, &[]);
    assert_eq!(b.code, 0, "{}", b.stderr);
    (0..runs)
        .map(|run| {
            let path = dir.join(format!("t{run}.rvt"));
            let r = sh(
                dir,
                &format!("./{name}"),
                &[("REVY_TRACE", path.to_str().unwrap())],
            );
            assert_eq!(r.code, 0, "{}", r.stderr);
            decode(&std::fs::read(&path).unwrap())
        })
        .collect()
}
