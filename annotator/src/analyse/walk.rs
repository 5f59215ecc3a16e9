//! The message-stack machine shared by the analysis and the exports: one stack per thread,
//! sender = receiver of the message on top (the thread's root instance when empty),
//! aggregate = end − start, net = aggregate − aggregates of the messages it sent.

use rustc_hash::FxHashMap;
use serde::Serialize;

use std::path::Path;

use crate::analyse::trace::{Event, Names, RawEvent, TraceReader};
use crate::error::Result;

mod merge;
pub use merge::{folded_label, is_folded, with_tids, Resolved};

/// What an instance of the object graph stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InstKind {
    /// An object with an ID.
    Object,
    /// A class as receiver of static methods (`oid=0`).
    Class,
    /// A thread's root: the sender of the thread's outermost messages.
    Root,
}

/// One instance of the object graph in 40 bytes (a run can have millions): a root keeps its
/// thread id in the `oid` slot, absent size/creation/destruction are flag bits.
#[derive(Debug, Clone, Copy)]
pub struct Instance {
    id: u64,
    size: u64,
    created: u64,
    destroyed: u64,
    pub class: u32,
    pub kind: InstKind,
    /// Which of size, created, destroyed are known (bits 0, 1, 2); bit 3: a creation entry
    /// was read (with or without a time).
    has: u8,
}

impl Instance {
    pub(crate) fn new(kind: InstKind, class: u32, id: u64) -> Self {
        Instance {
            id,
            size: 0,
            created: 0,
            destroyed: 0,
            class,
            kind,
            has: 0,
        }
    }
    fn opt(&self, bit: u8, v: u64) -> Option<u64> {
        (self.has & bit != 0).then_some(v)
    }
    /// Object id (0 for a class or a root).
    pub fn oid(&self) -> u64 {
        if self.kind == InstKind::Root {
            0
        } else {
            self.id
        }
    }
    /// Thread of a root instance (0 otherwise).
    pub fn tid(&self) -> u64 {
        if self.kind == InstKind::Root {
            self.id
        } else {
            0
        }
    }
    pub fn size(&self) -> Option<u64> {
        self.opt(1, self.size)
    }
    pub fn created(&self) -> Option<u64> {
        self.opt(2, self.created)
    }
    pub fn destroyed(&self) -> Option<u64> {
        self.opt(4, self.destroyed)
    }
    /// The largest size logged: a derived part or a later runtime size.
    fn log_size(&mut self, size: Option<u64>) {
        if let Some(s) = size.max(self.size()) {
            self.size = s;
            self.has |= 1;
        }
    }
    /// A creation entry was read for it (`created()` needs its time too).
    pub fn logged_created(&self) -> bool {
        self.has & 8 != 0
    }
    fn set_created(&mut self, t: Option<u64>) {
        self.has |= 8;
        if let Some(t) = t {
            self.created = t;
            self.has |= 2;
        }
    }
    fn set_destroyed(&mut self, t: u64) {
        self.destroyed = t;
        self.has |= 4;
    }
}

/// Object id → instance: runtimes count object ids up from 1, so ids up to a few times the
/// instance count index a dense table (4 bytes per id, no hashing); others go to a map.
#[derive(Default)]
struct OidIndex {
    dense: Vec<u32>,
    sparse: FxHashMap<u64, u32>,
}

impl OidIndex {
    const NONE: u32 = u32::MAX;
    /// Past this many cells (1 MiB) the table leaves the core's cache and lookups ahead pay.
    const PREFETCH_FROM: usize = 1 << 18;
    #[inline]
    fn get_or_insert(&mut self, oid: u64, next: u32) -> (u32, bool) {
        if let Some(&i) = self.dense.get(oid as usize) {
            if i != Self::NONE {
                return (i, false);
            }
        }
        if !self.sparse.is_empty() {
            if let Some(&i) = self.sparse.get(&oid) {
                return (i, false);
            }
        }
        // Dense while the table stays within 4 ids per instance (plus a start).
        let bound = 4 * next as u64 + (1 << 16);
        if oid < bound {
            let o = oid as usize;
            if o >= self.dense.len() {
                self.dense
                    .resize((o + 1).max(self.dense.len() * 5 / 4), Self::NONE);
            }
            self.dense[o] = next;
        } else {
            self.sparse.insert(oid, next);
        }
        (next, true)
    }
}

