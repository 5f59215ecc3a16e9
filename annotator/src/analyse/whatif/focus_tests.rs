//! A focused tree replays as the whole tree does, for every plan within its focus.

use std::io::Write;

use rustc_hash::FxHashSet;

use super::Focus;
use crate::analyse::walk::Walker;
use crate::analyse::whatif::sim::{
    compensated_aggregates, replay, replay_without_path, Outcome, Params,
};
use crate::analyse::whatif::tree::Tree;
use crate::analyse::whatif::Plan;

/// xorshift: deterministic traces without a dependency.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A text trace of nested messages on three interleaved threads: classes A–E (A, B and C
/// with several objects, D and E static), three methods each, a probe cost, and page faults
/// counted for a few (method, object) pairs.
fn trace(seed: u64) -> tempfile::NamedTempFile {
    let mut r = Rng(seed);
    let mut f = tempfile::Builder::new().suffix(".dtf").tempfile().unwrap();
    writeln!(
        f,
        "##### revy-trace 1 unit=ns lang=cpp pid=1 probe_ns=3 fault_ns=2"
    )
    .unwrap();
    let mut stacks: Vec<Vec<(String, u64, String)>> = vec![Vec::new(); 3];
    let mut clock = [0u64; 3];
    let mut events = 0;
    for _ in 0..3000 {
        let th = r.below(3) as usize;
        clock[th] += 1 + r.below(40);
        let t = clock[th];
        let open = &mut stacks[th];
        if open.len() < 7 && (open.is_empty() || r.below(100) < 50) {
            // Objects 1–4 are A's, 5–8 B's, 9–12 C's; D and E receive static calls.
            let k = r.below(5);
            let c = ["A", "B", "C", "D", "E"][k as usize];
            let oid = if k < 3 { 4 * k + 1 + r.below(4) } else { 0 };
            let m = format!("m{}", r.below(3));
            let size = 8 * r.below(4);
            writeln!(
                f,
                "<Msg cls={c} oid={oid} mth={m} sgn=!! size={size} tid={} t={t}>",
                th + 1
            )
            .unwrap();
            open.push((c.to_string(), oid, m));
        } else if let Some((c, oid, m)) = open.pop() {
            writeln!(
                f,
                "</Msg cls={c} oid={oid} mth={m} sgn=!! tid={} t={t}>",
                th + 1
            )
            .unwrap();
        }
        events += 1;
    }
    // Some messages stay open: the trace ends mid-run, as a killed one does.
    writeln!(
        f,
        "##### faults tid=1 cls=A mth=m1 sgn=!! oid=2 calls=5 faults=40"
    )
    .unwrap();
    writeln!(
        f,
        "##### faults tid=2 cls=B mth=m0 sgn=!! oid=7 calls=2 faults=9"
    )
    .unwrap();
    writeln!(
        f,
        "##### faults tid=3 cls=D mth=m2 sgn=!! oid=0 calls=4 faults=30"
    )
    .unwrap();
    writeln!(f, "##### end events={events}").unwrap();
    f.flush().unwrap();
    f
}

/// The whole tree, and the tree focused on `plan` (in the whole tree's ids, which are the
/// walker's).
fn trees(path: &std::path::Path, plan: &Plan) -> (Tree, Tree) {
    let mut whole = Tree::load(&[path.to_path_buf()], true).unwrap();
    let (reader, _) =
        crate::analyse::walk::walk_trace_by(path, Walker::new(), &mut (), &mut |_, _| {}).unwrap();
    let focus = Focus {
        instances: plan.instances.clone(),
        methods: plan.methods.clone(),
        max_nodes: usize::MAX,
        count_when_over: false,
    };
    let info = |w: u32| whole.instances[w as usize].clone();
    let mut focused = Tree::load_focused(
        path,
        true.into(),
        &focus,
        &info,
        &reader.status().aggregates.faults,
    )
    .unwrap()
    .expect("no node cap");
    for t in [&mut whole, &mut focused] {
        for m in &mut t.methods {
            m.void = Some(m.name == "m0");
        }
    }
    (whole, focused)
}

/// The machine the tests predict for: `cores`, a 7-unit handoff, a 2-unit enqueue.
fn params(cores: usize) -> Params {
    Params {
        cores,
        handoff: 7.0,
        enqueue: 2.0,
        take: 0.0,
        wake: 2.0,
        post: 2.0,
        latency: 0.0,
        bandwidth: None,
        wake_curve: None,
    }
}

