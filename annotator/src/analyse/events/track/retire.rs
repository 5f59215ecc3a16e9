//! Retiring finished events during the walk: an event no thread carries, idle past the
//! horizon, is folded into its type's results ([`super::super::stats`]) and its record
//! dropped, so memory holds the live events, not every event of the run. Its objects keep
//! their 4-byte association, to a number no longer live: a later call on one of them is
//! not a continuation. One that holds no object (none was created or first used in it, or
//! all were destroyed) and no `[[remote]]` call, nothing can continue: it retires once
//! every thread is past its end, without waiting for the horizon. Events retire in the
//! order they started, which numbers them.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{Segment, Tracker};
use crate::analyse::events::stats::Folded;

/// An event idle this long (trace units: 1 s in ns), or 4 times the longest pause seen
/// between an event's calls if more, is retired once no thread carries it.
pub(crate) const HORIZON: u64 = 1_000_000_000;

pub(super) struct Retire {
    /// The live events by start: (start, id).
    by_start: BinaryHeap<Reverse<(u64, u32)>>,
    /// Per event id, its number (kept with `[[remote]]` only: its calls name events).
    numbers: Option<Vec<u32>>,
    /// The longest pause between an event's calls so far.
    pub(super) max_gap: u64,
    /// Segments held past which those of retired events are dropped.
    seg_mark: usize,
}

impl Retire {
    pub(super) fn started(&mut self, id: u32, start: u64) {
        self.by_start.push(Reverse((start, id)));
    }
}

/// Segments held before the first compaction.
const SEG_SLACK: usize = 4096;

impl Tracker {
    /// Retires finished events during the walk (the analysis's tracker), listing the first
    /// `cap` of them.
    pub fn retiring(mut self, cap: usize) -> Self {
        self.folded = Folded::new(&self.defs, cap);
        self.retire = Some(Retire {
            by_start: BinaryHeap::new(),
            numbers: (!self.remote.defs.is_empty()).then(Vec::new),
            max_gap: 0,
            seg_mark: SEG_SLACK,
        });
        self
    }

    /// Retires the earliest-started events finished by `now` (no thread carries them and
    /// they were idle past the horizon, or hold no object, every thread's records up to
    /// then applied).
    pub(super) fn retire_due(&mut self, now: u64) {
        let Some(r) = &mut self.retire else {
            return;
        };
        let horizon = HORIZON.max(r.max_gap.saturating_mul(4));
        let mut any = false;
        // `now` is the time of the event starting; other threads' records up to `settled`
        // may still come (computed once an event is due by `now`).
        let mut settled = None;
        let remote = !self.remote.defs.is_empty();
        while let Some(&Reverse((_, id))) = r.by_start.peek() {
            let e = &self.events[(id - self.base) as usize];
            // Holding no object (and no remote call naming it), nothing can continue it:
            // due once every thread is past its end.
            let due = match e.held == 0 && !remote {
                true => e.end,
                false => e.end.saturating_add(horizon),
            };
            if e.carriers > 0 || due > now {
                break;
            }
            let order = &self.order;
            if due > *settled.get_or_insert_with(|| order.settled(now.saturating_sub(horizon))) {
                break;
            }
            r.by_start.pop();
            let segs = &self.segments;
            let n = self.folded.fold(e, || {
                (segs.iter()).filter(|s| s.event == id).copied().collect()
            });
            if let Some(m) = &mut r.numbers {
                set(m, id, n);
            }
            self.events[(id - self.base) as usize].gone = true;
            any = true;
        }
        if any {
            self.reclaim();
        }
    }

    /// Drops the retired records at the front and, past the mark, retired events' segments.
    fn reclaim(&mut self) {
        while self.events.front().is_some_and(|e| e.gone) {
            self.events.pop_front();
            self.base += 1;
        }
        let Some(r) = &mut self.retire else {
            return;
        };
        if self.segments.len() > r.seg_mark {
            let (events, base) = (&self.events, self.base);
            self.segments.retain(|s| {
                (events.get(s.event.wrapping_sub(base) as usize)).is_some_and(|e| !e.gone)
            });
            r.seg_mark = self.segments.len() * 2 + SEG_SLACK;
        }
    }

    /// At the end of the walk: every event left, in start order (their segments indexed
    /// once), and the remote calls renumbered.
    pub(super) fn retire_all(&mut self) {
        let Some(mut r) = self.retire.take() else {
            return;
        };
        let mut by_event: Vec<u32> = (0..self.segments.len() as u32).collect();
        by_event.sort_by_key(|&i| (self.segments[i as usize].event, i));
        let segs = &self.segments;
        let of = |id: u32| segments_of(&by_event, segs, id);
        for Reverse((_, id)) in std::mem::take(&mut r.by_start)
            .into_sorted_vec()
            .into_iter()
            .rev()
        {
            let e = &self.events[(id - self.base) as usize];
            let n = self.folded.fold(e, || of(id));
            if let Some(m) = &mut r.numbers {
                set(m, id, n);
            }
        }
        if let Some(m) = &r.numbers {
            self.remote.renumber(m);
        }
        self.events.clear();
        self.segments = Vec::new();
        self.retire = Some(r);
    }

    /// Every type's results: a tracker that kept every event (numbered by start, after
    /// [`Tracker::finish`]) folds them all now.
    pub(crate) fn take_folded(&mut self, cap: usize) -> Folded {
        if self.retire.is_none() {
            self.fold_kept(cap);
        }
        std::mem::replace(&mut self.folded, Folded::new(&[], 0))
    }