/// An open message on a thread's stack.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    pub order: u64,
    pub method: u32,
    pub oid: u64,
    pub receiver: u32,
    pub sender: u32,
    pub start: u64,
    pub size: u64,
    /// Sum of the aggregates of the messages this one sent.
    pub child_agg: u64,
    /// Sum of the time the messages this one sent waited (off-CPU), callees included.
    pub child_wait: u64,
    /// The callee method holding most of the aggregate, summed over its calls from this
    /// message: (method, receiver or `u32::MAX` when several, aggregate).
    pub heaviest: Option<(u32, u32, u64)>,
    /// Messages nested in it, at any depth.
    pub descendants: u64,
    /// Messages it sent itself (its direct children).
    pub children: u64,
    /// A sink's own per-frame slot (e.g. a calling-context node).
    pub ctx: u32,
}

/// A message that just finished.
pub struct Closed<'a> {
    pub frame: Frame,
    /// The walker's index of its thread, and the thread's id.
    pub thread: usize,
    pub tid: u64,
    pub end: u64,
    pub aggregate: u64,
    pub net: u64,
    /// Of `net`, the time its thread was off the CPU (blocked or preempted): from the
    /// end's on-CPU time when the runtime measured it (a long call), else 0.
    pub wait: u64,
    /// The messages still open below it on its thread (outermost first).
    pub outer: &'a [Frame],
}

/// Receives the walker's results; all methods have no-op defaults.
pub trait Sink {
    /// A message starts; returns the value kept in `Frame::ctx`.
    fn started(&mut self, _parent_ctx: Option<u32>, _thread: usize, _frame: &Frame) -> u32 {
        0
    }
    /// [`Sink::started`] with the thread's id and the trace's names (the event tracker
    /// matches methods by name); by default just `started`.
    fn entered(
        &mut self,
        parent_ctx: Option<u32>,
        thread: usize,
        _tid: u64,
        frame: &Frame,
        _names: &Names,
    ) -> u32 {
        self.started(parent_ctx, thread, frame)
    }
    /// An object's creation entry: its instance, class and size.
    fn created(
        &mut self,
        _tid: u64,
        _instance: u32,
        _class: u32,
        _size: Option<u64>,
        _names: &Names,
    ) {
    }
    /// An object's destruction entry (C++ `Dst`): its instance, at time `t` (its thread's
    /// latest when the entry has none).
    fn destroyed(&mut self, _tid: u64, _instance: u32, _t: u64) {}
    fn closed(&mut self, _c: &Closed, _instances: &[Instance], _names: &Names) {}
    /// A `[[remote]]` call's key, logged inside thread `tid`'s current message (`method`).
    fn keyed(&mut self, _tid: u64, _method: u32, _key: u64, _t: u64, _names: &Names) {}
    /// True once the sink wants nothing more (the walk then stops within a few million
    /// events; what it leaves is the sink's to say).
    fn gave_up(&self) -> bool {
        false
    }
    /// The runtime's aggregates, their edges resolved to instances (`analysis::aggregates`).
    fn aggregated(
        &mut self,
        _aggs: &crate::analyse::trace::agg::Aggregates,
        _edges: &[Resolved],
        _instances: &[Instance],
    ) {
    }
}

/// A sink that wants nothing: a walk for the walker's instances and counts only.
impl Sink for () {}

