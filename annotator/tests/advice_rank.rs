//! Ranked proposals of `revy analyze` on hand-built traces beside a parsed project (the SAF
//! tells which methods return nothing), the `chain` hint, and one-off messages.

use std::path::{Path, PathBuf};

use revy::analyse::analysis::{analyze_path, Analysis, Options};

mod common;
use common::revy;

const MAIN: &str = "public class Main {
    public static void main(String[] args) {
        Worker a = new Worker(); Worker b = new Worker(); Lexer l = new Lexer();
        a.run(1); b.run(2); l.next(); l.next();
    }
}
class Worker { void run(int n) { } }
class Lexer { int next() { return 0; } }
";

fn msg(cls: &str, oid: u64, mth: &str, sgn: &str, t0: u64, t1: u64) -> String {
    msg_on(1, cls, oid, mth, sgn, t0, t1)
}

/// [`msg`] on thread `tid`.
fn msg_on(tid: u32, cls: &str, oid: u64, mth: &str, sgn: &str, t0: u64, t1: u64) -> String {
    format!(
        "<Msg cls={cls} oid={oid} mth={mth} sgn={sgn} size=4 tid={tid} t={t0}>\n</Msg cls={cls} oid={oid} mth={mth} sgn={sgn} tid={tid} t={t1}>\n"
    )
}

/// A parsed project with a trace of `main`: two workers (void `run`, 300 ns each), then two
/// `Lexer.next` calls whose results main waits for (150 ns each); 1000 ns in all.
fn project() -> (tempfile::TempDir, PathBuf) {
    project_with_header("")
}

