//! Following events through the walk (a [`Sink`]): which event each thread is processing,
//! which objects belong to which event, and each event's sums.
//!
//! Rules: a call matching a definition's start, on a thread not processing an event,
//! starts one that lasts until that call returns; calls nested in it belong to it. Objects
//! created during an event, or first used in it as a receiver, are associated with it (the
//! call that started it excepted: its receiver is usually a long-lived handler). A thread
//! not in an event that calls a method of an associated object continues that event for
//! the call's duration (Reiss's rule). `classes` limits which objects are associated,
//! `continue` which methods continue, and `reassociate` methods move their receiver to the
//! running event (objects reused from one request to the next).
//!
//! A trace holds each thread's events in time order but interleaves threads in blocks (a
//! thread's block can come long after another thread used what it created). Most records
//! change only their thread's state and order-free sums, and are applied as they come; one
//! whose outcome another thread may still change (the first use of an object: was it
//! created in an event on a thread whose block has not come yet? a remote key; with
//! `reassociate`, every call on an object) waits, with its thread's later records, in
//! [`super::order`] until no thread can bring an earlier record, within a bounded window.
//! Events are numbered in the order they started once all is applied (in place). Beyond
//! that window: per instance id 4 bytes (its event), per thread a few words, at most
//! [`SEGMENT_CAP`] timeline segments, and per event one [`EventRec`] (80 bytes) while it
//! lives: a tracker made [`Tracker::retiring`] (the analysis's) folds each finished event
//! into its type's results during the walk ([`retire`]); the exports' keeps them all.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use super::order::{Order, Rec};
use super::record::THREADS;
pub use super::record::{EventRec, Segment};
use super::remote::{Call, Links};
use crate::analyse::probe::Probe;
use crate::analyse::trace::Names;
use crate::instrument::events::EventDef;

mod dead;
mod feed;
mod retire;
pub use feed::Tracked;
use retire::Retire;

const NONE: u32 = u32::MAX;
/// An instance not met yet (its owner slot).
const UNSEEN: u32 = u32::MAX - 1;
/// Timeline segments kept (the first ones; 32 bytes each): the slowest events' paths.
pub(crate) const SEGMENT_CAP: usize = 1 << 18;
/// Threads named by the trace that get a lane before their first record.
const NAMED_LANES: usize = 4096;
/// What a method is to the definitions (computed once per method id).
#[derive(Clone, Copy, Default)]
struct MethodBits {
    known: bool,
    /// Index + 1 of the first definition it starts (0: none).
    start: u8,
    /// Definitions for which a call of it continues an event.
    cont: u32,
    /// Definitions for which it reassociates its receiver.
    reassoc: u32,
    /// Definitions whose `classes` take its receiver's class.
    carry: u32,
    /// Index + 1 of the `[[remote]]` it is the client or server of (0: none), and which.
    remote: u8,
    server: bool,
}

#[derive(Clone, Copy)]
struct ThreadEv {
    /// The event it is processing (NONE: none) and the order of the call carrying it.
    event: u32,
    order: u64,
    /// When the call carrying it started.
    start: u64,
    /// Its thread id once a message started on it.
    tid: Option<u64>,
    /// The latest message started on it (order, start, method): a remote key's call.
    last: (u64, u64, u32),
}

/// The facts of a message's start the rules use.
struct Entered {
    order: u64,
    start: u64,
    method: u32,
    receiver: u32,
}

const ENTER: u8 = 0;
const CREATE: u8 = 1;
const CLOSE: u8 = 2;
const KEY: u8 = 3;
/// A call with no record of its thread between its start and its end, queued as one
/// record: its end is applied right after its start (see [`Tracker::record_close`]).
const ENTER_CLOSE: u8 = 4;
/// [`ENTER_CLOSE`] of a call outermost on its thread.
const ENTER_CLOSE_OUTER: u8 = 5;

/// Moves `v[i]` to `v[to[i]]` in place (`to` a permutation; no second copy of `v`).
fn permute<T>(v: &mut [T], mut to: Vec<u32>) {
    for i in 0..v.len() {
        while to[i] as usize != i {
            let j = to[i] as usize;
            v.swap(i, j);
            to.swap(i, j);
        }
    }
}

