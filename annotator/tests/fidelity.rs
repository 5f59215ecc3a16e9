//! The numbers hold when the runtime's calibration was taken on a busy machine: the probe
//! cost subtracted is bounded by the messages themselves, the run has one length, and
//! methods whose time is mostly probe cost say so.

use std::path::{Path, PathBuf};

use revy::analyse::analysis::{analyze_path, Options};

mod common;
use common::{ok, revy};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The bank example's shape with the header a preempted calibration wrote: messages take
/// 491..3000 ns raw, the header says 28,522 ns.
const BANK: &str = "##### revy-trace 1 unit=ns lang=java pid=7 probe_ns=28522.1
<Crt cls=Bank oid=1 size=16 tid=1 t=0>
<Crt cls=Account oid=2 size=24 tid=1 t=10>
<Msg cls=Bank oid=1 mth=run sgn=!! size=0 tid=1 t=100>
<Msg cls=Account oid=2 mth=transfer sgn=!int^0! size=4 tid=1 t=200>
<Msg cls=Account oid=2 mth=deposit sgn=!int^0! size=4 tid=1 t=1200>
</Msg cls=Account oid=2 mth=deposit sgn=!int^0! tid=1 t=1691>
</Msg cls=Account oid=2 mth=transfer sgn=!int^0! tid=1 t=3200>
<Msg cls=Account oid=2 mth=deposit sgn=!int^0! size=4 tid=1 t=3300>
</Msg cls=Account oid=2 mth=deposit sgn=!int^0! tid=1 t=4100>
</Msg cls=Bank oid=1 mth=run sgn=!! tid=1 t=5000>
";

fn net(a: &revy::analyse::analysis::Analysis, method: &str) -> u64 {
    a.methods
        .iter()
        .find(|m| m.method == method)
        .unwrap()
        .net_time
        .total
}

/// Fails before the cap: every message lost 28,522 ns and every method showed 0.
#[test]
fn an_implausible_probe_cost_is_capped_at_the_shortest_message() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "bank.dtf", BANK);
    let opts = Options {
        proposals: false,
        ..Default::default()
    };
    let a = analyze_path(&p, &opts).unwrap();
    // Raw nets: run 100+800+900 = 1800... (see BANK); 491 is the smallest.
    assert!(a.totals.probe.capped, "{:?}", a.totals.probe);
    assert_eq!(a.totals.probe.used_ns, 491.0);
    assert_eq!(a.totals.probe.header_ns, Some(28522.1));
    // transfer: 3000 aggregate − 491 for deposit = 2509 raw net, less 491.
    assert_eq!(net(&a, "transfer"), 2509 - 491);
    assert_eq!(net(&a, "deposit"), 800 - 491);
    assert!(net(&a, "run") > 0);
    assert!(
        a.trace
            .warnings
            .iter()
            .any(|w| w.contains("probe_ns=28522.1") && w.contains("491 ns")),
        "{:?}",
        a.trace.warnings
    );

    // --probe-ns overrides the header (and is not capped: the user said so).
    let given = Options {
        probe_ns: Some(100.0),
        ..opts.clone()
    };
    let g = analyze_path(&p, &given).unwrap();
    assert!(!g.totals.probe.capped);
    assert_eq!(g.totals.probe.used_ns, 100.0);
    assert_eq!(net(&g, "deposit"), 491 - 100 + 800 - 100);
    assert!(g.trace.warnings.iter().all(|w| !w.contains("probe_ns=")));

    // The text says what was subtracted and warns; whatif warns too.
    let text = ok(
        &revy(&["analyze", p.to_str().unwrap(), "--no-proposals"]),
        "analyze",
    );
    assert!(
        text.contains("probe cost 491 ns per message subtracted (header's 28522.1 ns capped"),
        "{text}"
    );
    let out = revy(&[
        "analyze",
        p.to_str().unwrap(),
        "--no-proposals",
        "--probe-ns",
        "100",
    ]);
    assert!(
        ok(&out, "analyze --probe-ns").contains("probe cost 100 ns per message subtracted (given)")
    );
    // estimate takes the same cost (it assumed the benches' 55 ns for Java before).
    let e = ok(
        &revy(&["estimate", p.to_str().unwrap(), "--format", "json"]),
        "estimate",
    );
    let e: serde_json::Value = serde_json::from_str(&e).unwrap();
    assert_eq!(e["probe_ns"], serde_json::json!(491.0));
    let w = revy(&["whatif", p.to_str().unwrap(), "--active", "Account"]);
    ok(&w, "whatif");
    assert!(
        String::from_utf8_lossy(&w.stderr).contains("probe_ns=28522.1"),
        "{}",
        String::from_utf8_lossy(&w.stderr)
    );
}