/// [`project`] with further header fields (` handoff_ns=…`).
fn project_with_header(fields: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("src")).unwrap();
    std::fs::write(d.join("src/Main.java"), MAIN).unwrap();
    std::fs::write(
        d.join("revy.toml"),
        "[project]\nname = \"adv\"\nsources = [\"src/**/*.java\"]\nbuild = \"true\"\nrun = \"true\"\n",
    )
    .unwrap();
    let o = revy(&["-m", d.join("revy.toml").to_str().unwrap(), "parse"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut t = format!(
        "##### revy-trace 1 unit=ns lang=java pid=1{fields}\n<Msg cls=Main oid=0 mth=main sgn=!String^1! size=8 tid=1 t=0>\n",
    );
    t += &msg("Worker", 1, "run", "!int^0!", 10, 310);
    t += &msg("Worker", 2, "run", "!int^0!", 320, 620);
    t += &msg("Lexer", 3, "next", "!!", 630, 780);
    t += &msg("Lexer", 3, "next", "!!", 790, 940);
    t += "</Msg cls=Main oid=0 mth=main sgn=!String^1! tid=1 t=1000>\n##### end events=10\n";
    std::fs::create_dir_all(d.join(".revy/traces")).unwrap();
    let p = d.join(".revy/traces/run.dtf");
    std::fs::write(&p, t).unwrap();
    (dir, p)
}

fn opts(cores: usize) -> Options {
    Options {
        cores: Some(cores),
        handoff_ns: Some(0.0),
        ..Options::default()
    }
}

fn speedup(a: &Analysis, i: usize) -> f64 {
    a.hints[i].numbers["predicted_speedup"]
}

#[test]
fn the_change_that_pays_comes_first_and_waiting_callers_are_said_plainly() {
    let (_dir, p) = project();
    let a = analyze_path(&p, &opts(4)).unwrap();
    let kinds: Vec<String> = a
        .hints
        .iter()
        .map(|h| format!("{} {}", h.kind, h.subject))
        .collect();
    // Both workers in their own threads overlap each other and main's Lexer calls.
    assert_eq!(kinds[0], "proposal Worker", "{kinds:?}");
    assert!(speedup(&a, 0) > 2.0, "{}", speedup(&a, 0));
    assert!(
        a.hints[0].text.contains("`run` return(s) nothing"),
        "{}",
        a.hints[0].text
    );
    // Ranked by predicted speedup, object changes before method pools, proposals before
    // statements.
    let n = a.hints.iter().take_while(|h| h.kind == "proposal").count();
    assert!(n >= 2, "{kinds:?}");
    let pool = |i: usize| a.hints[i].instance.is_none() && a.hints[i].method.is_some();
    assert!((1..n).all(|i| pool(i - 1) <= pool(i)), "{kinds:?}");
    assert!((1..n)
        .filter(|&i| pool(i - 1) == pool(i))
        .all(|i| speedup(&a, i - 1) >= speedup(&a, i)));
    // Lexer is heavy but main waits for each result.
    let lexer = a
        .hints
        .iter()
        .find(|h| h.subject == "Lexer#3")
        .expect("a statement about Lexer#3");
    assert_eq!(lexer.kind, "no-gain");
    assert!(lexer.text.contains("every caller waits"), "{}", lexer.text);
    assert!(lexer.numbers["predicted_speedup"] < 1.05);
    // Never the entry point, and no observation contradicts a statement.
    assert!(!kinds.iter().any(|k| k.contains("Main")), "{kinds:?}");
    assert!(!a
        .hints
        .iter()
        .any(|h| h.kind == "candidate-instance" && h.subject == "Lexer#3"));
    let run = a.methods.iter().find(|m| m.method == "run").unwrap();
    assert_eq!(run.void, Some(true));
}

#[test]
fn two_workers_on_one_core_gain_nothing_in_the_ranking() {
    let (_dir, p) = project();
    let a = analyze_path(&p, &opts(1)).unwrap();
    assert!(
        !a.hints.iter().any(|h| h.kind == "proposal"),
        "{:?}",
        a.hints.iter().map(|h| &h.text).collect::<Vec<_>>()
    );
}

#[test]
fn whatif_json_has_the_agreed_fields() {
    let (dir, p) = project();
    let o = revy(&[
        "-m",
        dir.path().join("revy.toml").to_str().unwrap(),
        "whatif",
        p.to_str().unwrap(),
        "--active",
        "Worker",
        "--cores",
        "4",
        "--handoff",
        "0",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let w: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for k in [
        "baseline_time",
        "predicted_time",
        "predicted_speedup",
        "unit",
        "cores",
        "critical_path",
        "threads",
        "caveat",
    ] {
        assert!(!w[k].is_null(), "{k} missing");
    }
    assert_eq!(w["baseline_time"], 1000.0);
    // Main: 100 ns own + 300 ns of Lexer; the workers run beside it.
    let predicted = w["predicted_time"].as_f64().unwrap();
    assert!((400.0..=430.0).contains(&predicted), "{predicted}");
    assert_eq!(w["cores"], 4);
    assert_eq!(w["unit"], "ns");
    let bad = revy(&["whatif", p.to_str().unwrap(), "--active", "Nope"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--active Nope"));
}

/// The report's proposals are `analyze`'s for the same machine model: `--cores`,
/// `--handoff` and the threshold options reach its analysis (before, it took only
/// `--threshold` and predicted for this machine with a measured handoff).
#[test]
fn the_report_predicts_for_the_machine_it_is_told() {
    let (dir, p) = project();
    let m = dir.path().join("revy.toml");
    let proposals = |cores: &str| {
        let html = dir.path().join(format!("r{cores}.html"));
        let args = [p.to_str().unwrap(), "--cores", cores, "--handoff", "0"];
        let m = m.to_str().unwrap();
        let o = revy(
            &[
                &["-m", m, "report", "-o", html.to_str().unwrap()],
                &args[..],
            ]
            .concat(),
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let page = std::fs::read_to_string(&html).unwrap();
        let d = revy::analyse::report::embedded_data(&page).expect("the page's data");
        let o = revy(&[&["-m", m, "analyze", "--format", "json"], &args[..]].concat());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let a: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let pick = |v: &serde_json::Value| -> Vec<(String, f64)> {
            v["hints"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|h| h["kind"] == "proposal")
                .map(|h| {
                    let s = h["numbers"]["predicted_speedup"].as_f64().unwrap();
                    (h["subject"].as_str().unwrap().to_string(), s)
                })
                .collect()
        };
        assert_eq!(pick(&d), pick(&a), "report and analyze, {cores} core(s)");
        assert_eq!(d["options"]["cores"], cores.parse::<u64>().unwrap());
        pick(&d)
    };
    let four = proposals("4");
    assert_eq!(four[0].0, "Worker", "{four:?}");
    assert!(four[0].1 > 2.0, "{four:?}");
    assert!(proposals("1").is_empty(), "one core: nothing to gain");
    let bad = revy(&[
        "-m",
        m.to_str().unwrap(),
        "report",
        "-o",
        "x.html",
        "--cores",
        "0",
    ]);
    assert_eq!(bad.status.code(), Some(2));
}

/// `revy whatif` checks its arguments before it reads the trace: a whole run's tree took 10
/// s and 3.7 GB (yaml-cpp's suite) before a malformed `--active` or `--cores 0` was refused.
/// Here the trace is not a trace at all: each bad argument must be named, not the file.
#[test]
fn whatif_refuses_bad_arguments_before_reading_the_trace() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("not-a-trace.rvt");
    std::fs::write(&trace, b"REVYTRC\0 this is not a trace").unwrap();
    let t = trace.to_str().unwrap();
    for (args, says) in [
        (
            &["--active", "Worker#*"][..],
            "--active Worker#*: an instance is `Class#ID`",
        ),
        (&["--active", "[x"], "--active [x: not a valid pattern"),
        (
            &["--active", "Worker", "--cores", "0"],
            "--cores must be at least 1",
        ),
        (
            &["--active", "Worker", "--handoff", "5x"],
            "--handoff 5x: unknown time unit",
        ),
        (
            &["--active", "Worker", "--latency", "1y"],
            "--latency 1y: unknown time unit",
        ),
        (
            &["--active", "Worker", "--bandwidth", "fast"],
            "--bandwidth fast: a bandwidth",
        ),
    ] {
        let o = revy(&[&["whatif", t][..], args].concat());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(
            !err.contains("not-a-trace"),
            "{args:?}: the trace was read first: {err}"
        );
    }
    // A good pattern gets as far as the trace, which is then what is named.
    let o = revy(&["whatif", t, "--active", "Worker"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not-a-trace"));
}

fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, format!("##### revy-trace 1 unit=ns\n{body}")).unwrap();
    p
}

#[test]
fn chain_names_the_callee_method_holding_most_of_the_aggregate() {
    // A.outer: ten B.small calls of 5 ns (50 in all) and one C.big of 40 ns.
    let dir = tempfile::tempdir().unwrap();
    let mut body = String::from("<Msg cls=A oid=1 mth=outer sgn=!! size=0 tid=1 t=0>\n");
    for i in 0..10u64 {
        body += &format!("<Msg cls=B oid=2 mth=small sgn=!! size=0 tid=1 t={}>\n</Msg cls=B oid=2 mth=small sgn=!! tid=1 t={}>\n", 1 + 5 * i, 6 + 5 * i);
    }
    body += "<Msg cls=C oid=3 mth=big sgn=!! size=0 tid=1 t=55>\n</Msg cls=C oid=3 mth=big sgn=!! tid=1 t=95>\n";
    body += "</Msg cls=A oid=1 mth=outer sgn=!! tid=1 t=100>\n";
    let p = write(dir.path(), "chain.dtf", &body);
    let a = analyze_path(&p, &Options::default()).unwrap();
    let chain = a
        .hints
        .iter()
        .find(|h| h.kind == "chain")
        .expect("a chain hint");
    assert!(
        chain.reason.contains("B.small on B#2 (50.0 ns"),
        "{}",
        chain.reason
    );
    assert_eq!(chain.numbers["callee_aggregate_time"], 50.0);
}

#[test]
fn one_off_messages_are_flagged_and_never_proposed() {
    // X.f: a first call of 5000 ns (class loading), then four of 10 ns.
    let dir = tempfile::tempdir().unwrap();
    let mut body = String::new();
    let mut t = 0;
    for d in [5000u64, 10, 10, 10, 10] {
        body += &format!("<Msg cls=X oid=1 mth=f sgn=!! size=0 tid=1 t={t}>\n</Msg cls=X oid=1 mth=f sgn=!! tid=1 t={}>\n", t + d);
        t += d + 1;
    }
    let p = write(dir.path(), "once.dtf", &body);
    let a = analyze_path(&p, &Options::default()).unwrap();
    assert_eq!(a.totals.one_off_messages, 1);
    assert!(
        a.messages
            .list
            .iter()
            .find(|m| m.order == 0)
            .unwrap()
            .one_off
    );
    assert_eq!(
        a.instances
            .iter()
            .find(|i| i.label == "X#1")
            .unwrap()
            .one_off_time,
        5000
    );
    let about_x: Vec<_> = a
        .hints
        .iter()
        .filter(|h| {
            h.subject.starts_with('X') && h.kind != "no-gain" && h.kind != "single-neighbour"
        })
        .map(|h| &h.text)
        .collect();
    assert!(about_x.is_empty(), "{about_x:?}");
}

#[test]
fn the_probe_cost_is_subtracted_unless_told_not_to() {
    // 100 calls of 40 ns inside one of 5000 ns; the runtime measured 30 ns per probe pair.
    let dir = tempfile::tempdir().unwrap();
    let mut body = String::from("<Msg cls=M oid=1 mth=run sgn=!! size=0 tid=1 t=0>\n");
    for i in 0..100u64 {
        body += &format!("<Msg cls=A oid=2 mth=add sgn=!! size=8 tid=1 t={}>\n</Msg cls=A oid=2 mth=add sgn=!! tid=1 t={}>\n", 50 * i + 5, 50 * i + 45);
    }
    body += "</Msg cls=M oid=1 mth=run sgn=!! tid=1 t=5000>\n";
    let p = dir.path().join("probe.dtf");
    std::fs::write(
        &p,
        format!("##### revy-trace 1 unit=ns probe_ns=30\n{body}"),
    )
    .unwrap();
    let a = analyze_path(&p, &Options::default()).unwrap();
    let add = a.instances.iter().find(|i| i.label == "A#2").unwrap();
    assert_eq!(add.active_time, 100 * 10);
    assert_eq!(a.totals.total_time, 5000 - 101 * 30);
    assert!(a.totals.compensated);
    assert_eq!(a.totals.probe_ns, Some(30.0));
    let run = a.messages.list.iter().find(|m| m.order == 0).unwrap();
    assert_eq!(run.aggregate_time, 5000 - 101 * 30);
    let raw = Options {
        compensate: false,
        ..Options::default()
    };
    let a = analyze_path(&p, &raw).unwrap();
    let add = a.instances.iter().find(|i| i.label == "A#2").unwrap();
    assert_eq!(add.active_time, 100 * 40);
    assert_eq!(a.totals.total_time, 5000);
    assert!(!a.totals.compensated);
}

/// A parsed project whose `main` sends four void `push`es of 200 ns to one Acc (1000 ns in
/// all): as an object Acc runs them one after another, as a pool of four in parallel.
/// `acc` is the class's source (stateful or not).
fn accumulator(acc: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("src")).unwrap();
    let src = format!("public class Main {{
    public static void main(String[] args) {{ Acc a = new Acc(); for (int i = 0; i < 4; i++) a.push(i); }}
}}
{acc}
");
    std::fs::write(d.join("src/Main.java"), src).unwrap();
    std::fs::write(
        d.join("revy.toml"),
        "[project]\nname = \"acc\"\nsources = [\"src/**/*.java\"]\nbuild = \"true\"\nrun = \"true\"\n",
    )
    .unwrap();
    let o = revy(&["-m", d.join("revy.toml").to_str().unwrap(), "parse"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut t = String::from(
        "##### revy-trace 1 unit=ns lang=java pid=1\n<Msg cls=Main oid=0 mth=main sgn=!String^1! size=8 tid=1 t=0>\n",
    );
    for i in 0..4 {
        t += &msg("Acc", 1, "push", "!int^0!", 10 + 240 * i, 210 + 240 * i);
    }
    t += "</Msg cls=Main oid=0 mth=main sgn=!String^1! tid=1 t=1000>\n##### end events=10\n";
    std::fs::create_dir_all(d.join(".revy/traces")).unwrap();
    let p = d.join(".revy/traces/run.dtf");
    std::fs::write(&p, t).unwrap();
    (dir, p)
}

/// Each push adds into the object's total: the calls depend on each other.
const STATEFUL_ACC: &str = "class Acc { int total; void push(int x) { total += x; } }";
/// Each push works on its argument and locals only (it reads a constant field).
const STATELESS_ACC: &str = "class Acc {
    final int rounds = 3;
    void push(int x) { long h = x; for (int r = 0; r < rounds; r++) { h = h * 31 + r; } System.identityHashCode(h); }
}";

#[test]
fn a_method_that_writes_its_object_gets_no_pool_proposal() {
    let (_dir, p) = accumulator(STATEFUL_ACC);
    let a = analyze_path(&p, &opts(4)).unwrap();
    let kinds: Vec<String> = a
        .hints
        .iter()
        .map(|h| format!("{} {}", h.kind, h.subject))
        .collect();
    assert_eq!(kinds[0], "proposal Acc#1", "{kinds:?}");
    // No pool, and no observation advising to run the method in parallel.
    assert!(
        !kinds
            .iter()
            .any(|k| k == "proposal Acc.push" || k == "candidate-method Acc.push"),
        "a pool of a stateful method: {kinds:?}"
    );
}

#[test]
fn past_the_replay_cap_a_stateful_method_is_not_advised_either() {
    let cap = |o: Options| Options {
        max_replay_messages: 2,
        ..o
    };
    let kinds = |p: &Path| -> Vec<String> {
        let a = analyze_path(p, &cap(opts(4))).unwrap();
        a.hints
            .iter()
            .map(|h| format!("{} {}", h.kind, h.subject))
            .collect()
    };
    let (_dir, p) = accumulator(STATEFUL_ACC);
    let k = kinds(&p);
    assert!(k[0].starts_with("no-gain the run"), "{k:?}");
    assert!(!k.iter().any(|k| k == "candidate-method Acc.push"), "{k:?}");
    // A stateless one keeps its observation (nothing was replayed to answer it).
    let (_dir, p) = accumulator(STATELESS_ACC);
    let k = kinds(&p);
    assert!(k.iter().any(|k| k == "candidate-method Acc.push"), "{k:?}");
}

#[test]
fn a_method_pool_ranks_below_the_object_change_and_says_when_it_holds() {
    let (_dir, p) = accumulator(STATELESS_ACC);
    let a = analyze_path(&p, &opts(4)).unwrap();
    let kinds: Vec<String> = a
        .hints
        .iter()
        .map(|h| format!("{} {}", h.kind, h.subject))
        .collect();
    let pool = kinds
        .iter()
        .position(|k| k == "proposal Acc.push")
        .expect("a pool proposal");
    // The pool predicts more (the calls overlap) but may not hold: Acc's state.
    assert!(speedup(&a, pool) > speedup(&a, 0), "{kinds:?}");
    assert_eq!(kinds[0], "proposal Acc#1", "{kinds:?}");
    assert!(
        a.hints[pool]
            .text
            .contains("write no state of their object"),
        "{}",
        a.hints[pool].text
    );
}

#[test]
fn past_the_replay_cap_the_top_hint_says_nothing_was_predicted() {
    let (_dir, p) = project();
    // No node at all fits: not even the smallest candidate can be replayed.
    let o = Options {
        max_replay_messages: 0,
        ..opts(4)
    };
    let a = analyze_path(&p, &o).unwrap();
    let top = &a.hints[0];
    assert_eq!(top.kind, "no-gain");
    assert!(
        top.text.contains("no proposal was predicted"),
        "{}",
        top.text
    );
    assert!(top.text.contains("revy whatif"), "{}", top.text);
    assert!(!a.hints.iter().any(|h| h.kind == "proposal"));
}

/// [`project`] with 20 tiny static calls (1 ns each, `Util.tick`, below every threshold)
/// inside each worker's `run`: a whole run's detail no candidate needs.
fn project_with_passive_calls() -> (tempfile::TempDir, PathBuf) {
    let (dir, p) = project();
    let t = std::fs::read_to_string(&p).unwrap();
    let mut out = String::new();
    let mut events = 0;
    for line in t.lines() {
        out += line;
        out += "\n";
        events += line.starts_with('<') as u32;
        if line.starts_with("<Msg cls=Worker") {
            let t0: u64 = line
                .rsplit("t=")
                .next()
                .unwrap()
                .trim_end_matches('>')
                .parse()
                .unwrap();
            for k in 0..20 {
                out += &msg("Util", 0, "tick", "!!", t0 + 5 + 10 * k, t0 + 6 + 10 * k);
                events += 2;
            }
        }
    }
    let out = out.replace("##### end events=10", &format!("##### end events={events}"));
    std::fs::write(&p, out).unwrap();
    (dir, p)
}

#[test]
fn past_the_replay_cap_the_candidates_are_replayed_on_their_own_messages() {
    let (_dir, p) = project_with_passive_calls();
    let whole = analyze_path(&p, &opts(4)).unwrap();
    assert_eq!(whole.totals.recorded_messages, 45);
    // 45 messages are more than 10: the replays hold the candidates' (Worker, Lexer, run,
    // next), main, and each worker's ticks merged into one node.
    let o = Options {
        max_replay_messages: 10,
        ..opts(4)
    };
    let focused = analyze_path(&p, &o).unwrap();
    let notes = &focused.advice.as_ref().unwrap().notes;
    assert!(
        notes
            .iter()
            .any(|n| n.contains("merged into 2 stretches: 7 nodes for 45 recorded messages")),
        "{notes:?}"
    );
    let (w, f) = (common::verdicts(&whole), common::verdicts(&focused));
    assert!(
        w.iter().any(|v| v.0 == "proposal" && v.1 == "Worker"),
        "{w:?}"
    );
    common::assert_same_verdicts(&w, &f);
}

#[test]
fn whatif_text_into_a_closed_pipe_ends_quietly() {
    let (dir, p) = project();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_revy"))
        .args([
            "-m",
            dir.path().join("revy.toml").to_str().unwrap(),
            "whatif",
            p.to_str().unwrap(),
            "--active",
            "Worker",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Like `| head -0`: the reader is gone before revy (measuring the handoff) writes.
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(o.status.success(), "{:?} {err}", o.status);
}

#[test]
fn the_handoff_comes_from_the_project_then_the_trace_header_unless_given() {
    // The runtime measured 5 µs on the profiled machine: analyze without a project uses it.
    let (dir, p) = project_with_header(" handoff_ns=5000");
    let header = Options {
        handoff_ns: None,
        ..opts(4)
    };
    let a = analyze_path(&p, &header).unwrap();
    let adv = a.advice.as_ref().unwrap();
    assert_eq!(adv.handoff, 5000.0);
    assert_eq!(adv.handoff_source, revy::analyse::whatif::HANDOFF_TRACE);
    let text = revy::analyse::analysis::render::text(&a, 10);
    assert!(
        text.contains("handoff 5.00 µs (trace header"),
        "{}",
        text.lines().find(|l| l.contains("handoff")).unwrap_or("")
    );
    // `--handoff` still overrides.
    let a = analyze_path(&p, &opts(4)).unwrap();
    let adv = a.advice.as_ref().unwrap();
    assert_eq!((adv.handoff, adv.handoff_source.as_str()), (0.0, "given"));
    // With a project, the project's handoff: measured once, kept in .revy/machine.toml and
    // read back by every later command, whatever the trace header says.
    let manifest = dir.path().join("revy.toml");
    let whatif = || {
        let o = revy(&[
            "-m",
            manifest.to_str().unwrap(),
            "whatif",
            p.to_str().unwrap(),
            "--active",
            "Worker",
            "--format",
            "json",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        (j, String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let (first, _) = whatif();
    let src = first["handoff_source"].as_str().unwrap().to_string();
    assert!(src.contains("kept in .revy/machine.toml"), "{src}");
    let file = dir.path().join(".revy/machine.toml");
    let kept = std::fs::read_to_string(&file).unwrap();
    assert!(
        kept.contains("[handoff]") && kept.contains("[wake_java]") && kept.contains("[post_java]"),
        "{kept}"
    );
    // A kept 1 µs against the header's 5 µs: the project's is used, the disagreement said.
    let at = kept.find("[handoff]\nns = ").expect("the handoff's entry") + 15;
    let end = at + kept[at..].find('\n').unwrap();
    let edited = format!("{}1000.0{}", &kept[..at], &kept[end..]);
    std::fs::write(&file, edited).unwrap();
    let (again, err) = whatif();
    assert_eq!(again["handoff"], 1000.0, "{err}");
    let src = again["handoff_source"].as_str().unwrap();
    assert!(
        src.ends_with("on this machine, .revy/machine.toml"),
        "{src}"
    );
    assert!(
        err.contains("the trace header's handoff (handoff_ns=5000) could not be trusted: the runtime measured 5 µs at start-up, 5.0× the project's 1 µs"),
        "{err}"
    );
    // An older trace, without the field, and no project: measured on this machine.
    let (_dir, p) = project();
    let a = analyze_path(&p, &header).unwrap();
    let adv = a.advice.as_ref().unwrap();
    assert_eq!(adv.handoff_source, revy::analyse::whatif::HANDOFF_MEASURED);
    assert!(adv.handoff > 0.0);
}

#[test]
fn past_the_replay_cap_a_run_without_candidates_is_said_to_have_none() {
    use revy::analyse::trace::synth::{generate, Spec};
    // 20 classes of 10 objects, each class about 5 % of the run, each method 1 %.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("even.rvt");
    let spec = Spec {
        events: 20_000,
        instances: 200,
        classes: 20,
        ..Spec::default()
    };
    generate(
        &spec,
        revy::analyse::trace::Form::Compact,
        std::fs::File::create(&p).unwrap(),
    )
    .unwrap();
    let o = Options {
        max_replay_messages: 10,
        ..opts(2)
    };
    let a = analyze_path(&p, &o).unwrap();
    assert!(a.totals.recorded_messages > 10);
    let top = &a.hints[0];
    assert_eq!(top.kind, "no-gain");
    // Before, a run past the cap was "not evaluated" whatever it held.
    assert!(
        top.text
            .contains("no class, instance or method is above the threshold"),
        "{}",
        top.text
    );
    assert_eq!(a.advice.as_ref().unwrap().candidates, 0);
    // The same statement as a replay of every message gives.
    let whole = analyze_path(&p, &opts(2)).unwrap();
    assert_eq!(whole.hints[0].text, top.text);
}

/// [`project`] with 40 short `Lexer.next` calls (8 ns each) instead of two: the Lexer is
/// less active than the workers but receives most messages.
fn project_with_many_lexer_calls() -> (tempfile::TempDir, PathBuf) {
    let (dir, p) = project();
    let t = std::fs::read_to_string(&p).unwrap();
    let mut out = String::new();
    for line in t.lines() {
        if line.contains("cls=Lexer") {
            continue;
        }
        if line.starts_with("</Msg cls=Main") {
            for k in 0..40 {
                out += &msg("Lexer", 3, "next", "!!", 630 + 9 * k, 638 + 9 * k);
            }
        }
        out += line;
        out += "\n";
    }
    let out = out.replace("##### end events=10", "##### end events=86");
    std::fs::write(&p, out).unwrap();
    (dir, p)
}

#[test]
fn past_the_replay_cap_the_most_active_candidates_that_fit_are_replayed() {
    let (_dir, p) = project_with_many_lexer_calls();
    let whole = analyze_path(&p, &opts(4)).unwrap();
    assert_eq!(whole.totals.recorded_messages, 43);
    // 43 messages are more than 10, and every candidate's together more than the focused
    // cap (20 nodes): the workers (their 2 messages) are replayed, the Lexer (40) is not.
    let o = Options {
        max_replay_messages: 10,
        ..opts(4)
    };
    let part = analyze_path(&p, &o).unwrap();
    let notes = &part.advice.as_ref().unwrap().notes;
    let left = notes
        .iter()
        .find(|n| n.starts_with("not replayed"))
        .unwrap_or_else(|| panic!("{notes:?}"));
    assert!(
        left.contains("Lexer#3") && !left.contains("Worker"),
        "{left}"
    );
    let speed = |a: &Analysis, s: &str| {
        a.hints
            .iter()
            .find(|h| h.subject == s && h.numbers.contains_key("predicted_speedup"))
            .map(|h| (h.kind.to_string(), h.numbers["predicted_speedup"]))
    };
    let w = speed(&whole, "Worker").expect("a verdict on Worker");
    assert_eq!(w.0, "proposal");
    assert_eq!(speed(&part, "Worker").map(|x| x.0), Some(w.0));
    assert!((speed(&part, "Worker").unwrap().1 - w.1).abs() < 1e-9);
    assert!(speed(&part, "Lexer#3").is_none());
    assert!(speed(&whole, "Lexer#3").is_some());
}

#[test]
fn no_proposals_skips_the_replays() {
    let (_dir, p) = project();
    let json = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "analyze",
            p.to_str().unwrap(),
            "--format",
            "json",
            "--cores",
            "4",
        ];
        args.extend_from_slice(extra);
        let o = revy(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let kinds = |j: &serde_json::Value| -> Vec<String> {
        j["hints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["kind"].as_str().unwrap().to_string())
            .collect()
    };
    let with = json(&["--handoff", "0"]);
    assert!(
        kinds(&with).contains(&"proposal".to_string()),
        "{:?}",
        kinds(&with)
    );
    let without = json(&["--handoff", "0", "--no-proposals"]);
    assert!(without["advice"].is_null(), "{}", without["advice"]);
    assert!(
        !kinds(&without)
            .iter()
            .any(|k| k == "proposal" || k == "no-gain"),
        "{:?}",
        kinds(&without)
    );
}

/// A trace whose most active instance is the stand-in of objects the runtime folded into
/// their class (`F#*`: 1000 calls only counted, 46 % of the run), beside two small recorded
/// objects.
const FOLDED: &str = "##### revy-trace 1 unit=ns lang=java pid=1
<Msg cls=Main oid=0 mth=main sgn=!String^1! size=8 tid=1 t=0>
<Msg cls=G oid=7 mth=step sgn=!! size=0 tid=1 t=10>
</Msg cls=G oid=7 mth=step sgn=!! tid=1 t=50000>
<Msg cls=G oid=8 mth=step sgn=!! size=0 tid=1 t=50010>
</Msg cls=G oid=8 mth=step sgn=!! tid=1 t=100000>
</Msg cls=Main oid=0 mth=main sgn=!String^1! tid=1 t=1000000>
##### aggregate tid=1 last_t=1000000 folded=1000 dropped=0
##### aggregate-method tid=1 cls=F mth=work sgn=!! calls=1000 agg=850000 net=850000 size=0 agg_min=850 agg_max=850 net_min=850 net_max=850 size_min=0 size_max=0
##### aggregate-edge tid=1 from_cls=Main from_oid=0 cls=F mth=work sgn=!! oid=* calls=1000 agg=850000 net=850000 size=0
##### end events=6
";

#[test]
fn a_folded_stand_in_is_no_candidate() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("folded.dtf");
    std::fs::write(&p, FOLDED).unwrap();
    let a = analyze_path(&p, &opts(2)).unwrap();
    // Before, `F#*` was "replayed" holding none of its calls: "gains only 1.00× (little of
    // its work overlaps its callers')".
    assert!(
        !a.hints
            .iter()
            .any(|h| h.subject == "F#*" && h.numbers.contains_key("predicted_speedup")),
        "{:?}",
        a.hints.iter().map(|h| &h.text).collect::<Vec<_>>()
    );
    let top = &a.hints[0];
    assert_eq!(
        (top.kind.to_string().as_str(), top.subject.as_str()),
        ("no-gain", "the run")
    );
    assert!(
        top.text
            .contains("F#* stand(s) for objects the runtime folded"),
        "{}",
        top.text
    );
}

#[test]
fn a_method_pool_that_gains_nothing_is_not_called_an_active_object() {
    let (_dir, p) = project();
    let a = analyze_path(&p, &opts(4)).unwrap();
    let next = a
        .hints
        .iter()
        .find(|h| h.subject == "Lexer.next" && h.kind == "no-gain")
        .unwrap_or_else(|| panic!("{:?}", a.hints.iter().map(|h| &h.text).collect::<Vec<_>>()));
    // `next` returns a value: main waits for each call, wherever it runs.
    assert!(
        next.text
            .contains("every caller waits for its result: a pool for its calls gains nothing"),
        "{}",
        next.text
    );
}

/// [`project`]'s sources with a trace of two threads that each call `Lexer#3.next` (a value),
/// then `Worker#1.run` (void, the threads' last call) at the same time: 400 ns each.
fn project_with_concurrent_callers() -> (tempfile::TempDir, PathBuf) {
    let (dir, _) = project();
    let d = dir.path();
    let mut t = String::from("##### revy-trace 1 unit=ns lang=java pid=1\n");
    for tid in [1, 2] {
        t += &format!("<Msg cls=Main oid=0 mth=main sgn=!String^1! size=8 tid={tid} t=0>\n");
    }
    for tid in [1, 2] {
        t += &msg_on(tid, "Lexer", 3, "next", "!!", 10, 410);
    }
    for tid in [1, 2] {
        t += &msg_on(tid, "Worker", 1, "run", "!int^0!", 420, 820);
    }
    for tid in [1, 2] {
        t += &format!("</Msg cls=Main oid=0 mth=main sgn=!String^1! tid={tid} t=830>\n");
    }
    t += "##### end events=12\n";
    let p = d.join(".revy/traces/run.dtf");
    std::fs::write(&p, t).unwrap();
    (dir, p)
}

/// A change that loses because calls made at once on two threads would queue on the object's
/// one thread says so, not that its messages are too fine-grained (with a handoff of 0 ns,
/// as it said before).
#[test]
fn a_change_that_serialises_concurrent_callers_says_so() {
    let (_dir, p) = project_with_concurrent_callers();
    let a = analyze_path(&p, &opts(4)).unwrap();
    let hint = |s: &str| {
        a.hints
            .iter()
            .find(|h| h.subject == s && h.kind == "no-gain")
            .unwrap_or_else(|| panic!("no statement on {s}: {:?}", a.hints))
    };
    let worker = hint("Worker#1");
    assert!(
        worker.numbers["predicted_speedup"] < 0.95,
        "{}",
        worker.text
    );
    assert!(
        worker
            .text
            .contains("ran on 2 threads, up to 2 at once, and would queue for its one thread"),
        "{}",
        worker.text
    );
    assert!(!worker.text.contains("fine-grained"), "{}", worker.text);
    let lexer = hint("Lexer#3");
    assert!(lexer.text.contains("every caller waits"), "{}", lexer.text);
    assert!(
        lexer.text.contains("would queue for its one thread"),
        "{}",
        lexer.text
    );
    assert!(!lexer.text.contains("handoffs make"), "{}", lexer.text);
}

/// A trace written outside the project (`REVY_TRACE=/elsewhere/…`) is analysed with the
/// manifest's SAF: `run` returns nothing, so the workers are proposed. Before, `analyze`
/// looked for a SAF beside the trace only, took every method to return a value and said
/// every caller waits.
#[test]
fn a_trace_outside_the_project_uses_the_manifests_saf() {
    let (dir, p) = project();
    let elsewhere = tempfile::tempdir().unwrap();
    let q = elsewhere.path().join("run.dtf");
    std::fs::copy(&p, &q).unwrap();
    let manifest = dir.path().join("revy.toml");
    let o = revy(&[
        "-m",
        manifest.to_str().unwrap(),
        "analyze",
        q.to_str().unwrap(),
        "--cores",
        "4",
        "--handoff",
        "0",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!out.contains("no known return type"), "{out}");
    assert!(out.contains("[proposal] Worker"), "{out}");
    assert!(out.contains("`run` return(s) nothing"), "{out}");
}

/// The project's `[handoff]` entry rewritten with a point `ns` and its windows' ends (the
/// wake-up curve measured with it dropped: the flat handoff, whatever this machine's idle
/// CPUs did meanwhile).
fn kept_handoff(file: &std::path::Path, ns: f64, fast: f64, slow: f64, share: f64) {
    let mut kept: toml::Table = toml::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    kept.remove("wake_after_idle");
    // The at-the-queue post's own two states (the VM's cache-line state) would add a second
    // axis to the range: kept as one figure, so only the handoff's windows decide.
    for (name, t) in kept.iter_mut() {
        if name.starts_with("enqueue_") {
            if let Some(t) = t.as_table_mut() {
                t.remove("fast_ns");
                t.remove("slow_ns");
            }
        }
    }
    let h = kept["handoff"].as_table_mut().expect("a kept handoff");
    h.insert("ns".into(), ns.into());
    h.insert("fast_ns".into(), fast.into());
    h.insert("slow_ns".into(), slow.into());
    h.insert("slow_share".into(), share.into());
    std::fs::write(file, toml::to_string(&kept).unwrap()).unwrap();
}

#[test]
fn a_handoff_kept_in_two_states_gives_a_range_and_one_state_a_point() {
    let (dir, p) = project();
    let manifest = dir.path().join("revy.toml");
    let run = |extra: &[&str], format: &str| {
        let mut args = vec![
            "-m",
            manifest.to_str().unwrap(),
            "whatif",
            p.to_str().unwrap(),
            "--active",
            "Lexer",
            "--format",
            format,
        ];
        args.extend_from_slice(extra);
        let o = revy(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let json = |extra: &[&str]| -> serde_json::Value {
        serde_json::from_str(&run(extra, "json")).unwrap()
    };
    json(&[]);
    let file = dir.path().join(".revy/machine.toml");
    let kept = std::fs::read_to_string(&file).unwrap();
    assert!(kept.contains("windows = ["), "the windows are kept: {kept}");
    // Windows 1 µs and 10 µs apart: two states, predicted at both ends; the point stays
    // the median's (Lexer's callers wait: the slow end loses more).
    kept_handoff(&file, 1_000.0, 1_000.0, 10_000.0, 0.25);
    let two = json(&[]);
    assert_eq!(two["handoff"], 1000.0);
    let r = &two["handoff_range"];
    assert_eq!(
        (r["handoff_fast"].as_f64(), r["handoff_slow"].as_f64()),
        (Some(1000.0), Some(10000.0))
    );
    assert_eq!(r["slow_share"], 0.25);
    let (fast, slow) = (
        r["predicted_speedup_fast"].as_f64().unwrap(),
        r["predicted_speedup_slow"].as_f64().unwrap(),
    );
    assert!(slow < fast, "{r}");
    assert_eq!(
        (r["speedup_low"].as_f64(), r["speedup_high"].as_f64()),
        (Some(slow), Some(fast))
    );
    let point = two["predicted_speedup"].as_f64().unwrap();
    assert!(
        (point - fast).abs() < 1e-9,
        "the point is at the median (1 µs): {point} {r}"
    );
    let text = run(&[], "text");
    assert!(text.contains("with the slow state's 10.0 µs and"), "{text}");
    // The analysis's verdicts give both ends too.
    let o = revy(&[
        "-m",
        manifest.to_str().unwrap(),
        "analyze",
        p.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let a: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        a["advice"]["handoff_range"]["slow"], 10000.0,
        "{}",
        a["advice"]
    );
    common::check_schema(&a);
    let ranged = a["hints"].as_array().unwrap().iter().any(|h| {
        h["numbers"]["predicted_speedup_slow_handoff"].is_number()
            && h["text"]
                .as_str()
                .unwrap()
                .contains("with the slow state's)")
    });
    assert!(ranged, "{}", a["hints"]);
    // `--handoff` overrides: no range.
    let given = json(&["--handoff", "2us"]);
    assert!(
        given.get("handoff_range").is_none(),
        "{}",
        given["handoff_range"]
    );
    // Windows that agree (within 2×): one figure, as before.
    kept_handoff(&file, 1_000.0, 900.0, 1_500.0, 0.1);
    let one = json(&[]);
    assert!(one.get("handoff_range").is_none(), "{one}");
    assert!(!run(&[], "text").contains("range"));
}