/// [`Tracker::ready`], on the fields it reads.
#[inline]
fn ready(owner: &[u32], reassociating: bool, r: &Rec) -> bool {
    match r.kind {
        ENTER | ENTER_CLOSE | ENTER_CLOSE_OUTER => {
            let met = || owner.get(r.y as usize).is_some_and(|&o| o != UNSEEN);
            !r.flag || (!reassociating && met())
        }
        KEY => false,
        _ => true,
    }
}

/// The event tracker.
pub struct Tracker {
    order: Order,
    /// Thread names of the trace already given a lane.
    named: usize,
    /// The slot of the latest record queued.
    pushed_to: usize,
    pub defs: Vec<EventDef>,
    probe: Probe,
    methods: Vec<MethodBits>,
    /// Per class id: definitions whose `classes` take it (bit 31 set: computed).
    classes: Vec<u32>,
    /// Per instance id: its event (NONE: none or destroyed; UNSEEN: not met yet).
    owner: Vec<u32>,
    /// Destroyed objects waiting to lose their event.
    dying: dead::Dying,
    /// Some definition reassociates objects: any call on one may change its event, so
    /// every call on an object waits for its turn in time order.
    reassociating: bool,
    /// Neither reassociation nor `[[remote]]`: most calls change nothing (`feed.rs`).
    plain: bool,
    threads: Vec<ThreadEv>,
    by_tid: FxHashMap<u64, usize>,
    last_tid: (u64, usize),
    /// Per walker thread index: its slot (`u32::MAX`: not met yet), so a start or an end
    /// finds its thread by an array index.
    by_walker: Vec<u32>,
    /// The events from number `base` on (a retiring tracker drops the front's as they
    /// retire).
    pub events: VecDeque<EventRec>,
    base: u32,
    /// Per type, the events folded so far; and how they are retired during the walk.
    pub(crate) folded: super::stats::Folded,
    retire: Option<Retire>,
    /// The most event records held at once.
    pub(crate) peak_live: usize,
    pub segments: Vec<Segment>,
    pub segments_dropped: u64,
    /// Work and measured blocking of every thread's outermost messages.
    pub total_work: u64,
    /// `[[remote]]` calls linked across processes.
    pub(crate) remote: Links,
}

impl Tracker {
    /// A tracker for `defs` subtracting `probe` per message (as the analysis: its inside
    /// part per message, its outside part per message sent).
    pub fn new(defs: &[EventDef], probe: Probe) -> Self {
        Tracker {
            order: Order::default(),
            named: 0,
            pushed_to: usize::MAX,
            defs: defs.to_vec(),
            probe,
            methods: Vec::new(),
            classes: Vec::new(),
            owner: Vec::new(),
            dying: dead::Dying::default(),
            reassociating: defs.iter().any(|d| !d.reassociate.is_empty()),
            plain: defs.iter().all(|d| d.reassociate.is_empty()),
            threads: Vec::new(),
            by_tid: FxHashMap::default(),
            last_tid: (u64::MAX, usize::MAX),
            by_walker: Vec::new(),
            events: VecDeque::new(),
            base: 0,
            folded: super::stats::Folded::new(defs, usize::MAX),
            retire: None,
            peak_live: 0,
            segments: Vec::new(),
            segments_dropped: 0,
            total_work: 0,
            remote: Links::default(),
        }
    }

    /// Also links the `[[remote]]` calls `defs` names (at most 255) in `trace`, its
    /// processes' clocks lined up by the keys first ([`super::align`]).
    pub(crate) fn with_remote(
        mut self,
        defs: &[crate::instrument::remote::RemoteDef],
        trace: &std::path::Path,
    ) -> crate::error::Result<Self> {
        self.remote.defs = defs.iter().take(255).cloned().collect();
        self.plain &= self.remote.defs.is_empty();
        self.remote.skews = super::align::estimate(trace, &self.remote.defs)?;
        Ok(self)
    }

    /// A fresh tracker for the same definitions and clocks, subtracting `probe`: a walk run
    /// again (at the capped probe cost) reads and pairs the keys no second time.
    pub(crate) fn again(&self, probe: Probe) -> Self {
        let mut t = Tracker::new(&self.defs, probe);
        t.remote.defs = self.remote.defs.clone();
        t.plain = self.plain;
        t.remote.skews = self.remote.skews.clone();
        match self.retire.is_some() {
            true => t.retiring(self.folded.cap),
            false => t,
        }
    }

