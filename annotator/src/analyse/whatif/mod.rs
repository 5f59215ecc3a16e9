//! `revy whatif`: predicts run time and speedup if named classes, instances or methods
//! became active objects, by replaying the recorded message tree
//! (`tree.rs`) under the change (`plan.rs`) on a machine model (`sim.rs`).

pub(crate) mod batch;
pub mod cost;
mod fine;
pub(crate) mod focus;
mod load;
pub(crate) mod node;
pub mod plan;
mod range;
pub(crate) mod sim;
pub(crate) mod tree;
pub(crate) mod wake;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::analyse::trace::Unit;
use crate::error::{Error, Result};
pub use plan::Plan;
pub use range::{predict_range, HandoffRange};
pub use sim::Params;
pub use tree::Tree;
pub use wake::WakeCurve;

use crate::analyse::probe::Calibration;
pub use crate::analyse::probe::Compensation;
use crate::analyse::run::{RunClock, RunLength};

pub(crate) const SCHEMA: &str = "revy-whatif/2";

/// The statement every prediction carries.
pub(crate) const CAVEAT: &str = "the prediction holds only if the change is free of data races: shared state the trace cannot see is assumed safe, and the program's own synchronisation is not replayed; each message is taken to cost what it cost in the profiled run, less its page-fault time when the change moves it to a thread of its own (measured by the C++ runtime on Linux only; Java has no cheap per-thread fault counter), though caches, and memory the change itself passes between threads, may behave differently once threads share the work";

/// Read traces into a tree and learn which methods return nothing from the project's SAF.
pub fn load(
    traces: &[PathBuf],
    compensate: impl Into<Compensation>,
    manifest: Option<&Path>,
) -> Result<Loaded> {
    let compensate = compensate.into();
    let tree = Tree::load(traces, compensate)?;
    ready(tree, traces.first(), compensate, manifest)
}

/// [`load`] of one trace, focused on `focus` ([`focus`]): a whole run's trace, whose every
/// message would not fit. What the focus received, when it holds more than
/// `focus.max_nodes` nodes. `info` describes instances by the walker's id and `faults` are the trace's
/// `F` records (the caller's analysis read both).
pub(crate) fn load_focused(
    trace: &Path,
    compensate: Compensation,
    focus: &focus::Focus,
    info: &dyn Fn(u32) -> tree::InstInfo,
    faults: &[crate::analyse::trace::agg::FaultAgg],
    manifest: Option<&Path>,
) -> Result<std::result::Result<Loaded, focus::Over>> {
    match Tree::load_focused(trace, compensate, focus, info, faults)? {
        Ok(tree) => ready(tree, Some(&trace.to_path_buf()), compensate, manifest).map(Ok),
        Err(over) => Ok(Err(over)),
    }
}

/// The tree `revy whatif` replays `patterns` on, and their plan in its ids: every message
/// when the traces hold at most `max_messages`, else the tree focused on what the patterns
/// name (a whole run: a first walk numbers the instances and resolves the patterns, the
/// second keeps only what the replay needs; the prediction is the same).
pub fn load_for(
    traces: &[PathBuf],
    compensate: impl Into<Compensation>,
    manifest: Option<&Path>,
    patterns: &[String],
    max_messages: u64,
) -> Result<(Loaded, Plan)> {
    use crate::analyse::walk::{InstKind, Walker};
    let path = crate::analyse::trace::multi::join(traces)?;
    let compensate = compensate.into();
    let header = crate::analyse::probe::header_probe_ns(&path)?;
    let unit = crate::analyse::trace::TraceReader::open_header(&path)?
        .header()
        .unit;
    let units = |ns: f64| crate::analyse::probe::probe_units(ns, unit);
    let share = crate::analyse::probe::header_inside_share(&path)?;
    let (pair, split) = match compensate {
        Compensation::Off => (0, share),
        Compensation::Given(ns) => (units(ns), share),
        Compensation::Split { ns, inside_share } => (units(ns), inside_share),
        Compensation::Header => (header.map_or(0, units), share),
    };
    let mut clock = RunClock::new(crate::analyse::probe::Probe::split(pair, split));
    let (reader, walker) =
        crate::analyse::walk::walk_trace_by(&path, Walker::new(), &mut clock, &mut |_, _| {})?;
    // The header's probe cost, at most the smallest net time (`analyse::probe`).
    let cal = Calibration::resolve(compensate, header, share, clock.floor(), unit);
    // The run's length as `revy analyze` gives it (`analyse::run`).
    let run = clock.length(&walker, cal.probe(unit));
    let compensate = cal.compensation();
    let mut plan = Plan::default();
    if walker.messages <= max_messages {
        drop((reader, walker));
        let mut loaded = load(traces, compensate, manifest)?;
        loaded.warnings.extend(cal.warning());
        loaded.run = Some(run);
        for p in patterns {
            plan::add_pattern(&loaded.tree, &mut plan, p)?;
        }
        return Ok((loaded, plan));
    }
    let names = reader.names();
    let insts = || {
        walker.instances.iter().enumerate().map(|(i, x)| {
            let class = (x.kind != InstKind::Root).then(|| names.class(x.class));
            (i as u32, x.kind, class, x.oid())
        })
    };
    let methods: Vec<tree::MethodInfo> = names
        .methods
        .iter()
        .map(|m| tree::MethodInfo {
            class: names.class(m.class).to_string(),
            name: m.name.clone(),
            signature: m.signature.clone(),
            void: None,
            stateless: None,
            by_address: false,
        })
        .collect();
    for p in patterns {
        plan::add_pattern_in(insts, &methods, &mut plan, p)?;
    }
    let focus = focus::Focus {
        instances: plan.instances.clone(),
        methods: plan.methods.clone(),
        max_nodes: usize::MAX,
        count_when_over: false,
    };
    let info = |w: u32| tree::inst_info(&walker.instances[w as usize], names, 0);
    let faults = &reader.status().aggregates.faults;
    let mut loaded = load_focused(&path, compensate, &focus, &info, faults, manifest)?
        .map_err(|_| Error::input("the focused tree exceeded its node cap"))?;
    loaded.warnings.extend(cal.warning());
    loaded.run = Some(run);
    let plan = plan.in_tree(&loaded.tree);
    Ok((loaded, plan))
}

