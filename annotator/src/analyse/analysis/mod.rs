//! The object call graph and its statistics, built in one streaming pass.
//! Memory grows with instances, methods, threads' stack depth and distinct edges; per-message
//! detail is capped (top-N by aggregate time).

pub(crate) mod aggregates;
pub(crate) mod faults;
mod finish;
pub mod hints;
pub(crate) mod lists;
pub(crate) mod options;
pub(crate) mod proposals;
pub mod render;
pub(crate) mod stats;
pub(crate) mod table;
mod verdict;
mod waited;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::analyse::events;
use crate::analyse::probe::{self, header_probe_ns, Probe};
use crate::analyse::trace::{Form, TraceReader, Unit};
use crate::analyse::walk::{walk_trace_with, Closed, InstKind, Instance, Sink, Walker};
use crate::error::Result;
pub use finish::finish;
pub use hints::Hint;
use hints::HintKind;
pub use lists::Lists;
pub use options::Options;
use stats::{Acc, Callee, MessageRecord, Summary, TopMessages};
use table::EdgeSums;
pub use table::{Edges, InstRow, Instances, TopRows};

pub(crate) const SCHEMA: &str = "revy-analysis/2";

/// From this share of empty-call cost a method's measured time is mostly probe cost.
pub(crate) const PROBE_BOUND: f64 = 0.5;

fn is_zero(x: &f64) -> bool {
    *x == 0.0
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
    /// The run's length: its first event to its last, over all threads (and processes, on
    /// one time line). The one run length every command shows.
    pub run_span: u64,
    /// Busy time: each thread's first to last event, summed over threads, less the probe
    /// cost when compensated (= the roots' time outside messages + all net times). Levels
    /// are shares of it.
    pub total_time: u64,
    /// The instrumented part: the sum of all net times (the thesis's total).
    pub instrumented_time: u64,
    /// Of `instrumented_time`, the time messages waited off the CPU (blocked on a lock,
    /// queue or I/O, or preempted): measured on long calls, not counted as active time.
    pub waiting_time: u64,
    /// Probe cost per start+end pair in ns: the one subtracted, else the header's.
    pub probe_ns: Option<f64>,
    /// The probe cost was subtracted.
    pub compensated: bool,
    /// Where the probe cost comes from and what was subtracted (see [`probe`]).
    pub probe: probe::Calibration,
    /// [`probe::Calibration::describe`]: the line the text and the report show.
    pub probe_note: String,
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
    pub balance: crate::analyse::walk::Balance,
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
    /// Sum of the net work (on-CPU) times of the messages it received.
    pub active_time: u64,
    /// Sum of the net times its messages waited off the CPU (not in `active_time`).
    pub waiting: u64,
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
    /// Net work time (waiting excluded).
    pub net_time: Summary,
    /// Net time waiting off the CPU (measured on long calls).
    pub waiting: u64,
    /// Where its body may block (from the SAF, when one is found and something waited).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<String>,
    pub aggregate_time: Summary,
    pub size: Summary,
    pub cyclic: u64,
    /// Share of the total net time spent in this method.
    pub level: f64,
    /// Of its recorded calls' measured net time, the share the probe's own cost takes (the
    /// cost per call subtracted, else the header's, at most the run's cheapest call). From
    /// [`PROBE_BOUND`] its time is mostly instrumentation: said so, and no candidate on
    /// that basis.
    #[serde(skip_serializing_if = "is_zero")]
    pub probe_share: f64,
    /// Recorded calls and their raw net time (probe cost and waiting included).
    #[serde(skip)]
    pub recorded_raw: (u64, u64),
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
    /// Per-event results, when the manifest defines events.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<crate::analyse::events::Events>,
}

/// The two ends of a handoff that flips between two states.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AdviceHandoffRange {
    pub fast: f64,
    pub slow: f64,
    /// The sender's at-the-queue post at each end (the point's when its windows agreed).
    pub enqueue_fast: f64,
    pub enqueue_slow: f64,
    /// The share of the calibration's windows in the slow state.
    pub slow_share: f64,
}

