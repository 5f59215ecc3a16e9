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
//! thread's block can come long after another thread used what it created), so the walk
//! only records what the rules need, 48 bytes per message start, end and creation, and
//! [`Tracker::replay`] applies the rules in time order after it. Beyond that record: per
//! instance id 4 bytes (its event), per event one [`EventRec`], per thread a few words, at
//! most [`SEGMENT_CAP`] timeline segments.

use rustc_hash::FxHashMap;

use crate::analyse::trace::Names;
use crate::analyse::walk::{Closed, Frame, Instance, Sink};
use crate::instrument::events::EventDef;

const NONE: u32 = u32::MAX;
/// Timeline segments kept (the first ones; 32 bytes each): the slowest events' paths.
pub const SEGMENT_CAP: usize = 1 << 18;
/// Distinct threads told apart per event.
const THREADS: usize = 6;

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
}

/// One event's sums (times in trace units).
#[derive(Debug, Clone, Copy)]
pub struct EventRec {
    pub def: u16,
    pub start: u64,
    pub end: u64,
    /// On-CPU time of its segments (their wall time less measured off-CPU time).
    pub work: u64,
    /// Measured off-CPU time inside its segments.
    pub blocked: u64,
    pub objects: u32,
    pub bytes: u64,
    pub segments: u32,
    /// Distinct threads (walker indices), the first [`THREADS`] told apart.
    pub threads: [u32; THREADS],
    pub nthreads: u8,
}

/// A stretch of one event on one thread: the call that started or continued it.
#[derive(Debug, Clone, Copy)]
pub struct Segment {
    pub event: u32,
    pub method: u32,
    pub tid: u64,
    pub start: u64,
    pub end: u64,
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
}

/// The facts of a message's start the rules use.
struct Entered {
    order: u64,
    start: u64,
    method: u32,
    receiver: u32,
}

/// What the walk saw, for the replay in time order.
#[derive(Clone, Copy)]
struct Rec {
    t: u64,
    tid: u64,
    /// Enter, close: the message's order; create: the size.
    order: u64,
    /// Close: work and measured blocking; enter: the start (= t).
    work: u64,
    blocked: u64,
    /// Enter, close: the method; create: the class.
    x: u32,
    /// Enter: the receiver; create: the instance; close: the walker's thread.
    y: u32,
    kind: u8,
    /// Enter: the receiver is an object; close: outermost on its thread; create: size known.
    flag: bool,
}

const ENTER: u8 = 0;
const CREATE: u8 = 1;
const CLOSE: u8 = 2;

/// The event tracker.
pub struct Tracker {
    recs: Vec<Rec>,
    /// Per thread id, its last time (a creation entry may have none).
    last_t: FxHashMap<u64, u64>,
    pub defs: Vec<EventDef>,
    probe: u64,
    methods: Vec<MethodBits>,
    /// Per class id: definitions whose `classes` take it (bit 31 set: computed).
    classes: Vec<u32>,
    /// Per instance id: its event (NONE: none).
    owner: Vec<u32>,
    /// Instance ids below this were met before (ids are given in order).
    seen: u32,
    threads: Vec<ThreadEv>,
    by_tid: FxHashMap<u64, usize>,
    last_tid: (u64, usize),
    pub events: Vec<EventRec>,
    pub segments: Vec<Segment>,
    pub segments_dropped: u64,
    /// Work and measured blocking of every thread's outermost messages.
    pub total_work: u64,
}

impl Tracker {
    /// A tracker for `defs` subtracting `probe` trace units per message (as the analysis).
    pub fn new(defs: &[EventDef], probe: u64) -> Self {
        Tracker {
            recs: Vec::new(),
            last_t: FxHashMap::default(),
            defs: defs.to_vec(),
            probe,
            methods: Vec::new(),
            classes: Vec::new(),
            owner: Vec::new(),
            seen: 0,
            threads: Vec::new(),
            by_tid: FxHashMap::default(),
            last_tid: (u64::MAX, usize::MAX),
            events: Vec::new(),
            segments: Vec::new(),
            segments_dropped: 0,
            total_work: 0,
        }
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

    fn method_bits(&mut self, method: u32, names: &Names) -> MethodBits {
        let m = method as usize;
        if self.methods.len() <= m {
            self.methods.resize(m + 1, MethodBits::default());
        }
        if self.methods[m].known {
            return self.methods[m];
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
            };
            self.threads.resize(th + 1, idle);
        }
        if self.threads[th].tid != Some(tid) {
            self.threads[th].tid = Some(tid);
            self.by_tid.insert(tid, th);
        }
        self.last_tid = (tid, th);
        th
    }

    fn own(&mut self, inst: u32, event: u32) {
        let i = inst as usize;
        if self.owner.len() <= i {
            self.owner
                .resize((i + 1).max(self.owner.len() * 5 / 4), NONE);
        }
        self.owner[i] = event;
    }

    fn owner_of(&self, inst: u32) -> u32 {
        self.owner.get(inst as usize).copied().unwrap_or(NONE)
    }

    fn begin(&mut self, th: usize, event: u32, f: &Entered) {
        self.threads[th].event = event;
        self.threads[th].order = f.order;
        self.threads[th].start = f.start;
        let e = &mut self.events[event as usize];
        e.start = e.start.min(f.start);
        let th = th as u32;
        let n = e.nthreads as usize;
        if !e.threads[..n.min(THREADS)].contains(&th) {
            if n < THREADS {
                e.threads[n] = th;
            }
            e.nthreads = e.nthreads.saturating_add(1);
        }
    }

