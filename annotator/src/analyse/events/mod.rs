//! Events (`[[events]]` of the manifest): per user action or client request, the work it
//! caused on every thread it reached, from the trace alone. [`track`] follows them during
//! the analysis's walk; this file turns the tracker into per-type results.

pub mod align;
mod order;
mod record;
pub mod remote;
pub mod render;
mod stats;
#[cfg(test)]
pub(crate) mod tests;
pub mod track;

use serde::ser::SerializeSeq;
use serde::{Serialize, Serializer};

use crate::analyse::trace::Names;
use crate::instrument::events::EventDef;
use record::EventRec;
pub use track::{Tracked, Tracker};

/// Slowest instances listed per event type.
const SLOWEST: usize = 5;

/// A distribution's summary, in trace units (nearest-rank percentiles).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Dist {
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub max: u64,
    pub mean: f64,
    pub total: u64,
}

impl Dist {
    fn of(mut v: Vec<u64>) -> Dist {
        if v.is_empty() {
            return Dist::default();
        }
        let n = v.len();
        let rank = |p: f64| ((p * n as f64).ceil() as usize).clamp(1, n) - 1;
        let total: u64 = v.iter().sum();
        let max = v.iter().copied().max().unwrap_or(0);
        // Three selections, each within the part below the one before, instead of a sort
        // (65,536 values per distribution: the sort was 5 % of an unoptimised analysis).
        let mut prev: Option<(usize, u64)> = None;
        let mut at = |i: usize| {
            let x = match prev {
                Some((j, x)) if j == i => x,
                Some((j, _)) => *v[..j].select_nth_unstable(i).1,
                None => *v.select_nth_unstable(i).1,
            };
            prev = Some((i, x));
            x
        };
        let (p99, p90, p50) = (at(rank(0.99)), at(rank(0.90)), at(rank(0.50)));
        Dist {
            p50,
            p90,
            p99,
            max,
            mean: total as f64 / n as f64,
            total,
        }
    }
}

/// One call that carried an event on one thread.
#[derive(Debug, Clone, Serialize)]
pub struct SegmentRow {
    pub tid: u64,
    /// The process it ran in, when the trace is a set of several processes' traces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process: Option<u64>,
    pub method: String,
    pub start: u64,
    pub end: u64,
}

/// One event.
#[derive(Debug, Clone, Serialize)]
pub struct EventRow {
    /// Its number, in the order events started.
    pub id: u32,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub start: u64,
    pub end: u64,
    /// First segment's start to last segment's end.
    pub latency: u64,
    /// On-CPU time of its segments on every thread.
    pub work: u64,
    /// `latency − work`: time spent queued, blocked or preempted (at least 0).
    pub waiting: u64,
    /// Objects created during it, and their bytes.
    pub objects: u32,
    pub bytes: u64,
    pub threads: u32,
    pub segments: u32,
    /// Its calls, thread by thread in time order (slowest instances only; empty when its
    /// segments were past the kept ones).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<SegmentRow>,
}

/// Everything one event type (`type` of the definitions) did.
#[derive(Debug, Clone, Serialize)]
pub struct TypeStats {
    #[serde(rename = "type")]
    pub kind: String,
    pub count: u64,
    pub latency: Dist,
    pub work: Dist,
    pub waiting: Dist,
    pub objects: u64,
    pub bytes: u64,
    /// Distinct threads its events ran on.
    pub threads: usize,
    /// Its work against all recorded work of the run.
    pub work_share: f64,
    pub slowest: Vec<EventRow>,
}

/// Work no event claimed.
#[derive(Debug, Clone, Serialize)]
pub struct Background {
    pub work: u64,
    pub share: f64,
}

/// The definitions as the results name them.
#[derive(Debug, Clone, Serialize)]
pub struct DefInfo {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub methods: Vec<String>,
    pub at: String,
}

/// The per-event results of `revy analyze` (JSON `events`).
#[derive(Debug, Clone, Serialize)]
pub struct Events {
    pub definitions: Vec<DefInfo>,
    pub types: Vec<TypeStats>,
    /// On-CPU time of every recorded message of the run (the shares' base).
    pub total_work: u64,
    /// Work done outside every event.
    pub background: Background,
    /// Every event in start order, up to the analysis's `detail_cap`.
    pub instances: Instances,
    pub instances_complete: bool,
    /// Segments past the kept ones (their events show no timeline).
    pub segments_dropped: u64,
    /// Records applied out of time order: their thread's block came more than the
    /// reordering window after later records (0: the rules saw the run in time order).
    pub late_records: u64,
    /// Most records that waited for their turn at once (the tracker's memory).
    pub peak_waiting: usize,
    /// `[[remote]]`: per definition, its calls and how their time splits.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub remote: Vec<remote::RemoteStats>,
    /// The first remote calls (up to `--detail-cap`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub remote_calls: Vec<remote::CallRow>,
    /// Server keys no client call had opened.
    #[serde(skip_serializing_if = "is_zero")]
    pub remote_unmatched: u64,
    /// Per server process of a trace set: its clock against its clients', from the keys.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub remote_clocks: Vec<align::ClockSkew>,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

/// The events listed in the JSON, 48 bytes each, each made a row (with its definition's
/// name and type) only as it is written or read.
#[derive(Debug, Clone, Default)]
pub struct Instances {
    /// Per definition: (name, type).
    labels: Vec<(String, String)>,
    recs: Vec<Listed>,
}

/// What the list keeps of an event.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Listed {
    start: u64,
    end: u64,
    work: u64,
    bytes: u64,
    objects: u32,
    segments: u32,
    def: u16,
    threads: u8,
}