/// [`load_focused`] of an empty focus: no message to hold (see [`Tree::without_messages`]).
pub(crate) fn load_without_messages(
    trace: &Path,
    compensate: Compensation,
    methods: Vec<tree::MethodInfo>,
    recorded: usize,
    manifest: Option<&Path>,
) -> Result<Loaded> {
    let tree = Tree::without_messages(trace, compensate, methods, recorded)?;
    ready(tree, Some(&trace.to_path_buf()), compensate, manifest)
}

/// A loaded tree with its methods' return types from the SAF, the warnings, and the
/// compensated aggregates the replays share.
fn ready(
    mut tree: Tree,
    first: Option<&PathBuf>,
    compensate: Compensation,
    manifest: Option<&Path>,
) -> Result<Loaded> {
    let mut warnings = Vec::new();
    // A trace set's SAF is that of its first file.
    let first = first.map(|t| match crate::analyse::trace::multi::set_members(t) {
        Ok(Some(files)) => files[0].clone(),
        _ => t.clone(),
    });
    let saf = first.and_then(|t| plan::find_saf(&t, manifest));
    let unknown = match &saf {
        Some(p) => plan::apply_saf(&mut tree, &crate::instrument::saf::Saf::load(p)?),
        None => tree.methods.iter().filter(|m| !m.name.is_empty()).count(),
    };
    if unknown > 0 {
        warnings.push(format!(
            "{unknown} method(s) of the trace have no known return type ({}); they are taken to return a value, so their callers wait",
            match &saf {
                Some(p) => format!("not in {}", p.display()),
                None => "no .revy/saf.toml found beside the trace or the manifest; run `revy parse`".into(),
            }
        ));
    }
    if compensate == Compensation::Header && !tree.probe_found && tree.messages() > 0 {
        warnings.push(
            "the trace header has no probe cost (probe_ns=): times are not compensated".into(),
        );
    }
    warnings.extend(cost::coverage(&tree));
    let agg = sim::compensated_aggregates(&tree);
    Ok(Loaded {
        tree,
        agg,
        warnings,
        run: None,
    })
}