    fn enter(&mut self, r: &Rec, names: &Names) {
        let f = Entered {
            order: r.order,
            start: r.t,
            method: r.x,
            receiver: r.y,
        };
        let th = self.thread_slot(r.tid);
        let bits = self.method_bits(f.method, names);
        let fresh = f.receiver >= self.seen;
        if fresh {
            self.seen = f.receiver + 1;
        }
        let object = r.flag;
        let cur = self.threads[th].event;
        if cur != NONE {
            let d = 1u32 << self.events[cur as usize].def;
            let reassoc = bits.reassoc & d != 0;
            if object && bits.carry & d != 0 && (fresh || reassoc) {
                self.own(f.receiver, cur);
            }
            return;
        }
        if bits.start != 0 {
            let event = self.events.len() as u32;
            self.events.push(EventRec {
                def: bits.start as u16 - 1,
                start: f.start,
                end: f.start,
                work: 0,
                blocked: 0,
                objects: 0,
                bytes: 0,
                segments: 0,
                threads: [0; THREADS],
                nthreads: 0,
            });
            self.begin(th, event, &f);
            return;
        }
        if object && !fresh {
            let o = self.owner_of(f.receiver);
            if o != NONE && bits.cont & (1 << self.events[o as usize].def) != 0 {
                self.begin(th, o, &f);
            }
        }
    }

    fn create(&mut self, r: &Rec, names: &Names) {
        let (inst, class) = (r.y, r.x);
        let size = r.flag.then_some(r.order);
        if inst >= self.seen {
            self.seen = inst + 1;
        }
        let th = self.thread_slot(r.tid);
        let cur = self.threads[th].event;
        if cur == NONE {
            return;
        }
        let e = &mut self.events[cur as usize];
        e.objects += 1;
        e.bytes += size.unwrap_or(0);
        let d = 1u32 << e.def;
        if self.class_bits(class, names) & d != 0 {
            self.own(inst, cur);
        }
    }

    /// Records a finished message (its work and blocking compensated as the analysis does).
    fn record_close(&mut self, c: &Closed) {
        let f = &c.frame;
        let agg = c
            .aggregate
            .saturating_sub(self.probe.saturating_mul(1 + f.descendants));
        let blocked = (c.wait + f.child_wait).min(agg);
        self.last_t.insert(c.tid, c.end);
        self.recs.push(Rec {
            t: c.end,
            tid: c.tid,
            order: f.order,
            work: agg - blocked,
            blocked,
            x: f.method,
            y: 0,
            kind: CLOSE,
            flag: c.outer.is_empty(),
        });
    }

    fn close(&mut self, r: &Rec) {
        if r.flag {
            self.total_work += r.work;
        }
        let th = self.thread_slot(r.tid);
        let t = self.threads[th];
        if t.event == NONE || t.order != r.order {
            return;
        }
        self.threads[th].event = NONE;
        let e = &mut self.events[t.event as usize];
        e.end = e.end.max(r.t);
        e.work += r.work;
        e.blocked += r.blocked;
        e.segments += 1;
        if self.segments.len() < SEGMENT_CAP {
            self.segments.push(Segment {
                event: t.event,
                method: r.x,
                tid: r.tid,
                start: t.start,
                end: r.t,
            });
        } else {
            self.segments_dropped += 1;
        }
    }
}

impl Tracker {
    fn record_enter(&mut self, tid: u64, f: &Frame) {
        self.last_t.insert(tid, f.start);
        self.recs.push(Rec {
            t: f.start,
            tid,
            order: f.order,
            work: 0,
            blocked: 0,
            x: f.method,
            y: f.receiver,
            kind: ENTER,
            flag: crate::analyse::trace::multi::local(f.oid) != 0,
        });
    }

    fn record_create(&mut self, tid: u64, inst: u32, class: u32, size: Option<u64>) {
        let t = self.last_t.get(&tid).copied().unwrap_or(0);
        self.recs.push(Rec {
            t,
            tid,
            order: size.unwrap_or(0),
            work: 0,
            blocked: 0,
            x: class,
            y: inst,
            kind: CREATE,
            flag: size.is_some(),
        });
    }

    /// Applies the rules to what the walk recorded, in time order (each thread's own order
    /// kept: the sort is stable and a thread's times never go back).
    pub fn replay(&mut self, names: &Names) {
        let mut recs = std::mem::take(&mut self.recs);
        recs.sort_by_key(|r| r.t);
        for r in &recs {
            match r.kind {
                ENTER => self.enter(r, names),
                CREATE => self.create(r, names),
                _ => self.close(r),
            }
        }
        self.last_t = FxHashMap::default();
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
    #[inline]
    fn entered(
        &mut self,
        parent_ctx: Option<u32>,
        thread: usize,
        tid: u64,
        frame: &Frame,
        names: &Names,
    ) -> u32 {
        self.tracker.record_enter(tid, frame);
        self.inner.entered(parent_ctx, thread, tid, frame, names)
    }
    fn created(&mut self, tid: u64, instance: u32, class: u32, size: Option<u64>, names: &Names) {
        self.inner.created(tid, instance, class, size, names);
        self.tracker.record_create(tid, instance, class, size);
    }
    #[inline]
    fn closed(&mut self, c: &Closed, instances: &[Instance], names: &Names) {
        self.tracker.record_close(c);
        self.inner.closed(c, instances, names);
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
