//! `revy estimate`: from the trace(s) of a short or partial run, predicts per method what the
//! full run will cost (trace bytes, probe time) and which `[annotate] exclude` patterns would
//! bring the trace under a budget (in the spirit of Score-P's scoring).
//!
//! What it extrapolates from: each method's calls — recorded ones plus those the runtime only
//! counted (aggregates: past `max_size`, throttled) — scaled by `scale` (the full run is
//! `scale` times the traced one: given, or the full run's duration over the traced span);
//! bytes per call = two events at the trace's own mean bytes per event (so the predicted size
//! is what recording every call would write); probe time per call = the runtime's measured
//! per-call cost the trace header states (`probe_ns=`, at most the smallest net time of a
//! recorded call, as the analysis takes it), else the benches' for the trace's language
//! (or `probe_ns`).

use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::analyse::probe::{Calibration, Compensation};
use crate::analyse::run::{RunClock, RunLength};
use crate::analyse::trace::{Event, Names, TraceReader};
use crate::analyse::walk::{walk_trace_by, Walker};
use crate::error::{Error, Result};

/// Per-call probe cost measured by tests/bench (two clock reads + buffer writes), in ns.
pub(crate) const JAVA_PROBE_NS: f64 = 55.0;
pub(crate) const CPP_PROBE_NS: f64 = 25.0;

#[derive(Debug, Clone)]
pub struct Options {
    /// The full run is this many times the traced one (None: see `full_secs`, else 1).
    pub scale: Option<f64>,
    /// Or: the full run's duration in seconds; scale = this / traced span.
    pub full_secs: Option<f64>,
    /// The trace size the full run must stay under.
    pub budget: Option<u64>,
    /// Per-call probe cost override, ns.
    pub probe_ns: Option<f64>,
    /// The throttle rule (TAU's): more calls than this in the full run ...
    pub throttle_calls: u64,
    /// ... averaging less than this many microseconds.
    pub throttle_us: f64,
    /// The manifest's `[annotate] exclude` patterns, and the `line:col` of that key (empty
    /// when it has none), so the budget's advice is one line to paste.
    pub manifest_exclude: (Vec<String>, String),
}

impl Default for Options {
    fn default() -> Self {
        Options {
            scale: None,
            full_secs: None,
            budget: None,
            probe_ns: None,
            throttle_calls: 100_000,
            throttle_us: 10.0,
            manifest_exclude: (Vec::new(), String::new()),
        }
    }
}

