//! Reading traces into a [`Tree`]: every recorded message of one or more traces (the
//! processes of one run), or a whole run's trace focused on a few candidates
//! ([`Tree::load_focused`], `focus.rs`); then the throttled methods' counted calls placed
//! as batch nodes (`batch.rs`).

use std::path::{Path, PathBuf};

use super::batch;
use super::node::Faults;
use super::node::{Node, NONE};
use super::tree::{inst_info, InstInfo, MethodInfo, ThreadInfo, Tree};
use crate::analyse::probe::Compensation;
use crate::analyse::trace::{Names, Unit};
use crate::analyse::walk::{walk_trace, with_tids};
use crate::analyse::walk::{Closed, Frame, Instance, Resolved, Sink, Walker};
use crate::error::Result;

impl Tree {
    /// Read the traces at `paths` into one tree. `compensate` = use the headers' probe cost.
    pub fn load(paths: &[PathBuf], compensate: impl Into<Compensation>) -> Result<Tree> {
        let compensate = compensate.into();
        let mut t = Tree::default();
        // Several traces are the processes of one run: one set on one time line.
        if !paths.is_empty() {
            t.add_trace(&crate::analyse::trace::multi::join(paths)?, compensate)?;
        }
        t.index_children();
        t.place_batches();
        Ok(t)
    }

    fn add_trace(&mut self, path: &Path, compensate: Compensation) -> Result<()> {
        let mut sink = Collect::default();
        let (reader, walker) = walk_trace(path, &mut sink)?;
        self.aggregated_calls += reader.status().aggregates.calls();
        let unit = reader.header().unit;
        let scale = unit.micros() / self.unit.get_or_insert(unit).micros();
        let probe = self.header_costs(&reader, compensate);
        let (i0, m0) = (self.instances.len() as u32, self.methods.len() as u32);
        self.add_names(path, &walker, reader.names());
        let faults = fault_times(
            &reader.status().aggregates.faults,
            fault_ns(&reader),
            self.unit(),
        );
        self.recorded += sink.nodes.len();
        let mut raw = Raws {
            nodes: sink.nodes,
            threads_used: &sink.threads_used,
            scale,
            probe,
            faults: &faults,
        };
        for n in &mut raw.nodes {
            n.receiver += i0;
        }
        let roots: Vec<u32> = walker.threads.iter().map(|th| i0 + th.root).collect();
        let root_of = self.add_nodes(raw, &walker, &roots, m0);
        let shift = |w: u32| Some(i0 + w);
        let counted = Counted {
            aggs: &reader.status().aggregates,
            edges: &sink.edges,
            walker: &walker,
            root_of: &root_of,
            scale,
        };
        self.counted_edges(&counted, &shift, &|w| w.method + m0);
        Ok(())
    }

    /// Notes the edges of `c` whose method was throttled, in this tree's ids (`instance`:
    /// a walker id's, `None` when the tree has none), for [`Tree::place_batches`].
    fn counted_edges(
        &mut self,
        c: &Counted,
        instance: &dyn Fn(u32) -> Option<u32>,
        method: &dyn Fn(&Resolved) -> u32,
    ) {
        let mut verdict: rustc_hash::FxHashMap<u32, u64> = Default::default();
        for x in &c.aggs.throttled {
            let t = verdict.entry(x.method).or_insert(x.t);
            *t = (*t).min(x.t);
        }
        if verdict.is_empty() {
            return;
        }
        let thread_of: rustc_hash::FxHashMap<u64, usize> = c
            .walker
            .threads
            .iter()
            .enumerate()
            .map(|(i, th)| (th.tid, i))
            .collect();
        for (tid, r) in c.edges {
            let Some(&from) = verdict.get(&r.method) else {
                continue;
            };
            let root = thread_of.get(tid).map_or(NONE, |&th| c.root_of[th]);
            let (Some(sender), Some(receiver)) = (instance(r.sender), instance(r.receiver)) else {
                continue;
            };
            if root == NONE || r.calls == 0 {
                self.placed.left += r.calls;
                continue;
            }
            self.pending.push(super::node::Edge {
                thread: self.nodes[root as usize].thread,
                sender,
                receiver,
                method: method(r),
                calls: r.calls,
                agg: r.agg as f64 * c.scale,
                size: r.size,
                from: from as f64 * c.scale,
            });
        }
    }

