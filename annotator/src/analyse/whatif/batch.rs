//! Counted calls in the replay (docs/analysis.md, "What-if replay"): a throttled method's
//! calls after its verdict are not events, only counts per sender → receiver edge with an
//! estimated time per call. Each such edge becomes a few batch nodes — children of the
//! sender's recorded messages, carved out of their own time after the verdict, spread
//! evenly over it — each standing for its share of the calls and their work. A change that
//! moves the receiver sends a batch as that many messages: the sender pays the enqueue of
//! each (or waits for each result), the receiver runs their work, paying a take for each
//! call posted at the queue. So a fine-grained receiver is predicted from its counts,
//! without recording every call.

use rustc_hash::{FxHashMap, FxHashSet};

use super::node::{Batch, Edge, Node, Placed, NONE};
use super::tree::Tree;

/// Batch nodes per edge at most: enough for the sender's and the receiver's work to
/// interleave as they would (a batch is sent at once), few enough to stay small.
const PER_EDGE: u64 = 256;
/// Batch nodes in a tree at most (a whole run may aggregate thousands of edges).
const MAX_NODES: usize = 200_000;

/// Adds batch nodes for `edges` to a tree whose children are indexed, then indexes again.
pub fn place(t: &mut Tree, edges: &[Edge]) -> Placed {
    let mut placed = Placed::default();
    // A sender that itself received counted calls may have sent these from inside them:
    // their time is in those calls' estimate, not in its recorded messages.
    let nested: FxHashSet<(u32, u32)> = edges.iter().map(|e| (e.thread, e.receiver)).collect();
    let per_edge = (MAX_NODES / edges.len().max(1)).clamp(1, PER_EDGE as usize) as u64;
    let senders = sender_nodes(t);
    let mut new = Vec::new();
    for e in edges.iter().filter(|e| e.calls > 0) {
        let gaps = match senders.get(&(e.thread, e.sender)) {
            Some(nodes) if !nested.contains(&(e.thread, e.sender)) => gaps_after(t, nodes, e.from),
            _ => Vec::new(),
        };
        let k = e.calls.min(per_edge);
        if gaps.is_empty() || t.batches.len() + new.len() >= MAX_NODES {
            placed.left += e.calls;
            continue;
        }
        let by_address = t
            .methods
            .get(e.method as usize)
            .is_some_and(|m| m.by_address);
        let costs = Costs {
            probe: t.threads[e.thread as usize].probe,
            counted: t.counted_cost + if by_address { t.nid_cost } else { 0.0 },
        };
        for n in chunks(t, e, &gaps, k, costs) {
            new.push(n);
        }
        placed.calls += e.calls;
    }
    placed.nodes = new.len();
    if !new.is_empty() {
        for (node, batch) in new {
            let mut node = node;
            node.facts = t.batches.len() as u32;
            t.batches.push(batch);
            t.nodes.push(node);
        }
        t.index_children();
    }
    placed
}

/// Each (thread, sender instance)'s recorded messages, the thread's root included.
fn sender_nodes(t: &Tree) -> FxHashMap<(u32, u32), Vec<u32>> {
    let mut by: FxHashMap<(u32, u32), Vec<u32>> = FxHashMap::default();
    for (i, n) in t.nodes.iter().enumerate() {
        if n.merged == 0 && t.batch_of(i as u32).is_none() {
            by.entry((n.thread, n.receiver)).or_default().push(i as u32);
        }
    }
    by
}

/// The own time of `nodes` after `from`: the stretches between their children.
fn gaps_after(t: &Tree, nodes: &[u32], from: f64) -> Vec<(u32, f64, f64)> {
    let mut gaps = Vec::new();
    for &i in nodes {
        let n = &t.nodes[i as usize];
        if n.end <= from {
            continue;
        }
        let mut at = n.start;
        let mut add = |a: f64, b: f64| {
            let a = a.max(from);
            if b > a {
                gaps.push((i, a, b));
            }
        };
        for &c in t.kids(i) {
            let cn = &t.nodes[c as usize];
            add(at, cn.start);
            at = at.max(cn.end);
        }
        add(at, n.end);
    }
    gaps
}

/// What a counted call costs that is not the receiver's work, in the tree's unit.
#[derive(Debug, Clone, Copy)]
struct Costs {
    /// The probe cost a timed call shows: part of the estimate.
    probe: f64,
    /// What counting the call cost its caller (`counted_ns=`, and `nid_ns=` when the
    /// receiver's ID is looked up by address): in the sender's own time.
    counted: f64,
}

