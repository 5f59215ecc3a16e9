//! `revy analyze --format json` stays byte-identical across the compact instance and edge
//! tables of issue 13 (item 4): the goldens were made by the binary before that change
//! (re-blessed for schema 2, which only adds `lists`: the rest checked equal to version 1's).
//! Re-bless with `REVY_BLESS=1` (and `REVY_GOLDEN_BIN=/path/to/revy` to use another binary).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::golden::{blessing, Goldens};

use revy::analyse::trace::synth::{generate, Spec};
use revy::analyse::trace::Form;
use sha2::{Digest, Sha256};

/// sha256 of the normalised JSON of the synthetic trace below (1,500 instances, 5,183 edges,
/// 15,000 messages: 9 MB of JSON, too big to keep as a file).
const SYNTH_SHA256: &str = "20f17e0bdee83a049651ef43c683684e04cca6ae8a9435fd5ff97c4f18a51b87";

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// The analysis JSON with the trace path blanked (it names a temporary file).
fn analyze_json(trace: &Path) -> String {
    let bin = std::env::var("REVY_GOLDEN_BIN").unwrap_or(env!("CARGO_BIN_EXE_revy").into());
    // Fixed machine model: the proposals must not depend on this machine.
    let out = Command::new(bin)
        .args(["analyze", "--format", "json", "--cores", "2"])
        .args([
            "--handoff",
            "5us",
            "--enqueue",
            "200ns",
            "--wake",
            "2us",
            "--post",
            "20ns",
        ])
        .arg(trace)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["trace"]["path"] = "".into();
    serde_json::to_string_pretty(&v).unwrap() + "\n"
}

#[test]
fn appendix_f_analysis_json_is_unchanged() {
    let got = analyze_json(&fixture("tests/fixtures/traces/appendix-f.dtf"));
    let golden = fixture("tests/fixtures/analysis/appendix-f.json");
    let mut goldens = Goldens::new();
    goldens.check("appendix-f analysis", &golden, &got, None);
    goldens.finish();
}

#[test]
fn synthetic_analysis_json_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("g.rvt");
    let spec = Spec {
        events: 30_000,
        instances: 1_500,
        threads: 4,
        ..Spec::default()
    };
    generate(&spec, Form::Compact, std::fs::File::create(&trace).unwrap()).unwrap();
    let got = analyze_json(&trace);
    let sha = format!("{:x}", Sha256::digest(got.as_bytes()));
    // Too big for a file: a bless prints the new hash for the constant above.
    if blessing() {
        eprintln!("REVY_BLESS: SYNTH_SHA256 = {sha}");
        return;
    }
    let keep = std::env::temp_dir().join("revy-analysis-golden.json");
    if sha != SYNTH_SHA256 {
        std::fs::write(&keep, &got).unwrap();
    }
    assert_eq!(
        sha,
        SYNTH_SHA256,
        "the JSON differs: it is in {}",
        keep.display()
    );
}