    /// The counted calls noted so far as batch nodes (the children indexed).
    fn place_batches(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        if !pending.is_empty() && self.nid_cost > 0.0 {
            self.mark_by_address();
        }
        let left = self.placed.left;
        self.placed = batch::place(self, &pending);
        self.placed.left += left;
    }

    /// Marks the methods whose receivers are found by address (the SAF beside the first
    /// trace, by the annotation's rule), so their counted calls cost `nid_cost` more: read
    /// before the batches are placed, only when a trace measured that cost.
    fn mark_by_address(&mut self) {
        let saf = self
            .paths
            .first()
            .and_then(|t| super::plan::find_saf(t, None));
        let Some(saf) = saf.and_then(|p| crate::instrument::saf::Saf::load(&p).ok()) else {
            return;
        };
        let by_address = crate::instrument::annotate::cpp_classes_by_address(&saf);
        for m in &mut self.methods {
            m.by_address = by_address.contains(&m.class);
        }
    }

    /// Read one trace into a tree focused on `focus` (a whole run's trace, too big to hold
    /// every message): see [`super::focus`]. The focus's counts when even the focused tree
    /// would hold more than `focus.max_nodes` nodes. Instances are described by `info` (by the walker's
    /// id: the caller's analysis numbered them the same way) and page faults come from
    /// `faults` (the same trace's `F` records, read by the caller's walk: they come last).
    pub fn load_focused(
        path: &Path,
        compensate: Compensation,
        focus: &super::focus::Focus,
        info: &dyn Fn(u32) -> InstInfo,
        faults: &[crate::analyse::trace::agg::FaultAgg],
    ) -> Result<std::result::Result<Tree, super::focus::Over>> {
        let mut t = Tree::default();
        let reader = crate::analyse::trace::TraceReader::open_header(path)?;
        let unit = reader.header().unit;
        t.unit = Some(unit);
        let probe = t.header_costs(&reader, compensate);
        let faults = fault_times(faults, fault_ns(&reader), unit);
        drop(reader);
        let mut sink = super::focus::Collector::new(focus, probe, &faults);
        let (reader, walker) = crate::analyse::walk::walk_trace_by(
            path,
            Walker::numbering(),
            &mut sink,
            &mut |_, _| {},
        )?;
        let (mut nodes, merged, recorded) = match sink.finish() {
            Ok(done) => done,
            Err(over) => return Ok(Err(over)),
        };
        // The object-id index is not needed past the walk (tens of MB in a whole run).
        let mut walker = walker;
        walker.release_index();
        t.aggregated_calls += reader.status().aggregates.calls();
        t.faults_found |= !reader.status().aggregates.faults.is_empty();
        t.add_methods(path, reader.names());
        t.recorded = recorded;
        // Only the instances the nodes name get an id (a whole run has millions).
        let mut mine: rustc_hash::FxHashMap<u32, u32> = Default::default();
        let mut intern = |t: &mut Tree, w: u32| {
            *mine.entry(w).or_insert_with(|| {
                t.instances.push(info(w));
                t.walker_ids.push(w);
                t.instances.len() as u32 - 1
            })
        };
        // The focus's instances first, in the walker's order: each gets an executor in the
        // replay (idle or not) and executors follow instance ids, as in a whole tree.
        let mut focused: Vec<u32> = focus.instances.iter().copied().collect();
        focused.sort_unstable();
        for w in focused {
            intern(&mut t, w);
        }
        let roots: Vec<u32> = walker
            .threads
            .iter()
            .map(|th| intern(&mut t, th.root))
            .collect();
        for n in &mut nodes {
            n.receiver = intern(&mut t, n.receiver);
        }
        // Counted calls to what is in focus (their receivers get an id).
        let edges: Vec<(u64, Resolved)> = std::mem::take(&mut sink.edges)
            .into_iter()
            .filter(|(_, r)| {
                focus.instances.contains(&r.receiver) || focus.methods.contains(&r.method)
            })
            .collect();
        for (_, r) in &edges {
            intern(&mut t, r.receiver);
        }
        let root_of = t.place_focused(nodes, &walker, &sink.threads_used, &roots, probe);
        t.merged = merged;
        t.index_children();
        let counted = Counted {
            aggs: &reader.status().aggregates,
            edges: &edges,
            walker: &walker,
            root_of: &root_of,
            scale: 1.0,
        };
        t.counted_edges(&counted, &|w| mine.get(&w).copied(), &|r| r.method);
        t.place_batches();
        Ok(Ok(t))
    }

