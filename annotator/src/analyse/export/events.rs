//! Events (`[[events]]` of the manifest) in the exports: the steps of each event's flow,
//! which Chrome JSON and Perfetto draw as arrows from one of its calls to the next across
//! threads, and the rows of the Parquet `events` table. Times are the trace's own (not
//! compensated for the probe cost), as every export's.

use crate::analyse::events::Tracker;

/// Flow ids of events in Perfetto: above the message flows' (message order + 1).
pub const PERFETTO_FLOW_BASE: u64 = 1 << 62;

/// Where an event's flow passes: the start of one of its calls, on that call's thread.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub event: u32,
    pub tid: u64,
    pub t: u64,
    /// The flow's first step, or its last (neither: a step between).
    pub first: bool,
    pub last: bool,
    /// The event's type.
    pub kind: String,
}

/// The flow steps of every event with more than one call (among the segments the tracker
/// kept), each event's in time order.
pub fn steps(t: &Tracker) -> Vec<Step> {
    let mut segs: Vec<_> = t.segments.iter().collect();
    segs.sort_by_key(|s| (s.event, s.start, s.tid));
    let mut out = Vec::new();
    for run in segs.chunk_by(|a, b| a.event == b.event) {
        if run.len() < 2 {
            continue;
        }
        let e = &t.events[run[0].event as usize];
        let kind = &t.defs[e.def as usize].kind;
        for (i, s) in run.iter().enumerate() {
            out.push(Step {
                event: s.event,
                tid: s.tid,
                t: s.start,
                first: i == 0,
                last: i + 1 == run.len(),
                kind: kind.clone(),
            });
        }
    }
    out
}

/// One row of the Parquet `events` table.
pub struct Row<'a> {
    pub id: u32,
    pub kind: &'a str,
    pub name: &'a str,
    /// start, end, latency, work, waiting, objects, bytes, threads, segments.
    pub ints: [u64; 9],
}

/// Every event of the tracker, in start order.
pub fn rows(t: &Tracker) -> impl Iterator<Item = Row<'_>> {
    t.events.iter().enumerate().map(|(id, e)| {
        let d = &t.defs[e.def as usize];
        let latency = e.end.saturating_sub(e.start);
        Row {
            id: id as u32,
            kind: &d.kind,
            name: &d.name,
            ints: [
                e.start,
                e.end,
                latency,
                e.work,
                latency.saturating_sub(e.work),
                e.objects as u64,
                e.bytes,
                e.nthreads as u64,
                e.segments as u64,
            ],
        }
    })
}