/// One method (all overloads: `exclude` patterns cannot tell them apart).
#[derive(Debug, Clone, Serialize)]
pub struct MethodCost {
    /// `Class.method` (Java) or `Class::method` (C++): usable as an exclude pattern.
    pub pattern: String,
    pub recorded_calls: u64,
    /// Calls the runtime counted without recording them (past `max_size`, throttled).
    pub aggregated_calls: u64,
    pub predicted_calls: f64,
    /// Mean inclusive time per recorded call, µs (completed calls only).
    pub mean_us: f64,
    pub predicted_bytes: f64,
    pub predicted_probe_secs: f64,
    /// Probe time over the method's own inclusive time.
    pub probe_share: f64,
    /// Matches the throttle rule in the full run.
    pub throttle: bool,
    /// The traced run's runtime throttled it (on some thread).
    pub throttled: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Estimate {
    pub traces: Vec<PathBuf>,
    pub recorded_events: u64,
    /// Calls counted in the traces' aggregates instead of as events.
    pub aggregated_calls: u64,
    pub recorded_bytes: u64,
    /// The traces' run lengths summed (each trace's wall span; see `runs`).
    pub traced_secs: f64,
    /// Each trace's run length and busy time, as `revy analyze` gives them.
    pub runs: Vec<TracedRun>,
    pub truncated: bool,
    pub scale: f64,
    /// How `scale` was chosen, in words.
    pub basis: String,
    pub bytes_per_event: f64,
    pub probe_ns: f64,
    pub predicted_bytes: f64,
    pub predicted_probe_secs: f64,
    /// Sorted by predicted bytes, largest first.
    pub methods: Vec<MethodCost>,
    pub budget: Option<u64>,
    /// Patterns to exclude (largest first) so the prediction fits the budget.
    pub exclude: Vec<String>,
    /// The prediction with `exclude` applied.
    pub predicted_bytes_after: f64,
    /// The throttle rule applied (`[trace] throttle_calls` / `throttle_us`).
    pub throttle_calls: u64,
    pub throttle_us: f64,
    /// The manifest's exclude patterns and where the key is (see [`Options`]).
    #[serde(skip)]
    pub manifest_exclude: (Vec<String>, String),
}

/// One trace's run length (`analyse::run`), in its unit.
#[derive(Debug, Clone, Serialize)]
pub struct TracedRun {
    pub trace: PathBuf,
    pub unit: &'static str,
    pub run_span: u64,
    pub busy_time: u64,
    pub threads: usize,
}

/// What one pass over the traces gathers per method id (per trace).
#[derive(Default, Clone, Copy)]
struct Tally {
    calls: u64,
    done: u64,
    inclusive: u64,
    aggregated: u64,
    throttled: bool,
}

/// Per pattern, summed over overloads and traces.
#[derive(Default, Clone, Copy)]
struct PatternTally {
    /// Recorded calls.
    calls: u64,
    /// Completed calls (recorded and aggregated) and their inclusive time in µs.
    done: u64,
    incl_us: f64,
    aggregated: u64,
    throttled: bool,
}

#[derive(Default)]
struct Gathered {
    by_pattern: FxHashMap<String, PatternTally>,
    events: u64,
    aggregated: u64,
    bytes: u64,
    span_secs: f64,
    runs: Vec<TracedRun>,
    truncated: bool,
    cpp: bool,
    /// The headers' probe cost, capped at the smallest net time of a recorded call (ns),
    /// the smallest over the traces.
    probe_ns: Option<f64>,
}

/// Adds the calls the runtime counted instead of recording: each is a completed call with
/// its aggregate time (rows with no calls are net-time corrections, not calls).
fn add_aggregates(tally: &mut Vec<Tally>, a: &crate::analyse::trace::agg::Aggregates) {
    fn at(tally: &mut Vec<Tally>, m: u32) -> &mut Tally {
        let i = m as usize;
        if tally.len() <= i {
            tally.resize(i + 1, Tally::default());
        }
        &mut tally[i]
    }
    for m in a.methods.iter().filter(|m| m.calls > 0) {
        let t = at(tally, m.method);
        t.aggregated += m.calls;
        t.done += m.calls;
        t.inclusive += m.agg;
    }
    for x in &a.throttled {
        at(tally, x.method).throttled = true;
    }
}

/// One trace's run length and probe cost as `revy analyze` finds them: a walk that keeps
/// no instances, the header's probe cost capped at the smallest net time.
fn run_length(
    path: &Path,
    header: Option<f64>,
    unit: crate::analyse::trace::Unit,
) -> Result<(RunLength, Calibration)> {
    let units = |ns: f64| crate::analyse::probe::probe_units(ns, unit);
    let share = crate::analyse::probe::header_inside_share(path)?;
    let mut clock = RunClock::new(crate::analyse::probe::Probe::split(
        header.map_or(0, units),
        share,
    ));
    let (_, walker) = walk_trace_by(path, Walker::numbering(), &mut clock, &mut |_, _| {})?;
    let cal = Calibration::resolve(Compensation::Header, header, share, clock.floor(), unit);
    Ok((clock.length(&walker, cal.probe(unit)), cal))
}

/// Reads every trace once (memory grows with methods, threads and stack depth only).
fn gather(paths: &[PathBuf]) -> Result<Gathered> {
    let mut g = Gathered::default();
    for path in paths {
        let mut r = TraceReader::open(path)?;
        let mut tally = tally_events(&mut r, &mut g.events)?;
        add_aggregates(&mut tally, &r.status().aggregates);
        let unit = r.header().unit;
        let header = r
            .header()
            .get("probe_ns")
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|p| p.is_finite() && *p > 0.0);
        let (run, cal) = run_length(path, header, unit)?;
        if cal.used_ns > 0.0 {
            g.probe_ns = Some(g.probe_ns.map_or(cal.used_ns, |p: f64| p.min(cal.used_ns)));
        }
        g.cpp |= r
            .header()
            .fields
            .iter()
            .any(|(k, v)| k == "lang" && v.eq_ignore_ascii_case("cpp"));
        add_patterns(&mut g, r.names(), &tally, unit.micros());
        g.span_secs += run.span as f64 * unit.micros() * 1e-6;
        g.runs.push(TracedRun {
            trace: path.clone(),
            unit: unit.as_str(),
            run_span: run.span,
            busy_time: run.busy,
            threads: run.threads,
        });
        g.truncated |= r.status().truncated_at_size.is_some();
        g.bytes += std::fs::metadata(path)
            .map_err(|e| Error::io(path, e))?
            .len();
        for w in &r.status().warnings {
            if w.contains("truncat") {
                g.truncated = true;
            }
        }
    }
    Ok(g)
}

