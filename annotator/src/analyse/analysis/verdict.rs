//! The verdict on one replayed candidate: a proposal when it pays, else a no-gain statement
//! that says why (callers wait, the messages' cost — enqueue, handoffs, waiting — outweighs
//! the work they move, or calls made at once on several threads would queue on one).

use std::fmt::Write;

use rustc_hash::FxHashSet;

use super::hints::{Hint, HintKind};
use super::Analysis;
use crate::analyse::whatif::{self, Loaded, Plan};

/// A replay must gain at least this much for a proposal.
const PAYS: f64 = 1.05;

/// What one candidate names.
pub(super) struct Candidate {
    pub(super) subject: String,
    pub(super) class: Option<String>,
    pub(super) instance: Option<u32>,
    pub(super) method: Option<u32>,
    pub(super) plan: Plan,
    /// Share of the run of what becomes active.
    pub(super) level: f64,
    /// Pool of tasks (a method) rather than an object's own thread.
    pub(super) pool: bool,
}

/// Methods the candidate's active part (`plan`, in the tree's ids) receives, split into
/// void and value-returning.
fn received(l: &Loaded, plan: &Plan) -> (Vec<String>, Vec<String>) {
    let t = &l.tree;
    let mut seen = FxHashSet::default();
    let (mut void, mut value) = (Vec::new(), Vec::new());
    for n in &t.nodes {
        let hit =
            n.method != whatif::tree::NONE && n.merged == 0 && plan.takes(n.method, n.receiver);
        if hit && seen.insert(n.method) {
            let m = &t.methods[n.method as usize];
            let name = format!("`{}`", m.name);
            if m.void == Some(true) {
                void.push(name);
            } else {
                value.push(name);
            }
        }
    }
    (void, value)
}

/// The hint for a replayed candidate: a proposal when it pays, else why it does not.
/// `plan` is the candidate's in the tree's ids.
pub(super) fn judge(
    a: &Analysis,
    l: &Loaded,
    c: &Candidate,
    plan: &Plan,
    w: &whatif::WhatIf,
) -> Hint {
    let s = w.predicted_speedup;
    let (kind, reason) = verdict(l, c, plan, w);
    let mut h = Hint::new(
        kind,
        c.subject.clone(),
        reason,
        &[
            ("predicted_speedup", s),
            ("baseline_time", w.baseline_time),
            ("predicted_time", w.predicted_time),
            ("cores", w.cores as f64),
            ("level", c.level),
            ("asynchronous_messages", w.asynchronous_messages as f64),
            ("synchronous_messages", w.synchronous_messages as f64),
        ],
    );
    if let Some(r) = &w.handoff_range {
        // The verdict is the point prediction's; both ends beside it.
        h.numbers
            .insert("predicted_speedup_fast_handoff", r.predicted_speedup_fast);
        h.numbers
            .insert("predicted_speedup_slow_handoff", r.predicted_speedup_slow);
        let _ = write!(
            h.text,
            " (range: {:.2}× with the fast state's handoff, {:.2}× with the slow state's)",
            r.predicted_speedup_fast, r.predicted_speedup_slow
        );
    }
    h.class = c.class.clone();
    h.instance = c.instance;
    h.method = c.method;
    if c.instance.is_none() && c.method.is_none() {
        // A class: point at its most active instance for the graph.
        h.instance = c.plan.instances.iter().copied().max_by_key(|&i| {
            let active = a.instances.row(i).map_or(0, |x| x.active_time);
            (active, std::cmp::Reverse(i))
        });
    }
    h
}

/// Proposal or no-gain, and the sentence that says so.
fn verdict(l: &Loaded, c: &Candidate, plan: &Plan, w: &whatif::WhatIf) -> (HintKind, String) {
    let s = w.predicted_speedup;
    if s < PAYS {
        return (HintKind::NoGain, no_gain(l, c, plan, w));
    }
    let caveat = if c.pool {
        " — its calls write no state of their object (so say the sources), so they may run at once unless they share state elsewhere (globals, arguments)"
    } else {
        ""
    };
    let h = |x: f64| whatif::human(x, l.tree.unit());
    let gain = format!(
        "predicted {s:.2}× ({} → {} on {} core(s))",
        h(w.baseline_time),
        h(w.predicted_time),
        w.cores
    );
    let (what, how) = (change(c, w), waits(l, plan));
    (
        HintKind::Proposal,
        format!("{what}: {how} — {gain}{caveat}"),
    )
}