    /// The event `id` (None: retired).
    #[inline]
    fn live(&self, id: u32) -> Option<&EventRec> {
        let e = self.events.get(id.wrapping_sub(self.base) as usize)?;
        (!e.gone).then_some(e)
    }

    fn live_mut(&mut self, id: u32) -> Option<&mut EventRec> {
        let e = (self.events).get_mut(id.wrapping_sub(self.base) as usize)?;
        (!e.gone).then_some(e)
    }

    #[inline]
    fn ev(&mut self, id: u32) -> &mut EventRec {
        &mut self.events[(id - self.base) as usize]
    }

    fn class_bits(&mut self, class: u32, names: &Names) -> u32 {
        let c = class as usize;
        if self.classes.len() <= c {
            self.classes.resize(c + 1, 0);
        }
        if self.classes[c] & (1 << 31) == 0 {
            let name = names.class(class);
            let mut bits = 1 << 31;
            for (i, d) in self.defs.iter().enumerate() {
                if d.carried_by(name) {
                    bits |= 1 << i;
                }
            }
            self.classes[c] = bits;
        }
        self.classes[c] & !(1 << 31)
    }

    /// What `method` is to the definitions: matched by name on first sight, then an
    /// array index.
    #[inline]
    fn method_bits(&mut self, method: u32, names: &Names) -> MethodBits {
        match self.methods.get(method as usize) {
            Some(b) if b.known => *b,
            _ => self.match_method(method, names),
        }
    }

    #[cold]
    fn match_method(&mut self, method: u32, names: &Names) -> MethodBits {
        let m = method as usize;
        if self.methods.len() <= m {
            self.methods.resize(m + 1, MethodBits::default());
        }
        let mut b = MethodBits {
            known: true,
            ..Default::default()
        };
        if let Some(def) = names.method(method) {
            let class = names.class(def.class);
            let (n, s) = (def.name.as_str(), def.signature.as_str());
            for (i, d) in self.defs.iter().enumerate() {
                let any = |ps: &[crate::instrument::events::MethodPattern]| {
                    ps.iter().any(|p| p.matches(class, n, s))
                };
                if b.start == 0 && any(&d.starts) {
                    b.start = i as u8 + 1;
                }
                if d.continues.is_empty() || any(&d.continues) {
                    b.cont |= 1 << i;
                }
                if any(&d.reassociate) {
                    b.reassoc |= 1 << i;
                }
            }
            b.carry = self.class_bits(def.class, names);
            for (i, r) in self.remote.defs.iter().enumerate() {
                if let Some((server, _)) = r.key_of(class, n, s) {
                    (b.remote, b.server) = (i as u8 + 1, server);
                    break;
                }
            }
        }
        self.methods[m] = b;
        b
    }

    /// The tracker's slot of thread `tid`, made on first sight.
    fn thread_slot(&mut self, tid: u64) -> usize {
        if self.last_tid.0 == tid {
            return self.last_tid.1;
        }
        let th = match self.by_tid.get(&tid) {
            Some(&th) => th,
            None => self.threads.len(),
        };
        if self.threads.len() <= th {
            let idle = ThreadEv {
                event: NONE,
                order: 0,
                start: 0,
                tid: None,
                last: (0, 0, u32::MAX),
            };
            self.threads.resize(th + 1, idle);
            self.order.lane(th, false);
        }
        if self.threads[th].tid != Some(tid) {
            self.threads[th].tid = Some(tid);
            self.by_tid.insert(tid, th);
        }
        self.last_tid = (tid, th);
        th
    }

    /// Associates `inst` with `event` (live) or with none (NONE).
    fn own(&mut self, inst: u32, event: u32) {
        let i = inst as usize;
        if self.owner.len() <= i {
            self.owner
                .resize((i + 1).max(self.owner.len() * 5 / 4), UNSEEN);
        }
        let old = std::mem::replace(&mut self.owner[i], event);
        self.unhold(old);
        if event < UNSEEN {
            self.ev(event).held += 1;
        }
    }

