//! What the walker keeps per thread and per open message, and what it hands its sink.

use serde::Serialize;

use rustc_hash::FxHashMap;

use super::{Instance, Resolved};
use crate::analyse::trace::Names;

/// An open message on a thread's stack.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    pub order: u64,
    pub method: u32,
    pub oid: u64,
    pub receiver: u32,
    pub sender: u32,
    pub start: u64,
    pub size: u64,
    /// Sum of the aggregates of the messages this one sent.
    pub child_agg: u64,
    /// Sum of the time the messages this one sent waited (off-CPU), callees included.
    pub child_wait: u64,
    /// The callee method holding most of the aggregate, summed over its calls from this
    /// message: (method, receiver or `u32::MAX` when several, aggregate).
    pub heaviest: Option<(u32, u32, u64)>,
    /// Messages nested in it, at any depth.
    pub descendants: u64,
    /// Messages it sent itself (its direct children).
    pub children: u64,
    /// A sink's own per-frame slot (e.g. a calling-context node).
    pub ctx: u32,
}

#[cfg(test)]
impl Frame {
    /// A frame as the walker opens it (no children yet), for tests that feed a sink directly.
    pub(crate) fn opened(order: u64, method: u32, oid: u64, receiver: u32, sender: u32) -> Self {
        Frame {
            order,
            method,
            oid,
            receiver,
            sender,
            start: 0,
            size: 0,
            child_agg: 0,
            child_wait: 0,
            heaviest: None,
            descendants: 0,
            children: 0,
            ctx: 0,
        }
    }
}

/// A message that just finished.
pub struct Closed<'a> {
    pub frame: Frame,
    /// The walker's index of its thread, and the thread's id.
    pub thread: usize,
    pub tid: u64,
    pub end: u64,
    pub aggregate: u64,
    pub net: u64,
    /// Of `net`, the time its thread was off the CPU (blocked or preempted): from the
    /// end's on-CPU time when the runtime measured it (a long call), else 0.
    pub wait: u64,
    /// The messages still open below it on its thread (outermost first).
    pub outer: &'a [Frame],
}

/// Receives the walker's results; all methods have no-op defaults.
pub trait Sink {
    /// A message starts; returns the value kept in `Frame::ctx`.
    fn started(&mut self, _parent_ctx: Option<u32>, _thread: usize, _frame: &Frame) -> u32 {
        0
    }
    /// [`Sink::started`] with the thread's id and the trace's names (the event tracker
    /// matches methods by name); by default just `started`.
    fn entered(
        &mut self,
        parent_ctx: Option<u32>,
        thread: usize,
        _tid: u64,
        frame: &Frame,
        _names: &Names,
    ) -> u32 {
        self.started(parent_ctx, thread, frame)
    }
    /// An object's creation entry: its instance, class and size.
    fn created(
        &mut self,
        _tid: u64,
        _instance: u32,
        _class: u32,
        _size: Option<u64>,
        _names: &Names,
    ) {
    }
    /// An object's destruction entry (C++ `Dst`): its instance, at time `t` (its thread's
    /// latest when the entry has none).
    fn destroyed(&mut self, _tid: u64, _instance: u32, _t: u64) {}
    fn closed(&mut self, _c: &Closed, _instances: &[Instance], _names: &Names) {}
    /// A `[[remote]]` call's key, logged inside thread `tid`'s current message (`method`).
    fn keyed(&mut self, _tid: u64, _method: u32, _key: u64, _t: u64, _names: &Names) {}
    /// True once the sink wants nothing more (the walk then stops within a few million
    /// events; what it leaves is the sink's to say).
    fn gave_up(&self) -> bool {
        false
    }
    /// The runtime's aggregates, their edges resolved to instances (`analysis::aggregates`).
    fn aggregated(
        &mut self,
        _aggs: &crate::analyse::trace::agg::Aggregates,
        _edges: &[Resolved],
        _instances: &[Instance],
    ) {
    }
}

/// A sink that wants nothing: a walk for the walker's instances and counts only.
impl Sink for () {}

pub struct ThreadState {
    pub tid: u64,
    pub root: u32,
    pub stack: Vec<Frame>,
    /// Per open frame: aggregate per callee method (reused, so no allocation per message).
    pub(super) callees: Vec<Vec<(u32, u32, u64)>>,
    /// Time of the thread's first timed event (its span starts here).
    pub first_t: Option<u64>,
    pub last_t: u64,
    pub messages: u64,
    /// Sum of the aggregates of the thread's outermost messages.
    pub total: u64,
    /// Open frames per (method, oid), kept while the stack is deep: an end that matches no
    /// open message is then found out without scanning the stack (ends that never match
    /// their starts would otherwise make the walk quadratic).
    pub(super) open: Option<FxHashMap<(u32, u64), u32>>,
    /// Frames examined while looking for the start of an end that is not on top (stays
    /// linear in the number of events).
    pub scanned: u64,
}

/// From this stack depth on, open frames are counted per (method, oid); below half of it
/// a scan is cheap and the counts are dropped.
const DEEP: usize = 64;

impl ThreadState {
    pub(super) fn push(&mut self, frame: Frame) {
        self.stack.push(frame);
        match &mut self.open {
            Some(open) => *open.entry((frame.method, frame.oid)).or_insert(0) += 1,
            None if self.stack.len() > DEEP => {
                let mut open = FxHashMap::default();
                for f in &self.stack {
                    *open.entry((f.method, f.oid)).or_insert(0) += 1;
                }
                self.open = Some(open);
            }
            None => {}
        }
    }

    pub(super) fn pop(&mut self) -> Option<Frame> {
        let frame = self.stack.pop()?;
        if let Some(open) = &mut self.open {
            if self.stack.len() < DEEP / 2 {
                self.open = None;
            } else if let Some(n) = open.get_mut(&(frame.method, frame.oid)) {
                *n -= 1;
                if *n == 0 {
                    open.remove(&(frame.method, frame.oid));
                }
            }
        }
        Some(frame)
    }

    /// Stack position of the innermost open (method, oid) message.
    pub(super) fn find(&mut self, method: u32, oid: u64) -> Option<usize> {
        if let Some(open) = &self.open {
            open.get(&(method, oid))?;
        }
        let pos = self
            .stack
            .iter()
            .rposition(|f| f.method == method && f.oid == oid);
        self.scanned += (self.stack.len() - pos.map_or(0, |p| p)) as u64;
        pos
    }
}

impl ThreadState {
    #[inline]
    pub(super) fn seen(&mut self, t: u64) {
        self.first_t.get_or_insert(t);
        self.last_t = t;
    }
    /// First to last event: the thread's share of the run.
    pub fn span(&self) -> u64 {
        self.first_t.map_or(0, |f| self.last_t.saturating_sub(f))
    }
}

/// Counts of structural problems; reported, never fatal.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Balance {
    /// Ends with no matching open message (ignored).
    pub unmatched_ends: u64,
    /// Open messages closed early because an end for an outer message arrived.
    pub closed_by_outer_end: u64,
    /// Messages still open when the trace ended (closed at their thread's last time).
    pub open_at_end: u64,
    pub examples: Vec<String>,
}
