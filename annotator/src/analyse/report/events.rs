//! The report's events view (`[[events]]`): the analysis's walk also feeds the event
//! tracker, and the page's `events.js` draws the per-type table and the slowest event's
//! path across threads from the analysis's `events` (the same figures `revy analyze` prints).

use std::path::Path;

use crate::analyse::analysis::Options;
use crate::analyse::events::{results, Events, Tracked, Tracker};
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
    probe: u64,
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
