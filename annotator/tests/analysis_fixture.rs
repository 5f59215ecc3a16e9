//! The thesis's appendix F trace: exact numbers, and the JSON/Chrome/DOT/folded outputs.

use std::path::{Path, PathBuf};

use revy::analyse::analysis::{analyze_path, Analysis, Band, Options};

mod common;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn fixture() -> PathBuf {
    repo().join("tests/fixtures/traces/appendix-f.dtf")
}

fn inst(a: &Analysis, label: &str) -> revy::analyse::analysis::InstanceStats {
    a.instances
        .iter()
        .find(|i| i.label == label)
        .unwrap_or_else(|| panic!("no {label}"))
}

/// The thesis's figures with compensation off (the trace has no probe cost anyway) and
/// the thesis's observations alone. Shares are of the run (24 ms: creations from 289, the
/// last end at 313), of which 10 ms are inside messages (the thesis's total) and 14 ms
/// belong to the root.
#[test]
fn appendix_f_numbers() {
    let o = Options {
        compensate: false,
        proposals: false,
        ..Options::default()
    };
    let a = analyze_path(&fixture(), &o).unwrap();
    assert_eq!(a.trace.unit.as_str(), "ms");
    assert!(a.trace.warnings.is_empty(), "{:?}", a.trace.warnings);
    assert_eq!(a.totals.messages, 6);
    assert_eq!(a.totals.instrumented_time, 10);
    assert_eq!(a.totals.total_time, 24);
    assert_eq!(inst(&a, "root@0").active_time, 14);
    assert!(!a.totals.compensated);
    // The two transfers are sent by the root; aggregate 5, net 3 each.
    let transfers: Vec<_> = a
        .messages
        .list
        .iter()
        .filter(|m| a.methods[m.method as usize].method == "transfer")
        .collect();
    assert_eq!(transfers.len(), 2);
    for m in &transfers {
        assert_eq!(a.label(m.sender), "root@0");
        assert_eq!((m.aggregate_time, m.net_time, m.size), (5, 3, 24));
        assert_eq!(m.depth, 0);
        assert!((m.level - 3.0 / 24.0).abs() < 1e-12);
        // The thesis's share: of the instrumented time.
        assert!((m.net_time as f64 / a.totals.instrumented_time as f64 - 0.3).abs() < 1e-12);
    }
    assert_eq!(a.label(transfers[0].receiver), "Account#4");
    assert_eq!(a.label(transfers[1].receiver), "Account#6");
    // Per-instance net active time, the thesis's share of the instrumented time, and the
    // level and band as shares of the run.
    for (label, active, thesis, band) in [
        ("Account#2", 2, 0.2, Band::Rest),
        ("Account#4", 4, 0.4, Band::Over10),
        ("Account#6", 4, 0.4, Band::Over10),
        ("Person#1", 0, 0.0, Band::Rest),
    ] {
        let i = inst(&a, label);
        assert_eq!(i.active_time, active, "{label}");
        assert!((active as f64 / 10.0 - thesis).abs() < 1e-12, "{label}");
        assert!((i.level - active as f64 / 24.0).abs() < 1e-12, "{label}");
        assert_eq!(i.band, band, "{label}");
    }
    // The two cyclic withdraws, 4→4 and 6→6.
    assert_eq!(a.totals.cyclic_messages, 2);
    let cyclic: Vec<_> = a
        .messages
        .list
        .iter()
        .filter(|m| m.cyclic)
        .map(|m| {
            (
                a.label(m.sender).to_string(),
                a.methods[m.method as usize].method.clone(),
            )
        })
        .collect();
    assert_eq!(
        cyclic,
        [
            ("Account#4".to_string(), "withdraw".to_string()),
            ("Account#6".into(), "withdraw".into())
        ]
    );
    assert_eq!(inst(&a, "Account#4").cyclic, 1);
    // Message sizes: withdraw and deposit 8 bytes each; Account#2 received 16 bytes.
    let sizes: Vec<u64> = a.messages.list.iter().map(|m| m.size).collect();
    assert_eq!(sizes, [24, 8, 8, 24, 8, 8]);
    assert_eq!(inst(&a, "Account#2").received_bytes, 16);
    // Adjacency: Account#4 talks to the root and Account#2.
    assert_eq!(inst(&a, "Account#4").neighbours, 2);
    assert_eq!(inst(&a, "Account#2").neighbours, 2);
    // Per-method statistics.
    let t = a.methods.iter().find(|m| m.method == "transfer").unwrap();
    assert_eq!(
        (t.calls, t.net_time.total, t.net_time.min, t.net_time.max),
        (2, 6, 3, 3)
    );
    assert_eq!(t.aggregate_time.total, 10);
    assert_eq!(t.net_time.std_dev, 0.0);
    assert!((t.level - 6.0 / 24.0).abs() < 1e-12);
    // Per-class average activity.
    let c = a.classes.iter().find(|c| c.class == "Account").unwrap();
    assert_eq!((c.instances, c.active_time), (3, 10));
    assert!((c.mean_level - 10.0 / 24.0 / 3.0).abs() < 1e-12);
    // Hints name the Account instances as candidates.
    assert!(a
        .hints
        .iter()
        .any(|h| h.kind == "candidate-instance" && h.subject == "Account#4"));
}

