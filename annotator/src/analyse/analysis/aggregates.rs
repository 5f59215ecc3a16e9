//! The runtime's aggregates (`trace::agg`: calls past `max_size` and of throttled methods)
//! merged with the events, so per-method, per-class, per-instance and per-edge statistics and
//! the totals cover the whole run (per-class creations, destructions and sizes too:
//! `class_stats` in `analysis/mod.rs` adds the runtime's per-class object counts). What only events give (the message list, timelines,
//! what-if, message exports) covers the recorded part; [`Coverage`] says how much that is.

use serde::Serialize;

use super::Builder;
use crate::analyse::trace::agg::Aggregates;
use crate::analyse::trace::Names;
use crate::analyse::walk::Resolved;

/// How much of the run the events hold.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Coverage {
    /// Calls recorded as events (messages).
    pub recorded_calls: u64,
    /// Calls the runtime aggregated instead (past `max_size`, throttled methods).
    pub aggregated_calls: u64,
    /// Aggregated calls whose sender or receiver was folded into its class (`Class#*`).
    pub folded_calls: u64,
    /// Aggregated calls counted per method only (the runtime's edge table was full).
    pub unattributed_calls: u64,
    /// Objects created, and destroyed, without an entry (past `max_size`, or of a class the
    /// C++ runtime throttled): in the per-class counts, not among the instances.
    pub unrecorded_creations: u64,
    pub unrecorded_destructions: u64,
    /// Methods that stopped producing events, first verdict per method.
    pub throttled: Vec<ThrottledMethod>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ThrottledMethod {
    pub method: String,
    #[serde(skip)]
    pub method_id: u32,
    pub tid: u64,
    /// Trace time of the verdict.
    pub t: u64,
    /// Calls and mean aggregate time per call (trace units) on that thread then.
    pub calls: u64,
    pub mean: f64,
}

impl Coverage {
    pub fn share(&self) -> f64 {
        let all = self.recorded_calls + self.aggregated_calls;
        if all == 0 {
            1.0
        } else {
            self.recorded_calls as f64 / all as f64
        }
    }
    /// "recorded 37 % of calls: 1.2 M of 3.3 M" when anything was aggregated.
    pub fn statement(&self) -> Option<String> {
        let objects = self.unrecorded_creations + self.unrecorded_destructions > 0;
        let calls = (self.aggregated_calls > 0).then(|| {
            format!(
                "statistics cover the whole run ({} calls); the message list, timelines, what-if and message exports cover the recorded part: {:.0} % of calls, {} of {}",
                human(self.recorded_calls + self.aggregated_calls),
                self.share() * 100.0,
                human(self.recorded_calls),
                human(self.recorded_calls + self.aggregated_calls)
            )
        });
        let objs = objects.then(|| {
            format!(
                "per-class creations, destructions and sizes cover the whole run; {} creation(s) and {} destruction(s) past the size limit or of throttled classes are counted per class only (no instance, not in instance views)",
                human(self.unrecorded_creations),
                human(self.unrecorded_destructions)
            )
        });
        match (calls, objs) {
            (Some(c), Some(o)) => Some(format!("{c}; {o}")),
            (c, o) => c.or(o),
        }
    }
}

fn human(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=999_999 => format!("{:.1} k", n as f64 / 1e3),
        _ => format!("{:.1} M", n as f64 / 1e6),
    }
}

fn add_signed(x: u64, d: i64) -> u64 {
    x.saturating_add_signed(d)
}

impl Builder {
    /// Adds aggregated calls to the per-instance, per-edge and per-method accumulators.
    pub(super) fn add_aggregates(&mut self, aggs: &Aggregates, edges: &[Resolved]) {
        // The corrections below saturate at 0: recorded messages go in first.
        self.flush();
        self.clock.aggregated(edges);
        for e in edges {
            let (s, r) = (e.sender, e.receiver);
            let cyclic = if s == r { e.calls } else { 0 };
            let net = e.net.max(0) as u64;
            self.edges.messages(s, r, e.calls, e.agg, net, e.size);
            if e.net < 0 {
                self.edges.sub_net(s, r, e.net.unsigned_abs());
            }
            self.cyclic += cyclic;
            self.method_acc(e.method).cyclic += cyclic;
        }
        for m in &aggs.methods {
            let a = self.method_acc(m.method);
            if m.calls > 0 {
                let net = m.net.max(0) as u64;
                a.agg.merge(m.calls, m.agg, m.agg_min, m.agg_max);
                a.net.merge(m.calls, net, m.net_min, m.net_max);
                a.size.merge(m.calls, m.size, m.size_min, m.size_max);
            } else {
                a.net.sum = add_signed(a.net.sum, m.net);
            }
        }
        self.aggregated_calls += aggs.calls();
    }
}

/// The coverage statement's figures (after the walk).
pub fn coverage(aggs: &Aggregates, recorded: u64, names: &Names) -> Coverage {
    let mut throttled: Vec<ThrottledMethod> = Vec::new();
    for x in &aggs.throttled {
        if throttled.iter().any(|t| t.method_id == x.method) {
            continue;
        }
        throttled.push(ThrottledMethod {
            method: names.method(x.method).map_or_else(
                || "?".into(),
                |m| format!("{}.{}", names.class(m.class), m.name),
            ),
            tid: x.tid,
            t: x.t,
            calls: x.calls,
            mean: x.total as f64 / x.calls.max(1) as f64,
            method_id: x.method,
        });
    }
    throttled.sort_by_key(|t| t.t);
    Coverage {
        recorded_calls: recorded,
        aggregated_calls: aggs.calls(),
        folded_calls: aggs.threads.iter().map(|t| t.folded).sum(),
        unattributed_calls: aggs.threads.iter().map(|t| t.dropped).sum(),
        unrecorded_creations: aggs.objects().0,
        unrecorded_destructions: aggs.objects().1,
        throttled,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Builder, Options};
    use super::*;
    use crate::analyse::walk::{Closed, Frame, Sink};

    /// A runtime's net correction applies after the recorded messages still waiting in the
    /// batch: it saturates at 0, so taking it first would lose it.
    #[test]
    fn corrections_follow_pending_messages() {
        let mut b = Builder::new(&Options::default());
        let frame = Frame::opened(0, 0, 1, 1, 0);
        let c = Closed {
            frame,
            thread: 0,
            tid: 1,
            end: 100,
            aggregate: 100,
            net: 100,
            wait: 0,
            outer: &[],
        };
        b.closed(&c, &[], &crate::analyse::trace::Names::default());
        let fix = Resolved {
            sender: 0,
            receiver: 1,
            method: 0,
            calls: 0,
            agg: 0,
            net: -40,
            size: 0,
        };
        b.add_aggregates(&Aggregates::default(), &[fix]);
        b.flush();
        let edges = super::super::table::Edges::new(std::mem::take(&mut b.edges), 1);
        let sums = edges.per_instance(2);
        assert_eq!(sums.active(1), 60);
    }
}
