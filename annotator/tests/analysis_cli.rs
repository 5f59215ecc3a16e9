//! `revy analyze`, `export` and `trace print` on generated and damaged traces.

use std::path::{Path, PathBuf};

use revy::analyse::analysis::{analyze_path, Options};
use revy::analyse::trace::synth::{generate, Spec};
use revy::analyse::trace::Form;

mod common;
use common::revy;

fn gen(dir: &Path, name: &str, form: Form, spec: &Spec) -> PathBuf {
    let p = dir.join(name);
    generate(spec, form, std::fs::File::create(&p).unwrap()).unwrap();
    p
}

/// Form-independent view: ids depend on first-appearance order, so key by names.
fn normal(a: &revy::analyse::analysis::Analysis) -> (Vec<String>, Vec<String>, Vec<String>) {
    let mut i: Vec<String> = a
        .instances
        .iter()
        .map(|x| {
            format!(
                "{} {} {} {} {} {}",
                x.label, x.active_time, x.received, x.sent, x.cyclic, x.neighbours
            )
        })
        .collect();
    let mut m: Vec<String> = a
        .methods
        .iter()
        .map(|x| {
            format!(
                "{}.{}{} {} {:?} {:?} {}",
                x.class, x.method, x.signature, x.calls, x.net_time, x.aggregate_time, x.size.total
            )
        })
        .collect();
    let mut e: Vec<String> = a
        .edges
        .iter()
        .map(|x| {
            format!(
                "{}>{} {} {} {}",
                a.label(x.sender),
                a.label(x.receiver),
                x.calls,
                x.aggregate_time,
                x.net_time
            )
        })
        .collect();
    i.sort();
    m.sort();
    e.sort();
    (i, m, e)
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const INTERLEAVED: &str = "##### revy-trace 1 unit=us
##### thread tid=1 name=main
##### thread tid=2 name=worker
<Crt cls=A oid=1 size=16 tid=1 t=0>
<Crt cls=B oid=2 size=24 tid=1 t=1>
<Crt cls=C oid=3 size=32 tid=2 t=2>
<Crt cls=D oid=4 size=40 tid=2 t=3>
<Msg cls=A oid=1 mth=run sgn=!! size=0 tid=1 t=10>
<Msg cls=C oid=3 mth=run sgn=!! size=0 tid=2 t=11>
<Msg cls=B oid=2 mth=f sgn=!int^0! size=4 tid=1 t=12>
<Msg cls=D oid=4 mth=g sgn=!! size=0 tid=2 t=13>
<Msg cls=B oid=2 mth=f sgn=!int^0! size=4 tid=1 t=14>
</Msg cls=D oid=4 mth=g sgn=!! tid=2 t=20>
</Msg cls=B oid=2 mth=f sgn=!int^0! tid=1 t=21>
</Msg cls=B oid=2 mth=f sgn=!int^0! tid=1 t=22>
</Msg cls=C oid=3 mth=run sgn=!! tid=2 t=30>
</Msg cls=A oid=1 mth=run sgn=!! tid=1 t=40>
##### end events=16
";

#[test]
fn interleaved_threads_have_their_own_senders() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("mt.dtf");
    std::fs::write(&p, INTERLEAVED).unwrap();
    let a = analyze_path(&p, &Options::default()).unwrap();
    assert!(a.trace.warnings.is_empty(), "{:?}", a.trace.warnings);
    let pairs: Vec<(String, String, u64)> = a
        .edges
        .iter()
        .map(|e| (a.label(e.sender), a.label(e.receiver), e.calls))
        .collect();
    let want = [
        ("root@1", "A#1", 1),
        ("A#1", "B#2", 1),
        ("B#2", "B#2", 1),
        ("root@2", "C#3", 1),
        ("C#3", "D#4", 1),
    ];
    for w in want {
        assert!(
            pairs.contains(&(w.0.into(), w.1.into(), w.2)),
            "missing {w:?} in {pairs:?}"
        );
    }
    assert_eq!(pairs.len(), want.len(), "{pairs:?}");
    // Thread 1: run 30 aggregate, f 10 (net 9), inner f 8; thread 2: run 19, g 7.
    assert_eq!(a.totals.instrumented_time, 30 + 19);
    // The run: thread 1 spans 0..40, thread 2 2..30; the rest belongs to the roots.
    assert_eq!(a.totals.total_time, 40 + 28);
    let root1 = a.instances.iter().find(|i| i.label == "root@1").unwrap();
    assert_eq!(root1.active_time, 40 - 30);
    assert_eq!(
        a.threads.iter().map(|t| t.total_time).collect::<Vec<_>>(),
        [30, 19]
    );
    let b = a.instances.iter().find(|i| i.label == "B#2").unwrap();
    assert_eq!((b.active_time, b.cyclic, b.size), (10, 1, Some(24)));
    assert_eq!(a.threads[1].name.as_deref(), Some("worker"));
}