use common::revy;

#[test]
fn json_validates_against_schema() {
    let out = revy(&["analyze", fixture().to_str().unwrap(), "--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["schema"], "revy-analysis/2");
    assert_eq!(json["totals"]["total_time"], 24);
    assert_eq!(json["totals"]["instrumented_time"], 10);
    common::check_schema(&json);
    // The validator really checks: a wrong version is rejected.
    let mut bad = json.clone();
    bad["schema"] = "revy-analysis/0".into();
    assert!(std::panic::catch_unwind(|| common::check_schema(&bad)).is_err());
}

#[test]
fn exports_are_well_formed() {
    let dir = tempfile::tempdir().unwrap();
    let checks = common::export_and_check(&fixture(), dir.path());
    assert_eq!(checks.total, 10);
    assert_eq!(checks.slices, 6);
}

/// The hints' selections of single instances (made in one pass over the instances): an
/// object that messages itself (`Loop#1`: 3 of its 4 received messages from itself, one
/// neighbour) is self-contained and, with the root its only neighbour, single-neighbour too;
/// `Pair#2` talks to `Pair#3` and the root, `Pair#3` to those two and `Leaf#4`, and `Leaf#4`
/// only to `Pair#3`.
#[test]
fn self_contained_and_single_neighbour_instances() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("h.dtf");
    let msg = |cls: &str, oid: u32, m: &str, t: u32| {
        format!("<Msg cls={cls} oid={oid} mth={m} sgn=!! size=8 tid=0 t={t}>\n")
    };
    let end = |cls: &str, oid: u32, m: &str, t: u32| {
        format!("</Msg cls={cls} oid={oid} mth={m} sgn=!! tid=0 t={t}>\n")
    };
    let mut s = String::from("##### Revy-Logger: starts @ Wed Nov 19 12:03:58 PDT 1997\n");
    s += "<Crt cls=Loop oid=1 tid=0 t=1>\n<Crt cls=Pair oid=2 tid=0 t=2>\n";
    s += "<Crt cls=Pair oid=3 tid=0 t=3>\n<Crt cls=Leaf oid=4 tid=0 t=4>\n";
    s += &msg("Loop", 1, "run", 10);
    for k in 0..3 {
        s += &msg("Loop", 1, "step", 11 + 10 * k);
        s += &end("Loop", 1, "step", 19 + 10 * k);
    }
    s += &end("Loop", 1, "run", 50);
    s += &msg("Pair", 2, "ping", 60);
    s += &msg("Pair", 3, "pong", 61);
    s += &msg("Leaf", 4, "poke", 62);
    s += &end("Leaf", 4, "poke", 70);
    s += &end("Pair", 3, "pong", 90);
    s += &msg("Pair", 2, "back", 91);
    s += &end("Pair", 2, "back", 92);
    s += &end("Pair", 2, "ping", 95);
    s += &msg("Pair", 3, "pong", 96);
    s += &end("Pair", 3, "pong", 99);
    s += "##### Revy-Logger: done @ Wed Nov 19 12:03:58 PDT 1997\n";
    std::fs::write(&t, s).unwrap();
    let o = Options {
        compensate: false,
        proposals: false,
        ..Options::default()
    };
    let a = analyze_path(&t, &o).unwrap();
    let kinds = |subject: &str| -> Vec<&str> {
        let mut k: Vec<&str> = a
            .hints
            .iter()
            .filter(|h| h.subject == subject)
            .map(|h| h.kind.as_str())
            .collect();
        k.sort();
        k
    };
    assert_eq!(inst(&a, "Loop#1").cyclic, 3);
    assert_eq!(inst(&a, "Loop#1").neighbours, 1);
    assert_eq!(inst(&a, "Pair#3").neighbours, 3);
    assert!(kinds("Loop#1").contains(&"self-contained"), "{:?}", a.hints);
    assert!(
        kinds("Loop#1").contains(&"single-neighbour"),
        "{:?}",
        a.hints
    );
    // Leaf#4 (8.2 %) is below the 10 % threshold: in the summary line, not listed.
    assert!(
        !kinds("Leaf#4").contains(&"single-neighbour"),
        "{:?}",
        a.hints
    );
    let below = kinds("1 instance(s) below the threshold");
    assert_eq!(below, ["single-neighbour"], "{:?}", a.hints);
    assert!(!kinds("Pair#2").contains(&"single-neighbour"));
    assert!(!kinds("Pair#3").contains(&"self-contained"));
    // With a lower threshold it is listed on its own.
    let low = Options {
        threshold_level: 0.05,
        ..o
    };
    let a = analyze_path(&t, &low).unwrap();
    let leaf = a.hints.iter().filter(|h| h.subject == "Leaf#4");
    assert!(leaf
        .map(|h| h.kind.as_str())
        .any(|k| k == "single-neighbour"));
}