/// A tree ready for replays.
pub struct Loaded {
    pub tree: Tree,
    /// Compensated aggregate time of each node.
    pub agg: Vec<f64>,
    pub warnings: Vec<String>,
    /// The measured run's length and busy time (`analyse::run`), when the load walked
    /// the trace for it ([`load_for`]).
    pub run: Option<RunLength>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Step {
    pub thread: String,
    /// The message holding most of this stretch's work.
    pub message: String,
    pub start: f64,
    pub end: f64,
    pub work: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ThreadUse {
    pub thread: String,
    pub busy: f64,
    pub idle: f64,
    pub messages: u64,
}

/// The active objects a prediction does not list, summed.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LeftOut {
    pub objects: usize,
    pub busy: f64,
    pub messages: u64,
    /// Those of them that received no message in the replay.
    pub without_messages: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Wait {
    pub thread: String,
    pub waited_for: String,
    pub time: f64,
}

/// Where distribution stops paying (with `--latency`/`--bandwidth`).
#[derive(Debug, Clone, Serialize)]
pub struct Distribution {
    pub latency: f64,
    pub bandwidth_bytes_per_s: Option<f64>,
    /// Mean message size of the messages sent to the active objects.
    pub mean_message_bytes: f64,
    /// Mean work per message they carry (compensated aggregate).
    pub mean_message_work: f64,
    /// Their granularity: work per byte.
    pub granularity: f64,
    /// Below this work per byte a message costs more to ship than it computes.
    pub granularity_threshold: f64,
    pub pays: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct WhatIf {
    pub schema: &'static str,
    pub traces: Vec<String>,
    pub active: Vec<String>,
    pub active_instances: usize,
    pub active_methods: Vec<String>,
    pub unit: &'static str,
    pub cores: usize,
    pub handoff: f64,
    /// `measured` on this machine or `given`.
    pub handoff_source: String,
    /// Sender's CPU per asynchronous message (a queue push).
    pub enqueue: f64,
    /// `given`, or measured once for the project (`.revy/machine.toml`, with its day).
    pub enqueue_source: String,
    /// Sender's CPU per asynchronous message that wakes a blocked receiver.
    pub wake: f64,
    pub wake_source: String,
    /// Sender's CPU per asynchronous message behind others (a receiver busy anyway).
    pub post: f64,
    pub post_source: String,
    /// Receiver's CPU per fine-grained message it takes off its queue (both threads at
    /// it: the messages posted at `enqueue`), and its source.
    pub take: f64,
    pub take_source: String,
    pub compensated: bool,
    /// The measured run's wall span and busy time, as `revy analyze` gives them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_span: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub busy_time: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads_measured: Option<usize>,
    /// The measured run replayed unchanged: what `predicted_time` compares with.
    pub baseline_time: f64,
    pub predicted_time: f64,
    pub predicted_speedup: f64,
    /// The prediction at both ends of the project's handoff when its calibration saw two
    /// states (absent: one state, or `--handoff` given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handoff_range: Option<HandoffRange>,
    /// The project's wake-up against idle time, in `unit`, charged instead of the handoff
    /// when dearer (absent: none kept, or `--handoff` given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wake_after_idle: Option<WakeCurve>,
    pub critical_path: Vec<Step>,
    pub threads: Vec<ThreadUse>,
    /// The active objects `threads` does not list (past [`OBJECTS_LISTED`], the least busy).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads_left_out: Option<LeftOut>,
    pub waits: Vec<Wait>,
    pub asynchronous_messages: u64,
    /// Of the asynchronous messages, those whose post woke a receiver blocked on its
    /// queue (the sender paid `wake`; the others `enqueue` or `post`).
    pub waking_messages: u64,
    pub synchronous_messages: u64,
    /// Page-fault time taken off messages the change moved to another thread (in `unit`);
    /// absent when the trace measured no faults (Java, other systems, older traces).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_faults_dropped: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distribution: Option<Distribution>,
    /// What the cross-thread messages cost against the work they move, and which cost
    /// dominates (absent when the change sends none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<cost::Cost>,
    pub deadlock: Vec<String>,
    pub caveat: &'static str,
    pub warnings: Vec<String>,
    /// Why the prediction is bounded at 1.0×: counted calls finer than moving one costs
    /// (`fine.rs`); in `warnings` too, for the verdict to name.
    #[serde(skip)]
    pub fine_grained: Option<String>,
}

/// The run replayed unchanged: the measured span less the probe cost.
pub fn baseline(l: &Loaded, p: &Params) -> f64 {
    sim::replay_without_path(&l.tree, &Plan::default(), p, &l.agg).time
}

/// Baseline and predicted replay of `plan`; `patterns` only label the output.
pub fn predict(l: &Loaded, plan: &Plan, p: &Params, patterns: &[String]) -> WhatIf {
    predict_against(l, plan, p, patterns, baseline(l, p))
}

/// [`predict`] against a baseline already replayed.
pub(crate) fn predict_against(
    l: &Loaded,
    plan: &Plan,
    p: &Params,
    patterns: &[String],
    base_time: f64,
) -> WhatIf {
    predict_with(l, plan, p, patterns, base_time, true)
}

/// [`predict_against`] without the critical path (`critical_path` empty): for a verdict,
/// which needs none of it, at a fraction of the memory on a whole run.
pub(crate) fn predict_without_path(
    l: &Loaded,
    plan: &Plan,
    p: &Params,
    patterns: &[String],
    base_time: f64,
) -> WhatIf {
    predict_with(l, plan, p, patterns, base_time, false)
}

fn predict_with(
    l: &Loaded,
    plan: &Plan,
    p: &Params,
    patterns: &[String],
    base_time: f64,
    path: bool,
) -> WhatIf {
    let t = &l.tree;
    let out = if path {
        sim::replay(t, plan, p, &l.agg)
    } else {
        sim::replay_without_path(t, plan, p, &l.agg)
    };
    // Counted calls finer than moving one costs gain nothing, whatever the replay gives
    // (said only where it bounds the replay's gain; a loss names its own cost).
    let fine_grained = fine::bound(&out, p, t.unit()).filter(|_| out.time < base_time);
    let predicted = match fine_grained {
        Some(_) => out.time.max(base_time),
        None => out.time,
    };
    let mut warnings = l.warnings.clone();
    if let Some(why) = &fine_grained {
        let replayed = if out.time > 0.0 {
            base_time / out.time
        } else {
            1.0
        };
        warnings.push(format!("{why} (the replay alone: {replayed:.2}×)"));
    }
    let speedup = if predicted > 0.0 {
        base_time / predicted
    } else {
        1.0
    };
    let remote = p.latency > 0.0 || p.bandwidth.is_some();
    let (threads, threads_left_out) =
        thread_use(&out, predicted, t.threads.len(), plan.instances.len());
    WhatIf {
        schema: SCHEMA,
        traces: t.paths.iter().map(|p| p.display().to_string()).collect(),
        active: patterns.to_vec(),
        active_instances: plan.instances.len(),
        active_methods: method_names(t, plan),
        unit: t.unit().as_str(),
        cores: p.cores,
        handoff: p.handoff,
        handoff_source: HANDOFF_GIVEN.to_string(),
        enqueue: p.enqueue,
        enqueue_source: HANDOFF_GIVEN.to_string(),
        wake: p.wake,
        wake_source: HANDOFF_GIVEN.to_string(),
        post: p.post,
        post_source: HANDOFF_GIVEN.to_string(),
        take: p.take,
        take_source: HANDOFF_GIVEN.to_string(),
        compensated: t.threads.iter().any(|th| th.probe > 0.0),
        run_span: l.run.map(|r| r.span),
        busy_time: l.run.map(|r| r.busy),
        threads_measured: l.run.map(|r| r.threads),
        baseline_time: base_time,
        predicted_time: predicted,
        predicted_speedup: speedup,
        handoff_range: None,
        wake_after_idle: p.wake_curve.clone(),
        critical_path: steps(t, &out),
        threads,
        threads_left_out,
        waits: waits(t, &out),
        asynchronous_messages: out.async_sends,
        waking_messages: out.wakes.round() as u64,
        synchronous_messages: out.sync_sends,
        page_faults_dropped: t.faults_found.then_some(out.faults_dropped),
        distribution: remote.then(|| distribution(l, plan, p)),
        cost: cost::of(&out, p, t.unit()),
        deadlock: out.deadlocked,
        caveat: CAVEAT,
        warnings,
        fine_grained,
    }
}

/// `Class.method(params)` of the plan's pooled methods, sorted, once each.
fn method_names(t: &Tree, plan: &Plan) -> Vec<String> {
    let mut methods: Vec<String> = plan
        .methods
        .iter()
        .map(|&m| {
            let m = &t.methods[m as usize];
            let sig = crate::analyse::trace::display::signature(&m.signature);
            format!("{}.{}{sig}", m.class, m.name)
        })
        .collect();
    methods.sort();
    methods.dedup();
    methods
}

/// Active objects listed by name at most: a class of a whole run can have hundreds of
/// thousands of objects, most of them (nearly) idle.
pub(crate) const OBJECTS_LISTED: usize = 30;

/// Each replayed thread's busy and idle time over the predicted run: the program's threads
/// and the pool's workers, and the busiest [`OBJECTS_LISTED`] active objects (in executor
/// order: threads, objects by id, pool); the other objects summed.
fn thread_use(
    out: &sim::Outcome,
    predicted: f64,
    threads: usize,
    objects: usize,
) -> (Vec<ThreadUse>, Option<LeftOut>) {
    let objects = threads..threads + objects;
    let mut keep = vec![true; out.execs.len()];
    if objects.len() > OBJECTS_LISTED {
        let mut by_busy: Vec<usize> = objects.clone().collect();
        let e = &out.execs;
        by_busy.sort_by(|&a, &b| {
            (e[b].busy.total_cmp(&e[a].busy))
                .then(e[b].messages.cmp(&e[a].messages))
                .then(a.cmp(&b))
        });
        for &x in &by_busy[OBJECTS_LISTED..] {
            keep[x] = false;
        }
    }
    let mut left: Option<LeftOut> = None;
    let mut listed = Vec::new();
    for (x, e) in out.execs.iter().enumerate() {
        if keep[x] {
            listed.push(ThreadUse {
                thread: e.label.clone(),
                busy: e.busy,
                idle: (predicted - e.busy).max(0.0),
                messages: e.messages,
            });
            continue;
        }
        let l = left.get_or_insert(LeftOut::default());
        l.objects += 1;
        l.busy += e.busy;
        l.messages += e.messages;
        l.without_messages += (e.messages == 0) as usize;
    }
    (listed, left)
}

/// The critical path as stretches of one thread each (at most 50, the heaviest kept).
fn steps(t: &Tree, o: &sim::Outcome) -> Vec<Step> {
    let t_label = |s: &sim::Seg| o.execs[s.exec as usize].label.clone();
    let mut out: Vec<(Step, f64)> = Vec::new();
    for s in &o.critical {
        let label = || t.node_label(s.node);
        match out.last_mut() {
            Some((st, best)) if st.thread == t_label(s) => {
                st.end = s.t1;
                st.work += s.work;
                if s.work > *best {
                    *best = s.work;
                    st.message = label();
                }
            }
            _ => out.push((
                Step {
                    thread: t_label(s),
                    message: label(),
                    start: s.t0,
                    end: s.t1,
                    work: s.work,
                },
                s.work,
            )),
        }
    }
    if out.len() > 50 {
        let mut by_work: Vec<usize> = (0..out.len()).collect();
        by_work.sort_by(|&a, &b| out[b].0.work.total_cmp(&out[a].0.work));
        let mut keep = vec![false; out.len()];
        for &i in &by_work[..50] {
            keep[i] = true;
        }
        let mut k = 0;
        out.retain(|_| {
            k += 1;
            keep[k - 1]
        });
    }
    out.into_iter().map(|(s, _)| s).collect()
}

fn waits(t: &Tree, o: &sim::Outcome) -> Vec<Wait> {
    let mut w: Vec<&sim::WaitOut> = o.waits.iter().collect();
    w.sort_by(|a, b| b.time.total_cmp(&a.time));
    w.into_iter()
        .take(5)
        .map(|x| Wait {
            thread: o.execs[x.exec as usize].label.clone(),
            waited_for: t.node_label(x.node),
            time: x.time,
        })
        .collect()
}

fn distribution(l: &Loaded, plan: &Plan, p: &Params) -> Distribution {
    let t = &l.tree;
    let (mut n, mut bytes, mut work) = (0u64, 0u64, 0.0);
    for (i, node) in t.nodes.iter().enumerate() {
        let active = node.method != tree::NONE
            && (plan.instances.contains(&node.receiver) || plan.methods.contains(&node.method));
        let parent_active = node.parent != tree::NONE && {
            let pn = &t.nodes[node.parent as usize];
            pn.receiver == node.receiver && plan.instances.contains(&pn.receiver)
        };
        if active && !parent_active {
            n += 1;
            bytes += node.size;
            work += l.agg[i];
        }
    }
    let nf = n.max(1) as f64;
    let mean_bytes = bytes as f64 / nf;
    let mean_work = work / nf;
    // A round trip: latency both ways, the arguments' transfer, two handoffs.
    let per_message = 2.0 * p.latency + 2.0 * p.handoff;
    let per_byte = p.bandwidth.map_or(0.0, |b| 1.0 / b);
    let threshold = per_message / mean_bytes.max(1.0) + per_byte;
    let granularity = mean_work / mean_bytes.max(1.0);
    Distribution {
        latency: p.latency,
        bandwidth_bytes_per_s: p.bandwidth.map(|b| b / (t.unit().micros() * 1e-6)),
        mean_message_bytes: mean_bytes,
        mean_message_work: mean_work,
        granularity,
        granularity_threshold: threshold,
        pays: granularity > threshold,
    }
}

/// A duration such as `5us`, `1.5ms`, `200ns`, `0` (nanoseconds when no unit).
pub fn parse_duration_ns(s: &str) -> Result<f64> {
    let s = s.trim();
    let split = s
        .find(|c: char| c.is_ascii_alphabetic() || c == 'µ')
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let x: f64 = num.trim().parse().map_err(|_| {
        Error::input(format!(
            "{s}: a duration is a number and a unit: 5us, 1.5ms, 200ns"
        ))
    })?;
    let f = match unit.trim() {
        "" | "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        u => {
            return Err(Error::input(format!(
                "{s}: unknown time unit `{u}` (use ns, us, ms or s)"
            )))
        }
    };
    if !(x >= 0.0 && x.is_finite()) {
        return Err(Error::input(format!("{s}: a duration cannot be negative")));
    }
    Ok(x * f)
}

/// A bandwidth in bytes per second: `1e9`, `100MB/s`, `1GB/s`, `500KB/s` (decimal units).
pub fn parse_bandwidth(s: &str) -> Result<f64> {
    let t = s.trim().trim_end_matches("/s").trim_end_matches(['B', 'b']);
    let (num, f) = match t.chars().last() {
        Some('K' | 'k') => (&t[..t.len() - 1], 1e3),
        Some('M') => (&t[..t.len() - 1], 1e6),
        Some('G') => (&t[..t.len() - 1], 1e9),
        _ => (t, 1.0),
    };
    match num.trim().parse::<f64>() {
        Ok(x) if x > 0.0 && x.is_finite() => Ok(x * f),
        _ => Err(Error::input(format!(
            "{s}: a bandwidth is bytes per second: 1e9, 100MB/s, 1GB/s"
        ))),
    }
}

/// A count for people: `950`, `12.5 k`, `10.0 M`.
pub fn count(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=999_999 => format!("{:.1} k", n as f64 / 1e3),
        _ => format!("{:.1} M", n as f64 / 1e6),
    }
}

/// A time in `unit` for people: `12.3 ms`, `450 ns`.
pub fn human(x: f64, unit: Unit) -> String {
    let ns = x * unit.micros() * 1e3;
    let (v, u) = match ns.abs() {
        n if n >= 1e9 => (ns / 1e9, "s"),
        n if n >= 1e6 => (ns / 1e6, "ms"),
        n if n >= 1e3 => (ns / 1e3, "µs"),
        _ => (ns, "ns"),
    };
    let digits = if v.abs() >= 100.0 || v == 0.0 {
        0
    } else if v.abs() >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.digits$} {u}")
}