/// `k` batch nodes of edge `e` spread evenly over `gaps`, together as long as what the
/// calls took of the sender's time: their work and the counting (at most 98 % of the
/// gaps: estimates may overstate), each carved out of one gap; the rest of the gaps is the
/// sender's own work between the calls. The estimate per call was timed like a recorded
/// call, probe included, but a counted call pays the counting instead of the probe, so
/// only the estimate's work is carved: carving the probe too took that much of the
/// sender's own time away (telemetry: 7.9 of ~10 ns a call, baseline 140 ms of a 217 ms
/// run). A batch's work leaves out the counting: the replay does not run it, so the
/// sender's baseline drops by it (the program without the profiler does not count).
fn chunks(t: &Tree, e: &Edge, gaps: &[(u32, f64, f64)], k: u64, c: Costs) -> Vec<(Node, Batch)> {
    let total: f64 = gaps.iter().map(|g| g.2 - g.1).sum();
    let mean = e.agg / e.calls as f64;
    // Of each call's estimated time, the work: less the probe cost, as for a recorded call.
    let work = if mean > 0.0 {
        e.agg * ((mean - c.probe) / mean).max(0.0)
    } else {
        0.0
    };
    let want = work + c.counted * e.calls as f64;
    let carve = want.min(0.98 * total);
    let work_share = if want > 0.0 { work / want } else { 0.0 };
    let (step, span) = (total / k as f64, carve / k as f64);
    let between = (total - carve) / e.calls as f64;
    let mut out = Vec::with_capacity(k as usize);
    let (mut g, mut before) = (0usize, 0.0);
    for j in 0..k {
        let mid = (j as f64 + 0.5) * step;
        while g + 1 < gaps.len() && before + (gaps[g].2 - gaps[g].1) < mid {
            before += gaps[g].2 - gaps[g].1;
            g += 1;
        }
        let (parent, g0, g1) = gaps[g];
        let s = span.min(g1 - g0);
        let at = (g0 + (mid - before) - s / 2.0).clamp(g0, g1 - s);
        let calls = e.calls * (j + 1) / k - e.calls * j / k;
        let p = &t.nodes[parent as usize];
        out.push((
            Node {
                method: e.method,
                receiver: e.receiver,
                size: e.size / e.calls.max(1),
                start: at,
                end: at + s,
                parent,
                thread: p.thread,
                fault: 0.0,
                wait: 0.0,
                merged: 0,
                facts: NONE,
            },
            Batch {
                calls,
                work: s * work_share,
                between,
            },
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_fill_the_gaps_in_order_without_overlap() {
        let mut t = Tree::default();
        t.threads.push(super::super::tree::ThreadInfo {
            label: "main".into(),
            root: 0,
            probe: 0.05,
            probe_out: 0.0,
        });
        let node = |start: f64, end: f64, parent: u32| Node {
            method: if parent == NONE { NONE } else { 0 },
            receiver: if parent == NONE { 0 } else { 2 },
            size: 0,
            start,
            end,
            parent,
            thread: 0,
            fault: 0.0,
            wait: 0.0,
            merged: 0,
            facts: NONE,
        };
        // Root 0..1000 with one recorded child (of another object) 400..600; the verdict at 100.
        t.nodes = vec![node(0.0, 1000.0, NONE), node(400.0, 600.0, 0)];
        t.index_children();
        let e = Edge {
            thread: 0,
            sender: 0,
            receiver: 1,
            method: 1,
            calls: 1000,
            agg: 350.0,
            size: 4000,
            from: 100.0,
        };
        let p = place(&mut t, &[e]);
        assert_eq!((p.calls, p.nodes, p.left), (1000, 256, 0));
        let kids = t.kids(0).to_vec();
        assert_eq!(kids.len(), 257);
        let mut end = 0.0;
        let (mut calls, mut span, mut work) = (0, 0.0, 0.0);
        for &c in &kids {
            let n = &t.nodes[c as usize];
            assert!(n.start >= end - 1e-9, "overlap at {}", n.start);
            end = n.end;
            if let Some(b) = t.batch_of(c) {
                assert!(n.start >= 100.0 && (n.end <= 400.0 || n.start >= 600.0));
                calls += b.calls;
                span += n.end - n.start;
                work += b.work;
                assert_eq!(n.size, 4);
            }
        }
        assert_eq!(calls, 1000);
        // 0.35 a call estimated, of which 0.05 is the probe's: a counted call does not pay
        // it, so only the work is carved out of the sender's time.
        assert!((span - 300.0).abs() < 1e-6, "{span}");
        assert!((work - 300.0).abs() < 1e-6, "{work}");
    }
}