pub struct ThreadState {
    pub tid: u64,
    pub root: u32,
    pub stack: Vec<Frame>,
    /// Per open frame: aggregate per callee method (reused, so no allocation per message).
    callees: Vec<Vec<(u32, u32, u64)>>,
    /// Time of the thread's first timed event (its span starts here).
    pub first_t: Option<u64>,
    pub last_t: u64,
    pub messages: u64,
    /// Sum of the aggregates of the thread's outermost messages.
    pub total: u64,
    /// Open frames per (method, oid), kept while the stack is deep: an end that matches no
    /// open message is then found out without scanning the stack (ends that never match
    /// their starts would otherwise make the walk quadratic).
    open: Option<FxHashMap<(u32, u64), u32>>,
    /// Frames examined while looking for the start of an end that is not on top (stays
    /// linear in the number of events).
    pub scanned: u64,
}

/// From this stack depth on, open frames are counted per (method, oid); below half of it
/// a scan is cheap and the counts are dropped.
const DEEP: usize = 64;

impl ThreadState {
    fn push(&mut self, frame: Frame) {
        self.stack.push(frame);
        match &mut self.open {
            Some(open) => *open.entry((frame.method, frame.oid)).or_insert(0) += 1,
            None if self.stack.len() > DEEP => {
                let mut open = FxHashMap::default();
                for f in &self.stack {
                    *open.entry((f.method, f.oid)).or_insert(0) += 1;
                }
                self.open = Some(open);
            }
            None => {}
        }
    }

    fn pop(&mut self) -> Option<Frame> {
        let frame = self.stack.pop()?;
        if let Some(open) = &mut self.open {
            if self.stack.len() < DEEP / 2 {
                self.open = None;
            } else if let Some(n) = open.get_mut(&(frame.method, frame.oid)) {
                *n -= 1;
                if *n == 0 {
                    open.remove(&(frame.method, frame.oid));
                }
            }
        }
        Some(frame)
    }

    /// Stack position of the innermost open (method, oid) message.
    fn find(&mut self, method: u32, oid: u64) -> Option<usize> {
        if let Some(open) = &self.open {
            open.get(&(method, oid))?;
        }
        let pos = self
            .stack
            .iter()
            .rposition(|f| f.method == method && f.oid == oid);
        self.scanned += (self.stack.len() - pos.map_or(0, |p| p)) as u64;
        pos
    }
}

impl ThreadState {
    #[inline]
    fn seen(&mut self, t: u64) {
        self.first_t.get_or_insert(t);
        self.last_t = t;
    }
    /// First to last event: the thread's share of the run.
    pub fn span(&self) -> u64 {
        self.first_t.map_or(0, |f| self.last_t.saturating_sub(f))
    }
}

/// Counts of structural problems; reported, never fatal.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Balance {
    /// Ends with no matching open message (ignored).
    pub unmatched_ends: u64,
    /// Open messages closed early because an end for an outer message arrived.
    pub closed_by_outer_end: u64,
    /// Messages still open when the trace ended (closed at their thread's last time).
    pub open_at_end: u64,
    pub examples: Vec<String>,
}

#[derive(Default)]
pub struct Walker {
    /// Every instance met, in id order (none in a [`Walker::numbering`] walk).
    pub instances: Vec<Instance>,
    /// How many instances were met (the next one's id).
    count: u32,
    /// Numbers instances without keeping them (see [`Walker::numbering`]).
    numbering: bool,
    pub threads: Vec<ThreadState>,
    by_oid: OidIndex,
    /// Static receivers by (class, process tag): each process of a trace set keeps its own.
    by_class: FxHashMap<(u32, u64), u32>,
    by_tid: FxHashMap<u64, usize>,
    last_tid: Option<(u64, usize)>,
    pub messages: u64,
    pub events: u64,
    pub balance: Balance,
    pub max_depth: usize,
}

impl Walker {
    pub fn new() -> Self {
        Self::default()
    }

    /// A walker that gives instances the ids [`Walker::new`] would but keeps no record of
    /// them: sinks get no instances. For a second walk over a trace whose analysis already
    /// holds its instances (the report's links), so they are not held twice.
    pub fn numbering() -> Self {
        Walker {
            numbering: true,
            ..Self::default()
        }
    }

    /// A new instance gets the next id.
    #[inline]
    fn add(&mut self, inst: Instance) {
        self.count += 1;
        if !self.numbering {
            self.instances.push(inst);
        }
    }