/// One trace's recorded calls per method id, counting its events into `events`.
fn tally_events(r: &mut TraceReader, events: &mut u64) -> Result<Vec<Tally>> {
    let mut tally: Vec<Tally> = Vec::new();
    // Per thread: open calls as (method, start).
    let mut stacks: FxHashMap<u64, Vec<(u32, u64)>> = FxHashMap::default();
    while let Some(ev) = r.next_event()? {
        *events += 1;
        match ev {
            Event::Start { tid, method, t, .. } => {
                let i = method as usize;
                if tally.len() <= i {
                    tally.resize(i + 1, Tally::default());
                }
                tally[i].calls += 1;
                stacks.entry(tid).or_default().push((method, t));
            }
            Event::End { tid, method, t, .. } => {
                let s = stacks.entry(tid).or_default();
                // Pop to the matching start (an unmatched end is skipped).
                if let Some(at) = s.iter().rposition(|&(m, _)| m == method) {
                    let (_, t0) = s[at];
                    s.truncate(at);
                    let incl = t.saturating_sub(t0);
                    let c = &mut tally[method as usize];
                    c.done += 1;
                    c.inclusive += incl;
                }
            }
            _ => {}
        }
    }
    Ok(tally)
}

/// Adds one trace's tallies to their patterns (`Class.method`, or `Class::method` once any
/// trace is C++).
fn add_patterns(g: &mut Gathered, names: &Names, tally: &[Tally], unit_us: f64) {
    let sep = if g.cpp { "::" } else { "." };
    for (id, c) in tally.iter().enumerate() {
        if c.calls == 0 && c.aggregated == 0 {
            continue;
        }
        let pattern = match names.method(id as u32) {
            Some(m) if !m.name.is_empty() => format!("{}{sep}{}", names.class(m.class), m.name),
            _ => format!("method#{id}"),
        };
        let e = g.by_pattern.entry(pattern).or_default();
        e.calls += c.calls;
        e.done += c.done;
        e.incl_us += c.inclusive as f64 * unit_us;
        e.aggregated += c.aggregated;
        e.throttled |= c.throttled;
        g.aggregated += c.aggregated;
    }
}

fn choose_scale(opts: &Options, g: &Gathered) -> Result<(f64, String)> {
    if let Some(s) = opts.scale {
        if !(s.is_finite() && s > 0.0) {
            return Err(Error::input(
                "--scale must be a positive number (e.g. 12.5)",
            ));
        }
        return Ok((
            s,
            format!("--scale {s}: the full run is {s}× the traced one"),
        ));
    }
    if let Some(full) = opts.full_secs {
        if g.span_secs <= 0.0 {
            return Err(Error::input(
                "--full-secs needs a trace with timed events; pass --scale instead",
            ));
        }
        let s = full / g.span_secs;
        return Ok((
            s,
            format!(
                "--full-secs {full:.1} over the traced span {:.2}s = ×{s:.2}",
                g.span_secs
            ),
        ));
    }
    let mut b =
        "×1: the traced run is taken as the full run (pass --scale or --full-secs)".to_string();
    if g.truncated {
        b.push_str("; the trace is truncated, so this is a lower bound");
    }
    Ok((1.0, b))
}

/// Estimates the full run's cost from `paths`.
pub fn estimate(paths: &[PathBuf], opts: &Options) -> Result<Estimate> {
    if paths.is_empty() {
        return Err(Error::input("revy estimate needs at least one trace"));
    }
    let g = gather(paths)?;
    if g.events == 0 {
        return Err(Error::input(format!(
            "{}: the trace holds no events to extrapolate from",
            paths[0].display()
        )));
    }
    let (scale, basis) = choose_scale(opts, &g)?;
    let bytes_per_event = g.bytes as f64 / g.events as f64;
    let probe_ns =
        opts.probe_ns
            .or(g.probe_ns)
            .unwrap_or(if g.cpp { CPP_PROBE_NS } else { JAVA_PROBE_NS });
    let per_call = PerCall {
        scale,
        bytes_per_event,
        probe_ns,
        opts,
    };
    let mut methods: Vec<MethodCost> = g
        .by_pattern
        .into_iter()
        .map(|(pattern, p)| per_call.method_cost(pattern, &p))
        .collect();
    methods.sort_by(|a, b| {
        b.predicted_bytes
            .total_cmp(&a.predicted_bytes)
            .then_with(|| a.pattern.cmp(&b.pattern))
    });
    // Everything the trace holds beyond method events (creations, names) scales too; calls
    // only counted would each have written two events.
    let predicted_bytes = (g.bytes as f64 + g.aggregated as f64 * 2.0 * bytes_per_event) * scale;
    let predicted_probe_secs = methods.iter().map(|m| m.predicted_probe_secs).sum();
    let (exclude, after) = fit_budget(&methods, predicted_bytes, opts.budget);
    Ok(Estimate {
        traces: paths.to_vec(),
        recorded_events: g.events,
        aggregated_calls: g.aggregated,
        recorded_bytes: g.bytes,
        traced_secs: g.span_secs,
        runs: g.runs.clone(),
        truncated: g.truncated,
        scale,
        basis,
        bytes_per_event,
        probe_ns,
        predicted_bytes,
        predicted_probe_secs,
        methods,
        budget: opts.budget,
        exclude,
        predicted_bytes_after: after,
        throttle_calls: opts.throttle_calls,
        throttle_us: opts.throttle_us,
        manifest_exclude: opts.manifest_exclude.clone(),
    })
}