    /// The focused walk's nodes (their parents among them, their threads the walker's)
    /// after one root node per thread that sent anything. Fixed up in place: a second
    /// vector of them beside the first was the whole-run analysis's peak.
    fn place_focused(
        &mut self,
        mut nodes: Vec<Node>,
        walker: &Walker,
        used: &[bool],
        roots: &[u32],
        probe: (f64, f64),
    ) -> Vec<u32> {
        let root_of = self.add_roots(walker, used, roots, probe, 1.0);
        let first = self.nodes.len() as u32;
        for n in &mut nodes {
            let root = root_of[n.thread as usize];
            n.parent = match n.parent {
                NONE => root,
                p => first + p,
            };
            n.thread = self.nodes[root as usize].thread;
        }
        let roots = std::mem::replace(&mut self.nodes, nodes);
        self.nodes.splice(0..0, roots);
        root_of
    }

    /// A tree without messages, for a focus with nothing in it: no replay to run, but the
    /// header's costs and the methods (`methods`, by id: the caller read them) still say
    /// what a replay would have assumed. `recorded`: the trace's recorded messages.
    pub fn without_messages(
        path: &Path,
        compensate: Compensation,
        methods: Vec<MethodInfo>,
        recorded: usize,
    ) -> Result<Tree> {
        let mut t = Tree::default();
        let reader = crate::analyse::trace::TraceReader::open_header(path)?;
        t.unit = Some(reader.header().unit);
        t.header_costs(&reader, compensate);
        t.paths.push(path.to_path_buf());
        t.methods = methods;
        t.recorded = recorded;
        t.index_children();
        Ok(t)
    }

    /// Notes the header's probe cost, handoff and counted-call cost; returns the probe cost
    /// per message to take off, in the tree's unit (0 unless compensating): inside its own
    /// time, and outside (its sender's, per message sent; see `probe::Probe`).
    fn header_costs(
        &mut self,
        reader: &crate::analyse::trace::TraceReader,
        compensate: Compensation,
    ) -> (f64, f64) {
        let field = |key: &str| {
            reader
                .header()
                .fields
                .iter()
                .find(|(k, _)| k == key)
                .and_then(|(_, v)| v.parse::<f64>().ok())
        };
        let probe_ns = field("probe_ns");
        let lang = reader.header().fields.iter().find(|(k, _)| k == "lang");
        self.lang = self.lang.or(match lang.map(|(_, v)| v.as_str()) {
            Some("java") => Some(crate::instrument::model::Lang::Java),
            Some("cpp") => Some(crate::instrument::model::Lang::Cpp),
            _ => None,
        });
        self.probe_found |= probe_ns.is_some();
        self.faults_found |= !reader.status().aggregates.faults.is_empty();
        let handoff = field("handoff_ns").filter(|h| h.is_finite() && *h > 0.0);
        self.handoff_ns = self.handoff_ns.or(handoff);
        let header_share = crate::analyse::probe::inside_share(reader.header());
        // A resolved calibration's split is its own: a cap bounds each part on its own.
        let (ns, share) = match compensate {
            Compensation::Off => (0.0, header_share),
            Compensation::Header => (probe_ns.unwrap_or(0.0), header_share),
            Compensation::Given(ns) => (ns, header_share),
            Compensation::Split { ns, inside_share } => (ns, inside_share),
        };
        let to_unit = Unit::Ns.micros() / self.unit().micros();
        if compensate.on() {
            let counted = field("counted_ns").filter(|c| c.is_finite() && *c > 0.0);
            self.counted_cost = self.counted_cost.max(counted.unwrap_or(0.0) * to_unit);
            let nid = field("nid_ns").filter(|c| c.is_finite() && *c > 0.0);
            self.nid_cost = self.nid_cost.max(nid.unwrap_or(0.0) * to_unit);
        }
        let inside = ns * share;
        (inside * to_unit, (ns - inside) * to_unit)
    }

