//! Holds back the tracker's records whose outcome depends on other threads until no thread
//! can still bring an earlier record, with bounded memory.
//!
//! Each thread's records arrive in its own time order, but the runtimes write a thread's
//! events in blocks (≈ 64 KiB, when its buffer fills or it exits), so threads interleave
//! in the file out of time order. Most records change only their own thread's state or
//! sums whose order does not matter (a close, a creation, a call on an object whose event
//! is already settled), and the tracker applies them as they come. A record that reads what
//! another thread may still write (the first use of an object, a remote key) waits at the
//! head of its thread's queue (a lane), and the records of that thread queue behind it. A
//! waiting head is released, lowest time first, once no lane can still bring an earlier
//! record: its time is at most every lane's latest time (the watermark). Threads the trace
//! named before their first block (both runtimes write a thread's `N` record when it
//! starts) hold the watermark back until their records come. A thread that stays idle or
//! has ended holds it forever, so past [`WINDOW`] queued records the earliest head is
//! released anyway: the order is exact while a thread's records arrive within that window,
//! and a waiting record released after a later one is counted as late.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Records queued at most (48 bytes each: about 25 MB).
pub const WINDOW: usize = 1 << 19;

/// What the walk saw, for the rules.
#[derive(Clone, Copy)]
pub struct Rec {
    pub t: u64,
    /// Enter, close: the message's order; create: the size; key: the key.
    pub order: u64,
    /// An enter folded with its close (a call with no record between them): the end.
    pub end: u64,
    /// Close: work (wall time less measured blocking).
    pub work: u64,
    /// Enter, close: the method; create: the class.
    pub x: u32,
    /// Enter: the receiver; create: the instance.
    pub y: u32,
    pub kind: u8,
    /// Enter: the receiver is an object; close: outermost on its thread; create: size known.
    pub flag: bool,
    /// While waiting, how long after `t` it is held back (a server's remote key: the
    /// processes' clocks may disagree by more than the call's transport).
    pub hold: u32,
}

/// The lanes: one per tracker thread slot.
pub struct Order {
    /// Records that may be queued ([`WINDOW`] but in tests).
    window: usize,
    lanes: Vec<VecDeque<Rec>>,
    /// Per lane, the latest time it brought (0 before its first record).
    hi: Vec<u64>,
    /// The waiting head of each non-empty lane: (time, arrival, lane).
    heads: BinaryHeap<Reverse<(u64, u64, u32)>>,
    queued: usize,
    seq: u64,
    /// The lowest `hi` and its lane; recomputed when that lane moves on.
    low: Option<(u64, usize)>,
    /// False until the trace named a thread: without names no lane can be counted on to
    /// exist before its records come, so nothing waiting is released before the window fills.
    named: bool,
    /// The latest due time (time + hold) of a waiting record released.
    released_t: u64,
    /// Waiting records released after a later one.
    pub late: u64,
    /// Most records queued at once.
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
            queued: 0,
            seq: 0,
            low: None,
            named: false,
            released_t: 0,
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

    /// Lane `lane` (made before) has brought time `t`.
    #[inline]
    pub fn raise(&mut self, lane: usize, t: u64) {
        // No closure: called twice per trace record, unoptimised (debug) builds too.
        if t > self.hi[lane] {
            self.hi[lane] = t;
            if let Some((_, l)) = self.low {
                if l == lane {
                    self.low = None;
                }
            }
        }
    }

    /// Whether `lane` has nothing queued (its next record may be applied at once).
    #[inline]
    pub fn is_clear(&self, lane: usize) -> bool {
        self.queued == 0 || self.lanes.get(lane).is_none_or(VecDeque::is_empty)
    }

    /// The latest time lane `lane` (made before) brought.
    #[inline]
    pub fn latest(&self, lane: usize) -> u64 {
        self.hi[lane]
    }

    /// Queues `r` behind lane `lane`'s records; the first one queued is the lane's waiting
    /// head.
    pub fn push(&mut self, lane: usize, r: Rec) {
        self.lane(lane, false);
        if self.lanes[lane].is_empty() {
            self.wait(lane, &r);
        }
        self.lanes[lane].push_back(r);
        self.queued += 1;
        self.peak = self.peak.max(self.queued);
    }

    fn wait(&mut self, lane: usize, r: &Rec) {
        self.seq += 1;
        let due = r.t.saturating_add(r.hold as u64);
        self.heads.push(Reverse((due, self.seq, lane as u32)));
    }

