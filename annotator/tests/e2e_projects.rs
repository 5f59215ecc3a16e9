//! The whole loop on the example projects through the CLI: parse, annotate (each mode), run
//! (build + run with tracing), restore byte for byte, then analyse the real trace: the JSON
//! validates against the schema, the instances and messages are the ones the program makes,
//! and the Chrome, DOT and folded exports are well formed.

mod common;
use common::gate::Tool;
use common::revy_in;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::snapshot;

fn copy_project(name: &str) -> tempfile::TempDir {
    common::copy_of(&format!("projects/{name}"))
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Runs the loop and returns the trace path (inside the temp dir) and the analysis JSON.
fn profile(dir: &Path, mode: &str) -> (PathBuf, serde_json::Value) {
    let original = snapshot(dir);
    ok(&revy_in(dir, &["parse"]));
    ok(&revy_in(dir, &["annotate", mode]));
    let out = ok(&revy_in(dir, &["run"]));
    let trace = out
        .lines()
        .find_map(|l| l.strip_prefix("trace: "))
        .unwrap_or_else(|| panic!("no trace line in {out}"));
    let trace = dir.join(trace);
    ok(&revy_in(dir, &["restore"]));
    assert_eq!(snapshot(dir), original, "restore is byte-identical");
    let json = ok(&revy_in(
        dir,
        &["analyze", trace.to_str().unwrap(), "--format", "json"],
    ));
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    common::check_schema(&json);
    (trace, json)
}

fn count_class(json: &serde_json::Value, class: &str) -> usize {
    json["instances"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["class"] == class)
        .count()
}

use common::method_calls;

#[test]
fn java_account_end_to_end_in_both_modes() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    for mode in ["--better", "--faster"] {
        let t = copy_project("account");
        let (trace, json) = profile(t.path(), mode);
        assert_eq!(count_class(&json, "bank.Account"), 3, "{mode}");
        assert_eq!(count_class(&json, "bank.Person"), 3, "{mode}");
        assert_eq!(method_calls(&json, "transfer"), 3, "{mode}");
        assert_eq!(
            json["totals"]["balance"]["unmatched_ends"], 0,
            "{mode}: {}",
            json["totals"]
        );
        let checks = common::export_and_check(&trace, t.path());
        assert!(
            checks.slices >= 20 && checks.total > 0,
            "{mode}: {} slices",
            checks.slices
        );
    }
}

#[test]
fn cpp_account_end_to_end_in_both_modes() {
    if !common::gate::needs(&[Tool::Cpp]) {
        return;
    }
    for mode in ["--better", "--faster"] {
        let t = copy_project("account-cpp");
        let (trace, json) = profile(t.path(), mode);
        assert_eq!(count_class(&json, "bank::Account"), 3, "{mode}");
        assert_eq!(count_class(&json, "bank::Person"), 3, "{mode}");
        assert_eq!(method_calls(&json, "transfer"), 3, "{mode}");
        let checks = common::export_and_check(&trace, t.path());
        assert!(
            checks.slices >= 15 && checks.total > 0,
            "{mode}: {} slices",
            checks.slices
        );
    }
}
