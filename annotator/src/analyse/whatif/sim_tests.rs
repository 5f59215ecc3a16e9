//! The replay on hand-built traces (text DTF, unit ns).

use std::io::Write;

use super::*;
use crate::analyse::whatif::plan::add_pattern;

/// `spec` lines: `+Class oid method size t` starts, `-Class oid method t` ends, `tid` first.
fn tree(spec: &str, probe_ns: Option<u64>, void: &[&str]) -> (Tree, tempfile::NamedTempFile) {
    let mut f = tempfile::Builder::new().suffix(".dtf").tempfile().unwrap();
    let probe = probe_ns.map_or(String::new(), |p| format!(" probe_ns={p}"));
    writeln!(f, "##### revy-trace 1 unit=ns lang=java pid=1{probe}").unwrap();
    for l in spec.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let w: Vec<&str> = l.split_whitespace().collect();
        let (tid, kind, cls, oid, mth) = (w[0], w[1], w[2], w[3], w[4]);
        match kind {
            "+" => writeln!(
                f,
                "<Msg cls={cls} oid={oid} mth={mth} sgn=!! size={} tid={tid} t={}>",
                w[5], w[6]
            ),
            _ => writeln!(
                f,
                "</Msg cls={cls} oid={oid} mth={mth} sgn=!! tid={tid} t={}>",
                w[5]
            ),
        }
        .unwrap();
    }
    writeln!(f, "##### end events=0").unwrap();
    f.flush().unwrap();
    let mut t = Tree::load(&[f.path().to_path_buf()], true).unwrap();
    for m in &mut t.methods {
        m.void = Some(void.contains(&m.name.as_str()));
    }
    (t, f)
}

fn params(cores: usize) -> Params {
    Params {
        cores,
        handoff: 0.0,
        enqueue: 0.0,
        wake: 0.0,
        post: 0.0,
        take: 0.0,
        latency: 0.0,
        bandwidth: None,
        wake_curve: None,
    }
}

fn run(t: &Tree, active: &[&str], p: &Params) -> (Outcome, Outcome) {
    let mut plan = Plan::default();
    for a in active {
        add_pattern(t, &mut plan, a).unwrap();
    }
    let agg = compensated_aggregates(t);
    (
        replay(t, &Plan::default(), p, &agg),
        replay(t, &plan, p, &agg),
    )
}

/// main sends `run` to two workers, 100 ns of work each, 2 ns of its own in between.
const TWO_WORKERS: &str = "
    1 + Main 0 main 0 0
    1 + W 1 run 0 1
    1 - W 1 run 101
    1 + W 2 run 0 102
    1 - W 2 run 202
    1 - Main 0 main 203
";

#[test]
fn two_workers_on_one_core_gain_nothing() {
    let (t, _f) = tree(TWO_WORKERS, None, &["run"]);
    let (base, one) = run(&t, &["W"], &params(1));
    assert_eq!(base.time, 203.0);
    assert!((one.time - 203.0).abs() < 1e-6, "{}", one.time);
    let (_, two) = run(&t, &["W"], &params(2));
    // The workers overlap each other and main: the second starts at 2 and runs 100 ns
    // (a little more: for 1 ns three threads share the two cores).
    assert!((102.0..=103.0).contains(&two.time), "{}", two.time);
    assert_eq!(two.async_sends, 2);
}

#[test]
fn a_non_void_message_blocks_its_sender() {
    let (t, _f) = tree(TWO_WORKERS, None, &[]);
    let (base, out) = run(&t, &["W"], &params(4));
    assert_eq!(out.time, base.time);
    assert_eq!((out.sync_sends, out.async_sends), (2, 0));
    assert_eq!(out.waits.len(), 2);
    assert!(out.waits.iter().all(|w| (w.time - 100.0).abs() < 1e-6));
}