/// What each call is taken to cost in the full run.
struct PerCall<'a> {
    scale: f64,
    bytes_per_event: f64,
    probe_ns: f64,
    opts: &'a Options,
}

impl PerCall<'_> {
    /// One pattern's predicted cost from what the traces recorded of it.
    fn method_cost(&self, pattern: String, p: &PatternTally) -> MethodCost {
        let (scale, probe_ns, opts) = (self.scale, self.probe_ns, self.opts);
        let (calls, done, incl_us) = (p.calls, p.done, p.incl_us);
        let predicted_calls = (calls + p.aggregated) as f64 * scale;
        let mean_us = if done > 0 { incl_us / done as f64 } else { 0.0 };
        let probe_secs = predicted_calls * probe_ns * 1e-9;
        MethodCost {
            pattern,
            recorded_calls: calls,
            aggregated_calls: p.aggregated,
            predicted_calls,
            mean_us,
            predicted_bytes: predicted_calls * 2.0 * self.bytes_per_event,
            predicted_probe_secs: probe_secs,
            probe_share: if mean_us > 0.0 {
                probe_ns * 1e-3 / mean_us
            } else {
                0.0
            },
            throttle: predicted_calls > opts.throttle_calls as f64 && mean_us < opts.throttle_us,
            throttled: p.throttled,
        }
    }
}

/// Greedy: drop the methods that cost the most bytes until the rest fits.
fn fit_budget(methods: &[MethodCost], total: f64, budget: Option<u64>) -> (Vec<String>, f64) {
    let Some(budget) = budget else {
        return (Vec::new(), total);
    };
    let mut left = total;
    let mut out = Vec::new();
    for m in methods {
        if left <= budget as f64 {
            break;
        }
        left -= m.predicted_bytes;
        out.push(m.pattern.clone());
    }
    (out, left.max(0.0))
}

fn human(bytes: f64) -> String {
    const U: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < U.len() {
        v /= 1024.0;
        i += 1;
    }
    format!("{v:.1} {}", U[i])
}

/// The text summary: basis, totals, the top methods, and the manifest lines to paste.
pub fn render(e: &Estimate, top: usize) -> String {
    let mut s = String::new();
    render_basis(&mut s, e);
    render_methods(&mut s, e, top);
    render_throttle(&mut s, e);
    render_budget(&mut s, e);
    s
}

/// What was recorded and how the full run is extrapolated from it.
fn render_basis(s: &mut String, e: &Estimate) {
    use std::fmt::Write;
    let _ = writeln!(
        s,
        "recorded: {} events, {} in {} trace(s), {:.2}s traced{}",
        e.recorded_events,
        human(e.recorded_bytes as f64),
        e.traces.len(),
        e.traced_secs,
        if e.truncated { " (truncated)" } else { "" }
    );
    for r in &e.runs {
        let run = RunLength {
            span: r.run_span,
            busy: r.busy_time,
            instrumented: 0,
            threads: r.threads,
        };
        let unit =
            crate::analyse::trace::Unit::parse(r.unit).unwrap_or(crate::analyse::trace::Unit::Ns);
        let _ = writeln!(
            s,
            "  {}: {}",
            r.trace.display(),
            run.describe(|x| crate::analyse::whatif::human(x, unit))
        );
    }
    if e.aggregated_calls > 0 {
        let _ = writeln!(
            s,
            "counted, not recorded (past max_size or throttled): {} calls, included below",
            e.aggregated_calls
        );
    }
    let _ = writeln!(s, "extrapolated {}", e.basis);
    let _ = writeln!(
        s,
        "per call: {:.1} bytes per event × 2 events, {:.0} ns probe",
        e.bytes_per_event, e.probe_ns
    );
    let _ = writeln!(
        s,
        "full run: trace {}, probe time {:.2}s\n",
        human(e.predicted_bytes),
        e.predicted_probe_secs
    );
}