/// Nanoseconds to the tree's unit.
pub(crate) fn ns_to(unit: Unit, ns: f64) -> f64 {
    ns * Unit::Ns.micros() / unit.micros()
}

/// How `measure_handoff_ns` gets its figure, for the output (a trace without `handoff_ns=`).
pub const HANDOFF_MEASURED: &str =
    "measured here: 10th percentile of 500 thread round trips, halved (the trace states none)";
/// A handoff from the trace header: the profiled machine's, measured by the runtime.
pub const HANDOFF_TRACE: &str = "trace header: measured by the runtime at start-up";
/// A handoff given on the command line.
pub(crate) const HANDOFF_GIVEN: &str = "given";

/// One-way handoff between two threads on this machine (mutex + condition variable
/// ping-pong), in nanoseconds: the 10th percentile of 500 round trips, halved. A low
/// percentile, not the median, because on a loaded machine the median follows the load
/// and two commands on one trace would disagree; the percentile is the wake-up itself.
pub(crate) fn measure_handoff_ns() -> f64 {
    use std::sync::{Arc, Condvar, Mutex};
    use std::time::Instant;
    const ROUNDS: usize = 500;
    let pair = Arc::new((Mutex::new(0u64), Condvar::new()));
    let other = Arc::clone(&pair);
    let echo = std::thread::spawn(move || {
        let (m, cv) = &*other;
        let mut g = m.lock().unwrap_or_else(|e| e.into_inner());
        for i in 0..ROUNDS as u64 {
            while *g != 2 * i + 1 {
                g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
            }
            *g += 1;
            cv.notify_one();
        }
    });
    let (m, cv) = &*pair;
    let mut rtt = Vec::with_capacity(ROUNDS);
    for i in 0..ROUNDS as u64 {
        let t0 = Instant::now();
        let mut g = m.lock().unwrap_or_else(|e| e.into_inner());
        *g = 2 * i + 1;
        cv.notify_one();
        while *g != 2 * i + 2 {
            g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        drop(g);
        rtt.push(t0.elapsed().as_nanos() as f64);
    }
    let _ = echo.join();
    rtt.sort_by(f64::total_cmp);
    rtt[ROUNDS / 10] / 2.0
}

/// Text summary of a prediction.
pub fn render_text(w: &WhatIf) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    render_prediction(&mut s, w);
    render_timeline(&mut s, w);
    let _ = writeln!(s, "note: {}", w.caveat);
    s
}