#[test]
fn critical_path_runs_through_the_slowest_worker() {
    let spec = "
        1 + Main 0 main 0 0
        1 + W 1 run 0 0
        1 - W 1 run 50
        1 + W 2 run 0 50
        1 - W 2 run 350
        1 + W 1 run 0 350
        1 - W 1 run 400
        1 - Main 0 main 400
    ";
    let (t, _f) = tree(spec, None, &["run"]);
    let (_, out) = run(&t, &["W#2"], &params(4));
    // W#2 runs 300 ns from t=50 while main runs W#1 inline.
    assert!((out.time - 350.0).abs() < 1e-6, "{}", out.time);
    let path: Vec<String> = out
        .critical
        .iter()
        .map(|s| out.execs[s.exec as usize].label.clone())
        .collect();
    assert_eq!(path.first().map(String::as_str), Some("root@1"));
    assert_eq!(path.last().map(String::as_str), Some("W#2"));
    let on_w2: f64 = out
        .critical
        .iter()
        .filter(|s| out.execs[s.exec as usize].label == "W#2")
        .map(|s| s.work)
        .sum();
    assert!((on_w2 - 300.0).abs() < 1e-6);
}

#[test]
fn messages_to_one_receiver_run_in_send_order() {
    // A big first message is slower to ship than the small second one, yet runs first.
    let spec = "
        1 + Main 0 main 0 0
        1 + A 1 first 1000 1
        1 - A 1 first 11
        1 + A 1 second 0 12
        1 - A 1 second 22
        1 - Main 0 main 23
    ";
    let (t, _f) = tree(spec, None, &["first", "second"]);
    let mut p = params(2);
    p.bandwidth = Some(10.0); // bytes per ns: the first message takes 100 ns to ship
    let (_, out) = run(&t, &["A"], &p);
    let order: Vec<&str> = out
        .critical
        .iter()
        .filter(|s| out.execs[s.exec as usize].label == "A#1")
        .map(|s| {
            t.methods[t.nodes[s.node as usize].method as usize]
                .name
                .as_str()
        })
        .collect();
    assert_eq!(order, ["first", "second"]);
    assert!(out.time >= 1.0 + 100.0 + 20.0 - 1e-6, "{}", out.time);
}

#[test]
fn probe_cost_is_taken_off_every_message_once() {
    // 100 tiny calls of 40 ns each, of which 30 ns are the probe.
    let mut spec = String::from("1 + Main 0 main 0 0\n");
    for i in 0..100u64 {
        spec += &format!(
            "1 + A 1 add 0 {}\n1 - A 1 add {}\n",
            50 * i + 5,
            50 * i + 45
        );
    }
    spec += "1 - Main 0 main 5000\n";
    let (t, _f) = tree(&spec, Some(30), &["add"]);
    let (base, _) = run(&t, &[], &params(1));
    // 5000 ns span, less 30 ns for each of the 101 messages.
    assert!(
        (base.time - (5000.0 - 30.0 * 101.0)).abs() < 1e-6,
        "{}",
        base.time
    );
    let (t, _f) = {
        let mut x = tree(&spec, Some(30), &["add"]);
        x.0 = Tree::load(&[x.1.path().to_path_buf()], false).unwrap();
        x
    };
    let (base, _) = run(&t, &[], &params(1));
    assert_eq!(base.time, 5000.0);
}

#[test]
fn mutual_calls_between_active_objects_do_not_deadlock() {
    // A.ask → B.answer → A.lookup, all returning values.
    let spec = "
        1 + Main 0 main 0 0
        1 + A 1 ask 0 0
        1 + B 2 answer 0 10
        1 + A 1 lookup 0 20
        1 - A 1 lookup 30
        1 - B 2 answer 40
        1 - A 1 ask 50
        1 - Main 0 main 50
    ";
    let (t, _f) = tree(spec, None, &[]);
    let (_, out) = run(&t, &["A", "B"], &params(2));
    assert!(out.deadlocked.is_empty(), "{:?}", out.deadlocked);
    assert!((out.time - 50.0).abs() < 1e-6, "{}", out.time);
}

