//! The walk's records into the tracker: each one is applied at once when its thread has
//! nothing waiting and its outcome cannot depend on another thread's records still to
//! come (see [`Tracker::ready`]), else queued in [`super::Order`] for its turn.

use super::{
    Rec, Tracker, CLOSE, CREATE, ENTER, ENTER_CLOSE, ENTER_CLOSE_OUTER, KEY, NAMED_LANES, NONE,
    UNSEEN,
};
use crate::analyse::trace::Names;
use crate::analyse::walk::{Closed, Frame, Instance, Sink};

impl Tracker {
    /// A call starts on the walker's thread `thread` (id `tid`). Most calls are applied
    /// at once on the thread the file is reading: only those go through no queue. Inlined
    /// in the walk: most calls change nothing (see [`Tracker::unchanged_by`]), and are
    /// told apart without a call.
    #[inline(always)]
    pub(crate) fn record_enter(&mut self, thread: usize, tid: u64, f: &Frame, names: &Names) {
        let th = self.slot(thread, tid);
        if self.pushed_to == th && self.order.is_clear(th) && self.unchanged_by(th, f) {
            self.order.raise(th, f.start);
            return;
        }
        self.enter_record(th, f, names);
    }

    /// Whether the start of `f` on slot `th`, applied now, would change nothing: no
    /// reassociation nor remote call is defined, and its receiver (if an object) was met
    /// before; and either its thread is in an event (the receiver's event is settled), or
    /// it starts no event and its receiver belongs to none (so it continues none).
    #[inline(always)]
    fn unchanged_by(&self, th: usize, f: &Frame) -> bool {
        if !self.plain {
            return false;
        }
        let object = crate::analyse::trace::multi::local(f.oid) != 0;
        let i = f.receiver as usize;
        let owner = match object {
            true if i < self.owner.len() => self.owner[i],
            true => UNSEEN,
            false => NONE,
        };
        if owner == UNSEEN {
            return false;
        }
        if self.threads[th].event != NONE {
            return true;
        }
        let starts = match self.methods.get(f.method as usize) {
            Some(b) if b.known => b.start != 0,
            _ => true,
        };
        !starts && owner == NONE
    }

    #[inline(never)]
    fn enter_record(&mut self, th: usize, f: &Frame, names: &Names) {
        let r = Rec {
            t: f.start,
            end: 0,
            hold: 0,
            order: f.order,
            work: 0,
            x: f.method,
            y: f.receiver,
            kind: ENTER,
            flag: crate::analyse::trace::multi::local(f.oid) != 0,
        };
        if self.on_course(th, r.t) && self.ready(&r) {
            self.enter(th, &r, names);
        } else {
            self.feed(th, r, names, Self::enter);
        }
    }

    /// Whether the file is still reading slot `th`'s block and nothing of it waits: then
    /// its record at `t` needs only its times noted before it is applied (or queued).
    #[inline(always)]
    fn on_course(&mut self, th: usize, t: u64) -> bool {
        if self.pushed_to != th || !self.order.is_clear(th) {
            return false;
        }
        self.order.raise(th, t);
        true
    }

    /// A call ended (its work and blocking compensated for the probes as the analysis does).
    /// Inlined in the walk: most ends change nothing but their thread's latest time.
    #[inline(always)]
    pub(crate) fn record_close(&mut self, c: &Closed, names: &Names) {
        let th = self.slot(c.thread, c.tid);
        if self.pushed_to == th && self.order.is_clear(th) {
            self.order.raise(th, c.end);
            // Only an outermost call's work, a remote call or the call carrying the
            // thread's event change anything.
            let t = &self.threads[th];
            let carrying = t.event != NONE && t.order == c.frame.order;
            if c.outer.is_empty() || carrying || !self.remote.is_idle() {
                self.close_now(th, c);
            }
            return;
        }
        self.close_record(th, c, names);
    }

    #[inline(never)]
    fn close_now(&mut self, th: usize, c: &Closed) {
        self.close(th, &Self::close_rec(c, self.work_of(c)));
    }