/// The machine model and notes of the ranked proposals.
#[derive(Debug, Clone, Serialize)]
pub struct Advice {
    pub cores: usize,
    /// Handoff per cross-thread message, in the trace's unit.
    pub handoff: f64,
    /// Where the handoff comes from: given, the trace header, or measured here.
    pub handoff_source: String,
    /// The project's handoff or at-the-queue calibration saw two states: both ends, in the
    /// trace's unit (each hint then also gives its speedup at both ends).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handoff_range: Option<AdviceHandoffRange>,
    /// The project's wake-up against idle time (charged instead of the handoff when
    /// dearer), in the trace's unit; absent when none was kept or `--handoff` was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wake_after_idle: Option<crate::analyse::whatif::WakeCurve>,
    /// Sender's CPU per asynchronous message, in the trace's unit.
    pub enqueue: f64,
    /// Where the enqueue cost comes from: given, or measured once for the project
    /// (`.revy/machine.toml`, with the day it was measured).
    pub enqueue_source: String,
    /// Sender's CPU per asynchronous message waking a blocked receiver, and its source.
    pub wake: f64,
    pub wake_source: String,
    /// Sender's CPU per asynchronous message behind others, and its source.
    pub post: f64,
    pub post_source: String,
    /// Receiver's CPU per fine-grained message it takes off its queue, and its source.
    pub take: f64,
    pub take_source: String,
    /// Candidates replayed.
    pub candidates: usize,
    pub notes: Vec<String>,
    pub caveat: &'static str,
}

#[derive(Default, Clone, Copy)]
struct MethodAcc {
    /// Net work time (waiting excluded).
    net: Acc,
    /// Net time waiting off the CPU.
    wait: u64,
    agg: Acc,
    size: Acc,
    cyclic: u64,
    /// Recorded calls and their raw net times (probe cost and waiting included), and the
    /// messages those calls sent (each cost them a probe pair's outside part).
    recorded: u64,
    raw: u64,
    sent: u64,
}

/// The analysis sink: accumulates per instance, edge and method.
pub struct Builder {
    edges: EdgeSums,
    methods: Vec<MethodAcc>,
    top: TopMessages,
    cyclic: u64,
    /// Probe cost per message, in trace units (0 when not compensating).
    probe: Probe,
    /// The probe cost the run paid per message, subtracted or not (trace units; 0: unknown).
    paid: u64,
    /// The run's length and busy time, and the smallest net time before compensation.
    clock: crate::analyse::run::RunClock,
    /// Per receiving instance, the net time its messages waited off the CPU (few: only
    /// long calls carry an on-CPU time).
    waits: rustc_hash::FxHashMap<u32, u64>,
    /// The same per (receiving instance, method): what each instance waited in.
    wait_in: rustc_hash::FxHashMap<(u32, u32), u64>,
    /// All messages' waiting.
    waiting: u64,
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
            cyclic: 0,
            probe: Probe::default(),
            paid: 0,
            clock: crate::analyse::run::RunClock::new(Probe::default()),
            waits: Default::default(),
            wait_in: Default::default(),
            waiting: 0,
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
    /// The probe cost subtracted per message, in trace units.
    pub(crate) fn probe(&self) -> Probe {
        self.probe
    }
    /// Subtract `probe` per message (its inside from its own time, its outside from its
    /// sender's; see [`Probe`]).
    pub(crate) fn with_probe(mut self, probe: Probe) -> Self {
        self.probe = probe;
        self.paid = self.paid.max(probe.pair());
        self.clock = crate::analyse::run::RunClock::new(probe);
        self
    }
    /// The probe cost the run paid per message (trace units), when not subtracted.
    fn paying(mut self, paid: u64) -> Self {
        self.paid = self.paid.max(paid);
        self
    }
}