#[test]
fn handoff_eats_the_gain_of_fine_grained_messages() {
    let mut spec = String::from("1 + Main 0 main 0 0\n");
    for i in 0..100u64 {
        spec += &format!("1 + A 1 put 8 {}\n1 - A 1 put {}\n", 10 * i, 10 * i + 5);
    }
    spec += "1 - Main 0 main 1000\n";
    let (t, _f) = tree(&spec, None, &["put"]);
    let mut p = params(2);
    p.handoff = 20.0;
    // Posting costs the sender more than the 5 ns it hands over.
    p.enqueue = 8.0;
    p.wake = 8.0;
    p.post = 8.0;
    let (base, out) = run(&t, &["A"], &p);
    assert!(out.time > base.time, "{} vs {}", out.time, base.time);
}

#[test]
fn an_asynchronous_sender_pays_the_wake_up_only_to_an_idle_receiver_then_posts_behind() {
    // 100 void `put`s of 50 ns to A, 5 ns of main's own work between them: A is busy all
    // along, so only the first post wakes it (a system call); each later one costs main
    // only a post to a busy receiver.
    let mut spec = String::from("1 + Main 0 main 0 0\n");
    for i in 0..100u64 {
        spec += &format!(
            "1 + A 1 put 8 {}\n1 - A 1 put {}\n",
            55 * i + 5,
            55 * i + 55
        );
    }
    spec += "1 - Main 0 main 5500\n";
    let (t, _f) = tree(&spec, None, &["put"]);
    let mut p = params(2);
    p.handoff = 20.0;
    p.wake = 3.0;
    p.enqueue = 1.0;
    p.post = 0.5;
    let (base, out) = run(&t, &["A"], &p);
    // main: 100 × 5 + 3 + 99 × 0.5 (A is still waking at the second post, the first
    // queued: each later post goes behind others) = 552.5; A: one wake-up (20) from the first post, then
    // 100 × 50 back to back.
    assert!((base.time - 5500.0).abs() < 1e-6, "{}", base.time);
    assert!(
        (out.time - (5.0 + 20.0 + 5000.0)).abs() < 1.0,
        "{}",
        out.time
    );
    let main = &out.execs[0];
    assert!((main.busy - 552.5).abs() < 1e-6, "{}", main.busy);
    assert!((out.wakes - 1.0).abs() < 1e-9, "{}", out.wakes);
}

/// `n` void `put`s to A, 500 ns apart, each `work` ns long.
fn spaced_puts(work: u64) -> String {
    let mut spec = String::from("1 + Main 0 main 0 0\n");
    for i in 0..10u64 {
        spec += &format!(
            "1 + A 1 put 8 {}\n1 - A 1 put {}\n",
            500 * i + 500 - work,
            500 * i + 500
        );
    }
    spec + "1 - Main 0 main 5000\n"
}

fn post_params() -> Params {
    let mut p = params(2);
    p.handoff = 20.0;
    p.wake = 3.0;
    p.enqueue = 1.0;
    p.post = 0.5;
    p
}

#[test]
fn every_post_to_a_receiver_that_drains_its_queue_wakes_it() {
    // 30 ns of work, at least the handoff: A empties its queue and blocks before the next
    // post, so each post wakes it and costs main the system call.
    let (t, _f) = tree(&spaced_puts(30), None, &["put"]);
    let (_, out) = run(&t, &["A"], &post_params());
    assert!((out.wakes - 10.0).abs() < 1e-9, "{}", out.wakes);
    assert!((out.execs[0].busy - (10.0 * 470.0 + 30.0)).abs() < 1e-6);
}

#[test]
fn a_post_finer_than_the_handoff_pays_the_queue_whatever_it_finds() {
    // 5 ns of work, below the 20 ns handoff: the receiver is back at the queue as soon as
    // it is fed, so each post pays the enqueue figure, never the system call of a wake-up.
    let (t, _f) = tree(&spaced_puts(5), None, &["put"]);
    let (_, out) = run(&t, &["A"], &post_params());
    assert!(out.wakes.abs() < 1e-9, "{}", out.wakes);
    assert!((out.execs[0].busy - (10.0 * 495.0 + 10.0)).abs() < 1e-6);
}