    #[inline]
    pub(crate) fn thread(&mut self, tid: u64) -> usize {
        if let Some((t, i)) = self.last_tid {
            if t == tid {
                return i;
            }
        }
        let i = match self.by_tid.get(&tid) {
            Some(&i) => i,
            None => {
                let root = self.count;
                self.add(Instance::new(InstKind::Root, u32::MAX, tid));
                self.threads.push(ThreadState {
                    tid,
                    root,
                    stack: Vec::new(),
                    callees: Vec::new(),
                    first_t: None,
                    last_t: 0,
                    messages: 0,
                    total: 0,
                    open: None,
                    scanned: 0,
                });
                self.by_tid.insert(tid, self.threads.len() - 1);
                self.threads.len() - 1
            }
        };
        self.last_tid = Some((tid, i));
        i
    }

    #[inline]
    pub(crate) fn instance(&mut self, class: u32, oid: u64) -> u32 {
        let next = self.count;
        // A static receiver's id is 0, or in a trace set its process tag above a zero
        // local id: keyed by class within its process, never by the tag alone (which would
        // fold every static class of a process into the first one met).
        let is_static = crate::analyse::trace::multi::local(oid) == 0;
        let (id, new) = if is_static {
            let e = self.by_class.entry((class, oid)).or_insert(next);
            (*e, *e == next)
        } else {
            self.by_oid.get_or_insert(oid, next)
        };
        if new {
            let kind = if is_static {
                InstKind::Class
            } else {
                InstKind::Object
            };
            self.add(Instance::new(kind, class, oid));
        }
        id
    }

    /// Frees the object-id index once every event and aggregate is placed (a few MB with a
    /// million objects): the analysis takes the instances next and the index would only
    /// add to its peak.
    pub fn release_index(&mut self) {
        self.by_oid = OidIndex::default();
    }

    /// Announces the id-table cell `ev` will look up (see [`walk_events`]); an end's too
    /// (its start read it: the hint costs nothing), so there is no branch on the kind.
    #[inline]
    pub fn prefetch(&self, ev: &RawEvent) {
        prefetch(&self.by_oid.dense, ev.oid as usize);
    }

    /// Whether looking ahead pays: the id table has outgrown the core's cache.
    #[inline]
    pub fn wants_prefetch(&self) -> bool {
        self.by_oid.dense.len() >= OidIndex::PREFETCH_FROM
    }

    // Always inlined: the walk has two loops ([`walk_events`]), and a call per
    // event in the by-event one cost the small traces 8 %.
    #[inline(always)]
    pub fn event(&mut self, ev: &Event, names: &Names, sink: &mut impl Sink) {
        self.events += 1;
        match *ev {
            Event::Create {
                class,
                oid,
                size,
                t,
                tid,
            } => {
                let th = self.thread(tid);
                if let Some(t) = t {
                    self.threads[th].seen(t);
                }
                let i = self.instance(class, oid) as usize;
                if let Some(inst) = self.instances.get_mut(i) {
                    inst.class = class; // the creation entry names the runtime class
                    inst.log_size(size);
                    inst.set_created(t);
                }
                sink.created(tid, i as u32, class, size, names);
            }
            Event::Destroy { class, oid, t, tid } => {
                let th = self.thread(tid);
                if let Some(t) = t {
                    self.threads[th].seen(t);
                }
                let t = t.unwrap_or(self.threads[th].last_t);
                let i = self.instance(class, oid) as usize;
                if let Some(inst) = self.instances.get_mut(i) {
                    inst.set_destroyed(t);
                }
                sink.destroyed(tid, i as u32, t);
            }
            Event::Start {
                tid,
                method,
                oid,
                size,
                t,
            } => self.start(tid, method, oid, size, t, names, sink),
            Event::End {
                tid,
                method,
                oid,
                t,
                cpu,
            } => self.end(tid, method, oid, t, cpu, names, sink),
            Event::Key {
                tid,
                method,
                key,
                t,
            } => {
                let th = self.thread(tid);
                self.threads[th].seen(t);
                sink.keyed(tid, method, key, t, names);
            }
        }
    }