/// The change, the machine model and the predicted times.
fn render_prediction(s: &mut String, w: &WhatIf) {
    use std::fmt::Write;
    let u = w.unit;
    let _ = writeln!(
        s,
        "what if {} became active ({} instance(s){}), on {} core(s), handoff {} ({}), enqueue {} ({}), {} waking a blocked receiver ({}), {} behind others ({}), take {} ({}):",
        w.active.join(", "),
        w.active_instances,
        if w.active_methods.is_empty() {
            String::new()
        } else {
            format!(", methods {}", w.active_methods.join(", "))
        },
        w.cores,
        human(w.handoff, Unit::parse(u).unwrap_or(Unit::Ns)),
        w.handoff_source,
        human(w.enqueue, Unit::parse(u).unwrap_or(Unit::Ns)),
        w.enqueue_source,
        human(w.wake, Unit::parse(u).unwrap_or(Unit::Ns)),
        w.wake_source,
        human(w.post, Unit::parse(u).unwrap_or(Unit::Ns)),
        w.post_source,
        human(w.take, Unit::parse(u).unwrap_or(Unit::Ns)),
        w.take_source
    );
    let h = |x: f64| human(x, Unit::parse(u).unwrap_or(Unit::Ns));
    if let Some(c) = &w.wake_after_idle {
        let _ = writeln!(s, "  {}", c.describe(Unit::parse(u).unwrap_or(Unit::Ns)));
    }
    if let (Some(span), Some(busy), Some(n)) = (w.run_span, w.busy_time, w.threads_measured) {
        let run = RunLength {
            span,
            busy,
            instrumented: 0,
            threads: n,
        };
        let _ = writeln!(s, "  {}", run.describe(h));
        if w.baseline_time < 0.9 * span as f64 {
            let _ = writeln!(
                s,
                "  (the replay counts work on the CPU: of the measured span, {} went to waiting off it — blocked, or preempted on a busy machine — or to the probe)",
                h(span as f64 - w.baseline_time)
            );
        }
    }
    let _ = writeln!(
        s,
        "  baseline  {} (the run replayed unchanged)\n  predicted {}\n  speedup   {:.2}×",
        h(w.baseline_time),
        h(w.predicted_time),
        w.predicted_speedup
    );
    if let Some(r) = &w.handoff_range {
        let unit = Unit::parse(u).unwrap_or(Unit::Ns);
        let _ = writeln!(
            s,
            "  range     {:.2}× – {:.2}×: {}",
            r.speedup_low,
            r.speedup_high,
            r.describe(unit)
        );
    }
    let _ = writeln!(
        s,
        "  {} asynchronous and {} synchronous cross-thread message(s)",
        w.asynchronous_messages, w.synchronous_messages
    );
    if let Some(c) = &w.cost {
        let _ = writeln!(s, "  cost: {} ({} cost dominates)", c.text, c.dominant);
    }
    if let Some(f) = w.page_faults_dropped {
        let _ = writeln!(
            s,
            "  page faults: {} of the profiled run's taken off messages moved to a thread of their own",
            h(f)
        );
    }
    if let Some(d) = &w.distribution {
        let _ = writeln!(
            s,
            "  distribution: the active messages carry {:.1} bytes and {} of work on average = {:.4} {u}/byte; below {:.4} {u}/byte a message costs more to ship than it computes: {}",
            d.mean_message_bytes,
            h(d.mean_message_work),
            d.granularity,
            d.granularity_threshold,
            if d.pays {
                "these compute more than they cost to ship"
            } else {
                "these cost more to ship than they compute"
            }
        );
    }
}

