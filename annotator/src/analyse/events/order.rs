//! Puts the records of the tracker back in time order with bounded memory.
//!
//! Each thread's records arrive in its own time order, but the runtimes write a thread's
//! events in blocks (≈ 64 KiB, when its buffer fills or it exits), so threads interleave
//! in the file out of time order. Records wait in one queue per thread (a lane); a record
//! is released, lowest time first, once no lane can still bring an earlier one: its time is
//! at most every lane's latest time (the watermark). Threads the trace named before their
//! first block (both runtimes write a thread's `N` record when it starts) hold the
//! watermark back until their records come. A thread that stays idle or has ended holds
//! it forever, so past [`WINDOW`] waiting records the earliest is released anyway: the
//! order is exact while a thread's records arrive within that window, and a record that
//! comes after later ones were applied is counted as late.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Records waiting at most (56 bytes each: about 29 MB).
pub const WINDOW: usize = 1 << 19;

/// What the walk saw, for the rules in time order.
#[derive(Clone, Copy)]
pub struct Rec {
    pub t: u64,
    /// Arrival number: ties in time keep the file's order.
    pub seq: u64,
    /// Enter, close: the message's order; create: the size.
    pub order: u64,
    /// An enter folded with its close (a call with no record between them): the end.
    pub end: u64,
    /// Close: work and measured blocking.
    pub work: u64,
    pub blocked: u64,
    /// Enter, close: the method; create: the class.
    pub x: u32,
    /// Enter: the receiver; create: the instance.
    pub y: u32,
    pub kind: u8,
    /// Enter: the receiver is an object; close: outermost on its thread; create: size known.
    pub flag: bool,
}

/// The reorder buffer: one lane per tracker thread slot.
pub struct Order {
    /// Records that may wait ([`WINDOW`] but in tests).
    window: usize,
    lanes: Vec<VecDeque<Rec>>,
    /// Per lane, the latest time it brought (0 before its first record).
    hi: Vec<u64>,
    /// The first record of each non-empty lane but `cur`: (time, arrival, lane).
    heads: BinaryHeap<Reverse<(u64, u64, u32)>>,
    /// The lane being drained: its run of records due goes out without the heap.
    cur: Option<usize>,
    waiting: usize,
    seq: u64,
    /// The lowest `hi` and its lane; recomputed when that lane moves on.
    low: Option<(u64, usize)>,
    /// False until the trace named a thread: without names no lane can be counted on to
    /// exist before its records come, so nothing is released before the window fills.
    named: bool,
    applied_t: u64,
    /// Records applied after a later one.
    pub late: u64,
    /// Most records waiting at once.
    pub peak: usize,
}

impl Default for Order {
    fn default() -> Self {
        Order::with_window(WINDOW)
    }
}

impl Order {
    pub fn with_window(window: usize) -> Self {
        Order {
            window,
            lanes: Vec::new(),
            hi: Vec::new(),
            heads: BinaryHeap::new(),
            cur: None,
            waiting: 0,
            seq: 0,
            low: None,
            named: false,
            applied_t: 0,
            late: 0,
            peak: 0,
        }
    }

    /// Makes sure `lane` exists; a lane made before its records holds the watermark at 0.
    pub fn lane(&mut self, lane: usize, named: bool) {
        self.named |= named;
        if self.lanes.len() <= lane {
            self.lanes.resize_with(lane + 1, VecDeque::new);
            self.hi.resize(lane + 1, 0);
            self.low = None;
        }
    }

    /// Queues `r` (its `seq` is set here) behind lane `lane`'s earlier records.
    pub fn push(&mut self, lane: usize, mut r: Rec) {
        self.lane(lane, false);
        r.seq = self.seq;
        self.seq += 1;
        let q = &mut self.lanes[lane];
        if q.is_empty() && self.cur != Some(lane) {
            self.heads.push(Reverse((r.t, r.seq, lane as u32)));
        }
        q.push_back(r);
        self.waiting += 1;
        self.peak = self.peak.max(self.waiting);
        let hi = self.hi[lane].max(r.t);
        self.hi[lane] = hi;
        if self.low.is_some_and(|(_, l)| l == lane) {
            self.low = None;
        }
    }

    /// The record `lane` queued last, while it still waits (not yet handed back).
    pub fn last_waiting(&mut self, lane: usize) -> Option<&mut Rec> {
        self.lanes.get_mut(lane)?.back_mut()
    }

