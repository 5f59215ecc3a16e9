//! Driving a walk: a trace's events through the walker, event by event or in prefetched
//! blocks.

use std::path::Path;

use super::{merge, Sink, Walker};
use crate::analyse::trace::{RawEvent, TraceReader};
use crate::error::Result;

/// Events walked per block once the id table has outgrown the cache.
const AHEAD: usize = 32;

/// Every event of `reader` through `walker`. While the object-id table fits in the cache,
/// event by event; once it has outgrown it (a lookup there is a miss: with 10⁶ instances
/// it was a quarter of the walk), in blocks: the next block is decoded and its id-table
/// cells asked for while the current one is walked, so each miss has a block's time to
/// arrive. The blocks hold [`RawEvent`] records, decoded with no branch on their kind: blocks
/// of decoded enums made every event pay a second mispredicted branch on its kind (the
/// decoder's and the walker's were one in the event-by-event loop), 45 ms in 10 M events.
/// Small tables skip the blocks: there they would cost a little more.
pub(super) fn walk_events(
    reader: &mut crate::analyse::trace::TraceReader,
    walker: &mut Walker,
    sink: &mut impl Sink,
    progress: &mut dyn FnMut(u64),
) -> crate::error::Result<()> {
    const EVERY: u32 = (1 << 22) - 1;
    let mut n = 0u32;
    while !walker.wants_prefetch() {
        let Some(ev) = reader.next_event()? else {
            return Ok(());
        };
        walker.event(&ev, reader.names(), sink);
        n = n.wrapping_add(1);
        if n & EVERY == 0 {
            progress(reader.bytes_read());
            if sink.gave_up() {
                return Ok(());
            }
        }
    }
    let mut cur: Vec<RawEvent> = Vec::with_capacity(AHEAD);
    let mut next = Vec::with_capacity(AHEAD);
    loop {
        next.clear();
        reader.next_events(&mut next, AHEAD)?;
        for ev in &next {
            walker.prefetch(ev);
        }
        let names = reader.names();
        for ev in &cur {
            walker.event(&ev.event(), names, sink);
        }
        n = n.wrapping_add(cur.len() as u32);
        if n & EVERY < cur.len() as u32 {
            progress(reader.bytes_read());
            if sink.gave_up() {
                return Ok(());
            }
        }
        std::mem::swap(&mut cur, &mut next);
        if cur.is_empty() {
            return Ok(()); // the block just walked was the last
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
    walk_trace_by(path, Walker::new(), sink, progress)
}

/// [`walk_trace_with`] with a walker of the caller's (e.g. [`Walker::numbering`]).
pub fn walk_trace_by(
    path: &Path,
    mut walker: Walker,
    sink: &mut impl Sink,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(TraceReader, Walker)> {
    let size = crate::analyse::trace::multi::total_size(path);
    let mut reader = TraceReader::open(path)?;
    walk_events(&mut reader, &mut walker, sink, &mut |r| progress(r, size))?;
    merge::merge(
        &mut walker,
        &reader.status().aggregates,
        reader.names(),
        sink,
    );
    walker.finish(reader.names(), sink);
    Ok((reader, walker))
}

/// Asks the cache for `v[i]` without waiting for it (nothing when out of range): the walk
/// is bound by memory latency, so a batch's lookups are announced before they are made.
#[inline]
pub(crate) fn prefetch<T>(v: &[T], i: usize) {
    if let Some(x) = v.get(i) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // SAFETY: a prefetch is only a hint (it cannot fault), and SSE is part of the
            // x86_64 baseline.
            unsafe { _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        std::hint::black_box(x);
    }
}
