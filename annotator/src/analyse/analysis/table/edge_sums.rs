//! The walk's per-edge accumulators: an open-addressing table over one array of rows.

use super::Wide;
use crate::analyse::walk::prefetch;

/// Per-edge sums, 24 bytes each.
#[derive(Debug, Clone, Copy)]
pub(super) struct EdgeRow {
    pub(super) sender: u32,
    pub(super) receiver: u32,
    pub(super) calls: u32,
    pub(super) agg: u32,
    pub(super) net: u32,
    pub(super) bytes: u32,
}

pub(super) fn edge_hash(s: u32, r: u32) -> u64 {
    let k = ((s as u64) << 32) | r as u64;
    let h = (k ^ (k >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ (h >> 32)
}

/// The (sender, receiver) edges of the walk: rows in one array, found through an
/// open-addressing table of 4-byte slots (0 = empty; linear probing, at most 3/4 full).
/// With 2^k slots a slot holds the row number + 1 in its low k bits and, above them, more
/// bits of the edge's hash, so a probe past another edge's slot seldom has to read that
/// edge's row. Own table rather than a map so a batch of lookups can ask for its slots and
/// rows ahead of use ([`EdgeSums::touch`]): the walk is bound by memory latency.
#[derive(Default)]
pub struct EdgeSums {
    pub(super) rows: Vec<EdgeRow>,
    pub(super) slots: Vec<u32>,
    /// The row part of a slot: `slots.len() - 1` (`u32::MAX` once the table has 2^32 slots).
    low: u32,
    pub(super) wide: Wide<(u32, u32), 4>,
    /// The highest sender and receiver: [`Edges::per_instance`] needs them before a pass.
    pub(super) max: (u32, u32),
}

impl EdgeSums {
    #[inline]
    pub fn message(&mut self, s: u32, r: u32, agg: u64, net: u64, size: u64) {
        self.messages(s, r, 1, agg, net, size);
    }
    /// First slot of edge (s, r) and the tag its slot carries above the row part.
    #[inline]
    fn place(&self, s: u32, r: u32) -> (usize, u32) {
        let h = edge_hash(s, r);
        let tag = ((h >> 32) as u32) & !self.low;
        (h as usize & (self.slots.len().wrapping_sub(1)), tag)
    }
    /// Asks for the first slot of each edge, then for the row its tag points to, each stage
    /// for the whole batch at once, so the cache misses overlap instead of queueing.
    pub fn touch(&self, edges: impl Iterator<Item = (u32, u32)> + Clone) {
        if self.slots.is_empty() {
            return;
        }
        for (s, r) in edges.clone() {
            prefetch(&self.slots, self.place(s, r).0);
        }
        let mask = self.slots.len() - 1;
        for (s, r) in edges {
            let (mut p, tag) = self.place(s, r);
            // A few probes (one cache line, mostly); a longer run is left to `find`.
            for _ in 0..4 {
                let v = self.slots[p];
                if v == 0 {
                    break;
                }
                if v & !self.low == tag {
                    prefetch(&self.rows, (v & self.low) as usize - 1);
                    break;
                }
                p = (p + 1) & mask;
            }
        }
    }
    /// Row of edge (s, r), or the empty slot where it goes.
    #[inline]
    fn find(&self, s: u32, r: u32) -> Result<usize, usize> {
        let mask = self.slots.len().wrapping_sub(1);
        let (mut p, tag) = self.place(s, r);
        loop {
            let v = self.slots[p];
            if v == 0 {
                return Err(p);
            }
            if v & !self.low == tag {
                let i = (v & self.low) as usize - 1;
                let e = &self.rows[i];
                if e.sender == s && e.receiver == r {
                    return Ok(i);
                }
            }
            p = (p + 1) & mask;
        }
    }
    /// Quadruples the table (from 1024 slots) and re-places every row: each growth re-places
    /// every row at a random slot, so growing 4× at a time re-places a third as many rows as
    /// doubling, for at most 11 more bytes an edge (4-byte slots at least 3/16 full, not 3/8).
    fn grow(&mut self) {
        let n = (self.slots.len() * 4).max(1024);
        // Cleared and refilled rather than replaced: the old table's pages are reused
        // (`realloc` remaps them) and each page faults once, on the write.
        self.slots.clear();
        self.slots.resize(n, 0);
        self.low = u32::try_from(n - 1).unwrap_or(u32::MAX);
        // Each row goes to a random slot: asking for the slot a few rows ahead lets the
        // misses overlap (the last growth at 10⁶ instances re-places 786k rows).
        const GROW_AHEAD: usize = 48;
        for i in 0..self.rows.len() {
            if let Some(a) = self.rows.get(i + GROW_AHEAD) {
                prefetch(&self.slots, self.place(a.sender, a.receiver).0);
            }
            let e = self.rows[i];
            let (mut p, tag) = self.place(e.sender, e.receiver);
            while self.slots[p] != 0 {
                p = (p + 1) & (n - 1);
            }
            self.slots[p] = tag | (i as u32 + 1);
        }
    }
    /// `n` messages from `s` to `r` with these summed times and sizes (a merged aggregate;
    /// the walk adds one at a time).
    #[inline]
    pub fn messages(&mut self, s: u32, r: u32, n: u64, agg: u64, net: u64, size: u64) {
        if (self.rows.len() + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let at = match self.find(s, r) {
            Ok(i) => i,
            Err(p) => self.insert(p, s, r),
        };
        let (w, e) = (&mut self.wide, &mut self.rows[at]);
        w.add((s, r), 0, &mut e.calls, n);
        w.add((s, r), 1, &mut e.agg, agg);
        w.add((s, r), 2, &mut e.net, net);
        w.add((s, r), 3, &mut e.bytes, size);
    }
    /// A new edge's row, placed at slot `p`. Out of line: the walk's loop stays small
    /// enough for the compiler to keep the trace reader inlined in it.
    #[inline(never)]
    fn insert(&mut self, p: usize, s: u32, r: u32) -> usize {
        self.max = (self.max.0.max(s), self.max.1.max(r));
        self.rows.push(EdgeRow {
            sender: s,
            receiver: r,
            calls: 0,
            agg: 0,
            net: 0,
            bytes: 0,
        });
        let tag = self.place(s, r).1;
        self.slots[p] = tag | self.rows.len() as u32;
        self.rows.len() - 1
    }
    /// Takes `t` off an existing edge's net time (a runtime's correction).
    pub fn sub_net(&mut self, s: u32, r: u32, t: u64) {
        self.messages(s, r, 0, 0, 0, 0);
        if let Ok(i) = self.find(s, r) {
            self.wide.sub((s, r), 2, &mut self.rows[i].net, t);
        }
    }
    pub fn len(&self) -> usize {
        self.rows.len()
    }
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hash bits above the row number never leak into it: every slot names its own row
    /// and carries that row's tag, across the table's growth.
    #[test]
    fn edge_slots_keep_row_and_tag_apart() {
        let mut e = EdgeSums::default();
        for k in 0..50_000u32 {
            e.message(k % 997, k / 997 * 7919 % 5003, 1, 1, 0);
            if k.is_power_of_two() || k == 49_999 {
                let mut seen = 0;
                for &v in e.slots.iter().filter(|&&v| v != 0) {
                    let row = (v & e.low) as usize - 1;
                    let r = e.rows[row];
                    assert_eq!(v & !e.low, e.place(r.sender, r.receiver).1);
                    assert_eq!(e.find(r.sender, r.receiver), Ok(row));
                    seen += 1;
                }
                assert_eq!(seen, e.len());
                assert!(e.low < u32::MAX && e.slots.len() - 1 == e.low as usize);
            }
        }
    }
}