    /// The trace's instances and methods, after those already read.
    fn add_names(&mut self, path: &Path, walker: &Walker, names: &Names) {
        // Roots of the second and later traces (processes) are told apart by number.
        let process = self.paths.len();
        self.instances.extend(
            walker
                .instances
                .iter()
                .map(|i| inst_info(i, names, process)),
        );
        self.add_methods(path, names);
    }

    /// The trace's methods, after those already read.
    fn add_methods(&mut self, path: &Path, names: &Names) {
        self.paths.push(path.to_path_buf());
        self.methods
            .extend(names.methods.iter().map(|m| MethodInfo {
                class: names.class(m.class).to_string(),
                name: m.name.clone(),
                signature: m.signature.clone(),
                void: None,
                stateless: None,
                by_address: false,
            }));
    }

    /// One root node per thread that sent anything, then the messages (their receivers
    /// already in this tree's ids; `roots`: each walker thread's root instance here).
    fn add_nodes(&mut self, raw: Raws, walker: &Walker, roots: &[u32], m0: u32) -> Vec<u32> {
        let n0 = self.nodes.len() as u32;
        let root_of = self.add_roots(walker, raw.threads_used, roots, raw.probe, raw.scale);
        let first = self.nodes.len() as u32;
        let roots = first - n0;
        self.nodes.reserve(raw.nodes.len());
        for n in raw.nodes {
            let parent = match n.parent {
                NONE => root_of[n.thread as usize],
                p => n0 + roots + p,
            };
            let thread = self.nodes[root_of[n.thread as usize] as usize].thread;
            let fault = raw.faults.get(&(n.method, n.oid)).copied().unwrap_or(0.0);
            self.nodes.push(Node {
                method: m0 + n.method,
                receiver: n.receiver,
                size: n.size,
                start: n.start as f64 * raw.scale,
                end: n.end as f64 * raw.scale,
                parent,
                thread,
                fault,
                wait: n.wait as f64 * raw.scale,
                merged: 0,
                facts: NONE,
            });
        }
        root_of
    }

    /// One root node per thread that sent anything (spanning its first to last event);
    /// returns each walker thread's root node (`NONE` for the others).
    fn add_roots(
        &mut self,
        walker: &Walker,
        used: &[bool],
        roots: &[u32],
        probe: (f64, f64),
        scale: f64,
    ) -> Vec<u32> {
        let mut root_of = vec![NONE; walker.threads.len()];
        for (th, st) in walker.threads.iter().enumerate() {
            if !used.get(th).copied().unwrap_or(false) {
                continue;
            }
            root_of[th] = self.nodes.len() as u32;
            self.threads.push(ThreadInfo {
                label: self.instances[roots[th] as usize].label.clone(),
                root: root_of[th],
                probe: probe.0,
                probe_out: probe.1,
            });
            self.nodes.push(Node {
                method: NONE,
                receiver: roots[th],
                size: 0,
                start: st.first_t.unwrap_or(0) as f64 * scale,
                end: st.last_t as f64 * scale,
                parent: NONE,
                thread: self.threads.len() as u32 - 1,
                fault: 0.0,
                wait: 0.0,
                merged: 0,
                facts: NONE,
            });
        }
        root_of
    }
}

