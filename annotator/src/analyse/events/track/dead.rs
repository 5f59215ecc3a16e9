//! Destroyed objects (C++ `Dst` entries; Java's are never destroyed in a trace) lose their
//! event: a dead object carries nothing further. The drop goes in time order: another
//! thread's block may still bring a call on the object from before its destruction, which
//! must still continue its event, so a destruction waits until every thread (but those idle
//! past the horizon) has brought a later time, or until [`super::super::order::WINDOW`]
//! destructions wait.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{Tracker, NONE, UNSEEN};
use crate::analyse::events::order::WINDOW;

/// Destructions queued between two looks at what is settled (each look reads every lane).
const CHECK_EVERY: usize = 256;

#[derive(Default)]
pub(super) struct Dying {
    /// (time, instance), earliest first.
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    /// The queue's length at which the settled time is read again.
    check_at: usize,
}

impl Dying {
    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

impl Tracker {
    /// Object `inst` was destroyed on `tid` at `t`: its association goes once no thread
    /// can still bring an earlier record (a valid trace uses no object after its end, so a
    /// late drop changes nothing; an early one could).
    pub(crate) fn record_destroy(&mut self, tid: u64, inst: u32, t: u64) {
        let th = self.thread_slot(tid);
        self.order.raise(th, t);
        self.dying.heap.push(Reverse((t, inst)));
        if self.dying.heap.len() >= self.dying.check_at {
            self.drop_dead(false);
        }
    }

    /// Drops the associations of the objects destroyed before every thread's applied time
    /// (`all`: every one queued).
    pub(super) fn drop_dead(&mut self, all: bool) {
        let settled = match (all, self.dying.heap.peek()) {
            (true, _) => u64::MAX,
            (false, Some(&Reverse((t, _)))) => {
                self.order.settled(t.saturating_sub(super::retire::HORIZON))
            }
            (false, None) => return,
        };
        while let Some(&Reverse((t, inst))) = self.dying.heap.peek() {
            if t >= settled && self.dying.heap.len() <= WINDOW {
                break;
            }
            self.dying.heap.pop();
            if let Some(o) = self.owner.get_mut(inst as usize) {
                if *o < UNSEEN {
                    let old = std::mem::replace(o, NONE);
                    self.unhold(old);
                }
            }
        }
        self.dying.check_at = self.dying.heap.len() + CHECK_EVERY;
    }

    /// Objects associated with an event now (test-visible: destroyed ones drop out).
    #[cfg(test)]
    pub(crate) fn associations(&self) -> usize {
        self.owner.iter().filter(|&&o| o < UNSEEN).count()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Tracked, Tracker};
    use crate::analyse::events::results;
    use crate::analyse::events::tests::{accept_defs, trace_file};
    use crate::analyse::walk::walk_trace;

    /// Thread 1's block comes first: an accept (the event) creates R#2 and R#3, and R#2 is
    /// destroyed at 40; thread 2's block, read after it, runs R#2 at 30, before that.
    const TRACE: &str = "##### revy-trace 1 unit=ns
##### thread tid=1 name=t1
##### thread tid=2 name=t2
<Msg cls=A oid=1 mth=accept sgn=!! size=0 tid=1 t=10>
<Crt cls=R oid=2 size=16 tid=1 t=11>
<Crt cls=R oid=3 size=16 tid=1 t=12>
</Msg cls=A oid=1 mth=accept sgn=!! tid=1 t=20>
<Dst cls=R oid=2 tid=1 t=40>
<Msg cls=R oid=2 mth=run sgn=!! size=0 tid=2 t=30>
</Msg cls=R oid=2 mth=run sgn=!! tid=2 t=35>
##### end events=7
";

    /// A destroyed object's association is dropped (before, every object kept its event
    /// for the whole run), but only in time order: the call on it from before its
    /// destruction, read later, still continues the event.
    #[test]
    fn a_destroyed_object_loses_its_event_after_its_last_use() {
        let (_dir, path) = trace_file(TRACE);
        let defs = accept_defs();
        for retiring in [false, true] {
            let mut t = Tracker::new(&defs, Default::default());
            if retiring {
                t = t.retiring(10);
            }
            let (reader, _) = walk_trace(&path, &mut Tracked::new(&mut (), &mut t)).unwrap();
            t.finish(reader.names());
            assert_eq!(t.associations(), 1, "R#3 only");
            let e = results(t, reader.names(), 10);
            let segs: Vec<u32> = e.instances.iter().map(|r| r.segments).collect();
            assert_eq!(segs, vec![2], "accept and R#2's run");
        }
    }
}
