//! Helpers shared by the integration tests (each test crate uses a different subset).
#![allow(dead_code)]

pub mod cpp_rt;
pub mod gate;
pub mod golden;
pub mod trace;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

pub struct Checks {
    pub total: u64,
    pub slices: usize,
}

/// The `revy` binary under test (the debug build of this crate).
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_revy"))
}

/// `revy ARGS` in the current folder.
pub fn revy(args: &[&str]) -> std::process::Output {
    bin().args(args).output().unwrap()
}

/// `revy ARGS` in `dir`.
pub fn revy_in(dir: &Path, args: &[&str]) -> std::process::Output {
    bin().args(args).current_dir(dir).output().unwrap()
}

/// Stdout of `revy ARGS` in `dir`, which must succeed.
pub fn revy_ok(dir: &Path, args: &[&str]) -> String {
    ok(&revy_in(dir, args), &format!("revy {args:?}"))
}

/// Stdout of a command that must have succeeded (else the test fails with both outputs).
pub fn ok(o: &std::process::Output, what: &str) -> String {
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{what} failed:\n{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

/// A small test program in one language: its files and its manifest's commands.
pub struct Lang {
    pub name: &'static str,
    pub sources: &'static str,
    pub build: &'static str,
    pub run: &'static str,
    pub files: &'static [(&'static str, &'static str)],
}

/// Writes `files` (relative path, text) under `dir`.
pub fn write_files(dir: &Path, files: &[(&str, &str)]) {
    for (rel, text) in files {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

/// Writes `lang`'s files under `dir` and a manifest for them: project `w`, faster mode,
/// everything selected, `run` as its run command and `trace` as its `[trace]` table.
pub fn write_project(dir: &Path, lang: &Lang, run: &str, trace: &str) {
    write_files(dir, lang.files);
    std::fs::write(
        dir.join("revy.toml"),
        format!(
            "[project]\nname = \"w\"\nsources = [{:?}]\nbuild = {:?}\nrun = {:?}\n\n\
             [annotate]\nmode = \"faster\"\ninclude = [\"*\"]\n\n[trace]\n{trace}\n",
            lang.sources, lang.build, run
        ),
    )
    .unwrap();
}

/// Calls of every method named `name` in `revy analyze --format json` output.
/// The replayed verdicts of an analysis in rank order: (kind, subject, predicted speedup).
pub fn verdicts(a: &revy::analyse::analysis::Analysis) -> Vec<(String, String, f64)> {
    a.hints
        .iter()
        .filter(|h| h.numbers.contains_key("predicted_speedup"))
        .map(|h| {
            (
                h.kind.to_string(),
                h.subject.clone(),
                h.numbers["predicted_speedup"],
            )
        })
        .collect()
}

/// Two lists of [`verdicts`] name the same subjects and kinds in the same order, with the
/// same speedups (up to rounding).
pub fn assert_same_verdicts(w: &[(String, String, f64)], f: &[(String, String, f64)]) {
    assert_eq!(w.len(), f.len(), "{w:?} against {f:?}");
    for (x, y) in w.iter().zip(f) {
        assert_eq!((&x.0, &x.1), (&y.0, &y.1), "{w:?} against {f:?}");
        assert!((x.2 - y.2).abs() < 1e-9, "{x:?} against {y:?}");
    }
}

pub fn method_calls(json: &serde_json::Value, name: &str) -> u64 {
    json["methods"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["method"] == name)
        .map(|m| m["calls"].as_u64().unwrap())
        .sum()
}

/// Run `revy export` with all three formats and check each one.
pub fn export_and_check(trace: &Path, dir: &Path) -> Checks {
    let (c, d, f) = (dir.join("t.json"), dir.join("t.dot"), dir.join("t.txt"));
    let out = revy(&[
        "export",
        trace.to_str().unwrap(),
        "--chrome",
        c.to_str().unwrap(),
        "--dot",
        d.to_str().unwrap(),
        "--folded",
        f.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Exports show the times as recorded: compare with the uncompensated analysis.
    let a = revy(&[
        "analyze",
        trace.to_str().unwrap(),
        "--format",
        "json",
        "--no-compensate",
    ]);
    let a: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    let total = a["totals"]["instrumented_time"].as_u64().unwrap();

    // Chrome: displayTimeUnit first, X slices nest per thread, thread names present.
    let text = std::fs::read_to_string(&c).unwrap();
    assert!(
        text.starts_with("{\"displayTimeUnit\""),
        "{}",
        &text[..40.min(text.len())]
    );
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let events = json["traceEvents"].as_array().unwrap();
    // Nanosecond integers from the µs decimals (written with exactly 3 decimals).
    let ns = |v: &serde_json::Value| (v.as_f64().unwrap() * 1000.0).round() as i128;
    let mut per_thread: BTreeMap<u64, Vec<(i128, i128)>> = BTreeMap::new();
    let mut named = std::collections::BTreeSet::new();
    for e in events {
        match e["ph"].as_str().unwrap() {
            "X" => {
                assert!(
                    e["args"]["oid"].is_u64()
                        && e["args"]["class"].is_string()
                        && e["args"]["message_size"].is_u64()
                );
                let s = ns(&e["ts"]);
                per_thread
                    .entry(e["tid"].as_u64().unwrap())
                    .or_default()
                    .push((s, s + ns(&e["dur"])));
            }
            "M" => {
                if e["name"] == "thread_name" {
                    named.insert(e["tid"].as_u64().unwrap());
                }
            }
            p => panic!("unexpected phase {p}"),
        }
    }
    let mut slices = 0;
    for (tid, mut v) in per_thread {
        assert!(named.contains(&tid), "thread {tid} has no thread_name");
        slices += v.len();
        v.sort_by(|x, y| x.0.cmp(&y.0).then(y.1.cmp(&x.1)));
        let mut stack: Vec<(i128, i128)> = Vec::new();
        for (s, e) in v {
            while stack
                .last()
                .is_some_and(|top| top.1 <= s && !(top.0 == s && top.1 == s))
            {
                stack.pop();
            }
            if let Some(top) = stack.last() {
                assert!(
                    top.0 <= s && e <= top.1,
                    "slice {s}..{e} overlaps {}..{} on thread {tid}",
                    top.0,
                    top.1
                );
            }
            stack.push((s, e));
        }
    }

    // Folded stacks sum to the total.
    let folded = std::fs::read_to_string(&f).unwrap();
    let sum: u64 = folded
        .lines()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, total, "folded stacks must sum to the total");
    assert!(folded.lines().all(|l| l.starts_with("root@")));

    // DOT: accepted by Graphviz when it is installed.
    let dot = std::fs::read_to_string(&d).unwrap();
    assert!(dot.starts_with("digraph"));
    if gate::needs(&[gate::Tool::Dot]) {
        let o = Command::new("dot").arg("-Tsvg").arg(&d).output().unwrap();
        assert!(
            o.status.success(),
            "dot rejected the file: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    Checks { total, slices }
}

/// Validate analysis JSON against docs/analysis-schema.json.
pub fn check_schema(json: &serde_json::Value) {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/analysis-schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let v = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = v
        .iter_errors(json)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "schema errors: {errors:#?}");
}

/// Every file under `dir` by relative path, skipping Revy's state and build output: what
/// "the tree is byte-identical" compares.
pub fn snapshot(dir: &Path) -> BTreeMap<std::path::PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".revy" && e.file_name() != "build")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(dir).unwrap().to_path_buf(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// Copies the tree at `from` into `to`, leaving out Revy's state and build output.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for (rel, bytes) in snapshot(from) {
        let p = to.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
}

/// A temp copy of a folder of the repository (e.g. `projects/account`), without state.
pub fn copy_of(repo_rel: &str) -> tempfile::TempDir {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(repo_rel);
    let t = tempfile::tempdir().unwrap();
    copy_tree(&from, t.path());
    t
}
