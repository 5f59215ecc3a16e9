//! `revy estimate`: predictions from a short run checked against the full run's real trace.

use std::path::{Path, PathBuf};

use revy::analyse::estimate::{estimate, Options};
use revy::analyse::trace::synth::{generate, Spec};
use revy::analyse::trace::Form;

mod common;
use common::revy;

fn gen(dir: &Path, name: &str, events: u64) -> PathBuf {
    let p = dir.join(name);
    let spec = Spec {
        events,
        instances: 200,
        ..Spec::default()
    };
    generate(&spec, Form::Compact, std::fs::File::create(&p).unwrap()).unwrap();
    p
}

#[test]
fn a_tenth_of_the_run_predicts_the_full_trace_size() {
    let dir = tempfile::tempdir().unwrap();
    let short = gen(dir.path(), "short.rvt", 100_000);
    let full = gen(dir.path(), "full.rvt", 1_000_000);
    let e = estimate(
        &[short],
        &Options {
            scale: Some(10.0),
            ..Options::default()
        },
    )
    .unwrap();
    let real = std::fs::metadata(&full).unwrap().len() as f64;
    let err = (e.predicted_bytes - real).abs() / real;
    assert!(err < 0.10, "predicted {} vs real {real}", e.predicted_bytes);
    // Per method, the predicted calls match the full run's real counts within 10 %.
    let f = estimate(&[full], &Options::default()).unwrap();
    for m in f.methods.iter().filter(|m| m.recorded_calls > 1000) {
        let p = e.methods.iter().find(|x| x.pattern == m.pattern).unwrap();
        let err = (p.predicted_calls - m.recorded_calls as f64).abs() / m.recorded_calls as f64;
        assert!(
            err < 0.10,
            "{}: {} vs {}",
            m.pattern,
            p.predicted_calls,
            m.recorded_calls
        );
    }
}

const TRACE: &str = "##### revy-trace 1 unit=us lang=java
##### thread tid=1 name=main
<Msg cls=p.A oid=1 mth=run sgn=!! size=0 tid=1 t=0>
<Msg cls=p.B oid=2 mth=tiny sgn=!! size=0 tid=1 t=10>
</Msg cls=p.B oid=2 mth=tiny sgn=!! tid=1 t=11>
<Msg cls=p.B oid=2 mth=tiny sgn=!int^0! size=4 tid=1 t=12>
</Msg cls=p.B oid=2 mth=tiny sgn=!int^0! tid=1 t=15>
<Msg cls=p.B oid=2 mth=tiny sgn=!! size=0 tid=1 t=20>
</Msg cls=p.B oid=2 mth=tiny sgn=!! tid=1 t=21>
<Msg cls=p.C oid=3 mth=big sgn=!! size=0 tid=1 t=30>
</Msg cls=p.C oid=3 mth=big sgn=!! tid=1 t=90>
</Msg cls=p.A oid=1 mth=run sgn=!! tid=1 t=100>
##### end events=10
";

#[test]
fn counts_overloads_together_and_names_the_excludes_that_fit_a_budget() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.dtf");
    std::fs::write(&p, TRACE).unwrap();
    let size = std::fs::metadata(&p).unwrap().len();
    let e = estimate(
        std::slice::from_ref(&p),
        &Options {
            scale: Some(1e6),
            budget: Some(size * 1_000_000 / 2),
            ..Options::default()
        },
    )
    .unwrap();
    let tiny = e.methods.iter().find(|m| m.pattern == "p.B.tiny").unwrap();
    assert_eq!(tiny.recorded_calls, 3, "both overloads of tiny");
    assert!((tiny.mean_us - 5.0 / 3.0).abs() < 1e-9, "{}", tiny.mean_us);
    assert!(
        tiny.throttle,
        "3M calls of under 10 µs match the throttle rule"
    );
    let big = e.methods.iter().find(|m| m.pattern == "p.C.big").unwrap();
    assert!(!big.throttle, "60 µs per call is not short");
    // Dropping tiny (3 of 5 calls, 60 % of the bytes) is enough for half the size.
    assert_eq!(e.exclude, vec!["p.B.tiny".to_string()]);
    assert!(e.predicted_bytes_after <= (size * 1_000_000 / 2) as f64);

    // The command line prints the manifest lines to paste.
    let budget = (size * 1_000_000 / 2).to_string();
    let path = p.to_str().unwrap();
    let out = revy(&["estimate", "--scale", "1e6", "--budget", &budget, path]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("exclude = [\"p.B.tiny\"]"), "{text}");
    assert!(text.contains("--scale 1000000"), "{text}");

    let bad = revy(&["estimate", "--budget", "lots", path]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--budget"));
}