    #[inline(never)]
    fn close_record(&mut self, th: usize, c: &Closed, names: &Names) {
        let f = &c.frame;
        let work = self.work_of(c);
        // A close changes only its own thread's state and sums whose order does not
        // matter, so it is applied as soon as the records before it on its thread are:
        // folded into its start when that still waits, last on its thread.
        if !self.order.is_clear(th) {
            if let Some(last) =
                (self.order.last_queued(th)).filter(|l| l.kind == ENTER && l.order == f.order)
            {
                last.kind = if c.outer.is_empty() {
                    ENTER_CLOSE_OUTER
                } else {
                    ENTER_CLOSE
                };
                last.end = c.end;
                last.work = work;
                self.order.raise(th, c.end);
                return;
            }
        }
        let r = Self::close_rec(c, work);
        self.feed(th, r, names, |t, th, r, _| t.close(th, r));
    }

    /// A call's work: its time less the probes' (as the analysis subtracts them) and less
    /// the off-CPU time the runtime measured.
    #[inline]
    fn work_of(&self, c: &Closed) -> u64 {
        let f = &c.frame;
        let agg = c
            .aggregate
            .saturating_sub(self.probe.of_aggregate(f.descendants));
        agg - (c.wait + f.child_wait).min(agg)
    }

    fn close_rec(c: &Closed, work: u64) -> Rec {
        Rec {
            t: c.end,
            end: 0,
            hold: 0,
            order: c.frame.order,
            work,
            x: c.frame.method,
            y: 0,
            kind: CLOSE,
            flag: c.outer.is_empty(),
        }
    }

    /// A `[[remote]]` call's key, logged inside the call that just started on `tid`.
    pub(crate) fn record_key(&mut self, tid: u64, method: u32, key: u64, t: u64, names: &Names) {
        let bits = self.method_bits(method, names);
        let r = Rec {
            t,
            end: 0,
            hold: if bits.server {
                self.remote.hold(names.process_of(tid))
            } else {
                0
            },
            order: key,
            work: 0,
            x: method,
            y: 0,
            kind: KEY,
            flag: false,
        };
        let th = self.thread_slot(tid);
        self.feed(th, r, names, Self::key);
    }

    /// A creation has no time of its own: it takes its thread's latest.
    pub(crate) fn record_create(
        &mut self,
        tid: u64,
        inst: u32,
        class: u32,
        size: Option<u64>,
        names: &Names,
    ) {
        let th = self.thread_slot(tid);
        let r = Rec {
            t: self.order.latest(th),
            end: 0,
            hold: 0,
            order: size.unwrap_or(0),
            work: 0,
            x: class,
            y: inst,
            kind: CREATE,
            flag: size.is_some(),
        };
        self.feed(th, r, names, Self::create);
    }

    /// The slot of the walker's thread `thread`: an array index once met.
    #[inline]
    fn slot(&mut self, thread: usize, tid: u64) -> usize {
        match self.by_walker.get(thread) {
            Some(&s) if s != u32::MAX => s as usize,
            _ => self.walker_slot(thread, tid),
        }
    }

    #[cold]
    fn walker_slot(&mut self, thread: usize, tid: u64) -> usize {
        let th = self.thread_slot(tid);
        if self.by_walker.len() <= thread {
            self.by_walker.resize(thread + 1, u32::MAX);
        }
        self.by_walker[thread] = th as u32;
        th
    }

    /// Applies `r` of slot `th` with `apply`, or queues it when it must wait for its turn
    /// (or its thread's earlier records wait); applies the waiting records now due when
    /// the file moves to another thread's block, or the window is full.
    #[inline(never)]
    fn feed(
        &mut self,
        th: usize,
        r: Rec,
        names: &Names,
        apply: impl FnOnce(&mut Self, usize, &Rec, &Names),
    ) {
        let moved = self.pushed_to != th;
        self.order.raise(th, r.t);
        if moved {
            self.pushed_to = th;
            self.name_lanes(names);
            if !self.dying.is_empty() {
                self.drop_dead(false);
            }
        }
        let clear = self.order.is_clear(th);
        let head = if clear && self.ready(&r) {
            apply(self, th, &r, names);
            false
        } else {
            self.order.push(th, r);
            clear
        };
        // A new waiting head may be due already.
        if moved || head || self.order.full() {
            self.apply_due(names, false);
        }
    }

