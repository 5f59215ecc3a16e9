//! The message-stack machine shared by the analysis and the exports: one stack per thread,
//! sender = receiver of the message on top (the thread's root instance when empty),
//! aggregate = end − start, net = aggregate − aggregates of the messages it sent.

use rustc_hash::FxHashMap;

use crate::analyse::trace::{Event, Names, RawEvent};

mod merge;
pub use merge::{folded_label, is_folded, with_tids, Resolved};

mod drive;
mod frame;
mod instance;
pub(crate) use drive::prefetch;
#[cfg(test)]
use drive::walk_events;
pub use drive::{walk_trace, walk_trace_by, walk_trace_with};
pub use frame::{Balance, Closed, Frame, Sink, ThreadState};
use instance::OidIndex;
pub use instance::{instance_label, InstKind, Instance};

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