/// The table of the `top` costliest methods.
fn render_methods(s: &mut String, e: &Estimate, top: usize) {
    use std::fmt::Write;
    let _ = writeln!(
        s,
        "{:>12} {:>10} {:>10} {:>9} {:>6}  method",
        "calls", "trace", "probe s", "mean µs", "probe%"
    );
    for m in e.methods.iter().take(top) {
        let _ = writeln!(
            s,
            "{:>12.0} {:>10} {:>10.3} {:>9.2} {:>5.0}%  {}{}",
            m.predicted_calls,
            human(m.predicted_bytes),
            m.predicted_probe_secs,
            m.mean_us,
            m.probe_share * 100.0,
            m.pattern,
            match (m.throttle, m.throttled) {
                (_, true) => "  [throttled in the trace]",
                (true, false) => "  [throttle rule]",
                _ => "",
            }
        );
    }
}

/// The methods the throttle rule would stop recording, and the settings that do it.
fn render_throttle(s: &mut String, e: &Estimate) {
    use std::fmt::Write;
    let throttled: Vec<&str> = e
        .methods
        .iter()
        .filter(|m| m.throttle)
        .map(|m| m.pattern.as_str())
        .collect();
    if !throttled.is_empty() {
        let _ = writeln!(
            s,
            "\n{} method(s) match the throttle rule (many calls, short on average): {}{}\n\
             with `[trace] throttle_calls = {}` and `throttle_us = {}` (throttle = true, the \
             default) the runtime records their first calls per thread and counts the rest \
             as aggregates: statistics stay complete, the trace small",
            throttled.len(),
            list(&throttled[..throttled.len().min(10)]),
            if throttled.len() > 10 {
                " … (all in --format json)"
            } else {
                ""
            },
            e.throttle_calls,
            e.throttle_us
        );
    }
}

/// The `[annotate] exclude` line that brings the trace under `--budget`.
fn render_budget(s: &mut String, e: &Estimate) {
    use std::fmt::Write;
    if let Some(b) = e.budget {
        if e.exclude.is_empty() {
            let _ = writeln!(s, "\nfits the budget of {} as it is", human(b as f64));
        } else {
            let at = &e.manifest_exclude.1;
            let all = advised_exclude(e);
            let all: Vec<&str> = all.iter().map(String::as_str).collect();
            let place = if at.is_empty() {
                "add this line under [annotate] in revy.toml (and the [annotate] line if it has none)".to_string()
            } else {
                format!("replace the exclude line at {at} with")
            };
            let _ = writeln!(
                s,
                "\nto stay under {} (predicted {} after), {place}:\nexclude = {}",
                human(b as f64),
                human(e.predicted_bytes_after),
                list(&all)
            );
            let _ = writeln!(s, "(or pass --write to put it into the manifest)");
            if e.predicted_bytes_after > b as f64 {
                let _ = writeln!(
                    s,
                    "(not enough: creations and names alone are predicted at {}; lower --scale or raise --budget)",
                    human(e.predicted_bytes_after)
                );
            }
        }
    }
}

/// The `[annotate] exclude` patterns the budget advice ends with: the manifest's own first,
/// then the new ones (empty when the trace fits).
pub fn advised_exclude(e: &Estimate) -> Vec<String> {
    if e.exclude.is_empty() {
        return Vec::new();
    }
    let had = &e.manifest_exclude.0;
    let new = e.exclude.iter().filter(|x| !had.contains(x));
    had.iter().chain(new).cloned().collect()
}

fn list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|x| format!("{x:?}")).collect();
    format!("[{}]", quoted.join(", "))
}

/// The traces named on the command line: files as they are, folders (and path lists) by
/// their members, as every trace-taking command reads them (`trace::multi::set_members`).
pub fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        match crate::analyse::trace::multi::set_members(p)? {
            Some(files) => out.extend(files),
            None => out.push(p.clone()),
        }
    }
    Ok(out)
}

/// `--budget`: bytes or a size like `512MiB` / `1GiB`.
pub fn parse_budget(text: &str) -> Result<u64> {
    crate::instrument::manifest::parse_size(&toml::Value::String(text.to_string())).ok_or_else(
        || {
            Error::input(format!(
                "--budget {text:?}: give bytes or a size like \"512MiB\" / \"1GiB\""
            ))
        },
    )
}