    /// Lane `lane` has brought time `t` (a record folded into its last one).
    pub fn raise(&mut self, lane: usize, t: u64) {
        self.hi[lane] = self.hi[lane].max(t);
        if self.low.is_some_and(|(_, l)| l == lane) {
            self.low = None;
        }
    }

    pub fn full(&self) -> bool {
        self.waiting > self.window
    }

    fn watermark(&mut self) -> u64 {
        if !self.named {
            return 0;
        }
        if self.low.is_none() {
            self.low = (self.hi.iter().copied().enumerate())
                .map(|(l, h)| (h, l))
                .min();
        }
        self.low.map_or(0, |(h, _)| h)
    }

    /// The next record due (its lane): one no lane can precede any more, or the earliest
    /// when more than [`WINDOW`] wait; with `all`, every record in time order.
    pub fn pop(&mut self, all: bool) -> Option<(usize, Rec)> {
        let mine = (self.cur).and_then(|l| self.lanes[l].front().map(|r| (r.t, r.seq, l as u32)));
        let top = self.heads.peek().map(|h| h.0);
        let (t, _, lane) = match (mine, top) {
            (Some(m), Some(h)) if h < m => {
                self.heads.pop();
                self.heads.push(Reverse(m));
                self.cur = Some(h.2 as usize);
                h
            }
            (Some(m), _) => m,
            (None, Some(h)) => {
                self.heads.pop();
                self.cur = Some(h.2 as usize);
                h
            }
            (None, None) => return None,
        };
        if !all && self.waiting <= self.window && t > self.watermark() {
            return None;
        }
        let r = self.lanes[lane as usize].pop_front()?;
        self.waiting -= 1;
        if r.t < self.applied_t {
            self.late += 1;
        }
        self.applied_t = self.applied_t.max(r.t);
        Some((lane as usize, r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(t: u64) -> Rec {
        Rec {
            t,
            seq: 0,
            order: 0,
            end: 0,
            work: 0,
            blocked: 0,
            x: 0,
            y: 0,
            kind: 0,
            flag: false,
        }
    }

    fn drain(o: &mut Order, all: bool) -> Vec<(usize, u64)> {
        std::iter::from_fn(|| o.pop(all))
            .map(|(l, r)| (l, r.t))
            .collect()
    }

    #[test]
    fn named_lanes_hold_records_until_their_blocks_come() {
        let mut o = Order::with_window(100);
        o.lane(0, true);
        o.lane(1, true);
        for t in [5, 10, 30] {
            o.push(0, rec(t));
        }
        // Lane 1 has brought nothing: it may still bring time 1.
        assert!(drain(&mut o, false).is_empty());
        for t in [1, 12, 20] {
            o.push(1, rec(t));
        }
        // Up to 20, lane 1's latest: lane 0 may still bring 21.
        let want = vec![(1, 1), (0, 5), (0, 10), (1, 12), (1, 20)];
        assert_eq!(drain(&mut o, false), want);
        assert_eq!(drain(&mut o, true), vec![(0, 30)]);
        assert_eq!((o.late, o.peak), (0, 6));
    }

    #[test]
    fn an_idle_lane_holds_at_most_the_window() {
        let mut o = Order::with_window(4);
        o.lane(0, true);
        o.lane(1, true);
        let mut got = Vec::new();
        for t in 10..20 {
            o.push(0, rec(t));
            got.extend(drain(&mut o, false));
        }
        assert_eq!(o.peak, 5, "never more than the window and the newest");
        assert_eq!(got, (10..16).map(|t| (0, t)).collect::<Vec<_>>());
        // Lane 1's block comes late: its record is applied after later ones, and counted.
        o.push(1, rec(3));
        got.extend(drain(&mut o, true));
        assert_eq!(got.len(), 11);
        assert_eq!(o.late, 1);
    }

    #[test]
    fn without_thread_names_nothing_goes_before_the_end() {
        let mut o = Order::with_window(100);
        o.push(0, rec(50));
        o.push(1, rec(60));
        assert!(drain(&mut o, false).is_empty());
        o.push(2, rec(10));
        assert_eq!(drain(&mut o, true), vec![(2, 10), (0, 50), (1, 60)]);
        assert_eq!(o.late, 0);
    }
}