/// The header's `fault_ns=`: one minor page fault's cost, measured by the C++ runtime.
fn fault_ns(reader: &crate::analyse::trace::TraceReader) -> Option<f64> {
    reader
        .header()
        .get("fault_ns")
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|f| f.is_finite() && *f > 0.0)
}

/// Page-fault time per call of each (method, oid) of one trace, in `unit`: the `F` records'
/// faults per measured call × the header's `fault_ns=` (none without it).
fn fault_times(
    faults: &[crate::analyse::trace::agg::FaultAgg],
    fault_ns: Option<f64>,
    unit: Unit,
) -> Faults {
    let mut sums: std::collections::HashMap<(u32, u64), (u64, u64)> = Default::default();
    let Some(fault_ns) = fault_ns else {
        return Default::default();
    };
    for f in faults {
        let e = sums.entry((f.method, f.oid)).or_default();
        e.0 = e.0.saturating_add(f.calls);
        e.1 = e.1.saturating_add(f.faults);
    }
    let per_ns = Unit::Ns.micros() / unit.micros();
    sums.into_iter()
        .filter(|(_, (calls, _))| *calls > 0)
        .map(|(k, (calls, faults))| (k, faults as f64 / calls as f64 * fault_ns * per_ns))
        .collect()
}

/// A node as a sink collects it: trace units, the walker's ids, parent among the sink's
/// nodes (`NONE`: the thread's root).
pub(super) struct Raw {
    pub method: u32,
    pub receiver: u32,
    pub oid: u64,
    pub size: u64,
    pub start: u64,
    pub end: u64,
    pub parent: u32,
    pub thread: u32,
    /// Its own time off the CPU ([`Node::wait`]), in trace units.
    pub wait: u64,
}

impl Raw {
    /// A recorded message starting (its end is set when it closes).
    pub fn message(f: &Frame, parent: u32, thread: usize) -> Raw {
        Raw {
            method: f.method,
            receiver: f.receiver,
            oid: f.oid,
            size: f.size,
            start: f.start,
            end: f.start,
            parent,
            thread: thread as u32,
            wait: 0,
        }
    }
}

/// A sink's nodes and what turning them into tree nodes needs.
struct Raws<'a> {
    nodes: Vec<Raw>,
    threads_used: &'a [bool],
    scale: f64,
    probe: (f64, f64),
    faults: &'a Faults,
}

/// Collects every message with its parent (walker order = start order).
#[derive(Default)]
struct Collect {
    nodes: Vec<Raw>,
    threads_used: Vec<bool>,
    /// The aggregated edges, each with its thread's tid.
    edges: Vec<(u64, Resolved)>,
}

/// A walk's aggregated edges and what turning them into batch edges needs.
struct Counted<'a> {
    aggs: &'a crate::analyse::trace::agg::Aggregates,
    edges: &'a [(u64, Resolved)],
    walker: &'a Walker,
    /// Each walker thread's root node in the tree (`NONE`: none).
    root_of: &'a [u32],
    scale: f64,
}

impl Sink for Collect {
    fn started(&mut self, parent_ctx: Option<u32>, thread: usize, f: &Frame) -> u32 {
        if self.threads_used.len() <= thread {
            self.threads_used.resize(thread + 1, false);
        }
        self.threads_used[thread] = true;
        self.nodes
            .push(Raw::message(f, parent_ctx.unwrap_or(NONE), thread));
        self.nodes.len() as u32 - 1
    }
    fn closed(&mut self, c: &Closed, _: &[Instance], _: &Names) {
        let n = &mut self.nodes[c.frame.ctx as usize];
        n.end = c.end;
        n.wait = c.wait;
    }
    fn aggregated(
        &mut self,
        aggs: &crate::analyse::trace::agg::Aggregates,
        edges: &[Resolved],
        _: &[Instance],
    ) {
        self.edges = with_tids(aggs, edges);
    }
}