#[test]
fn truncated_text_is_analysed_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let cut = &INTERLEAVED[..INTERLEAVED
        .find("</Msg cls=B oid=2 mth=f sgn=!int^0! tid=1 t=22>")
        .unwrap()
        + 12];
    let p = dir.path().join("cut.dtf");
    std::fs::write(&p, cut).unwrap();
    let o = revy(&["analyze", p.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("cut.dtf:15 (byte"), "{out}");
    assert!(out.contains("open at the end"), "{out}");
    let a = analyze_path(&p, &Options::default()).unwrap();
    assert!(a.trace.cut_short);
    assert_eq!(a.totals.messages, 5);
    assert_eq!(a.totals.balance.open_at_end, 3);
}

#[test]
fn unbalanced_ends_are_reported_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("unb.dtf");
    let text = INTERLEAVED.replace("</Msg cls=B oid=2 mth=f sgn=!int^0! tid=1 t=21>\n", "")
        + "</Msg cls=X oid=9 mth=h sgn=!! tid=1 t=50>\n";
    std::fs::write(&p, text).unwrap();
    let a = analyze_path(&p, &Options::default()).unwrap();
    assert_eq!(a.totals.balance.closed_by_outer_end, 1);
    assert_eq!(a.totals.balance.unmatched_ends, 1);
    assert!(a.trace.warnings.iter().any(|w| w.contains("unbalanced")));
}

