//! What the tracker keeps per event and per stretch of an event on one thread; shared by
//! the tracker and the per-type statistics it folds into.

/// Distinct threads told apart per event.
pub(crate) const THREADS: usize = 6;

/// One event's sums (times in trace units).
#[derive(Debug, Clone, Copy)]
pub struct EventRec {
    pub def: u16,
    pub start: u64,
    pub end: u64,
    /// On-CPU time of its segments (their wall time less measured off-CPU time).
    pub work: u64,
    pub objects: u32,
    pub bytes: u64,
    pub segments: u32,
    /// Distinct threads (walker indices), the first [`THREADS`] told apart.
    pub threads: [u32; THREADS],
    pub nthreads: u8,
    /// Threads carrying it now.
    pub(super) carriers: u8,
    /// Objects associated with it now: with none and no thread carrying it, nothing can
    /// continue it (but a `[[remote]]` call).
    pub(super) held: u32,
    /// Retired: folded into its type's results (its slot waits to be reclaimed).
    pub(super) gone: bool,
}

/// A stretch of one event on one thread: the call that started or continued it.
#[derive(Debug, Clone, Copy)]
pub struct Segment {
    pub event: u32,
    pub method: u32,
    pub tid: u64,
    pub start: u64,
    pub end: u64,
}