/// Why a change does not pay: its callers wait, its calls would queue, its messages are too
/// fine-grained for the handoff, or little of its work overlaps.
fn no_gain(l: &Loaded, c: &Candidate, plan: &Plan, w: &whatif::WhatIf) -> String {
    let s = w.predicted_speedup;
    let pct = format!("{:.1} %", c.level * 100.0);
    // Only a loss has a cause to name (the overlap scan walks the tree).
    let queue = (s < 0.95 || (s < 1.0 && w.asynchronous_messages > 0))
        .then(|| queued(l, c, plan, w))
        .flatten();
    let (active, loses) = if c.pool {
        ("a pool for its calls", "on a pool its calls lose")
    } else {
        ("making it active", "as an active object it loses")
    };
    if let Some(why) = &w.fine_grained {
        // Counted calls finer than moving one costs: the rule, with the enqueue it names.
        let gains = if c.pool {
            "a pool for its calls gains nothing"
        } else {
            "making it active gains nothing"
        };
        return format!(
            "{} is {pct} of the run, but {gains}: {why} ({s:.2}×)",
            c.subject
        );
    }
    if w.asynchronous_messages == 0 && w.synchronous_messages > 0 {
        let slower = match (queue, &w.cost) {
            (Some(q), _) => format!(", and {q}"),
            (None, Some(c)) if s < 0.95 && explains(c, w) => {
                format!(", and the handoffs make the run slower: {}", c.text)
            }
            (None, None) if s < 0.95 => ", and the handoffs make the run slower".into(),
            _ => String::new(),
        };
        let who = &c.subject;
        format!("{who} is {pct} of the run but every caller waits for its result: {active} gains nothing{slower} ({s:.2}×)")
    } else if let Some(q) = queue {
        format!(
            "{} is {pct} of the run, but {loses}: {q} ({s:.2}×)",
            c.subject
        )
    } else if let Some(cost) = w.cost.as_ref().filter(|x| s < 0.99 && explains(x, w)) {
        // The cost that dominates, with its numbers.
        format!(
            "{} is {pct} of the run, but {loses}: {} ({s:.2}×)",
            c.subject, cost.text
        )
    } else if let Some(cost) = w.cost.as_ref().filter(|x| x.dominant == "take") {
        // Its own thread bounds the run: the work it is sent plus taking each message.
        format!(
            "{} is {pct} of the run, but {active} gains only {s:.2}×: its thread bounds the run, {}",
            c.subject, cost.text
        )
    } else if s < 1.0 {
        let n = w.asynchronous_messages + w.synchronous_messages;
        let handoff = whatif::human(w.handoff, l.tree.unit());
        format!("{} is {pct} of the run, but {loses}: its {n} messages are too fine-grained for a handoff of {handoff} ({s:.2}×)", c.subject)
    } else {
        format!("{} is {pct} of the run, but {active} gains only {s:.2}× (little of its work overlaps its callers')", c.subject)
    }
}

/// Whether the messages' dominant cost is at least half of what the change loses.
fn explains(cost: &whatif::cost::Cost, w: &whatif::WhatIf) -> bool {
    cost.total >= 0.5 * (w.predicted_time - w.baseline_time)
}

/// Why a change that loses loses, when handoffs cannot explain it: the candidate's calls ran
/// at once on several program threads, and its one thread (or a pool smaller than them) would
/// run them one after another. `None` when its calls never overlapped across threads or when
/// the handoffs' cost is at least half the loss.
fn queued(l: &Loaded, c: &Candidate, plan: &Plan, w: &whatif::WhatIf) -> Option<String> {
    let sync = w.synchronous_messages as f64;
    let sent = w.asynchronous_messages as f64;
    let wakes = w.waking_messages as f64;
    let taken = w.cost.as_ref().map_or(0.0, |c| c.take_time);
    let mut handoffs =
        w.handoff * (2.0 * sync + sent) + w.wake * wakes + w.enqueue * (sent - wakes) + taken;
    // Wake-ups after idling, charged from the project's curve: what the replay summed.
    if let Some(c) = w.cost.as_ref().filter(|c| c.dominant == "handoff") {
        handoffs = handoffs.max(c.total);
    }
    if handoffs * 2.0 >= w.predicted_time - w.baseline_time {
        return None;
    }
    let (threads, at_once) = overlap(l, plan);
    let room = if c.pool { w.cores } else { 1 };
    (at_once > room).then(|| {
        let on = if c.pool {
            format!("a pool of {room} thread(s)")
        } else {
            "its one thread".into()
        };
        format!("its calls ran on {threads} threads, up to {at_once} at once, and would queue for {on} (handoffs are not the cost)")
    })
}

/// How many program threads made the candidate's outermost calls (those with no call of it
/// above them), and the most of those calls that ran at the same time.
fn overlap(l: &Loaded, plan: &Plan) -> (usize, usize) {
    let t = &l.tree;
    let hit = |i: u32| {
        let n = &t.nodes[i as usize];
        n.method != whatif::tree::NONE && plan.takes(n.method, n.receiver)
    };
    let outermost = |i: u32| {
        let mut p = t.nodes[i as usize].parent;
        while p != whatif::tree::NONE && (p as usize) < t.nodes.len() {
            if hit(p) {
                return false;
            }
            p = t.nodes[p as usize].parent;
        }
        true
    };
    let mut edges: Vec<(f64, i32)> = Vec::new();
    let mut threads = FxHashSet::default();
    for i in 0..t.nodes.len() as u32 {
        if hit(i) && outermost(i) {
            let n = &t.nodes[i as usize];
            threads.insert(n.thread);
            edges.extend([(n.start, 1), (n.end, -1)]);
        }
    }
    // Ends before starts at the same time: back-to-back calls do not overlap.
    edges.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let (mut now, mut most) = (0i32, 0i32);
    for (_, d) in edges {
        now += d;
        most = most.max(now);
    }
    (threads.len(), most.max(0) as usize)
}

/// The change a proposal asks for.
fn change(c: &Candidate, w: &whatif::WhatIf) -> String {
    if c.pool {
        format!(
            "run each call of {} as a task on a pool of {} thread(s)",
            c.subject, w.cores
        )
    } else {
        format!(
            "make {} active (its own thread and a message queue)",
            c.subject
        )
    }
}

/// Which received methods become asynchronous and which callers wait for.
fn waits(l: &Loaded, plan: &Plan) -> String {
    let (void, value) = received(l, plan);
    let list = |v: &[String]| v.join(", ");
    match (void.is_empty(), value.is_empty()) {
        (false, true) => format!("{} return(s) nothing and become asynchronous", list(&void)),
        (true, false) => format!("callers wait for {}", list(&value)),
        _ => format!(
            "{} become(s) asynchronous; callers wait for {}",
            list(&void),
            list(&value)
        ),
    }
}