    /// An object of event `old` (if any, and live) no longer belongs to it.
    #[inline]
    fn unhold(&mut self, old: u32) {
        if old < UNSEEN {
            if let Some(e) = self.live_mut(old) {
                e.held -= 1;
            }
        }
    }

    /// Its event (NONE: none; UNSEEN: not met yet).
    #[inline]
    fn owner_of(&self, inst: u32) -> u32 {
        self.owner.get(inst as usize).copied().unwrap_or(UNSEEN)
    }

    /// Whether `r`, next on its thread, may be applied before the records of other threads
    /// that are earlier in time and have not come yet: a call on an object met before (its
    /// event, if any, is settled: only its creation or first use set it), a creation (no
    /// thread used the object before it existed) and a close (its own thread's state).
    #[inline]
    fn ready(&self, r: &Rec) -> bool {
        ready(&self.owner, self.reassociating, r)
    }

    fn begin(&mut self, th: usize, event: u32, f: &Entered) {
        self.threads[th].event = event;
        self.threads[th].order = f.order;
        self.threads[th].start = f.start;
        let e = &mut self.events[(event - self.base) as usize];
        let gap = f.start.saturating_sub(e.end);
        e.carriers = e.carriers.saturating_add(1);
        e.start = e.start.min(f.start);
        let th = th as u32;
        let n = e.nthreads as usize;
        if !e.threads[..n.min(THREADS)].contains(&th) {
            if n < THREADS {
                e.threads[n] = th;
            }
            e.nthreads = e.nthreads.saturating_add(1);
        }
        if let Some(r) = &mut self.retire {
            r.max_gap = r.max_gap.max(gap);
        }
    }

    /// A call starts (`r`: [`ENTER`]). Inside an event it only settles its receiver's
    /// event when met for the first time (or reassociated), so the method's bits are read
    /// only then or outside every event.
    #[inline(always)]
    fn enter(&mut self, th: usize, r: &Rec, names: &Names) {
        let f = Entered {
            order: r.order,
            start: r.t,
            method: r.x,
            receiver: r.y,
        };
        if !self.remote.defs.is_empty() {
            self.threads[th].last = (f.order, f.start, f.method);
        }
        let object = r.flag;
        let fresh = object && self.owner_of(f.receiver) == UNSEEN;
        if fresh {
            self.own(f.receiver, NONE);
        }
        let cur = self.threads[th].event;
        if cur != NONE {
            if object && (fresh || self.reassociating) {
                let bits = self.method_bits(f.method, names);
                let d = 1u32 << self.ev(cur).def;
                if bits.carry & d != 0 && (fresh || bits.reassoc & d != 0) {
                    self.own(f.receiver, cur);
                }
            }
            return;
        }
        let bits = self.method_bits(f.method, names);
        if bits.start != 0 {
            self.start_event(th, bits.start as u16 - 1, &f);
            return;
        }
        if object && !fresh {
            let o = self.owner_of(f.receiver);
            // A retired event is not continued (its objects unused past the horizon).
            if o < UNSEEN && self.live(o).is_some_and(|e| bits.cont & (1 << e.def) != 0) {
                self.begin(th, o, &f);
            }
        }
    }

    fn start_event(&mut self, th: usize, def: u16, f: &Entered) {
        self.retire_due(f.start);
        let event = self.base + self.events.len() as u32;
        self.events.push_back(EventRec {
            def,
            start: f.start,
            end: f.start,
            work: 0,
            objects: 0,
            bytes: 0,
            segments: 0,
            threads: [0; THREADS],
            nthreads: 0,
            carriers: 0,
            held: 0,
            gone: false,
        });
        if let Some(r) = &mut self.retire {
            r.started(event, f.start);
        }
        self.peak_live = self.peak_live.max(self.events.len());
        self.begin(th, event, f);
    }

    fn create(&mut self, th: usize, r: &Rec, names: &Names) {
        let (inst, class) = (r.y, r.x);
        let size = r.flag.then_some(r.order);
        let cur = self.threads[th].event;
        if cur == NONE {
            if self.owner_of(inst) == UNSEEN {
                self.own(inst, NONE);
            }
            return;
        }
        let e = self.ev(cur);
        e.objects += 1;
        e.bytes += size.unwrap_or(0);
        let d = 1u32 << e.def;
        let mine = self.class_bits(class, names) & d != 0;
        self.own(inst, if mine { cur } else { NONE });
    }