    fn fold_kept(&mut self, cap: usize) {
        self.folded = Folded::new(&self.defs, cap);
        let mut by_event: Vec<u32> = (0..self.segments.len() as u32).collect();
        by_event.sort_by_key(|&i| (self.segments[i as usize].event, i));
        let segs = &self.segments;
        for (id, e) in self.events.iter().enumerate() {
            let id = id as u32;
            self.folded.fold(e, || segments_of(&by_event, segs, id));
        }
    }
}

/// Event `id`'s segments, in trace order: `by_event` indexes `segs` sorted by event.
fn segments_of(by_event: &[u32], segs: &[Segment], id: u32) -> Vec<Segment> {
    let from = by_event.partition_point(|&i| segs[i as usize].event < id);
    let to = by_event.partition_point(|&i| segs[i as usize].event <= id);
    by_event[from..to]
        .iter()
        .map(|&i| segs[i as usize])
        .collect()
}

fn set(m: &mut Vec<u32>, id: u32, n: u32) {
    if m.len() <= id as usize {
        m.resize(id as usize + 1, u32::MAX);
    }
    m[id as usize] = n;
}

#[cfg(test)]
mod tests {
    use super::super::Tracked;
    use super::*;
    use crate::analyse::events::tests::{accept_defs, trace_file};
    use crate::analyse::events::{results, Events};
    use crate::analyse::walk::walk_trace;

    /// `n` requests 2 s apart (past the horizon): each accepted on thread 1, which creates
    /// its `R`, run on thread 2 and its `R` written on thread 3 a little later; some are
    /// slower, so the slowest are not the last.
    fn trace(n: u64) -> String {
        let mut s = String::from("##### revy-trace 1 unit=ns\n");
        for tid in 1..=3 {
            s += &format!("##### thread tid={tid} name=t{tid}\n");
        }
        for k in 0..n {
            let (t, o, slow) = (k * 2_000_000_000, k + 10, (k * 7919) % 13 * 1000);
            s += &format!(
                "<Msg cls=A oid=1 mth=accept sgn=!! size=0 tid=1 t={}>\n\
                 <Crt cls=R oid={o} size=16 tid=1 t={}>\n\
                 </Msg cls=A oid=1 mth=accept sgn=!! tid=1 t={}>\n\
                 <Msg cls=R oid={o} mth=run sgn=!! size=0 tid=2 t={}>\n\
                 </Msg cls=R oid={o} mth=run sgn=!! tid=2 t={}>\n\
                 <Msg cls=R oid={o} mth=write sgn=!! size=0 tid=3 t={}>\n\
                 </Msg cls=R oid={o} mth=write sgn=!! tid=3 t={}>\n",
                t + 10,
                t + 11,
                t + 20,
                t + 500,
                t + 900 + slow,
                t + 1000 + slow,
                t + 1100 + 2 * slow,
            );
        }
        s
    }

    fn json(e: &Events) -> String {
        serde_json::to_string(e).unwrap()
    }

    /// `path` through a tracker that keeps every event and one that retires them (events
    /// `A.accept`): the retiring one's results, checked equal to the kept one's, and the most
    /// records it held at once.
    fn kept_and_retired(path: &std::path::Path) -> (Events, usize) {
        let defs = accept_defs();
        let walk = |t: &mut Tracker| {
            let (reader, _) = walk_trace(path, &mut Tracked::new(&mut (), t)).unwrap();
            t.finish(reader.names());
            reader
        };
        let mut kept = Tracker::new(&defs, Default::default());
        let reader = walk(&mut kept);
        let kept = results(kept, reader.names(), 10);
        let mut retiring = Tracker::new(&defs, Default::default()).retiring(10);
        let reader = walk(&mut retiring);
        let peak = retiring.peak_live;
        let retired = results(retiring, reader.names(), 10);
        assert_eq!(json(&retired), json(&kept));
        (retired, peak)
    }

    /// The same trace through a retiring tracker and one that keeps every event: the same
    /// results, while the retiring one held at most 2 records at once.
    #[test]
    fn retired_events_give_the_results_of_kept_ones() {
        let (_dir, path) = trace_file(&trace(40));
        let (retired, peak) = kept_and_retired(&path);
        assert_eq!(retired.types[0].count, 40);
        assert_eq!(retired.instances.len(), 10);
        assert_eq!(retired.types[0].slowest[0].timeline.len(), 3);
        assert!(peak <= 2, "{peak} records held");
    }

    /// Events 1 µs apart (well within the horizon) that hold no object: each retires once
    /// both threads are past its end (before, all 50 were held to the end), with the
    /// results of a tracker that keeps them all.
    #[test]
    fn events_holding_no_object_retire_before_the_horizon() {
        let mut s = String::from("##### revy-trace 1 unit=ns\n");
        s += "##### thread tid=1 name=t1\n##### thread tid=2 name=t2\n";
        for k in 0..50u64 {
            let t = 1000 + k * 1000;
            for (tid, m) in [(1, "accept"), (2, "poll")] {
                s += &format!(
                    "<Msg cls=A oid=1 mth={m} sgn=!! size=0 tid={tid} t={t}>\n\
                     </Msg cls=A oid=1 mth={m} sgn=!! tid={tid} t={}>\n",
                    t + 100 + k % 7
                );
            }
        }
        let (_dir, path) = trace_file(&s);
        let (retired, peak) = kept_and_retired(&path);
        assert_eq!(retired.types[0].count, 50);
        assert!(peak <= 2, "{peak} records held");
    }
}
