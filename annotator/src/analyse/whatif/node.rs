//! What a message tree is made of: its nodes, a focused tree's merged nodes, the batch
//! nodes standing for counted calls and the page-fault times per call. Shared by the tree,
//! the loader and the focus that fill one and the batch placement.

pub const NONE: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub struct Node {
    /// Method id, `NONE` for a thread's root.
    pub method: u32,
    /// Instance id (the thread's root instance for a root node).
    pub receiver: u32,
    pub size: u64,
    pub start: f64,
    pub end: f64,
    pub parent: u32,
    /// Index into [`super::Tree::threads`].
    pub thread: u32,
    /// Time of its own minor page faults (the runtime's count per call of its method and
    /// receiver × the header's `fault_ns=`), in the tree's unit; 0 when not measured. For
    /// a merged node, the fault time of every message it stands for.
    pub fault: f64,
    /// Of its own time, what it spent off the CPU (blocked or preempted: the end's on-CPU
    /// time, measured on long calls), in the tree's unit. The replay runs work only.
    pub wait: f64,
    /// 0 for a recorded message (or a root); otherwise a merged node of a focused tree
    /// ([`super::Tree::load_focused`]): that many messages with nothing in focus below them, run
    /// back to back by one parent, with their method and receiver those of the heaviest.
    pub merged: u32,
    /// A merged node's place in [`super::Tree::merged`] (`NONE` for the others).
    pub facts: u32,
}

/// What a merged node holds besides its span: the compensated aggregate time of the
/// messages it stands for, its parent's own time between them (which still pays the
/// parent's probe cost), and the page-fault time they shed when moved (each message's up
/// to its own time, as the replay takes it off one message at a time).
#[derive(Debug, Clone, Copy, Default)]
pub struct Merged {
    pub work: f64,
    /// Of the merged messages, those its sender sent itself (each cost it the probe's
    /// outside part).
    pub direct: u64,
    pub gap: f64,
    pub shed: f64,
}

/// Page-fault time per call of each (method, oid) of one trace, in the tree's unit.
pub(super) type Faults = std::collections::HashMap<(u32, u64), f64>;

/// What a batch node stands for.
#[derive(Debug, Clone, Copy, Default)]
pub struct Batch {
    pub calls: u64,
    /// Their work, compensated (the probe cost per call taken off the estimate).
    pub work: f64,
    /// The sender's own time between two of these calls (its time in the gaps the calls
    /// were spread over, less theirs, per call): how fast it posts them.
    pub between: f64,
}

/// One aggregated edge of a throttled method, in the tree's ids and unit.
#[derive(Debug, Clone, Copy)]
pub struct Edge {
    /// The tree's thread (`Tree::threads`) that made the calls.
    pub thread: u32,
    pub sender: u32,
    pub receiver: u32,
    pub method: u32,
    pub calls: u64,
    /// Aggregate time of the calls (estimated), uncompensated.
    pub agg: f64,
    pub size: u64,
    /// The method's verdict: the calls come after it.
    pub from: f64,
}

/// What the placement did, for the warnings.
#[derive(Debug, Clone, Copy, Default)]
pub struct Placed {
    pub calls: u64,
    pub nodes: usize,
    /// Counted calls of throttled methods that found no recorded sender time to sit in
    /// (their sender's calls were counted too: their time is inside those).
    pub left: u64,
}
