//! Each thread's open starts, which the compact form's bare ends (kind 7) end: a reader of
//! a trace whose header says `ends=bare` keeps them (annotator/trace/FORMAT.md).

use rustc_hash::FxHashMap;

use crate::RawEvent;

/// At most this many open starts are kept per thread (16 MiB): past it the oldest half is
/// dropped, so a crafted trace of starts only costs bounded memory; a bare end that would
/// need a dropped start then finds none (an error, as any bare end without a start).
const MAX_OPEN: usize = 1 << 20;

/// The open starts' sentinel below every thread's first: no event's (method, oid), as
/// method ids are dense and fewer than 2³² − 1.
const NONE_OPEN: (u32, u64) = (u32::MAX, u64::MAX);

/// One thread's open starts (method, oid), innermost at `slots[depth]` over the sentinel
/// at 0: what a bare end ends. Kept without a branch on the event's kind (every event
/// writes the slot above the innermost, a start keeps it, an end naming the innermost
/// drops it): kept with a branch per kind, for every trace, the stack made the block decoder
/// up to a fifth slower (docs/java-overhead.md, "bare ends").
pub(crate) struct Open {
    tid: u64,
    slots: Vec<(u32, u64)>,
    depth: usize,
    /// The other threads' stacks (the current block's thread's is `slots`).
    others: FxHashMap<u64, (Vec<(u32, u64)>, usize)>,
}

impl Default for Open {
    fn default() -> Self {
        Open {
            tid: 0,
            slots: vec![NONE_OPEN; 64],
            depth: 0,
            others: FxHashMap::default(),
        }
    }
}

impl Open {
    /// A block of thread `tid` begins: its stack becomes the current one.
    pub(crate) fn switch(&mut self, tid: u64) {
        if tid == self.tid {
            return;
        }
        let (old, depth) = (self.tid, self.depth);
        // a thread with no open start leaves its slots to the next (their sentinel stays)
        let slots = match self.others.remove(&tid) {
            Some((slots, d)) => {
                self.depth = d;
                std::mem::replace(&mut self.slots, slots)
            }
            None if depth > 0 => {
                self.depth = 0;
                std::mem::replace(&mut self.slots, vec![NONE_OPEN; 64])
            }
            None => Vec::new(),
        };
        if depth > 0 {
            self.others.insert(old, (slots, depth));
        }
        self.tid = tid;
    }

    /// A start (`START`), an end naming its call (`END`; it ends the innermost start when
    /// that is its call: an end with no open start of its own, which runtimes write as it
    /// is, leaves the stack) or another event.
    #[inline(always)]
    pub(crate) fn note(&mut self, kind: u8, method: u32, oid: u64) {
        if self.depth + 1 >= self.slots.len() {
            self.grow();
        }
        let d = self.depth;
        let top = self.slots[d];
        self.slots[d + 1] = (method, oid);
        let push = (kind == RawEvent::START) as usize;
        let pop = (kind == RawEvent::END && top == (method, oid)) as usize;
        self.depth = d + push - pop;
    }

    /// A bare end: the innermost open start, which it ends.
    #[inline(always)]
    pub(crate) fn end_innermost(&mut self) -> Option<(u32, u64)> {
        let d = self.depth.checked_sub(1)?;
        let top = self.slots[d + 1];
        self.depth = d;
        Some(top)
    }

    /// Twice the room, or past [`MAX_OPEN`] the oldest half dropped.
    #[cold]
    fn grow(&mut self) {
        if self.slots.len() >= MAX_OPEN {
            let half = MAX_OPEN / 2;
            self.slots.copy_within(half + 1..=self.depth, 1);
            self.depth -= half;
        } else {
            self.slots.resize(self.slots.len() * 2, NONE_OPEN);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crafted trace of starts only keeps at most MAX_OPEN of them per thread, the
    /// newest; each thread's are its own.
    #[test]
    fn open_starts_are_bounded() {
        let mut o = Open::default();
        o.switch(1);
        for i in 0..(MAX_OPEN as u64 + 10) {
            o.note(RawEvent::START, 1, i);
        }
        assert_eq!(o.depth, MAX_OPEN / 2 + 10);
        o.switch(2);
        assert_eq!(o.end_innermost(), None);
        o.note(RawEvent::START, 2, 7);
        o.note(RawEvent::END, 2, 8); // not its call: stays open
        o.switch(1);
        assert_eq!(o.end_innermost(), Some((1, MAX_OPEN as u64 + 9)));
        o.note(RawEvent::END, 1, MAX_OPEN as u64 + 8);
        assert_eq!(o.end_innermost(), Some((1, MAX_OPEN as u64 + 7)));
        o.switch(2);
        assert_eq!(o.end_innermost(), Some((2, 7)));
        assert_eq!(o.end_innermost(), None);
    }
}