    /// Threads the trace named (before their first block) get their lane now, so their
    /// coming records hold the others back. Past [`NAMED_LANES`] the window alone orders.
    fn name_lanes(&mut self, names: &Names) {
        let n = names.threads.len();
        if n == self.named || n > NAMED_LANES {
            return;
        }
        self.named = n;
        let mut tids: Vec<u64> = names.threads.keys().copied().collect();
        tids.sort_unstable();
        for tid in tids {
            let th = self.thread_slot(tid);
            self.order.lane(th, true);
        }
    }

    /// A record that waited, now due.
    fn apply(&mut self, th: usize, r: &Rec, names: &Names) {
        match r.kind {
            ENTER => self.enter(th, r, names),
            CREATE => self.create(th, r, names),
            KEY => self.key(th, r, names),
            ENTER_CLOSE | ENTER_CLOSE_OUTER => {
                self.enter(th, r, names);
                let close = Rec {
                    t: r.end,
                    flag: r.kind == ENTER_CLOSE_OUTER,
                    ..*r
                };
                self.close(th, &close);
            }
            _ => self.close(th, r),
        }
    }

    /// Applies the waiting records now due, lowest time first, each followed by the
    /// records of its thread that may go at once.
    pub(super) fn apply_due(&mut self, names: &Names, all: bool) {
        while let Some((th, r)) = self.order.release(all) {
            self.apply(th, &r, names);
            loop {
                let (owner, re) = (&self.owner, self.reassociating);
                let Some(next) = self.order.next(th, |r| super::ready(owner, re, r)) else {
                    break;
                };
                self.apply(th, &next, names);
            }
        }
    }
}

/// A sink and the tracker fed by one walk: the inner sink's calling-context slot is kept
/// (the tracker uses none).
pub struct Tracked<'a, S> {
    pub inner: &'a mut S,
    pub tracker: &'a mut Tracker,
}

impl<'a, S> Tracked<'a, S> {
    pub fn new(inner: &'a mut S, tracker: &'a mut Tracker) -> Self {
        Tracked { inner, tracker }
    }
}

impl<S: Sink> Sink for Tracked<'_, S> {
    fn started(&mut self, parent_ctx: Option<u32>, thread: usize, frame: &Frame) -> u32 {
        self.inner.started(parent_ctx, thread, frame)
    }
    // Both inlined in the walk's loop (a call per record cost more than the fast path).
    #[inline(always)]
    fn entered(
        &mut self,
        parent_ctx: Option<u32>,
        thread: usize,
        tid: u64,
        frame: &Frame,
        names: &Names,
    ) -> u32 {
        self.tracker.record_enter(thread, tid, frame, names);
        self.inner.entered(parent_ctx, thread, tid, frame, names)
    }
    fn created(&mut self, tid: u64, instance: u32, class: u32, size: Option<u64>, names: &Names) {
        self.inner.created(tid, instance, class, size, names);
        self.tracker
            .record_create(tid, instance, class, size, names);
    }
    #[inline(always)]
    fn closed(&mut self, c: &Closed, instances: &[Instance], names: &Names) {
        self.tracker.record_close(c, names);
        self.inner.closed(c, instances, names);
    }
    fn destroyed(&mut self, tid: u64, instance: u32, t: u64) {
        self.inner.destroyed(tid, instance, t);
        self.tracker.record_destroy(tid, instance, t);
    }
    fn keyed(&mut self, tid: u64, method: u32, key: u64, t: u64, names: &Names) {
        self.tracker.record_key(tid, method, key, t, names);
        self.inner.keyed(tid, method, key, t, names);
    }
    fn gave_up(&self) -> bool {
        self.inner.gave_up()
    }
    fn aggregated(
        &mut self,
        aggs: &crate::analyse::trace::agg::Aggregates,
        edges: &[crate::analyse::walk::Resolved],
        instances: &[Instance],
    ) {
        self.inner.aggregated(aggs, edges, instances);
    }
}