/// 100 void `put`s of 5 ns (finer than the 20 ns handoff), 1 ns of main's own work between
/// them: main posts at the queue (1 ns own + 1 ns enqueue each), A takes each off it (4 ns)
/// before its work, so A bounds the run. Fails before: A paid only the work (5 ns each) and
/// the run was predicted 1 + 20 + 500 ns.
#[test]
fn a_fine_grained_receiver_pays_a_take_per_message_and_bounds_the_run() {
    let mut spec = String::from("1 + Main 0 main 0 0\n");
    for i in 0..100u64 {
        spec += &format!("1 + A 1 put 8 {}\n1 - A 1 put {}\n", 6 * i + 1, 6 * i + 6);
    }
    spec += "1 - Main 0 main 600\n";
    let (t, _f) = tree(&spec, None, &["put"]);
    let mut p = post_params();
    p.take = 4.0;
    let (base, out) = run(&t, &["A"], &p);
    assert!((base.time - 600.0).abs() < 1e-6, "{}", base.time);
    // A: woken once (20), then 100 × (4 take + 5 work) back to back behind main's posts.
    assert!((out.take_time - 400.0).abs() < 1e-6, "{}", out.take_time);
    let a = &out.execs[1];
    assert!((a.busy - 900.0).abs() < 1e-6, "{}", a.busy);
    assert!(
        (out.time - (1.0 + 20.0 + 900.0)).abs() < 1.0,
        "{}",
        out.time
    );
    assert!(
        (out.execs[0].busy - 200.0).abs() < 1e-6,
        "{}",
        out.execs[0].busy
    );
    // The verdict names the take: A bounds the run.
    let c = crate::analyse::whatif::cost::of(&out, &p, crate::analyse::trace::Unit::Ns).unwrap();
    assert_eq!((c.dominant, c.messages), ("take", 100), "{c:?}");
    assert!(c.text.contains("= 400 ns take"), "{}", c.text);
}

#[test]
fn distribution_loses_below_the_granularity_threshold() {
    // Ten asynchronous messages of 1000 bytes and 50 ns of work each, 10 ns apart.
    let mut spec = String::from("1 + Main 0 main 0 0\n");
    for i in 0..10u64 {
        spec += &format!(
            "1 + A 1 put 1000 {}\n1 - A 1 put {}\n",
            60 * i + 5,
            60 * i + 55
        );
    }
    spec += "1 - Main 0 main 600\n";
    let (tree, _f) = tree(&spec, None, &["put"]);
    let agg = compensated_aggregates(&tree);
    let l = crate::analyse::whatif::Loaded {
        tree,
        agg,
        warnings: vec![],
        run: None,
    };
    let mut plan = Plan::default();
    add_pattern(&l.tree, &mut plan, "A").unwrap();
    let local = crate::analyse::whatif::predict(&l, &plan, &params(2), &[]);
    // One receiver runs its messages one after another: 600 ns become about 505.
    assert!(
        local.predicted_speedup > 1.15,
        "{}",
        local.predicted_speedup
    );
    assert!(local.distribution.is_none());
    let mut far = params(2);
    far.latency = 100.0;
    far.bandwidth = Some(1.0); // a byte per ns: 1000 ns to ship 50 ns of work
    let w = crate::analyse::whatif::predict(&l, &plan, &far, &[]);
    assert!(w.predicted_speedup < 1.0, "{}", w.predicted_speedup);
    let d = w.distribution.expect("distribution figures");
    assert_eq!(d.mean_message_bytes, 1000.0);
    assert!((d.granularity - 0.05).abs() < 1e-9);
    assert!((d.granularity_threshold - (200.0 / 1000.0 + 1.0)).abs() < 1e-9);
    assert!(!d.pays);
}