#[test]
fn compact_cut_mid_block_warns_with_offset() {
    let dir = tempfile::tempdir().unwrap();
    let spec = Spec {
        events: 60_000,
        threads: 3,
        ..Spec::default()
    };
    let p = gen(dir.path(), "full.rvt", Form::Compact, &spec);
    let bytes = std::fs::read(&p).unwrap();
    let cut = dir.path().join("cut.rvt");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let o = revy(&["analyze", cut.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("at byte"), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["trace"]["cut_short"], true);
    assert!(json["totals"]["messages"].as_u64().unwrap() > 1000);
}

#[test]
fn garbage_is_a_one_line_error_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("junk.bin");
    std::fs::write(&p, b"\x00\x01\x02 this is not a trace\n<<<\n").unwrap();
    for args in [
        vec!["analyze"],
        vec!["trace", "print"],
        vec!["export", "--folded", "/dev/null"],
    ] {
        let mut args = args.clone();
        args.insert(
            if args[0] == "export" { 1 } else { args.len() },
            p.to_str().unwrap(),
        );
        let o = revy(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = stderr(&o);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(
            e.contains("junk.bin:1") && e.contains("not a Revy trace"),
            "{e}"
        );
    }
    let bad = dir.path().join("bad.rvt");
    std::fs::write(&bad, b"RVYTRC\x00\x01\xff\xff\xff").unwrap();
    let o = revy(&["analyze", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.rvt: byte 8"), "{}", stderr(&o));
    let o = revy(&["analyze", dir.path().join("missing.dtf").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn generated_multithread_traces_in_both_forms() {
    let dir = tempfile::tempdir().unwrap();
    let spec = Spec {
        events: 16_000,
        instances: 24,
        threads: 4,
        ..Spec::default()
    };
    let t = gen(dir.path(), "g.dtf", Form::Text, &spec);
    let c = gen(dir.path(), "g.rvt", Form::Compact, &spec);
    let (at, ac) = (
        analyze_path(&t, &Options::default()).unwrap(),
        analyze_path(&c, &Options::default()).unwrap(),
    );
    assert!(
        at.trace.warnings.is_empty() && ac.trace.warnings.is_empty(),
        "{:?}",
        at.trace.warnings
    );
    assert_eq!(at.totals.total_time, ac.totals.total_time);
    assert_eq!(at.totals.messages, (16_000 - 24) / 2);
    assert!(
        normal(&at) == normal(&ac),
        "text and compact analyses differ"
    );
    assert_eq!(at.threads.len(), 4);
    // Net times add up to the roots' aggregates, and with the roots' own time to the run.
    let roots: u64 = at.threads.iter().map(|t| t.total_time).sum();
    assert_eq!(roots, at.totals.instrumented_time);
    let spans: u64 = at.threads.iter().map(|t| t.span).sum();
    assert_eq!(spans, at.totals.total_time);
    for (p, name) in [(&t, "text"), (&c, "compact")] {
        let sub = dir.path().join(name);
        std::fs::create_dir(&sub).unwrap();
        let k = common::export_and_check(p, &sub);
        assert_eq!(k.slices as u64, at.totals.messages);
        assert_eq!(k.total, at.totals.instrumented_time);
        let o = revy(&["analyze", p.to_str().unwrap(), "--format", "json"]);
        common::check_schema(&serde_json::from_slice(&o.stdout).unwrap());
    }
    // A small detail cap keeps the most active messages only.
    let small = analyze_path(
        &c,
        &Options {
            detail_cap: 50,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(small.messages.list.len(), 50);
    assert!(!small.messages.complete);
    let min_kept = small
        .messages
        .list
        .iter()
        .map(|m| m.aggregate_time)
        .min()
        .unwrap();
    let mut all: Vec<u64> = ac.messages.list.iter().map(|m| m.aggregate_time).collect();
    all.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(min_kept, all[49]);
}

#[test]
fn trace_print_turns_compact_into_text() {
    let dir = tempfile::tempdir().unwrap();
    let spec = Spec {
        events: 5_000,
        threads: 2,
        ..Spec::default()
    };
    let c = gen(dir.path(), "p.rvt", Form::Compact, &spec);
    let o = revy(&["trace", "print", c.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.starts_with("##### revy-trace 1 unit=ns"),
        "{}",
        &text[..60]
    );
    assert!(text.trim_end().ends_with("##### end events=5000"));
    let t = dir.path().join("p.dtf");
    std::fs::write(&t, &text).unwrap();
    let (a, b) = (
        analyze_path(&c, &Options::default()).unwrap(),
        analyze_path(&t, &Options::default()).unwrap(),
    );
    assert!(
        normal(&a) == normal(&b),
        "printed text analyses differently"
    );
    // Printing the text form again is a fixed point.
    let o2 = revy(&["trace", "print", t.to_str().unwrap()]);
    assert_eq!(String::from_utf8(o2.stdout).unwrap(), text);
}

#[test]
fn default_trace_is_the_newest_in_trace_dir() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("revy.toml");
    std::fs::write(
        &m,
        "[project]\nname = \"a\"\nsources = [\"src/**/*.java\"]\n[trace]\npath = \"traces\"\n",
    )
    .unwrap();
    let o = revy(&["-m", m.to_str().unwrap(), "analyze"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no trace in") && stderr(&o).contains("revy run"),
        "{}",
        stderr(&o)
    );
    let traces = dir.path().join("traces");
    std::fs::create_dir(&traces).unwrap();
    gen(
        &traces,
        "old.rvt",
        Form::Compact,
        &Spec {
            events: 100,
            ..Spec::default()
        },
    );
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/traces/appendix-f.dtf"),
        traces.join("new.dtf"),
    )
    .unwrap();
    // Files that are not traces are passed over however new: the runtimes' budget counter
    // (written when the run's last process exits, after its trace) and anything else.
    std::fs::write(
        traces.join(".revy-run-77-88.budget"),
        "00000000000000001234\n",
    )
    .unwrap();
    std::fs::write(traces.join("notes.txt"), "mine\n").unwrap();
    // Modification times a minute apart, in the order the files were written.
    let t0 = std::time::SystemTime::now() - std::time::Duration::from_secs(600);
    let order = ["old.rvt", "new.dtf", ".revy-run-77-88.budget", "notes.txt"];
    for (i, name) in order.iter().enumerate() {
        let f = std::fs::File::options()
            .write(true)
            .open(traces.join(name))
            .unwrap();
        f.set_modified(t0 + std::time::Duration::from_secs(60 * i as u64))
            .unwrap();
    }
    let o = revy(&["-m", m.to_str().unwrap(), "analyze", "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(json["trace"]["path"].as_str().unwrap().ends_with("new.dtf"));
}

#[test]
fn size_limit_marker_and_missing_end_are_warned() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("lim.dtf");
    let text = INTERLEAVED.replace("##### end events=16\n", "##### truncated max_size=4096\n");
    std::fs::write(&p, text).unwrap();
    let a = analyze_path(&p, &Options::default()).unwrap();
    assert!(a.trace.truncated && !a.trace.clean_end);
    assert!(
        a.trace.warnings.iter().any(|w| w.contains("max_size=4096")),
        "{:?}",
        a.trace.warnings
    );
    assert!(
        a.trace.warnings.iter().any(|w| w.contains("no end marker")),
        "{:?}",
        a.trace.warnings
    );
    // Thresholds from the command line change the hints.
    let o = revy(&[
        "analyze",
        p.to_str().unwrap(),
        "--format",
        "json",
        "--threshold",
        "0.9",
    ]);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(json["hints"]
        .as_array()
        .unwrap()
        .iter()
        .all(|h| h["kind"] != "candidate-instance"));
    let o = revy(&[
        "analyze",
        p.to_str().unwrap(),
        "--format",
        "json",
        "--threshold",
        "0.9",
        "--min-time",
        "10",
    ]);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let subjects: Vec<&str> = json["hints"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["kind"] == "no-gain" && h["subject"].as_str().unwrap().contains('#'))
        .map(|h| h["subject"].as_str().unwrap())
        .collect();
    // Replayed (all callers wait: no return types known) and said plainly, most active first.
    assert_eq!(subjects, ["A#1", "C#3", "B#2"]); // net 20, 12, 10; D#4 has 7
    let o = revy(&["export", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn chrome_writes_callers_before_same_start_callees() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("same.dtf");
    std::fs::write(
        &p,
        "<Msg cls=A oid=1 mth=a sgn=!! size=0 tid=0 t=10>\n<Msg cls=A oid=1 mth=b sgn=!! size=0 tid=0 t=10>\n\
         <Msg cls=A oid=1 mth=c sgn=!! size=0 tid=0 t=10>\n</Msg cls=A oid=1 mth=c sgn=!! tid=0 t=11>\n\
         <Msg cls=A oid=1 mth=d sgn=!! size=0 tid=0 t=12>\n</Msg cls=A oid=1 mth=d sgn=!! tid=0 t=13>\n\
         </Msg cls=A oid=1 mth=b sgn=!! tid=0 t=14>\n</Msg cls=A oid=1 mth=a sgn=!! tid=0 t=15>\n",
    )
    .unwrap();
    let k = common::export_and_check(&p, dir.path());
    assert_eq!(k.slices, 4);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("t.json")).unwrap()).unwrap();
    let at10: Vec<&str> = json["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X" && e["ts"].as_f64() == Some(10000.0))
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(at10, ["A.a()", "A.b()", "A.c()"]); // names read as declared
}

#[test]
fn outliers_against_class_and_method_averages() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("out.dtf");
    let mut text = String::from("##### revy-trace 1 unit=ns\n");
    for (oid, s, e) in [(1, 0, 100), (2, 100, 105), (3, 105, 110), (4, 110, 115)] {
        text += &format!("<Msg cls=X oid={oid} mth=f sgn=!! size=0 tid=1 t={s}>\n</Msg cls=X oid={oid} mth=f sgn=!! tid=1 t={e}>\n");
    }
    std::fs::write(&p, text).unwrap();
    // The thesis's observations alone (the replayed proposals supersede some of them).
    let o = Options {
        proposals: false,
        ..Options::default()
    };
    let a = analyze_path(&p, &o).unwrap();
    let h = a
        .hints
        .iter()
        .find(|h| h.kind == "class-outlier")
        .expect("class outlier");
    assert_eq!(a.label(h.instance.unwrap()), "X#1");
    assert!((h.numbers["ratio"] - 100.0 / 28.75).abs() < 1e-9);
    assert!(a
        .hints
        .iter()
        .any(|h| h.kind == "method-outlier" && h.subject == "X.f"));
    assert!(!a.hints.iter().any(|h| h.kind.as_str().ends_with("uniform")));
}

/// Past `--detail-cap`, the JSON lists the most active instances and edges and every
/// instance it names elsewhere (a whole run's 17 M instances were 9 GB of JSON); the rows it
/// keeps are those of the whole listing, and the totals are the same.
#[test]
fn json_lists_past_the_detail_cap_keep_the_most_active_rows() {
    let dir = tempfile::tempdir().unwrap();
    let spec = Spec {
        events: 60_000,
        instances: 3_000,
        threads: 3,
        ..Spec::default()
    };
    let c = gen(dir.path(), "g.rvt", Form::Compact, &spec);
    let json = |cap: &str| -> serde_json::Value {
        let o = revy(&[
            "analyze",
            c.to_str().unwrap(),
            "--format",
            "json",
            "--detail-cap",
            cap,
        ]);
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let (full, cut) = (json("1000000"), json("100"));
    common::check_schema(&cut);
    assert_eq!(full["totals"], cut["totals"]);
    let total = full["instances"].as_array().unwrap().len();
    assert!(total > 2_000, "{total} instances");
    assert_eq!(full["lists"]["instances"]["complete"], true);
    let li = &cut["lists"]["instances"];
    assert_eq!(
        (li["total"].as_u64(), li["complete"].as_bool()),
        (Some(total as u64), Some(false))
    );
    let kept = cut["instances"].as_array().unwrap();
    assert_eq!(li["listed"].as_u64(), Some(kept.len() as u64));
    assert!(
        kept.len() >= 100 && kept.len() < total / 2,
        "{} listed",
        kept.len()
    );
    // Each kept row is the whole listing's row of that id, in id order.
    let id = |v: &serde_json::Value| v["id"].as_u64().unwrap();
    assert!(kept.windows(2).all(|w| id(&w[0]) < id(&w[1])));
    for k in kept {
        assert_eq!(k, &full["instances"][id(k) as usize]);
    }
    // The 100 most active are among them.
    let mut by_active: Vec<&serde_json::Value> =
        full["instances"].as_array().unwrap().iter().collect();
    by_active.sort_by_key(|i| (std::cmp::Reverse(i["active_time"].as_u64().unwrap()), id(i)));
    let ids: std::collections::BTreeSet<u64> = kept.iter().map(id).collect();
    assert!(by_active[..100].iter().all(|i| ids.contains(&id(i))));
    // Every instance id the JSON names resolves.
    let mut named: Vec<u64> = Vec::new();
    for e in cut["edges"].as_array().unwrap() {
        named.extend([
            e["sender"].as_u64().unwrap(),
            e["receiver"].as_u64().unwrap(),
        ]);
    }
    for m in cut["messages"]["list"].as_array().unwrap() {
        named.extend([
            m["sender"].as_u64().unwrap(),
            m["receiver"].as_u64().unwrap(),
        ]);
    }
    for t in cut["threads"].as_array().unwrap() {
        named.push(t["root"].as_u64().unwrap());
    }
    assert!(named.iter().all(|i| ids.contains(i)));
    // Edges: the 100 with the most aggregate time, in (sender, receiver) order.
    let mut heavy: Vec<&serde_json::Value> = full["edges"].as_array().unwrap().iter().collect();
    assert!(heavy.len() > 100);
    let key = |e: &serde_json::Value| {
        (
            e["sender"].as_u64().unwrap(),
            e["receiver"].as_u64().unwrap(),
        )
    };
    heavy.sort_by_key(|e| {
        (
            std::cmp::Reverse(e["aggregate_time"].as_u64().unwrap()),
            key(e),
        )
    });
    let mut want: Vec<&serde_json::Value> = heavy[..100].to_vec();
    want.sort_by_key(|e| key(e));
    let got: Vec<&serde_json::Value> = cut["edges"].as_array().unwrap().iter().collect();
    assert_eq!(got, want);
    assert_eq!(
        cut["lists"]["edges"]["total"].as_u64(),
        Some(heavy.len() as u64)
    );
}