    /// A message starts: its frame goes on the thread's stack (sender: the message below).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn start(
        &mut self,
        tid: u64,
        method: u32,
        oid: u64,
        size: u64,
        t: u64,
        names: &Names,
        sink: &mut impl Sink,
    ) {
        let th = self.thread(tid);
        let class = names.method(method).map_or(u32::MAX, |m| m.class);
        let receiver = self.instance(class, oid);
        let state = &mut self.threads[th];
        state.seen(t);
        let (sender, parent_ctx) = match state.stack.last() {
            Some(top) => (top.receiver, Some(top.ctx)),
            None => (state.root, None),
        };
        let mut frame = Frame {
            order: self.messages,
            method,
            oid,
            receiver,
            sender,
            start: t,
            size,
            child_agg: 0,
            child_wait: 0,
            heaviest: None,
            descendants: 0,
            children: 0,
            ctx: 0,
        };
        self.messages += 1;
        state.messages += 1;
        frame.ctx = sink.entered(parent_ctx, th, tid, &frame, names);
        state.push(frame);
        if state.callees.len() < state.stack.len() {
            state.callees.push(Vec::new());
        }
        state.callees[state.stack.len() - 1].clear();
        self.max_depth = self.max_depth.max(state.stack.len());
    }

    /// A message ends: closes the top frame, or the outer one it names (and those above it).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)] // one per field of the event, inlined in the walk
    fn end(
        &mut self,
        tid: u64,
        method: u32,
        oid: u64,
        t: u64,
        cpu: Option<u64>,
        names: &Names,
        sink: &mut impl Sink,
    ) {
        let th = self.thread(tid);
        self.threads[th].seen(t);
        let state = &mut self.threads[th];
        let top = state.stack.last();
        if top.is_some_and(|f| f.method == method && f.oid == oid) {
            self.close(th, t, cpu, sink, names);
            return;
        }
        match state.find(method, oid) {
            Some(pos) => {
                let extra = state.stack.len() - 1 - pos;
                self.balance.closed_by_outer_end += extra as u64;
                self.example(
                    names,
                    "end of an outer message while inner ones were open",
                    tid,
                    method,
                    oid,
                    t,
                );
                for k in 0..=extra {
                    // The on-CPU time is the named (outermost) message's.
                    self.close(th, t, cpu.filter(|_| k == extra), sink, names);
                }
            }
            None => {
                self.balance.unmatched_ends += 1;
                self.example(names, "end without a matching start", tid, method, oid, t);
            }
        }
    }

    fn example(&mut self, names: &Names, what: &str, tid: u64, method: u32, oid: u64, t: u64) {
        if self.balance.examples.len() < 5 {
            let m = names.method(method);
            self.balance.examples.push(format!(
                "{what}: {}#{oid}.{} on thread {tid} at t={t}",
                m.map_or("?", |m| names.class(m.class)),
                m.map_or("?", |m| m.name.as_str()),
            ));
        }
    }

    #[inline]
    fn close(
        &mut self,
        th: usize,
        end: u64,
        cpu: Option<u64>,
        sink: &mut impl Sink,
        names: &Names,
    ) {
        let state = &mut self.threads[th];
        let Some(frame) = state.pop() else {
            return;
        };
        let aggregate = end.saturating_sub(frame.start);
        let net = aggregate.saturating_sub(frame.child_agg);
        // Waiting, callees included: wall less on-CPU time when measured, else what the
        // callees measured; its own share is at most its net time.
        let wait_all = cpu.map_or(frame.child_wait, |c| {
            aggregate.saturating_sub(c).max(frame.child_wait)
        });
        let wait = (wait_all - frame.child_wait).min(net);
        let depth = state.stack.len();
        match state.stack.last_mut() {
            Some(parent) => {
                parent.child_agg += aggregate;
                parent.child_wait += wait_all;
                parent.descendants += 1 + frame.descendants;
                parent.children += 1;
                let acc = &mut state.callees[depth - 1];
                let at = match acc.iter().position(|c| c.0 == frame.method) {
                    Some(i) => i,
                    // Past 16 distinct callee methods the rest are not told apart.
                    None if acc.len() < 16 => {
                        acc.push((frame.method, frame.receiver, 0));
                        acc.len() - 1
                    }
                    None => acc.len() - 1,
                };
                let c = &mut acc[at];
                if c.1 != frame.receiver {
                    c.1 = u32::MAX;
                }
                c.2 += aggregate;
                if parent.heaviest.is_none_or(|h| c.2 > h.2 || h.0 == c.0) {
                    parent.heaviest = Some(*c);
                }
            }
            None => state.total += aggregate,
        }
        let closed = Closed {
            frame,
            thread: th,
            tid: state.tid,
            end,
            aggregate,
            net,
            wait,
            outer: &state.stack,
        };
        sink.closed(&closed, &self.instances, names);
    }

    /// Close what is still open (a run that died) at each thread's last time.
    pub fn finish(&mut self, names: &Names, sink: &mut impl Sink) {
        for th in 0..self.threads.len() {
            let open = self.threads[th].stack.len();
            if open > 0 {
                self.balance.open_at_end += open as u64;
                let (tid, t) = (self.threads[th].tid, self.threads[th].last_t);
                let f = *self.threads[th].stack.last().unwrap();
                self.example(
                    names,
                    "still open at the end of the trace",
                    tid,
                    f.method,
                    f.oid,
                    t,
                );
                for _ in 0..open {
                    self.close(th, t, None, sink, names);
                }
            }
        }
    }
}