/// Where the predicted time goes: threads, the critical path, waits, a deadlock.
fn render_timeline(s: &mut String, w: &WhatIf) {
    use std::fmt::Write;
    let h = |x: f64| human(x, Unit::parse(w.unit).unwrap_or(Unit::Ns));
    let _ = writeln!(s, "threads:");
    for t in &w.threads {
        let _ = writeln!(
            s,
            "  {:<32} busy {:>10}  idle {:>10}  messages {}",
            t.thread,
            h(t.busy),
            h(t.idle),
            t.messages
        );
    }
    if let Some(l) = &w.threads_left_out {
        let _ = writeln!(
            s,
            "  … and {} more active objects: busy {} in all, {} messages ({} received none)",
            l.objects,
            h(l.busy),
            l.messages,
            l.without_messages
        );
    }
    let _ = writeln!(s, "critical path:");
    for st in &w.critical_path {
        let _ = writeln!(
            s,
            "  {:>10} – {:<10} {:<28} {} of work, mostly {}",
            h(st.start),
            h(st.end),
            st.thread,
            h(st.work),
            st.message
        );
    }
    if !w.waits.is_empty() {
        let _ = writeln!(s, "largest waits:");
        for x in &w.waits {
            let _ = writeln!(
                s,
                "  {} waited {} for {}",
                x.thread,
                h(x.time),
                x.waited_for
            );
        }
    }
    if !w.deadlock.is_empty() {
        let _ = writeln!(
            s,
            "DEADLOCK: still waiting at the end: {}",
            w.deadlock.join(", ")
        );
    }
}