    /// The record `lane` queued last, while it is still queued.
    pub fn last_queued(&mut self, lane: usize) -> Option<&mut Rec> {
        self.lanes.get_mut(lane)?.back_mut()
    }

    pub fn full(&self) -> bool {
        self.queued > self.window
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

    /// A time before which no record can still be applied: the earliest waiting head's,
    /// and every lane's latest time but those of lanes idle since before `idle` (a thread
    /// ended or asleep would hold it back forever).
    pub fn settled(&self, idle: u64) -> u64 {
        let head = self.heads.peek().map_or(u64::MAX, |&Reverse((t, _, _))| t);
        (self.hi.iter().copied())
            .filter(|&h| h >= idle)
            .fold(head, u64::min)
    }

    /// The waiting head due next (its lane and record, taken off the lane): one no lane
    /// can precede any more, or the earliest when more than [`WINDOW`] are queued; with
    /// `all`, the earliest.
    pub fn release(&mut self, all: bool) -> Option<(usize, Rec)> {
        let &Reverse((t, _, lane)) = self.heads.peek()?;
        if !all && self.queued <= self.window && t > self.watermark() {
            return None;
        }
        self.heads.pop();
        let r = self.lanes[lane as usize].pop_front()?;
        self.queued -= 1;
        if t < self.released_t {
            self.late += 1;
        }
        self.released_t = self.released_t.max(t);
        Some((lane as usize, r))
    }

    /// The next record of `lane` once its waiting head was applied: `ready` says whether
    /// it may be applied at once; if not, it becomes the lane's waiting head and `None`.
    pub fn next(&mut self, lane: usize, ready: impl FnOnce(&Rec) -> bool) -> Option<Rec> {
        let r = *self.lanes[lane].front()?;
        if !ready(&r) {
            self.wait(lane, &r);
            return None;
        }
        self.lanes[lane].pop_front();
        self.queued -= 1;
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(t: u64) -> Rec {
        Rec {
            t,
            order: 0,
            end: 0,
            work: 0,
            x: 0,
            y: 0,
            kind: 0,
            flag: false,
            hold: 0,
        }
    }

    /// Every record waits (as first uses do): the lanes' records in the order released.
    fn drain(o: &mut Order, all: bool) -> Vec<(usize, u64)> {
        let mut out = Vec::new();
        while let Some((l, r)) = o.release(all) {
            out.push((l, r.t));
            // The lane's next record waits in its turn.
            let _ = o.next(l, |_| false);
        }
        out
    }

    fn put(o: &mut Order, lane: usize, t: u64) {
        o.lane(lane, false);
        o.raise(lane, t);
        o.push(lane, rec(t));
    }

    #[test]
    fn named_lanes_hold_records_until_their_blocks_come() {
        let mut o = Order::with_window(100);
        o.lane(0, true);
        o.lane(1, true);
        for t in [5, 10, 30] {
            put(&mut o, 0, t);
        }
        // Lane 1 has brought nothing: it may still bring time 1.
        assert!(drain(&mut o, false).is_empty());
        for t in [1, 12, 20] {
            put(&mut o, 1, t);
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
            put(&mut o, 0, t);
            got.extend(drain(&mut o, false));
        }
        assert_eq!(o.peak, 5, "never more than the window and the newest");
        assert_eq!(got, (10..16).map(|t| (0, t)).collect::<Vec<_>>());
        // Lane 1's block comes late: its record is released after later ones, and counted.
        put(&mut o, 1, 3);
        got.extend(drain(&mut o, true));
        assert_eq!(got.len(), 11);
        assert_eq!(o.late, 1);
    }

    #[test]
    fn without_thread_names_nothing_goes_before_the_end() {
        let mut o = Order::with_window(100);
        put(&mut o, 0, 50);
        put(&mut o, 1, 60);
        assert!(drain(&mut o, false).is_empty());
        put(&mut o, 2, 10);
        assert_eq!(drain(&mut o, true), vec![(2, 10), (0, 50), (1, 60)]);
        assert_eq!(o.late, 0);
    }

    #[test]
    fn records_ready_behind_a_released_head_follow_it() {
        let mut o = Order::with_window(100);
        o.lane(0, true);
        put(&mut o, 0, 5);
        put(&mut o, 0, 6);
        let (l, r) = o.release(false).unwrap();
        assert_eq!((l, r.t), (0, 5));
        assert_eq!(o.next(0, |_| true).map(|r| r.t), Some(6));
        assert!(o.is_clear(0));
    }
}