/// Events walked per block once the id table has outgrown the cache.
const AHEAD: usize = 32;

/// Every event of `reader` through `walker`. While the object-id table fits in the cache,
/// event by event; once it has outgrown it (a lookup there is a miss: with 10⁶ instances
/// it was a quarter of the walk), in blocks: the next block is decoded and its id-table
/// cells asked for while the current one is walked, so each miss has a block's time to
/// arrive. The blocks hold [`RawEvent`] records, decoded with no branch on their kind: blocks
/// of decoded enums made every event pay a second mispredicted branch on its kind (the
/// decoder's and the walker's were one in the event-by-event loop), 45 ms in 10 M events.
/// Small tables skip the blocks: there they would cost a little more.
pub(crate) fn walk_events(
    reader: &mut crate::analyse::trace::TraceReader,
    walker: &mut Walker,
    sink: &mut impl Sink,
    progress: &mut dyn FnMut(u64),
) -> crate::error::Result<()> {
    const EVERY: u32 = (1 << 22) - 1;
    let mut n = 0u32;
    while !walker.wants_prefetch() {
        let Some(ev) = reader.next_event()? else {
            return Ok(());
        };
        walker.event(&ev, reader.names(), sink);
        n = n.wrapping_add(1);
        if n & EVERY == 0 {
            progress(reader.bytes_read());
            if sink.gave_up() {
                return Ok(());
            }
        }
    }
    let mut cur: Vec<RawEvent> = Vec::with_capacity(AHEAD);
    let mut next = Vec::with_capacity(AHEAD);
    loop {
        next.clear();
        reader.next_events(&mut next, AHEAD)?;
        for ev in &next {
            walker.prefetch(ev);
        }
        let names = reader.names();
        for ev in &cur {
            walker.event(&ev.event(), names, sink);
        }
        n = n.wrapping_add(cur.len() as u32);
        if n & EVERY < cur.len() as u32 {
            progress(reader.bytes_read());
            if sink.gave_up() {
                return Ok(());
            }
        }
        std::mem::swap(&mut cur, &mut next);
        if cur.is_empty() {
            return Ok(()); // the block just walked was the last
        }
    }
}

/// Run a whole trace through the walker with `sink`; returns the reader (for names,
/// header and status) and the walker (instances, threads, balance).
pub fn walk_trace(path: &Path, sink: &mut impl Sink) -> Result<(TraceReader, Walker)> {
    walk_trace_with(path, sink, &mut |_, _| {})
}