/// A synchronous chain for tests: `main` works `gap` ns, then asks `Lexer.next`
/// (value-returning: it waits) for a token that takes `work` ns, `n` times.
#[cfg(test)]
pub(crate) fn test_chain(n: u64, gap: u64, work: u64) -> (Loaded, Plan, tempfile::NamedTempFile) {
    use std::io::Write;
    let mut f = tempfile::Builder::new().suffix(".dtf").tempfile().unwrap();
    writeln!(f, "##### revy-trace 1 unit=ns lang=java pid=1").unwrap();
    writeln!(f, "<Msg cls=Main oid=0 mth=main sgn=!! size=8 tid=1 t=0>").unwrap();
    for i in 0..n {
        let t = gap + i * (gap + work);
        writeln!(
            f,
            "<Msg cls=Lexer oid=1 mth=next sgn=!! size=8 tid=1 t={t}>"
        )
        .unwrap();
        let end = t + work;
        writeln!(f, "</Msg cls=Lexer oid=1 mth=next sgn=!! tid=1 t={end}>").unwrap();
    }
    let end = gap + n * (gap + work);
    writeln!(f, "</Msg cls=Main oid=0 mth=main sgn=!! tid=1 t={end}>").unwrap();
    writeln!(f, "##### end events=0").unwrap();
    f.flush().unwrap();
    let l = load(&[f.path().to_path_buf()], false, None).unwrap();
    let mut plan = Plan::default();
    plan::add_pattern(&l.tree, &mut plan, "Lexer").unwrap();
    (l, plan, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(execs: &[(&str, f64, u64)]) -> sim::Outcome {
        sim::Outcome {
            time: 100.0,
            execs: execs
                .iter()
                .map(|&(l, busy, messages)| sim::ExecOut {
                    label: l.into(),
                    busy,
                    messages,
                })
                .collect(),
            critical: Vec::new(),
            waits: Vec::new(),
            async_sends: 0,
            sync_sends: 0,
            faults_dropped: 0.0,
            moved_work: 0.0,
            enqueue_time: 0.0,
            take_time: 0.0,
            wakes: 0.0,
            counted_sends: 0,
            woken_receivers: Default::default(),
            woken_callers: Default::default(),
            counted_work: 0.0,
            deadlocked: Vec::new(),
        }
    }

    /// A class of a whole run makes hundreds of thousands of active objects (yaml-cpp's
    /// `YAML::RegEx`: 273 k, 273 k lines of text and 25 MB of JSON): the busiest are listed
    /// with the program's threads and the pool, the others summed.
    #[test]
    fn many_active_objects_are_listed_busiest_first_and_the_rest_summed() {
        let mut execs = vec![("main", 90.0, 0), ("worker", 10.0, 0)];
        let labels: Vec<String> = (0..1000).map(|i| format!("A#{i}")).collect();
        for (i, l) in labels.iter().enumerate() {
            // Every third object idle; the busiest are the last ones.
            let busy = if i % 3 == 0 { 0.0 } else { i as f64 / 100.0 };
            execs.push((l.as_str(), busy, (i % 3 != 0) as u64 * 2));
        }
        execs.push(("pool worker 1", 5.0, 7));
        let out = outcome(&execs);
        let (listed, left) = thread_use(&out, 100.0, 2, 1000);
        assert_eq!(listed.len(), 2 + OBJECTS_LISTED + 1);
        assert_eq!(listed[0].thread, "main");
        assert_eq!(listed[1].thread, "worker");
        assert_eq!(listed.last().unwrap().thread, "pool worker 1");
        let objects: Vec<&str> = listed[2..2 + OBJECTS_LISTED]
            .iter()
            .map(|t| t.thread.as_str())
            .collect();
        let want: Vec<String> = (0..1000)
            .filter(|i| i % 3 != 0)
            .rev()
            .take(OBJECTS_LISTED)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .map(|i| format!("A#{i}"))
            .collect();
        assert_eq!(objects, want);
        let left = left.expect("objects left out");
        assert_eq!(left.objects, 1000 - OBJECTS_LISTED);
        assert_eq!(left.without_messages, 334);
        let all_busy: f64 = execs[2..1002].iter().map(|e| e.1).sum();
        let listed_busy: f64 = listed[2..2 + OBJECTS_LISTED].iter().map(|t| t.busy).sum();
        assert!((left.busy + listed_busy - all_busy).abs() < 1e-9);
        assert_eq!(left.messages + 2 * OBJECTS_LISTED as u64, 2 * 666);
        // Few objects: all listed, nothing summed.
        let (listed, left) = thread_use(&outcome(&execs[..12]), 100.0, 2, 10);
        assert_eq!((listed.len(), left.is_none()), (12, true));
    }
}