fn run(t: &Tree, plan: &Plan, cores: usize) -> Outcome {
    replay(
        t,
        &plan.in_tree(t),
        &params(cores),
        &compensated_aggregates(t),
    )
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Plans of one or two subjects: classes (all their instances), single instances, methods.
fn plans(t: &Tree) -> Vec<(String, Plan)> {
    let class = |c: &str| -> FxHashSet<u32> {
        (0..t.instances.len() as u32)
            .filter(|&i| t.instances[i as usize].class.as_deref() == Some(c))
            .collect()
    };
    let method = |n: &str| -> FxHashSet<u32> {
        (0..t.methods.len() as u32)
            .filter(|&m| t.methods[m as usize].name == n && t.methods[m as usize].class == "C")
            .collect()
    };
    let inst = |c: &str, oid: u64| -> FxHashSet<u32> {
        class(c)
            .into_iter()
            .filter(|&i| t.instances[i as usize].oid == oid)
            .collect()
    };
    let p = |instances: FxHashSet<u32>, methods: FxHashSet<u32>| Plan { instances, methods };
    vec![
        ("A".into(), p(class("A"), Default::default())),
        ("D".into(), p(class("D"), Default::default())),
        ("B#7".into(), p(inst("B", 7), Default::default())),
        ("C.m1".into(), p(Default::default(), method("m1"))),
        ("A#2 + C.m2".into(), p(inst("A", 2), method("m2"))),
        (
            "E + B".into(),
            p(&class("E") | &class("B"), Default::default()),
        ),
    ]
}

#[test]
fn a_focused_tree_replays_as_the_whole_tree() {
    for seed in [7, 42, 1234] {
        let f = trace(seed);
        let probe = Tree::load(&[f.path().to_path_buf()], true).unwrap();
        for (name, plan) in plans(&probe) {
            let (whole, focused) = trees(f.path(), &plan);
            // Random nesting 7 deep: most messages send to a class somewhere below them;
            // one instance's focus keeps a third of the tree at most.
            let narrow = name == "B#7";
            assert!(
                focused.nodes.len() < whole.nodes.len()
                    && (!narrow || 3 * focused.nodes.len() < whole.nodes.len()),
                "{name}: the focus kept {} of {} nodes",
                focused.nodes.len(),
                whole.nodes.len()
            );
            assert_eq!(focused.messages(), whole.messages());
            assert!(whole.faults_found && focused.faults_found);
            let faulted = whole.nodes.iter().filter(|n| n.fault > 0.0).count();
            assert!(faulted > 0, "{name}: no message with fault time");
            for cores in [1, 2, 4] {
                let why = format!("seed {seed}, {name}, {cores} cores");
                let (b0, b1) = (
                    run(&whole, &Plan::default(), cores),
                    run(&focused, &Plan::default(), cores),
                );
                assert!(
                    close(b0.time, b1.time),
                    "{why}: baseline {} against {}",
                    b0.time,
                    b1.time
                );
                let (w, x) = (run(&whole, &plan, cores), run(&focused, &plan, cores));
                assert!(
                    close(w.time, x.time),
                    "{why}: {} against {}",
                    w.time,
                    x.time
                );
                assert!(
                    close(w.faults_dropped, x.faults_dropped),
                    "{why}: faults {} against {}",
                    w.faults_dropped,
                    x.faults_dropped
                );
                assert!(
                    w.faults_dropped > 0.0 || !name.starts_with('A'),
                    "{why}: no fault moved"
                );
                assert_eq!(
                    (w.async_sends, w.sync_sends),
                    (x.async_sends, x.sync_sends),
                    "{why}"
                );
                assert_eq!(w.deadlocked, x.deadlocked, "{why}");
                assert_eq!(w.waits.len(), x.waits.len(), "{why}");
            }
        }
    }
}

#[test]
fn past_its_node_cap_a_focused_load_gives_up_or_counts() {
    let f = trace(7);
    let whole = Tree::load(&[f.path().to_path_buf()], true).unwrap();
    let info = |w: u32| whole.instances[w as usize].clone();
    for count_when_over in [false, true] {
        let focus = Focus {
            instances: (0..whole.instances.len() as u32).collect(),
            methods: Default::default(),
            max_nodes: 100,
            count_when_over,
        };
        let over = match Tree::load_focused(f.path(), true.into(), &focus, &info, &[]).unwrap() {
            Ok(_) => panic!("100 nodes held the whole trace"),
            Err(over) => over,
        };
        assert!(over.nodes_per_message > 0.9, "{}", over.nodes_per_message);
        // Counted to the end, every instance's count is the messages it received.
        let mut received = std::collections::HashMap::new();
        for n in whole
            .nodes
            .iter()
            .filter(|n| n.method != crate::analyse::whatif::tree::NONE)
        {
            *received.entry(n.receiver).or_insert(0u64) += 1;
        }
        let counted: u64 = over.instances.values().sum();
        // (Without it the walk stops at its next check, every few million events: past
        // the end of this trace.)
        if count_when_over {
            assert_eq!(counted as usize, whole.messages());
            for (i, n) in &over.instances {
                assert_eq!(received.get(i), Some(n), "instance {i}");
            }
        }
    }
}

/// `revy whatif` past its cap: the patterns resolved on a first walk, the replay on the
/// focused tree, and every figure of the result as the whole tree's.
#[test]
fn whatif_past_its_cap_predicts_what_the_whole_tree_does() {
    let f = trace(42);
    let traces = [f.path().to_path_buf()];
    for patterns in [vec!["A"], vec!["B#7", "C.m2"], vec!["*.m1"]] {
        let patterns: Vec<String> = patterns.into_iter().map(String::from).collect();
        let p = params(2);
        let predict = |max: u64| {
            let (l, plan) =
                crate::analyse::whatif::load_for(&traces, true, None, &patterns, max).unwrap();
            (
                crate::analyse::whatif::predict(&l, &plan, &p, &patterns),
                l.tree.nodes.len(),
            )
        };
        let ((w, whole), (x, focused)) = (predict(u64::MAX), predict(10));
        assert!(focused < whole, "{patterns:?}: {focused} of {whole} nodes");
        let why = format!("{patterns:?}");
        assert!(close(w.baseline_time, x.baseline_time), "{why}");
        assert!(
            close(w.predicted_time, x.predicted_time),
            "{why}: {} against {}",
            w.predicted_time,
            x.predicted_time
        );
        assert_eq!(w.active_methods, x.active_methods, "{why}");
        assert_eq!(w.active_instances, x.active_instances, "{why}");
        assert_eq!(
            (w.asynchronous_messages, w.synchronous_messages),
            (x.asynchronous_messages, x.synchronous_messages),
            "{why}"
        );
        let busy = |o: &crate::analyse::whatif::WhatIf| {
            o.threads
                .iter()
                .map(|t| (t.thread.clone(), t.messages))
                .collect::<Vec<_>>()
        };
        assert_eq!(busy(&w), busy(&x), "{why}");
        for (a, b) in w.threads.iter().zip(&x.threads) {
            assert!(
                close(a.busy, b.busy),
                "{why}: {} busy {} against {}",
                a.thread,
                a.busy,
                b.busy
            );
        }
    }
    // A pattern that names nothing is refused after the first walk, as before.
    let bad = vec!["Nowhere".to_string()];
    let e = crate::analyse::whatif::load_for(&traces, true, None, &bad, 10)
        .err()
        .unwrap();
    assert!(e.to_string().contains("matches no class"), "{e}");
}

/// The verdicts' replays keep no critical path (a segment per chunk of work: hundreds of
/// MB on a whole run): everything else they find must be what a replay with it finds, on
/// whole and focused trees alike.
#[test]
fn a_replay_without_its_critical_path_finds_the_same() {
    let f = trace(42);
    let probe = Tree::load(&[f.path().to_path_buf()], true).unwrap();
    for (name, plan) in plans(&probe) {
        for t in <[Tree; 2]>::from(trees(f.path(), &plan)) {
            for cores in [1, 2, 4] {
                let why = format!("{name}, {} nodes, {cores} cores", t.nodes.len());
                let p = params(cores);
                let (plan, agg) = (plan.in_tree(&t), compensated_aggregates(&t));
                let (w, x) = (
                    replay(&t, &plan, &p, &agg),
                    replay_without_path(&t, &plan, &p, &agg),
                );
                assert_eq!(w.time, x.time, "{why}");
                let execs = |o: &Outcome| -> Vec<(String, f64, u64)> {
                    o.execs
                        .iter()
                        .map(|e| (e.label.clone(), e.busy, e.messages))
                        .collect()
                };
                assert_eq!(execs(&w), execs(&x), "{why}");
                let waits = |o: &Outcome| -> Vec<(u32, u32, f64)> {
                    o.waits.iter().map(|w| (w.exec, w.node, w.time)).collect()
                };
                assert_eq!(waits(&w), waits(&x), "{why}");
                assert_eq!(
                    (w.async_sends, w.sync_sends, w.faults_dropped, &w.deadlocked),
                    (x.async_sends, x.sync_sends, x.faults_dropped, &x.deadlocked),
                    "{why}"
                );
                assert!(x.critical.is_empty(), "{why}");
                // The path kept in place: chronological, linked, within the run.
                let c = &w.critical;
                assert!(!c.is_empty(), "{why}");
                assert!(c.last().is_some_and(|s| s.t1 <= w.time), "{why}");
                for (k, s) in c.iter().enumerate() {
                    let prev = if k == 0 { super::NONE } else { k as u32 - 1 };
                    assert_eq!(s.prev, prev, "{why}");
                    assert!(k == 0 || c[k - 1].t1 <= s.t1, "{why}");
                }
            }
        }
    }
}