/// [`walk_trace`] calling `progress(bytes_read, file_size)` every few million events.
pub fn walk_trace_with(
    path: &Path,
    sink: &mut impl Sink,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(TraceReader, Walker)> {
    walk_trace_by(path, Walker::new(), sink, progress)
}

/// [`walk_trace_with`] with a walker of the caller's (e.g. [`Walker::numbering`]).
pub fn walk_trace_by(
    path: &Path,
    mut walker: Walker,
    sink: &mut impl Sink,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(TraceReader, Walker)> {
    let size = crate::analyse::trace::multi::total_size(path);
    let mut reader = TraceReader::open(path)?;
    walk_events(&mut reader, &mut walker, sink, &mut |r| progress(r, size))?;
    merge::merge(
        &mut walker,
        &reader.status().aggregates,
        reader.names(),
        sink,
    );
    walker.finish(reader.names(), sink);
    Ok((reader, walker))
}

/// `Class#oid`, `Class (static)` or `root@tid`; in a trace set `Class#oid@pid`,
/// `Class (static)@pid` and `root@pid/tid`.
pub fn instance_label(i: &Instance, names: &crate::analyse::trace::Names) -> String {
    use crate::analyse::trace::multi::local;
    if let Some(l) = folded_label(i, names) {
        return l;
    }
    let pid = names.process_of(if i.kind == InstKind::Root {
        i.tid()
    } else {
        i.oid()
    });
    if let Some(pid) = pid {
        return match i.kind {
            InstKind::Object => format!("{}#{}@{pid}", names.class(i.class), local(i.oid())),
            InstKind::Class => format!("{} (static)@{pid}", names.class(i.class)),
            InstKind::Root => format!("root@{pid}/{}", local(i.tid())),
        };
    }
    match i.kind {
        InstKind::Object => format!("{}#{}", names.class(i.class), i.oid()),
        InstKind::Class => format!("{} (static)", names.class(i.class)),
        InstKind::Root => format!("root@{}", i.tid()),
    }
}

/// Asks the cache for `v[i]` without waiting for it (nothing when out of range): the walk
/// is bound by memory latency, so a batch's lookups are announced before they are made.
#[inline]
pub(crate) fn prefetch<T>(v: &[T], i: usize) {
    if let Some(x) = v.get(i) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // SAFETY: a prefetch is only a hint (it cannot fault), and SSE is part of the
            // x86_64 baseline.
            unsafe { _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        std::hint::black_box(x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Closed messages per method and per receiver's object id.
    #[derive(Default)]
    struct Count {
        methods: FxHashMap<u32, u64>,
        receivers: FxHashMap<u64, u64>,
    }
    impl Sink for Count {
        fn closed(&mut self, c: &Closed, instances: &[Instance], _names: &Names) {
            *self.methods.entry(c.frame.method).or_default() += 1;
            let oid = instances[c.frame.receiver as usize].oid();
            *self.receivers.entry(oid).or_default() += 1;
        }
    }

    /// More objects than the id table holds in the cache, so the walk switches to blocks
    /// of events part-way (during the creations): every
    /// message must be walked once — per method and per receiver as a direct count of the
    /// trace's starts — in both trace forms.
    #[test]
    fn walking_in_blocks_sees_every_event_once() {
        use crate::analyse::trace::{synth, Form, TraceReader};
        let dir = tempfile::tempdir().unwrap();
        for form in [Form::Compact, Form::Text] {
            let path = dir.path().join(format!("t-{form:?}"));
            let spec = synth::Spec {
                events: 1_200_014,
                instances: 290_000,
                threads: 3,
                classes: 7,
                ..Default::default()
            };
            let f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
            synth::generate(&spec, form, f).unwrap();
            let mut direct = Count::default();
            let mut events = 0u64;
            let mut r = TraceReader::open(&path).unwrap();
            while let Some(ev) = r.next_event().unwrap() {
                events += 1;
                if let Event::Start { method, oid, .. } = ev {
                    *direct.methods.entry(method).or_default() += 1;
                    *direct.receivers.entry(oid).or_default() += 1;
                }
            }
            let mut r = TraceReader::open(&path).unwrap();
            let (mut w, mut walked) = (Walker::new(), Count::default());
            let mut reports = 0;
            walk_events(&mut r, &mut w, &mut walked, &mut |_| reports += 1).unwrap();
            assert!(w.wants_prefetch(), "{form:?}: the blocks were not used");
            assert_eq!(w.events, events, "{form:?}");
            assert_eq!(w.balance.open_at_end, 0, "{form:?}");
            assert_eq!(walked.methods, direct.methods, "{form:?}");
            assert_eq!(walked.receivers, direct.receivers, "{form:?}");
            assert_eq!(
                w.instances.len(),
                290_000 + 3,
                "{form:?}: objects and roots"
            );
        }
    }

    /// Each closed message's (sender, receiver, method), in walk order.
    #[derive(Default)]
    struct Ends(Vec<(u32, u32, u32)>, usize);
    impl Sink for Ends {
        fn closed(&mut self, c: &Closed, instances: &[Instance], _names: &Names) {
            self.0
                .push((c.frame.sender, c.frame.receiver, c.frame.method));
            self.1 = self.1.max(instances.len());
        }
    }

    /// The report's second walk numbers instances without keeping them: its ids must be the
    /// first walk's (the links are matched to the analysis's edges by them).
    #[test]
    fn a_numbering_walk_gives_the_ids_of_a_full_one() {
        use crate::analyse::trace::{synth, Form};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.rvt");
        let spec = synth::Spec {
            events: 200_000,
            instances: 5_000,
            threads: 4,
            classes: 7,
            ..Default::default()
        };
        let f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        synth::generate(&spec, Form::Compact, f).unwrap();
        let (mut full, mut ids) = (Ends::default(), Ends::default());
        let (_, w) = walk_trace(&path, &mut full).unwrap();
        let (_, n) = walk_trace_by(&path, Walker::numbering(), &mut ids, &mut |_, _| {}).unwrap();
        assert_eq!(full.0.len(), (200_000 - 5_000) / 2);
        assert_eq!(ids.0, full.0);
        assert_eq!(w.instances.len(), 5_000 + 4);
        assert_eq!((n.instances.len(), ids.1), (0, 0), "nothing kept");
        assert_eq!(n.count, w.count);
    }

    /// Issue 10, item 10: ends that match no start made every end scan the whole stack
    /// (100k/200k/400k events: 1.2/5.0/42.8 s). The work is now linear.
    #[test]
    fn unmatched_ends_cost_linear_work() {
        let mut names = Names::default();
        let f = names.intern_method(b"A", b"f", b"!!");
        let g = names.intern_method(b"A", b"g", b"!!");
        let n = 20_000u64;
        let mut w = Walker::new();
        for (i, method) in [(0, f), (1, g)] {
            for k in 0..n {
                let t = i * n + k;
                let ev = if i == 0 {
                    Event::Start {
                        tid: 1,
                        method,
                        oid: 1,
                        size: 0,
                        t,
                    }
                } else {
                    Event::End {
                        tid: 1,
                        method,
                        oid: 1,
                        t,
                        cpu: None,
                    }
                };
                w.event(&ev, &names, &mut ());
            }
        }
        // Then ends that do match, interleaved with more unmatched ones.
        for k in 0..n {
            let (method, t) = if k % 2 == 0 {
                (f, 3 * n + k)
            } else {
                (g, 3 * n + k)
            };
            w.event(
                &Event::End {
                    tid: 1,
                    method,
                    oid: 1,
                    t,
                    cpu: None,
                },
                &names,
                &mut (),
            );
        }
        w.finish(&names, &mut ());
        assert_eq!(w.balance.unmatched_ends, n + n / 2);
        assert_eq!(w.balance.open_at_end, n - n / 2);
        let scanned = w.threads[0].scanned;
        assert!(
            scanned <= 4 * n,
            "{scanned} frames scanned for {} events",
            3 * n
        );
    }
}
