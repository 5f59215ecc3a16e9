//! The object call graph and its statistics (SPEC §8), built in one streaming pass.
//! Memory grows with instances, methods, threads' stack depth and distinct edges; per-message
//! detail is capped (top-N by aggregate time).

pub mod aggregates;
pub mod faults;
pub mod hints;
pub mod lists;
pub mod proposals;
pub mod render;
pub mod stats;
pub mod table;
pub mod walk;

use std::collections::BTreeMap;
use std::path::Path;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use crate::error::Result;
use crate::trace::{Form, TraceReader, Unit};
pub use hints::Hint;
use hints::HintKind;
pub use lists::Lists;
use stats::{Acc, Callee, MessageRecord, Summary, TopMessages};
use table::{EdgeSums, InstSums};
pub use table::{Edges, InstRow, Instances, TopRows};
use walk::{walk_events, Closed, InstKind, Instance, Sink, Walker};

pub const SCHEMA: &str = "revy-analysis/2";

/// Tunables of the analysis.
#[derive(Debug, Clone, Serialize)]
pub struct Options {
    /// How many messages keep full detail (top by aggregate time).
    pub detail_cap: usize,
    /// Activity level (0..1) from which instances and messages become candidates.
    pub threshold_level: f64,
    /// Or an absolute active time (trace units) from which they do.
    pub threshold_time: Option<u64>,
    /// At most this many hints of each kind.
    pub max_hints_per_kind: usize,
    /// Subtract the probe cost the trace header states (`probe_ns=`).
    pub compensate: bool,
    /// Cores the proposals are predicted for (`None`: this machine's).
    pub cores: Option<usize>,
    /// Handoff per cross-thread message in ns for the proposals (`None`: measured).
    pub handoff_ns: Option<f64>,
    /// Sender's CPU per asynchronous message in ns (`None`: measured, at most the handoff).
    pub enqueue_ns: Option<f64>,
    /// Replaying holds every message in memory and runs once per candidate: beyond this
    /// many messages no proposal is evaluated (`revy whatif` replays one change).
    pub max_replay_messages: u64,
    /// Evaluate proposals with the what-if replay (needs a second pass over the trace).
    pub proposals: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            detail_cap: 100_000,
            threshold_level: 0.10,
            threshold_time: None,
            max_hints_per_kind: 20,
            compensate: true,
            cores: None,
            handoff_ns: None,
            enqueue_ns: None,
            max_replay_messages: 1_000_000,
            proposals: true,
        }
    }
}

/// Activity bands of the thesis (§4.4.5): colours red/blue/green/black.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Band {
    /// Over 60 %.
    Over60,
    /// Over 30 %.
    Over30,
    /// Over 10 %.
    Over10,
    Rest,
}