/// main (100 ns of its own) sends P#1.push three times; push works 100 ns and calls
/// W#2.write, 100 ns of which the runtime counted 6 minor faults of `fault_ns` each.
fn faulting_pipeline(fault_ns: Option<u64>) -> (Tree, tempfile::NamedTempFile) {
    let mut f = tempfile::Builder::new().suffix(".dtf").tempfile().unwrap();
    let fault = fault_ns.map_or(String::new(), |n| format!(" fault_ns={n}"));
    writeln!(f, "##### revy-trace 1 unit=ns lang=cpp pid=1{fault}").unwrap();
    writeln!(f, "<Msg cls=Main oid=0 mth=main sgn=!! size=0 tid=1 t=0>").unwrap();
    for b in [0, 300, 600] {
        let msg = |s: &str, c: &str, o: u32, m: &str, t: u32| {
            let size = if s.is_empty() { " size=0" } else { "" };
            format!("<{s}Msg cls={c} oid={o} mth={m} sgn=!!{size} tid=1 t={t}>")
        };
        writeln!(f, "{}", msg("", "P", 1, "push", b + 100)).unwrap();
        writeln!(f, "{}", msg("", "W", 2, "write", b + 200)).unwrap();
        writeln!(f, "{}", msg("/", "W", 2, "write", b + 300)).unwrap();
        writeln!(f, "{}", msg("/", "P", 1, "push", b + 300)).unwrap();
    }
    writeln!(f, "</Msg cls=Main oid=0 mth=main sgn=!! tid=1 t=900>").unwrap();
    writeln!(
        f,
        "##### faults tid=1 cls=W mth=write sgn=!! oid=2 calls=3 faults=18"
    )
    .unwrap();
    writeln!(f, "##### end events=14").unwrap();
    f.flush().unwrap();
    let mut t = Tree::load(&[f.path().to_path_buf()], true).unwrap();
    for m in &mut t.methods {
        m.void = Some(m.name != "main");
    }
    (t, f)
}

#[test]
fn page_faults_are_shed_by_messages_that_move_to_another_thread() {
    let (t, _f) = faulting_pipeline(Some(10));
    assert!(t.faults_found);
    // P active: its thread runs push (100) + write less its 60 ns of faults (40), three
    // times from t = 100: 100 + 3 × 140; the baseline keeps every fault.
    let (base, p) = run(&t, &["P"], &params(2));
    assert_eq!(base.time, 900.0);
    assert!((p.time - 520.0).abs() < 1e-6, "{}", p.time);
    assert!(
        (p.faults_dropped - 180.0).abs() < 1e-6,
        "{}",
        p.faults_dropped
    );
    assert_eq!(base.faults_dropped, 0.0);
    // W active: main keeps 200 ns a block and ends at 600; W's last write (40) follows.
    let (_, w) = run(&t, &["W"], &params(2));
    assert!((w.time - 640.0).abs() < 1e-6, "{}", w.time);
    // Without the header's fault cost the faults are not known: they move with the work.
    let (t, _f) = faulting_pipeline(None);
    let (_, p) = run(&t, &["P"], &params(2));
    assert!((p.time - 700.0).abs() < 1e-6, "{}", p.time);
}

/// The critical path is made in place from the segments: the same chain, in time order,
/// as following `prev` from the segment that ends last and reversing a copy.
#[test]
fn the_critical_path_made_in_place_is_the_chain() {
    let mut x = 99u64;
    let mut next = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    for len in [0usize, 1, 2, 50, 5000] {
        let mut segs = Vec::new();
        for i in 0..len {
            let prev = if i == 0 || next(10) == 0 {
                NONE
            } else {
                (i as u64 - 1 - next(i.min(8) as u64)) as u32
            };
            segs.push(Seg {
                exec: next(4) as u32,
                node: i as u32,
                t0: i as f64,
                t1: (i as u64 + next(30)) as f64,
                work: next(100) as f64,
                prev,
            });
        }
        let last =
            (0..segs.len()).max_by(|&a, &b| segs[a].t1.total_cmp(&segs[b].t1).then(a.cmp(&b)));
        let mut want = Vec::new();
        let mut at = last.map_or(NONE, |i| i as u32);
        while at != NONE {
            want.push(segs[at as usize].node);
            at = segs[at as usize].prev;
        }
        want.reverse();
        let got: Vec<u32> = critical_path(segs).iter().map(|s| s.node).collect();
        assert_eq!(got, want, "{len} segments");
    }
}
