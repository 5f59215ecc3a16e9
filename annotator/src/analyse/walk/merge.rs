//! The runtime's aggregates (`trace::agg`) put on the walker's instances and threads: each
//! aggregated edge's sender and receiver resolved to the walker's instances (objects the
//! runtime folded into their class become one `Class#*` stand-in per class).

use crate::analyse::trace::agg::{Aggregates, FOLDED};
use crate::analyse::trace::Names;

use super::{Instance, Sink, Walker};

/// One aggregated edge with its instances resolved in the walker.
#[derive(Debug, Clone, Copy)]
pub struct Resolved {
    pub sender: u32,
    pub receiver: u32,
    pub method: u32,
    pub calls: u64,
    pub agg: u64,
    pub net: i64,
    pub size: u64,
}

/// An instance standing for the objects of `class` the runtime folded (`Class#*`).
fn folded_oid(class: u32) -> u64 {
    FOLDED - class as u64
}

/// Whether an oid is a folded class's stand-in.
pub fn is_folded(oid: u64) -> bool {
    oid > FOLDED - (1 << 32)
}

/// Put the aggregates on the walker's instances and threads (before `Walker::finish`, so
/// open messages close at the thread's real last time) and hand them to the sink.
pub fn merge(walker: &mut Walker, aggs: &Aggregates, names: &Names, sink: &mut impl Sink) {
    if aggs.is_empty() {
        return;
    }
    for t in &aggs.threads {
        let th = walker.thread(t.tid);
        let state = &mut walker.threads[th];
        state.last_t = state.last_t.max(t.last_t);
        state.first_t.get_or_insert(t.last_t);
    }
    let mut resolved = Vec::with_capacity(aggs.edges.len());
    for e in &aggs.edges {
        let th = walker.thread(e.tid);
        let instance = |w: &mut Walker, class: u32, oid: u64| {
            let oid = if oid == FOLDED {
                folded_oid(class)
            } else {
                oid
            };
            w.instance(class, oid)
        };
        let sender = match e.from {
            None => {
                let state = &mut walker.threads[th];
                state.total += e.agg;
                state.messages += e.calls;
                state.root
            }
            Some((class, oid)) => instance(walker, class, oid),
        };
        let class = names.method(e.method).map_or(u32::MAX, |m| m.class);
        let receiver = instance(walker, class, e.oid);
        resolved.push(Resolved {
            sender,
            receiver,
            method: e.method,
            calls: e.calls,
            agg: e.agg,
            net: e.net,
            size: e.size,
        });
    }
    sink.aggregated(aggs, &resolved, &walker.instances);
}

/// `Class#*` for the stand-in of folded objects.
pub fn folded_label(i: &Instance, names: &Names) -> Option<String> {
    is_folded(i.oid()).then(|| format!("{}#*", names.class(i.class)))
}

/// The aggregated edges with their threads' tids (`edges` is in `aggs.edges`' order).
pub fn with_tids(aggs: &Aggregates, edges: &[Resolved]) -> Vec<(u64, Resolved)> {
    aggs.edges
        .iter()
        .zip(edges)
        .map(|(e, r)| (e.tid, *r))
        .collect()
}