impl Band {
    pub fn of(level: f64) -> Band {
        if level > 0.6 {
            Band::Over60
        } else if level > 0.3 {
            Band::Over30
        } else if level > 0.1 {
            Band::Over10
        } else {
            Band::Rest
        }
    }
    /// The thesis's colour for the band.
    pub fn colour(self) -> &'static str {
        match self {
            Band::Over60 => "red",
            Band::Over30 => "blue",
            Band::Over10 => "green",
            Band::Rest => "black",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct TraceInfo {
    pub path: String,
    pub form: Form,
    pub unit: Unit,
    pub header: BTreeMap<String, String>,
    pub events: u64,
    pub bytes: u64,
    /// The runtime wrote its end marker.
    pub clean_end: bool,
    /// The runtime stopped recording at its size limit.
    pub truncated: bool,
    /// The file ended early or held a corrupt entry; analysed up to the last good one.
    pub cut_short: bool,
    pub warnings: Vec<String>,
    /// Calls recorded as events against calls the runtime aggregated (past `max_size`,
    /// throttled methods), and which methods were throttled when.
    pub coverage: aggregates::Coverage,
}

#[derive(Debug, Clone, Serialize)]
pub struct Totals {
    /// The run: each thread's first to last event, summed over threads, less the probe
    /// cost when compensated (= the roots' time outside messages + all net times).
    pub total_time: u64,
    /// The instrumented part: the sum of all net times (the thesis's total).
    pub instrumented_time: u64,
    /// Probe cost per start+end pair from the header, in ns.
    pub probe_ns: Option<f64>,
    /// The probe cost was subtracted.
    pub compensated: bool,
    /// Messages far above their method's typical call (class loading, JIT, first I/O).
    pub one_off_messages: u64,
    pub instances: usize,
    /// Calls in the whole run: recorded as events plus aggregated by the runtime.
    pub messages: u64,
    /// Calls recorded as events (what the message list, timelines and what-if see).
    pub recorded_messages: u64,
    pub threads: usize,
    pub classes: usize,
    pub methods: usize,
    pub edges: usize,
    pub cyclic_messages: u64,
    pub max_depth: usize,
    pub balance: walk::Balance,
}

#[derive(Debug, Clone, Serialize)]
pub struct ThreadStats {
    /// Thread id (in a trace set tagged with its process's position, see `pid`).
    pub tid: u64,
    /// Process id from the trace header (`pid=`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u64>,
    pub name: Option<String>,
    /// Instance id of the thread's root.
    pub root: u32,
    pub messages: u64,
    /// Sum of the aggregates of its outermost messages.
    pub total_time: u64,
    /// First to last event.
    pub span: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct InstanceStats {
    /// Dense id used by edges and messages.
    pub id: u32,
    pub kind: InstKind,
    /// `Class#oid`, `Class (static)` or `root@tid`.
    pub label: String,
    pub class: Option<String>,
    pub oid: u64,
    pub tid: Option<u64>,
    /// Process id from the trace header (`pid=`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u64>,
    pub size: Option<u64>,
    pub created: Option<u64>,
    pub destroyed: Option<u64>,
    /// Sum of the net times of the messages it received.
    pub active_time: u64,
    pub level: f64,
    pub band: Band,
    pub received: u64,
    pub sent: u64,
    /// Received messages whose sender is the instance itself.
    pub cyclic: u64,
    /// Distinct instances it sent to or received from (itself excluded).
    pub neighbours: u32,
    /// Sum of the sizes of the messages it received.
    pub received_bytes: u64,
    /// Net time of the one-off messages it received (never the basis of a proposal).
    pub one_off_time: u64,
    /// Active time per received byte (computation against communication).
    pub granularity: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClassStats {
    pub class: String,
    pub instances: u64,
    pub messages: u64,
    pub active_time: u64,
    pub mean_active_time: f64,
    /// Average activity level of its instances.
    pub mean_level: f64,
    pub max_level: f64,
    /// Total size of its instances (creation entries), and of the objects the runtime
    /// counted without an entry (past `max_size`): the whole run.
    pub total_size: u64,
    /// Objects created in the whole run: creation entries plus the runtime's counts.
    pub created: u64,
    /// Objects destroyed in the whole run (C++; Java logs no destructions).
    pub destroyed: u64,
    /// Created and not destroyed by the end of the run (`created − destroyed`, at least 0).
    pub live: u64,
    /// The largest object size logged or counted (`None`: no size known).
    pub max_size: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MethodStats {
    pub id: u32,
    pub class: String,
    pub method: String,
    pub signature: String,
    pub calls: u64,
    pub net_time: Summary,
    pub aggregate_time: Summary,
    pub size: Summary,
    pub cyclic: u64,
    /// Share of the total net time spent in this method.
    pub level: f64,
    pub band: Band,
    /// Net time per byte of message size.
    pub granularity: Option<f64>,
    /// Return type known to be void (from the SAF beside the trace), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub void: Option<bool>,
    /// Throttled: the runtime did not time its calls after the verdict but credited each with
    /// the mean of the calls timed before it, this many (its times are partly estimated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_estimated_from: Option<u64>,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct EdgeStats {
    pub sender: u32,
    pub receiver: u32,
    pub calls: u64,
    pub aggregate_time: u64,
    pub net_time: u64,
    pub bytes: u64,
    pub cyclic: bool,
    pub level: f64,
    pub band: Band,
}

#[derive(Debug, Clone, Serialize)]
pub struct Messages {
    pub cap: usize,
    /// All messages of the trace.
    pub total: u64,
    /// `list` holds every message (else the top `cap` by aggregate time).
    pub complete: bool,
    /// In message order.
    pub list: Vec<MessageRecord>,
}

/// Everything `revy analyze` knows about a trace; serialises to the JSON of
/// docs/analysis-schema.json.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    pub schema: &'static str,
    pub trace: TraceInfo,
    pub options: Options,
    pub totals: Totals,
    /// Whether `instances` and `edges` list every row (see [`Analysis::cut_lists`]).
    pub lists: Lists,
    pub threads: Vec<ThreadStats>,
    /// Indexed by instance id (rows built on demand: see [`Instances`]); the JSON lists a
    /// selection past `detail_cap`.
    pub instances: Instances,
    pub classes: Vec<ClassStats>,
    /// Indexed by method id.
    pub methods: Vec<MethodStats>,
    /// In (sender, receiver) order.
    pub edges: Edges,
    pub messages: Messages,
    /// Proposals first (ranked by predicted speedup), then no-gain statements, then the
    /// thesis's observations.
    pub hints: Vec<Hint>,
    /// How the proposals were predicted (absent when not evaluated).
    pub advice: Option<Advice>,
}

/// The machine model and notes of the ranked proposals.
#[derive(Debug, Clone, Serialize)]
pub struct Advice {
    pub cores: usize,
    /// Handoff per cross-thread message, in the trace's unit.
    pub handoff: f64,
    /// Where the handoff comes from: given, the trace header, or measured here.
    pub handoff_source: &'static str,
    /// Sender's CPU per asynchronous message, in the trace's unit.
    pub enqueue: f64,
    /// Candidates replayed.
    pub candidates: usize,
    pub notes: Vec<String>,
    pub caveat: &'static str,
}

#[derive(Default, Clone, Copy)]
struct MethodAcc {
    net: Acc,
    agg: Acc,
    size: Acc,
    cyclic: u64,
}

/// The analysis sink: accumulates per instance, edge and method.
pub struct Builder {
    edges: EdgeSums,
    methods: Vec<MethodAcc>,
    top: TopMessages,
    total: u64,
    cyclic: u64,
    /// Probe cost per message, in trace units (0 when not compensating).
    probe: u64,
    /// Calls the runtime aggregated instead of recording.
    aggregated_calls: u64,
    /// Messages not yet in `edges`: (sender, receiver, aggregate, net, size).
    pending: Vec<(u32, u32, u64, u64, u64)>,
}

/// Messages added to the instance and edge sums at a time: their cache misses overlap.
const BATCH: usize = 32;

impl Builder {
    pub fn new(opts: &Options) -> Self {
        Builder {
            edges: EdgeSums::default(),
            methods: Vec::new(),
            top: TopMessages::new(opts.detail_cap),
            total: 0,
            cyclic: 0,
            probe: 0,
            aggregated_calls: 0,
            pending: Vec::with_capacity(BATCH),
        }
    }
    /// Adds the pending messages to the instance and edge sums, their cells asked for first.
    fn flush(&mut self) {
        let p = &self.pending;
        self.edges.touch(p.iter().map(|m| (m.0, m.1)));
        for &(s, r, agg, net, size) in &self.pending {
            self.edges.message(s, r, agg, net, size);
        }
        self.pending.clear();
    }
    fn method_acc(&mut self, m: u32) -> &mut MethodAcc {
        let m = m as usize;
        if self.methods.len() <= m {
            self.methods.resize(m + 1, MethodAcc::default());
        }
        &mut self.methods[m]
    }
    /// Subtract `probe` trace units per message (once for itself, once per nested one).
    pub fn with_probe(mut self, probe: u64) -> Self {
        self.probe = probe;
        self
    }
}

impl Sink for Builder {
    fn aggregated(
        &mut self,
        aggs: &crate::trace::agg::Aggregates,
        edges: &[aggregates::Resolved],
        _instances: &[Instance],
    ) {
        self.add_aggregates(aggs, edges);
    }
    #[inline]
    fn closed(&mut self, c: &Closed, _instances: &[Instance], _names: &crate::trace::Names) {
        let f = &c.frame;
        let net = c.net.saturating_sub(self.probe);
        let aggregate = c
            .aggregate
            .saturating_sub(self.probe.saturating_mul(1 + f.descendants));
        let c = &Closed {
            frame: c.frame,
            tid: c.tid,
            end: c.end,
            aggregate,
            net,
            outer: c.outer,
        };
        let cyclic = f.sender == f.receiver;
        self.pending
            .push((f.sender, f.receiver, c.aggregate, c.net, f.size));
        if self.pending.len() == BATCH {
            self.flush();
        }
        let m = f.method as usize;
        if self.methods.len() <= m {
            self.methods.resize(m + 1, MethodAcc::default());
        }
        let ma = &mut self.methods[m];
        ma.net.add(c.net);
        ma.agg.add(c.aggregate);
        ma.size.add(f.size);
        ma.cyclic += cyclic as u64;
        self.total += c.net;
        self.cyclic += cyclic as u64;
        self.top.seen += 1;
        if self.top.wants(c.aggregate) {
            self.top.push(MessageRecord {
                order: f.order,
                tid: c.tid,
                method: f.method,
                sender: f.sender,
                receiver: f.receiver,
                start: f.start,
                end: c.end,
                aggregate_time: c.aggregate,
                net_time: c.net,
                size: f.size,
                depth: c.outer.len() as u32,
                parent_order: c.outer.last().map(|p| p.order),
                cyclic,
                heaviest_callee: f.heaviest.map(|(method, receiver, aggregate_time)| Callee {
                    method,
                    receiver,
                    aggregate_time,
                }),
                level: 0.0,
                band: Band::Rest,
                one_off: false,
                granularity: None,
            });
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
    let size = crate::trace::multi::total_size(path);
    let mut reader = TraceReader::open(path)?;
    let mut walker = Walker::new();
    walk_events(&mut reader, &mut walker, sink, &mut |r| progress(r, size))?;
    aggregates::merge(
        &mut walker,
        &reader.status().aggregates,
        reader.names(),
        sink,
    );
    walker.finish(reader.names(), sink);
    Ok((reader, walker))
}

/// Analyse the trace at `path` (either form).
pub fn analyze_path(path: &Path, opts: &Options) -> Result<Analysis> {
    analyze_path_with(path, opts, &mut |_, _| {})
}

/// [`analyze_path`] reporting `progress(bytes_read, file_size)` now and then.
pub fn analyze_path_with(
    path: &Path,
    opts: &Options,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Analysis> {
    let mut b = Builder::for_trace(path, opts)?;
    let (reader, mut walker) = walk_trace_with(path, &mut b, progress)?;
    finish_with_advice(path, opts, b, &reader, &mut walker)
}

impl Builder {
    /// A builder that subtracts the probe cost of the trace's header (when `opts` say so).
    pub fn for_trace(path: &Path, opts: &Options) -> Result<Builder> {
        let probe = header_probe_ns(path)?.filter(|_| opts.compensate);
        let unit = header_unit(path)?;
        Ok(Builder::new(opts).with_probe(probe.map_or(0, |p| probe_units(p, unit))))
    }
}

/// [`finish`], then the probe cost in the totals and the ranked proposals (another pass).
pub fn finish_with_advice(
    path: &Path,
    opts: &Options,
    b: Builder,
    reader: &TraceReader,
    walker: &mut Walker,
) -> Result<Analysis> {
    let compensated = b.probe > 0;
    let mut a = finish(path, opts, b, reader, walker);
    a.totals.probe_ns = header_probe_ns(path)?;
    a.totals.compensated = compensated;
    if opts.proposals {
        proposals::add(&mut a, path, opts)?;
    }
    // Page faults: an observation placed after the proposals and no-gain statements.
    let fault_hints = faults::hints(
        &a,
        &reader.status().aggregates.faults,
        header_ns(path, "fault_ns")?,
    );
    let at = a
        .hints
        .iter()
        .position(|h| !matches!(h.kind, HintKind::Proposal | HintKind::NoGain))
        .unwrap_or(a.hints.len());
    a.hints.splice(at..at, fault_hints);
    Ok(a)
}

/// The probe cost per message in trace units, rounded.
pub fn probe_units(ns: f64, unit: crate::trace::Unit) -> u64 {
    (ns * crate::trace::Unit::Ns.micros() / unit.micros()).round() as u64
}

/// The header's `probe_ns=` (read before the walk: text headers are parsed lazily).
pub fn header_probe_ns(path: &Path) -> Result<Option<f64>> {
    header_ns(path, "probe_ns")
}

/// The header's `handoff_ns=`: the thread wake-up the runtime measured at start-up (absent
/// from older traces; 0 means it could not measure).
pub fn header_handoff_ns(path: &Path) -> Result<Option<f64>> {
    Ok(header_ns(path, "handoff_ns")?.filter(|h| *h > 0.0))
}

fn header_ns(path: &Path, key: &str) -> Result<Option<f64>> {
    let mut r = TraceReader::open(path)?;
    let _ = r.next_event()?;
    Ok(r.header()
        .fields
        .iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, v)| v.parse::<f64>().ok())
        .filter(|p| p.is_finite() && *p >= 0.0))
}

fn header_unit(path: &Path) -> Result<crate::trace::Unit> {
    let mut r = TraceReader::open(path)?;
    let _ = r.next_event()?;
    Ok(r.header().unit)
}

fn level(x: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        x as f64 / total as f64
    }
}

/// Turn the accumulators into the result (levels, bands, adjacency, classes, hints).
pub fn finish(
    path: &Path,
    opts: &Options,
    mut b: Builder,
    reader: &TraceReader,
    walker: &mut Walker,
) -> Analysis {
    b.flush();
    let names = reader.names();
    let own_pid = reader.header().pid();
    let status = reader.status();
    // Time outside any message belongs to the thread's root: the run's span is the total.
    let root_time: u64 = walker
        .threads
        .iter()
        .map(|t| t.span().saturating_sub(t.total))
        .sum();
    let total = b.total + root_time;
    let one_offs = one_off_messages(&mut b);
    let coverage = aggregates::coverage(&status.aggregates, walker.messages, names);
    let warnings = trace_warnings(path, reader, walker, &coverage);

    // The edges (their lookup table dropped first) give the instance sums and neighbour
    // counts in any order; they are sorted only when first read in order. Instance and edge
    // rows are built only when read or serialised.
    walker.release_index();
    let edges = Edges::new(std::mem::take(&mut b.edges), total);
    let mut sums = edges.per_instance(walker.instances.len());
    for t in &walker.threads {
        sums.add_active(t.root, t.span().saturating_sub(t.total));
    }
    let classes = class_stats(&walker.instances, &sums, names, total, &status.aggregates);
    let instances = Instances::new(
        std::mem::take(&mut walker.instances),
        sums,
        one_offs.by_instance.clone(),
        total,
        names,
        own_pid,
    );
    let methods = method_stats(&b.methods, names, total, &coverage);
    let messages = message_list(b.top, &one_offs, total, opts.detail_cap);
    let threads = thread_stats(walker, names, own_pid);

    let mut a = Analysis {
        schema: SCHEMA,
        trace: trace_info(path, reader, walker.events, warnings, coverage),
        options: opts.clone(),
        totals: Totals {
            total_time: total,
            instrumented_time: b.total,
            probe_ns: None,
            compensated: false,
            one_off_messages: one_offs.orders.len() as u64,
            instances: instances.len(),
            messages: walker.messages + b.aggregated_calls,
            recorded_messages: walker.messages,
            threads: walker.threads.len(),
            classes: classes.len(),
            methods: methods.len(),
            edges: edges.len(),
            cyclic_messages: b.cyclic,
            max_depth: walker.max_depth,
            balance: walker.balance.clone(),
        },
        lists: Lists::whole(opts.detail_cap, instances.len(), edges.len()),
        threads,
        instances,
        classes,
        methods,
        edges,
        messages,
        hints: Vec::new(),
        advice: None,
    };
    a.hints = hints::hints(&a, opts);
    a
}

/// What the reader and the walk found wrong or incomplete: the size limit, throttled
/// methods, what the aggregates cover, a missing end marker, unbalanced messages.
fn trace_warnings(
    path: &Path,
    reader: &TraceReader,
    walker: &Walker,
    coverage: &aggregates::Coverage,
) -> Vec<String> {
    let status = reader.status();
    let mut warnings = status.warnings.clone();
    let shown = crate::trace::multi::describe(path);
    if let Some(max) = status.truncated_at_size {
        // With `budget=run` the limit was the run's, shared by its processes.
        let limit = match reader.header().get("budget") {
            Some("run") => {
                format!("the run's size limit (max_size={max}, shared by the run's processes: a shell command line's, unless `revy run` or REVY_BUDGET=FILE gave the run its own)")
            }
            _ => format!("its size limit (max_size={max})"),
        };
        let rest = if status.aggregates.is_empty() {
            "later activity is missing"
        } else {
            "it counted later calls as aggregates"
        };
        warnings.push(format!(
            "{}: the runtime stopped recording events at {limit}; {rest}",
            shown
        ));
    }
    if !coverage.throttled.is_empty() {
        let list: Vec<String> = coverage
            .throttled
            .iter()
            .take(5)
            .map(|t| {
                format!(
                    "{} (t={}, estimated from the first {} calls)",
                    t.method, t.t, t.calls
                )
            })
            .collect();
        warnings.push(format!(
            "{} method(s) throttled (many short calls; counted as aggregates from then on, untimed: their later calls' time is estimated from the mean of the first calls): {}{}",
            coverage.throttled.len(),
            list.join(", "),
            if coverage.throttled.len() > 5 {
                ", …"
            } else {
                ""
            }
        ));
    }
    warnings.extend(coverage.statement());
    if status.clean_end.is_none() && !status.cut_short {
        warnings.push(format!(
            "{}: no end marker: the run may have died; analysed up to the last complete entry",
            shown
        ));
    }
    let bal = &walker.balance;
    if bal.unmatched_ends + bal.closed_by_outer_end + bal.open_at_end > 0 {
        warnings.push(format!(
            "unbalanced messages: {} end(s) without start, {} closed by an outer end, {} open at the end{}",
            bal.unmatched_ends,
            bal.closed_by_outer_end,
            bal.open_at_end,
            bal.examples.first().map(|e| format!(" (e.g. {e})")).unwrap_or_default()
        ));
    }
    warnings
}

/// Every method the trace names, with its sums; a throttled one says from how many calls
/// its later calls' time was estimated.
fn method_stats(
    accs: &[MethodAcc],
    names: &crate::trace::Names,
    total: u64,
    coverage: &aggregates::Coverage,
) -> Vec<MethodStats> {
    let mut methods: Vec<MethodStats> = names
        .methods
        .iter()
        .enumerate()
        .map(|(id, def)| {
            let a = accs.get(id).copied().unwrap_or_default();
            let lv = level(a.net.sum, total);
            MethodStats {
                id: id as u32,
                class: names.class(def.class).to_string(),
                method: def.name.clone(),
                signature: def.signature.clone(),
                calls: a.net.n,
                net_time: a.net.summary(),
                aggregate_time: a.agg.summary(),
                size: a.size.summary(),
                cyclic: a.cyclic,
                level: lv,
                band: Band::of(lv),
                granularity: per_byte(a.net.sum, a.size.sum),
                void: None,
                time_estimated_from: None,
            }
        })
        .collect();
    for t in &coverage.throttled {
        if let Some(m) = methods.get_mut(t.method_id as usize) {
            m.time_estimated_from = Some(t.calls);
        }
    }
    methods
}

/// The kept messages, largest aggregate first, with their levels, bands and one-off marks.
fn message_list(top: TopMessages, one_offs: &OneOffs, total: u64, cap: usize) -> Messages {
    let seen = top.seen;
    let mut list = top.into_sorted();
    for m in &mut list {
        m.level = level(m.net_time, total);
        m.band = Band::of(m.level);
        m.one_off = one_offs.orders.contains(&m.order);
        m.granularity = per_byte(m.net_time, m.size);
    }
    Messages {
        cap,
        total: seen,
        complete: list.len() as u64 == seen,
        list,
    }
}

fn thread_stats(
    walker: &Walker,
    names: &crate::trace::Names,
    own_pid: Option<u64>,
) -> Vec<ThreadStats> {
    walker
        .threads
        .iter()
        .map(|t| ThreadStats {
            tid: t.tid,
            pid: names.process_of(t.tid).or(own_pid),
            name: names.thread_name(t.tid).map(str::to_string),
            root: t.root,
            messages: t.messages,
            total_time: t.total,
            span: t.span(),
        })
        .collect()
}

fn trace_info(
    path: &Path,
    reader: &TraceReader,
    events: u64,
    warnings: Vec<String>,
    coverage: aggregates::Coverage,
) -> TraceInfo {
    let header = reader.header();
    let status = reader.status();
    let mut hmap: BTreeMap<String, String> = header.fields.iter().cloned().collect();
    if let Some(raw) = &header.raw {
        hmap.insert("comment".into(), raw.clone());
    }
    TraceInfo {
        path: path.display().to_string(),
        form: reader.form(),
        unit: header.unit,
        header: hmap,
        events,
        bytes: reader.bytes_read(),
        clean_end: status.clean_end.is_some(),
        truncated: status.truncated_at_size.is_some(),
        cut_short: status.cut_short,
        warnings,
        coverage,
    }
}

fn class_row(c: &str) -> ClassStats {
    ClassStats {
        class: c.to_string(),
        instances: 0,
        messages: 0,
        active_time: 0,
        mean_active_time: 0.0,
        mean_level: 0.0,
        max_level: 0.0,
        total_size: 0,
        created: 0,
        destroyed: 0,
        live: 0,
        max_size: None,
    }
}

/// Adds the sums of `b` (same class name) to `a`.
fn merge_class_rows(a: &mut ClassStats, b: &ClassStats) {
    a.instances += b.instances;
    a.messages += b.messages;
    a.active_time += b.active_time;
    a.max_level = a.max_level.max(b.max_level);
    a.total_size += b.total_size;
    a.max_size = a.max_size.max(b.max_size);
    a.created += b.created;
    a.destroyed += b.destroyed;
}

/// Per class: sums and averages over its instances (roots have no class), with the objects
/// the runtime counted without creation or destruction entries (`aggs.classes`).
fn class_stats(
    insts: &[Instance],
    sums: &InstSums,
    names: &crate::trace::Names,
    total: u64,
    aggs: &crate::trace::agg::Aggregates,
) -> Vec<ClassStats> {
    // Summed per class id first (no name lookup per instance: there can be millions), then
    // by name (ids of one name, e.g. across the processes of a trace set, add up).
    let mut by_id: Vec<Option<ClassStats>> = vec![None; names.classes.len()];
    let mut other: BTreeMap<&str, ClassStats> = BTreeMap::new();
    for (id, i) in insts.iter().enumerate() {
        if i.kind == InstKind::Root {
            continue;
        }
        let c = || names.class(i.class);
        let e = match by_id.get_mut(i.class as usize) {
            Some(slot) => slot.get_or_insert_with(|| class_row(c())),
            None => other.entry(c()).or_insert_with(|| class_row(c())),
        };
        let active = sums.active(id as u32);
        e.instances += 1;
        e.messages += sums.received(id as u32);
        e.active_time += active;
        e.max_level = e.max_level.max(level(active, total));
        e.total_size += i.size().unwrap_or(0);
        e.max_size = e.max_size.max(i.size());
        e.created += i.logged_created() as u64;
        e.destroyed += i.destroyed().is_some() as u64;
    }
    let mut classes = other;
    for (id, row) in by_id.into_iter().enumerate() {
        let Some(row) = row else { continue };
        let c = names.class(id as u32);
        match classes.get_mut(c) {
            Some(e) => merge_class_rows(e, &row),
            None => {
                classes.insert(c, row);
            }
        }
    }
    for x in &aggs.classes {
        let c = names.class(x.class);
        let e = classes.entry(c).or_insert_with(|| class_row(c));
        e.created += x.created;
        e.destroyed += x.destroyed;
        e.total_size += x.size;
        if x.created > 0 {
            e.max_size = e.max_size.max(Some(x.size_max));
        }
    }
    classes
        .into_values()
        .map(|mut c| {
            let n = c.instances.max(1) as f64;
            c.mean_active_time = c.active_time as f64 / n;
            c.mean_level = level(c.active_time, total) / n;
            c.live = c.created.saturating_sub(c.destroyed);
            c
        })
        .collect()
}

/// Time per byte; `None` for messages without arguments.
fn per_byte(time: u64, bytes: u64) -> Option<f64> {
    (bytes > 0).then(|| time as f64 / bytes as f64)
}

/// A message at least this many times the mean of its method's other calls is a one-off.
const ONE_OFF_FACTOR: f64 = 10.0;

struct OneOffs {
    orders: FxHashSet<u64>,
    by_instance: FxHashMap<u32, u64>,
}

/// The kept messages far above their method's typical call: more than [`ONE_OFF_FACTOR`]×
/// the mean of the method's other calls (so a method called once is never a one-off).
fn one_off_messages(b: &mut Builder) -> OneOffs {
    let mut out = OneOffs {
        orders: FxHashSet::default(),
        by_instance: FxHashMap::default(),
    };
    for m in b.top.kept() {
        let Some(acc) = b.methods.get(m.method as usize) else {
            continue;
        };
        if acc.net.n < 3 {
            continue;
        }
        let others = (acc.net.sum - m.net_time) as f64 / (acc.net.n - 1) as f64;
        if m.net_time as f64 > ONE_OFF_FACTOR * others.max(1.0) {
            out.orders.insert(m.order);
            *out.by_instance.entry(m.receiver).or_default() += m.net_time;
        }
    }
    out
}

/// `Class#oid`, `Class (static)` or `root@tid`; in a trace set `Class#oid@pid`,
/// `Class (static)@pid` and `root@pid/tid`.
pub fn instance_label(i: &Instance, names: &crate::trace::Names) -> String {
    use crate::trace::multi::local;
    if let Some(l) = aggregates::folded_label(i, names) {
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

impl Analysis {
    /// `Class.method` of a method id.
    pub fn method_name(&self, id: u32) -> String {
        self.methods
            .get(id as usize)
            .map_or_else(|| "?".into(), |m| format!("{}.{}", m.class, m.method))
    }
    /// A method's name alone (no class), `?` for an unknown id.
    pub fn method_only(&self, id: u32) -> &str {
        self.methods
            .get(id as usize)
            .map_or("?", |m| m.method.as_str())
    }
    pub fn label(&self, instance: u32) -> String {
        self.instances.label(instance)
    }
}