impl From<&EventRec> for Listed {
    fn from(e: &EventRec) -> Self {
        Listed {
            start: e.start,
            end: e.end,
            work: e.work,
            bytes: e.bytes,
            objects: e.objects,
            segments: e.segments,
            def: e.def,
            threads: e.nthreads,
        }
    }
}

impl Instances {
    pub fn len(&self) -> usize {
        self.recs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.recs.is_empty()
    }
    /// The rows, in start order.
    pub fn iter(&self) -> impl Iterator<Item = EventRow> + '_ {
        (self.recs.iter().enumerate()).map(|(i, e)| row_of(&self.labels, i as u32, *e))
    }
}

impl Serialize for Instances {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.recs.len()))?;
        for r in self.iter() {
            seq.serialize_element(&r)?;
        }
        seq.end()
    }
}

fn row_of(labels: &[(String, String)], id: u32, e: Listed) -> EventRow {
    let latency = e.end.saturating_sub(e.start);
    let (name, kind) = labels.get(e.def as usize).cloned().unwrap_or_default();
    EventRow {
        id,
        name,
        kind,
        start: e.start,
        end: e.end,
        latency,
        work: e.work,
        waiting: latency.saturating_sub(e.work),
        objects: e.objects,
        bytes: e.bytes,
        threads: e.threads as u32,
        segments: e.segments,
        timeline: Vec::new(),
    }
}

fn method_label(names: &Names, m: u32) -> String {
    names.method(m).map_or_else(
        || "?".into(),
        |d| format!("{}.{}", names.class(d.class), d.name),
    )
}

/// The per-type results from a tracker after the walk ([`Tracker::finish`]): what it
/// folded (a retiring tracker during the walk), the first `cap` events listed in 48 bytes
/// each, the slowest with their paths.
pub fn results(mut t: Tracker, names: &Names, cap: usize) -> Events {
    let folded = t.take_folded(cap);
    let total_work = t.total_work;
    let share = |x: u64| {
        if total_work == 0 {
            0.0
        } else {
            x as f64 / total_work as f64
        }
    };
    let mut types = Vec::new();
    let mut event_work = 0u64;
    for (kind, acc) in folded.kinds.iter().zip(&folded.accs) {
        let work = acc.work.dist();
        event_work += work.total;
        types.push(TypeStats {
            kind: kind.clone(),
            count: acc.count,
            latency: acc.latency.dist(),
            work_share: share(work.total),
            work,
            waiting: acc.waiting.dist(),
            objects: acc.objects,
            bytes: acc.bytes,
            threads: acc.threads.len(),
            slowest: (acc.slowest.iter())
                .map(|s| timeline(&t.defs, names, s))
                .collect(),
        });
    }
    let background = t.total_work.saturating_sub(event_work);
    let (remote, remote_calls) = remote::results(&t.remote, cap);
    let instances_complete = folded.count as usize <= cap;
    let (late_records, peak_waiting) = t.order_stats();
    let recs = folded.listed.into_iter().take(cap).collect();
    let labels = (t.defs.iter()).map(|d| (d.name.clone(), d.kind.clone()));
    Events {
        definitions: (t.defs.iter())
            .map(|d| DefInfo {
                name: d.name.clone(),
                kind: d.kind.clone(),
                methods: d.starts.iter().map(|p| p.text.clone()).collect(),
                at: d.at.clone(),
            })
            .collect(),
        types,
        total_work: t.total_work,
        background: Background {
            work: background,
            share: share(background),
        },
        instances: Instances {
            labels: labels.collect(),
            recs,
        },
        instances_complete,
        segments_dropped: t.segments_dropped,
        late_records,
        peak_waiting,
        remote,
        remote_calls,
        remote_unmatched: t.remote.unmatched_server,
        remote_clocks: t.remote.skews.clone(),
    }
}

/// A slowest event with its segments (those kept), in time order.
fn timeline(defs: &[EventDef], names: &Names, s: &stats::Slow) -> EventRow {
    let d = &defs[s.rec.def as usize];
    let mut r = row_of(&[], s.id, (&s.rec).into());
    (r.name, r.kind) = (d.name.clone(), d.kind.clone());
    let mut segs: Vec<SegmentRow> = (s.segments.iter())
        .map(|s| SegmentRow {
            tid: s.tid,
            process: names.process_of(s.tid),
            method: method_label(names, s.method),
            start: s.start,
            end: s.end,
        })
        .collect();
    segs.sort_by_key(|s| s.start);
    r.timeline = segs;
    r
}
