//! The run's length and busy time: one definition that `analyze`, `whatif`, `report` and
//! `estimate` all print, so one trace never shows two run lengths. The run length is the
//! wall span (the earliest thread's first event to the latest's last, processes on one
//! time line); busy time is each thread's span summed, less the probe cost the recorded
//! messages paid (when compensating).

use serde::Serialize;

use crate::analyse::probe::{Floor, Probe, SmallestNet};
use crate::analyse::trace::{agg::Aggregates, Names};
use crate::analyse::walk::{Closed, Instance, Resolved, Sink, Walker};

/// The run's length and busy time, in trace units.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RunLength {
    /// Wall span: first to last event over all threads.
    pub span: u64,
    /// Busy time: the threads' spans summed, less the probe cost subtracted.
    pub busy: u64,
    /// The part of `busy` inside instrumented messages (all net times).
    pub instrumented: u64,
    pub threads: usize,
}

impl RunLength {
    /// The line every command prints: `Run 2000 ns (wall span); busy 2500 ns over 2 thread(s)`.
    /// The run line every command prints; `time` scales a trace-unit figure for reading.
    pub(crate) fn describe(&self, time: impl Fn(f64) -> String) -> String {
        format!(
            "Run {} (wall span); busy {} over {} thread(s)",
            time(self.span as f64),
            time(self.busy as f64),
            self.threads
        )
    }
}

/// A walk's sink for [`RunLength`]: the messages' net times and what the probe took of
/// them. `analysis::Builder` holds one; `whatif` and `estimate` walk with one of their own.
#[derive(Debug, Clone, Default)]
pub(crate) struct RunClock {
    /// The probe cost known before the walk (trace units; 0: none).
    probe: Probe,
    /// Of the recorded messages' net times, what `probe` takes (at most each net).
    paid: u64,
    /// Recorded messages sent by recorded messages (each paid its sender `outside`).
    sent: u64,
    /// Recorded messages with a nonzero net time.
    nonzero: u64,
    /// The recorded messages' raw net times.
    raw: u64,
    /// The runtime's aggregated edges' net times (calls counted, and their callers'
    /// corrections).
    aggregated: i64,
    smallest: SmallestNet,
    /// Of the messages that sent some, with a nonzero net time, the smallest net time per
    /// message sent (at least 1).
    per_child: SmallestNet,
}

impl RunClock {
    /// A clock that takes `probe` off every message's net time.
    pub fn new(probe: Probe) -> Self {
        RunClock {
            probe,
            ..Default::default()
        }
    }
    /// One recorded message's raw net time, and how many recorded messages it sent.
    #[inline]
    pub fn message(&mut self, net: u64, children: u64) {
        self.smallest.see(net);
        if let Some(per_child) = net.checked_div(children) {
            // Under a unit per message sent (a nonzero net): 1, not "nothing seen".
            self.per_child.see(per_child.max(net.min(1)));
        }
        self.raw += net;
        self.paid += net.min(self.probe.of_net(children));
        self.sent += children;
        self.nonzero += (net > 0) as u64;
    }
    /// The aggregated edges' net times.
    pub fn aggregated(&mut self, edges: &[Resolved]) {
        self.aggregated += edges.iter().map(|e| e.net).sum::<i64>();
    }
    /// The smallest nonzero raw net time seen (0: none).
    pub fn smallest(&self) -> u64 {
        self.smallest.get()
    }
    /// What the recorded messages bound the probe split to ([`Floor`]).
    pub fn floor(&self) -> Floor {
        Floor {
            net: self.smallest.get(),
            per_child: self.per_child.get(),
        }
    }
    /// The net times summed, less `probe` per message: the walk's own probe, or a cap (its
    /// inside at most the smallest net time: every nonzero net then pays it whole, and
    /// every sender its outside per message sent).
    pub fn instrumented(&self, probe: Probe) -> u64 {
        let paid = if probe == self.probe {
            self.paid
        } else {
            probe.inside.min(self.smallest()) * self.nonzero
                + probe.outside.saturating_mul(self.sent)
        };
        self.raw
            .saturating_sub(paid)
            .saturating_add_signed(self.aggregated)
    }
    /// The run's length and busy time once `walker` has seen every event, `probe` taken
    /// off each message (see [`RunClock::instrumented`]).
    pub fn length(&self, walker: &Walker, probe: Probe) -> RunLength {
        let instrumented = self.instrumented(probe);
        RunLength {
            span: run_span(walker),
            busy: instrumented + root_time(walker),
            instrumented,
            threads: walker.threads.len(),
        }
    }
}

impl Sink for RunClock {
    fn closed(&mut self, c: &Closed, _instances: &[Instance], _names: &Names) {
        self.message(c.net, c.frame.children);
    }
    fn aggregated(&mut self, _aggs: &Aggregates, edges: &[Resolved], _instances: &[Instance]) {
        RunClock::aggregated(self, edges);
    }
}

/// The run's wall span: the earliest thread's first event to the latest's last.
pub fn run_span(walker: &Walker) -> u64 {
    let first = walker.threads.iter().filter_map(|t| t.first_t).min();
    let last = walker
        .threads
        .iter()
        .filter(|t| t.first_t.is_some())
        .map(|t| t.last_t)
        .max();
    match (first, last) {
        (Some(f), Some(l)) => l.saturating_sub(f),
        _ => 0,
    }
}

/// Time outside any message: it belongs to the thread's root.
fn root_time(walker: &Walker) -> u64 {
    walker
        .threads
        .iter()
        .map(|t| t.span().saturating_sub(t.total))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sender showing less than a trace unit per message sent bounds the outside part to
    /// one unit (before, 30 / 50 = 0 read as "no sender seen": the outside went uncapped);
    /// a zero net time (the clock did not move) bounds nothing.
    #[test]
    fn a_sender_under_a_unit_per_child_still_bounds_the_outside() {
        let mut c = RunClock::default();
        c.message(0, 10);
        assert_eq!(c.floor().per_child, 0);
        c.message(30, 50);
        c.message(900, 3);
        assert_eq!(
            c.floor(),
            Floor {
                net: 30,
                per_child: 1
            }
        );
    }
}