    /// A call ends (`r`: [`CLOSE`]).
    #[inline(always)]
    fn close(&mut self, th: usize, r: &Rec) {
        if r.flag {
            self.total_work += r.work;
        }
        self.remote.closed(th, r.order, r.t, r.work);
        let t = &self.threads[th];
        if t.event != NONE && t.order == r.order {
            self.end_segment(th, r);
        }
    }

    /// The call carrying its thread's event ended: the event's part on the thread ends.
    fn end_segment(&mut self, th: usize, r: &Rec) {
        let t = self.threads[th];
        self.threads[th].event = NONE;
        let e = self.ev(t.event);
        e.carriers = e.carriers.saturating_sub(1);
        e.end = e.end.max(r.t);
        e.work += r.work;
        e.segments += 1;
        if self.segments.len() < SEGMENT_CAP {
            self.segments.push(Segment {
                event: t.event,
                method: r.x,
                tid: t.tid.unwrap_or(0),
                start: t.start,
                end: r.t,
            });
        } else {
            self.segments_dropped += 1;
        }
    }

    /// A client's key opens a remote call (with its thread's event); a server's links its
    /// handling to the client call of the same key, which continues that call's event.
    fn key(&mut self, th: usize, r: &Rec, names: &Names) {
        let bits = self.method_bits(r.x, names);
        let t = self.threads[th];
        let (order, start, method) = t.last;
        if bits.remote == 0 || method != r.x {
            return;
        }
        let (def, tid) = (bits.remote - 1, t.tid.unwrap_or(0));
        if !bits.server {
            let call = Call {
                event: t.event,
                client_tid: tid,
                client_start: start,
                ..Call::default()
            };
            self.remote.client(def, r.order, th, order, call);
            return;
        }
        let Some(event) =
            (self.remote.server(def, r.order, th, order, tid, start)).map(|c| c.event)
        else {
            return;
        };
        if t.event == NONE && event != NONE && self.live(event).is_some() {
            let f = Entered {
                order,
                start,
                method,
                receiver: 0,
            };
            self.begin(th, event, &f);
        }
    }

    /// Applies the records still waiting, in time order (each thread's own order kept),
    /// and numbers the events in the order they started.
    pub fn finish(&mut self, names: &Names) {
        self.apply_due(names, true);
        self.drop_dead(true);
        match self.retire.is_some() {
            true => self.retire_all(),
            false => self.renumber(),
        }
    }

    /// Events get their numbers in the order they were applied, which is not their start
    /// order when a thread's records were applied ahead of another's: sorts them by start.
    fn renumber(&mut self) {
        let mut by_start: Vec<u32> = (0..self.events.len() as u32).collect();
        by_start.sort_by_key(|&i| (self.events[i as usize].start, i));
        if by_start.iter().enumerate().all(|(n, &i)| n as u32 == i) {
            return;
        }
        let mut new_id = vec![0u32; by_start.len()];
        for (n, &i) in by_start.iter().enumerate() {
            new_id[i as usize] = n as u32;
        }
        drop(by_start);
        for s in &mut self.segments {
            s.event = new_id[s.event as usize];
        }
        self.remote.renumber(&new_id);
        for t in &mut self.threads {
            if t.event != NONE {
                t.event = new_id[t.event as usize];
            }
        }
        for o in &mut self.owner {
            if *o < UNSEEN {
                *o = new_id[*o as usize];
            }
        }
        permute(self.events.make_contiguous(), new_id);
    }

    /// Records applied after a later one (their thread's block came past the window), and
    /// the most records that waited at once.
    pub(crate) fn order_stats(&self) -> (u64, usize) {
        (self.order.late, self.order.peak)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn permute_moves_each_element_to_its_new_place() {
        let mut v = vec!['a', 'b', 'c', 'd', 'e'];
        super::permute(&mut v, vec![3, 0, 4, 1, 2]);
        assert_eq!(v, vec!['b', 'd', 'e', 'a', 'c']);
    }
}