impl Sink for Builder {
    fn aggregated(
        &mut self,
        aggs: &crate::analyse::trace::agg::Aggregates,
        edges: &[crate::analyse::walk::Resolved],
        _instances: &[Instance],
    ) {
        self.add_aggregates(aggs, edges);
    }
    #[inline]
    fn closed(
        &mut self,
        c: &Closed,
        _instances: &[Instance],
        _names: &crate::analyse::trace::Names,
    ) {
        let f = &c.frame;
        self.clock.message(c.net, f.children);
        let c_raw = c.net;
        let net = c.net.saturating_sub(self.probe.of_net(f.children));
        let aggregate = c
            .aggregate
            .saturating_sub(self.probe.of_aggregate(f.descendants));
        // Active time is work: the time the thread was off the CPU is waiting.
        let wait = c.wait.min(net);
        let work = net - wait;
        let c = &Closed {
            frame: c.frame,
            thread: c.thread,
            tid: c.tid,
            end: c.end,
            aggregate,
            net,
            wait,
            outer: c.outer,
        };
        let cyclic = f.sender == f.receiver;
        self.pending
            .push((f.sender, f.receiver, c.aggregate, work, f.size));
        if self.pending.len() == BATCH {
            self.flush();
        }
        let m = f.method as usize;
        if self.methods.len() <= m {
            self.methods.resize(m + 1, MethodAcc::default());
        }
        let ma = &mut self.methods[m];
        ma.net.add(work);
        ma.wait += wait;
        if wait > 0 {
            *self.waits.entry(f.receiver).or_default() += wait;
            *self.wait_in.entry((f.receiver, f.method)).or_default() += wait;
            self.waiting += wait;
        }
        ma.agg.add(c.aggregate);
        ma.size.add(f.size);
        ma.cyclic += cyclic as u64;
        ma.recorded += 1;
        ma.raw += c_raw;
        ma.sent += f.children;
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
                net_time: work,
                waiting: wait,
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
    if !opts.events.is_empty() || !opts.remote.is_empty() {
        return analyze_with_events(path, opts, progress);
    }
    let mut b = Builder::for_trace(path, opts)?;
    let (mut reader, mut walker) = walk_trace_with(path, &mut b, progress)?;
    if let Some(capped) = b.capped(opts) {
        // The header's probe cost exceeds a message's net time: walk again at the cap.
        b = capped;
        (reader, walker) = walk_trace_with(path, &mut b, progress)?;
    }
    finish_with_advice(path, opts, b, &reader, &mut walker)
}

/// `revy analyze` with events: the analysis's walk also feeds the tracker.
fn analyze_with_events(
    path: &Path,
    opts: &Options,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Analysis> {
    let mut b = Builder::for_trace(path, opts)?;
    let mut t = events::Tracker::new(&opts.events, b.probe())
        .with_remote(&opts.remote, path)?
        .retiring(opts.detail_cap);
    let (mut reader, mut walker) =
        walk_trace_with(path, &mut events::Tracked::new(&mut b, &mut t), progress)?;
    if let Some(mut capped) = b.capped(opts) {
        t = t.again(capped.probe());
        (reader, walker) = walk_trace_with(
            path,
            &mut events::Tracked::new(&mut capped, &mut t),
            progress,
        )?;
        b = capped;
    }
    t.finish(reader.names());
    let events = events::results(t, reader.names(), opts.detail_cap);
    let mut a = finish_with_advice(path, opts, b, &reader, &mut walker)?;
    a.events = Some(events);
    Ok(a)
}

impl Builder {
    /// A builder that subtracts the probe cost given in `opts`, else the trace header's
    /// (when `opts` say so).
    pub(crate) fn for_trace(path: &Path, opts: &Options) -> Result<Builder> {
        let unit = header_unit(path)?;
        let header = header_probe_ns(path)?;
        let (probe, share) = match opts.compensation() {
            probe::Compensation::Off => (None, 1.0),
            probe::Compensation::Given(ns) => (Some(ns), probe::header_inside_share(path)?),
            probe::Compensation::Split { ns, inside_share } => (Some(ns), inside_share),
            probe::Compensation::Header => (header, probe::header_inside_share(path)?),
        };
        let units = |p: Option<f64>| p.map_or(0, |p| probe_units(p, unit));
        Ok(Builder::new(opts)
            .with_probe(Probe::split(units(probe), share))
            .paying(units(opts.probe_ns.or(header))))
    }
    /// After a walk: a fresh builder subtracting the smallest net time, when the header's
    /// probe cost (not one given) exceeded it; `None` when this walk stands.
    pub fn capped(&self, opts: &Options) -> Option<Builder> {
        let header = opts.compensation() == probe::Compensation::Header;
        let capped = self.probe.capped(self.clock.floor());
        (header && capped != self.probe).then(|| Builder::new(opts).with_probe(capped))
    }
    /// The probe cost this builder subtracted, with where it came from.
    pub fn calibration(&self, path: &Path, opts: &Options) -> Result<probe::Calibration> {
        let unit = header_unit(path)?;
        let (header, share) = (header_probe_ns(path)?, probe::header_inside_share(path)?);
        let mut cal = probe::Calibration::resolve(
            opts.compensation(),
            header,
            share,
            self.clock.floor(),
            unit,
        );
        let walked = Probe::split(header.map_or(0, |h| probe_units(h, unit)), share);
        if cal.capped && self.probe == walked {
            // Over the floor by less than a trace unit: the walk subtracted the header's.
            cal.uncap();
        } else if cal.capped {
            // What the walk subtracted: the cap in whole trace units.
            cal.used_ns =
                self.probe.pair() as f64 * unit.micros() / crate::analyse::trace::Unit::Ns.micros();
            if !self.probe.is_zero() {
                cal.inside_share = self.probe.inside as f64 / self.probe.pair() as f64;
            }
        }
        Ok(cal)
    }
}

/// [`finish`], then the probe cost in the totals and the ranked proposals (another pass).
pub(crate) fn finish_with_advice(
    path: &Path,
    opts: &Options,
    b: Builder,
    reader: &TraceReader,
    walker: &mut Walker,
) -> Result<Analysis> {
    let compensated = !b.probe.is_zero();
    let cal = b.calibration(path, opts)?;
    let mut a = finish(path, opts, b, reader, walker);
    a.totals.probe_ns = if compensated {
        Some(cal.used_ns)
    } else {
        cal.header_ns
    };
    a.totals.compensated = compensated;
    a.trace.warnings.extend(cal.warning());
    if compensated {
        a.trace
            .warnings
            .extend(probe::split_warning(reader.header()));
    }
    // The header's handoff is replayed only without a project, which keeps its own: there
    // the header's figure is checked against the project's (outside 1.5×: not trusted).
    if opts.handoff_ns.is_none() && opts.manifest.is_none() {
        let handoff = crate::analyse::probe::handoff_warning(reader.header());
        a.trace.warnings.extend(handoff);
    } else if opts.handoff_ns.is_none() && (opts.proposals || opts.remeasure) {
        let header = crate::analyse::probe::header_ns(path, "handoff_ns")?;
        let kept = crate::analyse::enqueue::kept_handoff_for(opts);
        if let (Some(h), Some(k)) = (header, kept) {
            a.trace
                .warnings
                .extend(crate::analyse::machine::disagreement(k.ns, h));
        }
    }
    a.totals.probe_note = cal.describe();
    a.totals.probe = cal;
    if opts.proposals {
        // The replays subtract what this walk did.
        let mut o = opts.clone();
        o.probe_ns = Some(a.totals.probe.used_ns);
        o.compensate = compensated;
        proposals::add(&mut a, path, &o, &reader.status().aggregates.faults)?;
    }
    // Page faults: an observation placed after the proposals and no-gain statements.
    let fault_hints = faults::hints(
        &a,
        &reader.status().aggregates.faults,
        probe::header_ns(path, "fault_ns")?,
    );
    let at = a
        .hints
        .iter()
        .position(|h| !matches!(h.kind, HintKind::Proposal | HintKind::NoGain))
        .unwrap_or(a.hints.len());
    a.hints.splice(at..at, fault_hints);
    Ok(a)
}

pub use crate::analyse::probe::probe_units;

fn header_unit(path: &Path) -> Result<crate::analyse::trace::Unit> {
    let r = TraceReader::open_header(path)?;
    Ok(r.header().unit)
}

fn level(x: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        x as f64 / total as f64
    }
}

/// Time per byte; `None` for messages without arguments.
fn per_byte(time: u64, bytes: u64) -> Option<f64> {
    (bytes > 0).then(|| time as f64 / bytes as f64)
}

impl MethodStats {
    /// Its measured time is mostly probe cost ([`PROBE_BOUND`]).
    pub fn probe_bound(&self) -> bool {
        self.probe_share >= PROBE_BOUND
    }
    /// Its recorded calls' raw net time.
    pub fn measured(&self) -> u64 {
        self.recorded_raw.1
    }
}

impl Analysis {
    /// Classes whose methods' measured time is mostly probe cost (their empty-call share,
    /// weighted by measured time, at least [`PROBE_BOUND`]): no candidates on that basis.
    pub(crate) fn probe_bound_classes(&self) -> rustc_hash::FxHashSet<&str> {
        let mut by: rustc_hash::FxHashMap<&str, (f64, f64)> = Default::default();
        for m in &self.methods {
            let e = by.entry(m.class.as_str()).or_default();
            e.0 += m.probe_share * m.measured() as f64;
            e.1 += m.measured() as f64;
        }
        by.into_iter()
            .filter(|(_, (p, all))| *all > 0.0 && p / all >= PROBE_BOUND)
            .map(|(c, _)| c)
            .collect()
    }

    /// `Class.method` of a method id.
    pub(crate) fn method_name(&self, id: u32) -> String {
        self.methods
            .get(id as usize)
            .map_or_else(|| "?".into(), |m| format!("{}.{}", m.class, m.method))
    }
    /// A method's name alone (no class), `?` for an unknown id.
    pub(crate) fn method_only(&self, id: u32) -> &str {
        self.methods
            .get(id as usize)
            .map_or("?", |m| m.method.as_str())
    }
    pub fn label(&self, instance: u32) -> String {
        self.instances.label(instance)
    }
}
