//! The report's events view (`[[events]]`): the analysis's walk also feeds the event
//! tracker, and the page's `events.js` draws the per-type table and the slowest event's
//! path across threads from the analysis's `events` (the same figures `revy analyze` prints).

use std::path::Path;

use crate::analyse::analysis::Options;
use crate::analyse::events::{results, Events, Tracked, Tracker};
use crate::analyse::probe::Probe;
use crate::analyse::trace::TraceReader;
use crate::analyse::walk::{walk_trace, Sink, Walker};
use crate::error::Result;

/// The view's script, injected after the page's own.
pub(crate) const JS: &str = include_str!("events.js");

/// Walks `trace` into `sink`, following the manifest's events when there are any. `before`:
/// the tracker of a walk of the same trace (its clocks lined up), when this one is run again.
pub(crate) fn walk(
    trace: &Path,
    opts: &Options,
    probe: Probe,
    sink: &mut impl Sink,
    before: Option<&Tracker>,
) -> Result<(TraceReader, Walker, Option<Tracker>)> {
    if opts.events.is_empty() && opts.remote.is_empty() {
        let (reader, walker) = walk_trace(trace, sink)?;
        return Ok((reader, walker, None));
    }
    let mut t = match before {
        Some(b) => b.again(probe),
        None => Tracker::new(&opts.events, probe)
            .with_remote(&opts.remote, trace)?
            .retiring(opts.detail_cap),
    };
    let (reader, walker) = walk_trace(trace, &mut Tracked::new(sink, &mut t))?;
    t.finish(reader.names());
    Ok((reader, walker, Some(t)))
}

/// The per-event results of a walk's tracker.
pub(crate) fn of(t: Option<Tracker>, reader: &TraceReader, opts: &Options) -> Option<Events> {
    t.map(|t| results(t, reader.names(), opts.detail_cap))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::events::tests::{accept_defs, trace_file};

    /// Fails before: the tracker took the whole pair off per message of an event's calls
    /// (30 × 11 here), not the split the analysis takes (10 inside each, 20 outside per
    /// nested one: 10 × 11 + 20 × 10).
    #[test]
    fn an_events_work_is_compensated_by_the_split_probe() {
        let mut s = String::from("##### revy-trace 1 unit=ns\n##### thread tid=1 name=t1\n");
        s += "<Msg cls=A oid=1 mth=accept sgn=!! size=0 tid=1 t=0>\n";
        for c in 0..10 {
            let t = 100 + c * 100;
            s += &format!(
                "<Msg cls=B oid=2 mth=leaf sgn=!! size=0 tid=1 t={t}>\n\
                 </Msg cls=B oid=2 mth=leaf sgn=!! tid=1 t={}>\n",
                t + 50
            );
        }
        s += "</Msg cls=A oid=1 mth=accept sgn=!! tid=1 t=2000>\n";
        let (_dir, path) = trace_file(&s);
        let opts = Options {
            events: accept_defs(),
            ..Options::default()
        };
        let probe = Probe {
            inside: 10,
            outside: 20,
        };
        let (reader, _, t) = walk(&path, &opts, probe, &mut (), None).unwrap();
        let e = of(t, &reader, &opts).unwrap();
        assert_eq!(e.types[0].slowest[0].work, 2000 - (10 * 11 + 20 * 10));
    }
}