/// Two threads, 0..1000 and 500..2000: the run is 2000 long, busy 2500, in every command.
#[test]
fn the_run_has_one_length() {
    let dir = tempfile::tempdir().unwrap();
    let trace = "##### revy-trace 1 unit=ns lang=java pid=7
<Crt cls=A oid=1 size=16 tid=1 t=0>
<Msg cls=A oid=1 mth=f sgn=!! size=0 tid=1 t=0>
</Msg cls=A oid=1 mth=f sgn=!! tid=1 t=1000>
<Msg cls=A oid=1 mth=g sgn=!! size=0 tid=2 t=500>
</Msg cls=A oid=1 mth=g sgn=!! tid=2 t=2000>
";
    let p = write(dir.path(), "two.dtf", trace);
    let a = analyze_path(
        &p,
        &Options {
            proposals: false,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!((a.totals.run_span, a.totals.total_time), (2000, 2500));
    let text = ok(
        &revy(&["analyze", p.to_str().unwrap(), "--no-proposals"]),
        "analyze",
    );
    assert!(
        text.contains("Run 2.00 µs (wall span); busy 2.50 µs over 2 thread(s)"),
        "{text}"
    );
}

/// A source → channel → scorer pipeline on two threads: the channel's `take` blocks
/// (wall 9,000 ns, 300 on the CPU), the scorer works (wall = CPU). Before the split the
/// channel ranked first on its blocked time; now it ranks by its work, the scorer first,
/// and an observation says the channel waits.
const PIPELINE: &str = "##### revy-trace 1 unit=ns lang=java pid=7
<Crt cls=Channel oid=3 size=16 tid=1 t=0>
<Crt cls=Scorer oid=4 size=16 tid=1 t=1>
<Msg cls=Scorer oid=4 mth=run sgn=!! size=0 tid=2 t=10>
<Msg cls=Channel oid=3 mth=take sgn=!! size=0 tid=2 t=20>
</Msg cls=Channel oid=3 mth=take sgn=!! tid=2 t=9020 cpu=300>
<Msg cls=Scorer oid=4 mth=score sgn=!! size=0 tid=2 t=9030>
</Msg cls=Scorer oid=4 mth=score sgn=!! tid=2 t=13030 cpu=4000>
<Msg cls=Channel oid=3 mth=take sgn=!! size=0 tid=2 t=13040>
</Msg cls=Channel oid=3 mth=take sgn=!! tid=2 t=22040 cpu=300>
<Msg cls=Scorer oid=4 mth=score sgn=!! size=0 tid=2 t=22050>
</Msg cls=Scorer oid=4 mth=score sgn=!! tid=2 t=26050 cpu=4000>
</Msg cls=Scorer oid=4 mth=run sgn=!! tid=2 t=26060>
";

/// Fails before: Channel#3 had active time 18,000 (first), no waiting, no observation.
#[test]
fn blocked_time_is_waiting_not_work() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "pipe.dtf", PIPELINE);
    let a = analyze_path(
        &p,
        &Options {
            proposals: false,
            ..Default::default()
        },
    )
    .unwrap();
    let inst = |label: &str| a.instances.iter().find(|i| i.label == label).unwrap();
    let (ch, sc) = (inst("Channel#3"), inst("Scorer#4"));
    assert_eq!((ch.active_time, ch.waiting), (600, 17400));
    assert_eq!(sc.waiting, 0);
    assert!(sc.active_time > ch.active_time, "{sc:?} {ch:?}");
    let take = a.methods.iter().find(|m| m.method == "take").unwrap();
    assert_eq!((take.net_time.total, take.waiting), (600, 17400));
    assert_eq!(a.totals.waiting_time, 17400);
    let w = a
        .hints
        .iter()
        .find(|h| h.kind == revy::analyse::analysis::hints::HintKind::Waits)
        .expect("a waits observation");
    assert!(
        w.text
            .starts_with("Channel#3: waits 97 % of its active time")
            && w.text.contains("a synchronisation point, not work")
            && w.text.contains("mostly in Channel.take"),
        "{}",
        w.text
    );
    // Every candidate names the scorer, never the channel.
    assert!(a
        .hints
        .iter()
        .filter(|h| h.kind == revy::analyse::analysis::hints::HintKind::CandidateInstance)
        .all(|h| h.subject == "Scorer#4"));
}

/// An auditor whose 20 calls take 1,000 ns of work each, one of them preempted for
/// 200,000 ns: on wall time that call was a one-off and hid the auditor; on work time it
/// is an ordinary call. Fails before: one_off_messages 1, one_off_time 201,000.
#[test]
fn preemption_never_makes_a_one_off() {
    let mut t = String::from(
        "##### revy-trace 1 unit=ns lang=java pid=7\n<Crt cls=Auditor oid=2 size=16 tid=1 t=0>\n",
    );
    let mut now = 10u64;
    for k in 0..20 {
        let wall = if k == 7 { 201_000 } else { 1_000 };
        t += &format!("<Msg cls=Auditor oid=2 mth=audit sgn=!! size=0 tid=1 t={now}>\n");
        t += &format!(
            "</Msg cls=Auditor oid=2 mth=audit sgn=!! tid=1 t={} cpu=1000>\n",
            now + wall
        );
        now += wall + 10;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "audit.dtf", &t);
    let a = analyze_path(
        &p,
        &Options {
            proposals: false,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(a.totals.one_off_messages, 0);
    let au = a.instances.iter().find(|i| i.label == "Auditor#2").unwrap();
    assert_eq!(
        (au.one_off_time, au.active_time, au.waiting),
        (0, 20_000, 200_000)
    );
}