#[test]
fn budget_advice_is_one_line_to_paste_into_the_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.dtf");
    std::fs::write(&p, TRACE).unwrap();
    let size = std::fs::metadata(&p).unwrap().len();
    let manifest = dir.path().join("revy.toml");
    let text = "[project]\nname = \"p\"\nsources = [\"*.java\"]\n\n[annotate]\nmode = \"faster\"\nexclude = [\"p.Z.old\"]\n";
    std::fs::write(&manifest, text).unwrap();
    let (m, path) = (manifest.to_str().unwrap(), p.to_str().unwrap());
    let budget = (size * 1_000_000 / 2).to_string();
    let out = revy(&[
        "-m", m, "estimate", "--scale", "1e6", "--budget", &budget, path,
    ]);
    let advice = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{advice}");
    let line = "exclude = [\"p.Z.old\", \"p.B.tiny\"]";
    assert!(
        advice.contains(&format!(
            "replace the exclude line at {m}:7 with:\n{line}\n"
        )),
        "{advice}"
    );
    assert!(!advice.contains("[annotate]\nexclude"), "{advice}");
    // Pasted over that line, the manifest still loads and now excludes both.
    std::fs::write(&manifest, text.replace("exclude = [\"p.Z.old\"]", line)).unwrap();
    let out = revy(&["-m", m, "estimate", "--budget", &budget, path]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Without --scale, the advice names the flag that exists.
    assert!(text.contains("pass --scale or --full-secs"), "{text}");
}

/// `--write` puts the advised line into the manifest itself, keeping its comments and
/// layout; the manifest then loads and the same budget needs nothing more.
#[test]
fn budget_write_edits_the_manifest_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.dtf");
    std::fs::write(&p, TRACE).unwrap();
    let size = std::fs::metadata(&p).unwrap().len();
    let manifest = dir.path().join("revy.toml");
    let text = "# mine\n[project]\nname = \"p\" # keep\nsources = [\"*.java\"]\n\n[annotate]\nmode = \"faster\"\n# old ones\nexclude = [\"p.Z.old\"]\n";
    std::fs::write(&manifest, text).unwrap();
    let (m, path) = (manifest.to_str().unwrap(), p.to_str().unwrap());
    let budget = (size * 1_000_000 / 2).to_string();
    let args = ["-m", m, "estimate", "--scale", "1e6", "--budget", &budget];
    let out = revy(&[&args[..], &["--write", path]].concat());
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains(&format!(
            "wrote exclude = [\"p.Z.old\", \"p.B.tiny\"] into {m}:9"
        )),
        "{said}"
    );
    let after = std::fs::read_to_string(&manifest).unwrap();
    let want = text.replace("[\"p.Z.old\"]", "[\"p.Z.old\", \"p.B.tiny\"]");
    assert_eq!(after, want, "only the exclude line changes");
    // Without [annotate] the table is added.
    std::fs::write(
        &manifest,
        "[project]\nname = \"p\"\nsources = [\"*.java\"]\n",
    )
    .unwrap();
    let out = revy(&[&args[..], &["--write", path]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = std::fs::read_to_string(&manifest).unwrap();
    assert!(
        after.ends_with("\n[annotate]\nexclude = [\"p.B.tiny\"]\n"),
        "{after}"
    );
    // --write needs --budget.
    let o = revy(&["-m", m, "estimate", "--write", path]);
    assert_eq!(o.status.code(), Some(2));
}
