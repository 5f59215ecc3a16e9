//! The events section of `revy analyze`'s text summary.

use std::fmt::Write;

use super::{Dist, Events};
use crate::analyse::trace::Unit;
use crate::analyse::whatif::human;

fn h(x: u64, unit: Unit) -> String {
    human(x as f64, unit)
}

fn dist(d: &Dist, unit: Unit) -> String {
    format!(
        "p50 {} p90 {} p99 {} max {}",
        h(d.p50, unit),
        h(d.p90, unit),
        h(d.p99, unit),
        h(d.max, unit)
    )
}

/// Per event type: count, latency and work distributions, waiting, objects, threads and
/// share; its slowest instances with their path across threads; then the background.
pub fn text(s: &mut String, e: &Events, unit: Unit) {
    let _ = writeln!(
        s,
        "\nEvents ({} definition(s); latency = first call's start to last call's end, work = on-CPU time on every thread)",
        e.definitions.len()
    );
    for t in &e.types {
        let _ = writeln!(
            s,
            "  {}: {} event(s), {:.1}% of the run's work, {} thread(s), {} object(s) created ({} bytes)",
            t.kind,
            t.count,
            t.work_share * 100.0,
            t.threads,
            t.objects,
            t.bytes
        );
        if t.count == 0 {
            continue;
        }
        let _ = writeln!(s, "    latency  {}", dist(&t.latency, unit));
        let _ = writeln!(s, "    work     {}", dist(&t.work, unit));
        let _ = writeln!(s, "    waiting  {}", dist(&t.waiting, unit));
        let _ = writeln!(s, "    slowest:");
        for r in &t.slowest {
            let _ = writeln!(
                s,
                "      #{} latency {} work {} waiting {} on {} thread(s), {} call(s)",
                r.id,
                h(r.latency, unit),
                h(r.work, unit),
                h(r.waiting, unit),
                r.threads,
                r.segments
            );
            for g in &r.timeline {
                let at = g
                    .process
                    .map_or(String::new(), |p| format!(" in process {p}"));
                let _ = writeln!(
                    s,
                    "        +{:<10} thread {:<6} {} ({}){at}",
                    h(g.start.saturating_sub(r.start), unit),
                    crate::analyse::trace::multi::local(g.tid),
                    g.method,
                    h(g.end.saturating_sub(g.start), unit)
                );
            }
        }
    }
    let _ = writeln!(
        s,
        "  background (no event): work {}, {:.1}% of the run's work",
        h(e.background.work, unit),
        e.background.share * 100.0
    );
    for r in &e.remote {
        let _ = writeln!(
            s,
            "  remote {} ({} -> {}): {} call(s), {} linked to the server's handling",
            r.name, r.client, r.server, r.calls, r.linked
        );
        if r.linked > 0 {
            let _ = writeln!(s, "    client call     {}", dist(&r.client_wall, unit));
            let _ = writeln!(s, "    server work     {}", dist(&r.server_work, unit));
            let _ = writeln!(s, "    server waiting  {}", dist(&r.server_waiting, unit));
            let _ = writeln!(s, "    transport       {}", dist(&r.transport, unit));
        }
    }
    if e.remote_unmatched > 0 {
        let _ = writeln!(
            s,
            "  note: {} server call(s) had no client call with their key (is the client's trace in the set?)",
            e.remote_unmatched
        );
    }
    if e.late_records > 0 {
        let _ = writeln!(
            s,
            "  note: {} record(s) came more than {} records after later ones (a thread's block written long after its time) and were applied out of time order: events that crossed threads then may be split or missed",
            e.late_records,
            super::order::WINDOW
        );
    }
}
