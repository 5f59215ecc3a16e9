//! Compact per-instance and per-edge statistics (issue 13, item 4): a run can have millions
//! of instances and edges, so sums are kept in 32-bit cells whose carries spill into a side
//! map (rarely used: a sum must pass 2³² to get there), and the public rows
//! ([`InstanceStats`], [`EdgeStats`]) are built only when asked for or serialised.

use std::cmp::Ordering;

use std::sync::{Mutex, OnceLock};

use rustc_hash::{FxHashMap, FxHashSet};
use serde::ser::{Serialize, SerializeSeq, Serializer};

use super::{level, per_byte, Band, EdgeStats, InstanceStats};
use crate::analyse::trace::Names;
use crate::analyse::walk::{prefetch, InstKind, Instance};

/// `n` copies of `v`, written out: a `vec![0; n]` comes from `calloc`, whose untouched
/// pages fault twice when a cell is read before it is written (the shared zero page, then
/// a private copy) — a large table of counters would pay every page fault twice.
fn filled<T: Clone>(n: usize, v: T) -> Vec<T> {
    let mut x = Vec::with_capacity(n);
    x.resize(n, v);
    x
}

/// Adds `x` to the 32-bit cell `lo`; returns the carry above 32 bits (usually 0).
#[inline]
fn add(lo: &mut u32, x: u64) -> u64 {
    let s = *lo as u64 + x;
    *lo = s as u32;
    s >> 32
}

/// High parts of 32-bit sums, by key: `value = cell + wide[key][field]`.
#[derive(Debug, Clone, Default)]
struct Wide<K: std::hash::Hash + Eq, const N: usize>(FxHashMap<K, [u64; N]>);

impl<K: std::hash::Hash + Eq + Copy, const N: usize> Wide<K, N> {
    #[inline]
    fn add(&mut self, key: K, field: usize, lo: &mut u32, x: u64) {
        let carry = add(lo, x);
        if carry != 0 {
            self.0.entry(key).or_insert([0; N])[field] += carry << 32;
        }
    }
    /// Takes `x` off the sum (saturating at 0): the runtimes' net-time corrections.
    fn sub(&mut self, key: K, field: usize, lo: &mut u32, x: u64) {
        let v = self.get(key, field, *lo).saturating_sub(x);
        *lo = v as u32;
        let hi = v >> 32 << 32;
        if hi != 0 || self.0.contains_key(&key) {
            self.0.entry(key).or_insert([0; N])[field] = hi;
        }
    }
    #[inline]
    fn get(&self, key: K, field: usize, lo: u32) -> u64 {
        lo as u64
            + if self.0.is_empty() {
                0
            } else {
                self.0.get(&key).map_or(0, |w| w[field])
            }
    }
}

/// Per-instance sums, 24 bytes each; `neighbours` beside the sums so that the pass that
/// builds them touches one random cell per edge, not two.
#[derive(Debug, Default, Clone, Copy)]
pub struct InstAcc {
    active: u32,
    received: u32,
    sent: u32,
    cyclic: u32,
    bytes: u32,
    neighbours: u32,
}

const ACTIVE: usize = 0;
const RECEIVED: usize = 1;
const SENT: usize = 2;
const CYCLIC: usize = 3;
const BYTES: usize = 4;

/// Per-instance accumulators, indexed by instance id.
#[derive(Debug, Default, Clone)]
pub struct InstSums {
    acc: Vec<InstAcc>,
    wide: Wide<u32, 5>,
}

impl InstSums {
    #[inline]
    fn at(&mut self, i: u32) -> &mut InstAcc {
        let i = i as usize;
        if self.acc.len() <= i {
            self.acc.resize(i + 1, InstAcc::default());
        }
        &mut self.acc[i]
    }
    /// `n` messages from `s` to `r` with these summed net times and sizes: the receiver's
    /// side (the sender's is [`InstSums::sent`]).
    #[inline]
    fn received_from(&mut self, s: u32, r: u32, n: u64, net: u64, size: u64) {
        let w = &mut self.wide;
        let ra = &mut self.acc[r as usize];
        w.add(r, ACTIVE, &mut ra.active, net);
        w.add(r, RECEIVED, &mut ra.received, n);
        w.add(r, BYTES, &mut ra.bytes, size);
        if s == r {
            w.add(r, CYCLIC, &mut ra.cyclic, n);
        }
    }
    #[inline]
    fn sent(&mut self, s: u32, n: u64) {
        self.wide.add(s, SENT, &mut self.acc[s as usize].sent, n);
    }
    /// Time outside any message, given to a thread's root.
    pub fn add_active(&mut self, i: u32, t: u64) {
        let a = self.at(i);
        let mut lo = a.active;
        self.wide.add(i, ACTIVE, &mut lo, t);
        self.acc[i as usize].active = lo;
    }
    pub fn received(&self, i: u32) -> u64 {
        self.get(i, RECEIVED, |a| a.received)
    }
    pub fn active(&self, i: u32) -> u64 {
        self.get(i, ACTIVE, |a| a.active)
    }
    /// Distinct other instances it exchanged messages with (either way).
    pub fn neighbours(&self, i: u32) -> u32 {
        self.acc.get(i as usize).map_or(0, |a| a.neighbours)
    }
    fn get(&self, i: u32, field: usize, f: impl Fn(&InstAcc) -> u32) -> u64 {
        let lo = self.acc.get(i as usize).map_or(0, f);
        self.wide.get(i, field, lo)
    }
}

/// Per-edge sums, 24 bytes each.
#[derive(Debug, Clone, Copy)]
struct EdgeRow {
    sender: u32,
    receiver: u32,
    calls: u32,
    agg: u32,
    net: u32,
    bytes: u32,
}

fn edge_hash(s: u32, r: u32) -> u64 {
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
    rows: Vec<EdgeRow>,
    slots: Vec<u32>,
    /// The row part of a slot: `slots.len() - 1` (`u32::MAX` once the table has 2^32 slots).
    low: u32,
    wide: Wide<(u32, u32), 4>,
    /// The highest sender and receiver: [`Edges::per_instance`] needs them before a pass.
    max: (u32, u32),
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

/// Sorts rows by (sender, receiver): first in place into buckets by the sender's high bits
/// (each round moves each row once; its writes go to one of at most 1024 places at a time),
/// then each bucket — small enough for the core's cache — by a least-significant-digit
/// radix sort through a scratch buffer of its size (a huge bucket, one busy sender's, by a
/// second in-place round and comparison sorts instead, so the scratch stays small). A
/// comparison sort of millions of rows at once spends its time on cache misses, and a
/// comparison sort per handful of rows on mispredicted branches.
/// `max` is the highest sender.
fn sort_rows(rows: &mut [EdgeRow], max: u32) {
    const MASK: u32 = (1 << BUCKET_BITS) - 1;
    let key = |e: &EdgeRow| (e.sender, e.receiver);
    let high = (32 - max.leading_zeros()).saturating_sub(BUCKET_BITS);
    if rows.len() < 1 << 14 || high == 0 {
        rows.sort_unstable_by_key(key);
        return;
    }
    let low = high.saturating_sub(BUCKET_BITS);
    let mut ends = vec![0; (1 << BUCKET_BITS) + 1];
    let mut inner = vec![0; (1 << BUCKET_BITS) + 1];
    let mut next = vec![0; 1 << BUCKET_BITS];
    let mut scratch = Vec::new();
    buckets(rows, |e| (e.sender >> high) as usize, &mut ends, &mut next);
    for b in 0..1 << BUCKET_BITS {
        let part = &mut rows[ends[b]..ends[b + 1]];
        if part.len() < 64 {
            part.sort_unstable_by_key(key);
        } else if part.len() <= LSD_MAX {
            lsd_sort(part, high, &mut scratch);
        } else {
            buckets(
                part,
                |e| (e.sender >> low & MASK) as usize,
                &mut inner,
                &mut next,
            );
            for c in 0..1 << BUCKET_BITS {
                part[inner[c]..inner[c + 1]].sort_unstable_by_key(key);
            }
        }
    }
}

/// Buckets up to this many rows (1.5 MiB) are radix-sorted through a scratch buffer.
const LSD_MAX: usize = 1 << 16;

/// Sorts `part` by (sender, receiver) where senders differ only below bit `high`: stable
/// counting passes of up to 11 bits, the receiver's bits first, then the sender's, between
/// `part` and `scratch`; a digit the same in every row is skipped.
fn lsd_sort(part: &mut [EdgeRow], high: u32, scratch: &mut Vec<EdgeRow>) {
    const W: u32 = 11;
    let max_r = part.iter().map(|e| e.receiver).max().unwrap_or(0);
    let mut digits = Vec::new();
    for (sender, bits) in [(false, 32 - max_r.leading_zeros()), (true, high)] {
        let mut at = 0;
        while at < bits {
            let w = (bits - at).min(W);
            digits.push((sender, at, (1usize << w) - 1));
            at += w;
        }
    }
    scratch.clear();
    scratch.extend_from_slice(part);
    let (mut src, mut dst): (&mut [EdgeRow], &mut [EdgeRow]) = (part, scratch);
    let mut in_scratch = false;
    let mut count = vec![0usize; 1 << W];
    for (sender, shift, mask) in digits {
        let digit =
            |e: &EdgeRow| ((if sender { e.sender } else { e.receiver }) >> shift) as usize & mask;
        count[..=mask].fill(0);
        for e in src.iter() {
            count[digit(e)] += 1;
        }
        if count[..=mask].contains(&src.len()) {
            continue;
        }
        let mut sum = 0;
        for c in &mut count[..=mask] {
            (*c, sum) = (sum, sum + *c);
        }
        for e in src.iter() {
            let d = digit(e);
            dst[count[d]] = *e;
            count[d] += 1;
        }
        std::mem::swap(&mut src, &mut dst);
        in_scratch = !in_scratch;
    }
    if in_scratch {
        dst.copy_from_slice(src);
    }
}

/// Moves each row to its bucket's part of `rows` (in place, a swap per row); `ends[b]..ends[b + 1]`
/// is then bucket `b`'s part. `next` is scratch of one place per bucket.
fn buckets(
    rows: &mut [EdgeRow],
    bucket: impl Fn(&EdgeRow) -> usize,
    ends: &mut [usize],
    next: &mut [usize],
) {
    ends.fill(0);
    for e in rows.iter() {
        ends[bucket(e) + 1] += 1;
    }
    place(rows, bucket, ends, next);
}

/// [`buckets`] with the rows counted already: `ends[b + 1]` is bucket `b`'s count.
fn place(
    rows: &mut [EdgeRow],
    bucket: impl Fn(&EdgeRow) -> usize,
    ends: &mut [usize],
    next: &mut [usize],
) {
    let n = next.len();
    for b in 0..n {
        ends[b + 1] += ends[b];
    }
    next.copy_from_slice(&ends[..n]);
    // Each row of a bucket's unplaced part is swapped to its own bucket's next place, and
    // a placed row never moves again. The swaps of a pass are independent, so their cache
    // misses overlap (following one displaced row to the next waits for each in turn: at
    // 10⁶ instances 21 against 11 ms a round); the rows swapped in wait for the next pass.
    let mut open: Vec<usize> = (0..n).filter(|&b| next[b] < ends[b + 1]).collect();
    while !open.is_empty() {
        open.retain(|&b| {
            for i in next[b]..ends[b + 1] {
                let t = bucket(&rows[i]);
                rows.swap(i, next[t]);
                next[t] += 1;
            }
            next[b] < ends[b + 1]
        });
    }
}

/// The edges of an analysis; rows are built on demand. They are read in (sender, receiver)
/// order, sorted on the first such read: `revy analyze`'s text reads none (only the
/// per-instance sums, which take them in any order) and skips the sort.
#[derive(Debug, Default)]
pub struct Edges {
    /// The walk's rows, in the order the walk met the edges, until they are sorted.
    unsorted: Mutex<Vec<EdgeRow>>,
    sorted: OnceLock<Vec<EdgeRow>>,
    len: usize,
    wide: Wide<(u32, u32), 4>,
    total: u64,
    max: (u32, u32),
    /// The edges the JSON lists when not all ([`super::lists`]), in (sender, receiver) order.
    listed: Option<Vec<EdgeRow>>,
}

impl Clone for Edges {
    fn clone(&self) -> Edges {
        let sorted = OnceLock::new();
        let _ = sorted.set(self.rows().to_vec());
        Edges {
            unsorted: Mutex::default(),
            sorted,
            len: self.len,
            wide: self.wide.clone(),
            total: self.total,
            max: self.max,
            listed: self.listed.clone(),
        }
    }
}

impl Edges {
    /// The walk's edges (their index dropped) against the run's `total`.
    pub fn new(sums: EdgeSums, total: u64) -> Edges {
        let EdgeSums {
            rows,
            slots,
            wide,
            max,
            ..
        } = sums;
        drop(slots);
        Edges {
            len: rows.len(),
            unsorted: Mutex::new(rows),
            sorted: OnceLock::new(),
            wide,
            total,
            max,
            listed: None,
        }
    }
    /// The rows in (sender, receiver) order (sorted now if not yet).
    fn rows(&self) -> &[EdgeRow] {
        self.sorted.get_or_init(|| {
            let mut rows =
                std::mem::take(&mut *self.unsorted.lock().unwrap_or_else(|e| e.into_inner()));
            sort_rows(&mut rows, self.max.0);
            rows
        })
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Calls, aggregate, net time and bytes of a row, past 32 bits included.
    fn sums(&self, e: &EdgeRow) -> (u64, u64, u64, u64) {
        let k = (e.sender, e.receiver);
        let w = &self.wide;
        (
            w.get(k, 0, e.calls),
            w.get(k, 1, e.agg),
            w.get(k, 2, e.net),
            w.get(k, 3, e.bytes),
        )
    }
    fn stats(&self, e: &EdgeRow) -> EdgeStats {
        let (s, r) = (e.sender, e.receiver);
        let net = self.wide.get((s, r), 2, e.net);
        let lv = level(net, self.total);
        EdgeStats {
            sender: s,
            receiver: r,
            calls: self.wide.get((s, r), 0, e.calls),
            aggregate_time: self.wide.get((s, r), 1, e.agg),
            net_time: net,
            bytes: self.wide.get((s, r), 3, e.bytes),
            cyclic: s == r,
            level: lv,
            band: Band::of(lv),
        }
    }
    /// In (sender, receiver) order.
    pub fn iter(&self) -> impl Iterator<Item = EdgeStats> + '_ {
        self.rows().iter().map(|e| self.stats(e))
    }
    pub fn get(&self, i: usize) -> Option<EdgeStats> {
        self.rows().get(i).map(|e| self.stats(e))
    }
    /// The JSON lists only the `n` edges with the most aggregate time (ties by ids), in
    /// (sender, receiver) order. Picked from the rows as they are (no sort of them all),
    /// kept as rows: 32 bytes a candidate, 24 a listed edge.
    pub(super) fn list_heaviest(&mut self, n: usize) {
        let first = |x: &(u64, EdgeRow), y: &(u64, EdgeRow)| {
            (y.0.cmp(&x.0)).then((x.1.sender, x.1.receiver).cmp(&(y.1.sender, y.1.receiver)))
        };
        let mut top = TopRows::new(n, first);
        let mut offer = |rows: &[EdgeRow]| {
            for e in rows {
                top.offer(&(self.wide.get((e.sender, e.receiver), 1, e.agg), *e));
            }
        };
        match self.sorted.get() {
            Some(rows) => offer(rows),
            None => offer(&self.unsorted.lock().unwrap_or_else(|e| e.into_inner())),
        }
        let mut rows: Vec<EdgeRow> = top.into_sorted().into_iter().map(|(_, e)| e).collect();
        rows.sort_unstable_by_key(|e| (e.sender, e.receiver));
        self.listed = Some(rows);
    }
    /// The edges the JSON lists, in (sender, receiver) order.
    pub(super) fn for_each_listed(&self, mut f: impl FnMut(&EdgeStats)) {
        match &self.listed {
            Some(rows) => rows.iter().for_each(|e| f(&self.stats(e))),
            None => self.iter().for_each(|e| f(&e)),
        }
    }
    /// How many edges the JSON lists.
    pub fn listed(&self) -> usize {
        self.listed.as_ref().map_or(self.len, Vec::len)
    }
    /// Per instance, from its edges: the sums of the messages it received and sent (an
    /// instance's sums are the sums of its edges, so the walk keeps only the edges — one
    /// random cell per message instead of three — and this pass builds the rest once), and
    /// its distinct neighbours over undirected pairs (itself excluded): every edge between
    /// two instances counts for both, and a pair with edges both ways is taken off once.
    ///
    /// Each edge adds to two instances' cells, far apart: the rows are grouped by their
    /// receiver's high bits for the receivers' half, then by their sender's for the
    /// senders' half, so each half's cells are a bucket's few KiB, and a sort by (sender,
    /// receiver) later has only each bucket to sort. The pair set is in parts by the lower
    /// id's bucket for the same reason.
    pub fn per_instance(&self, n: usize) -> InstSums {
        let mut sums = InstSums {
            acc: filled(n, InstAcc::default()),
            wide: Wide::default(),
        };
        // The walk's rows; a copy of the sorted ones if a sort has taken them (they were
        // read in order already: not on the analysis's own path).
        let mut guard = self.unsorted.lock().unwrap_or_else(|e| e.into_inner());
        let mut copy;
        let rows: &mut [EdgeRow] = if guard.is_empty() && self.len > 0 {
            copy = self.rows().to_vec();
            &mut copy
        } else {
            &mut guard
        };
        let (max_s, max_r) = self.max;
        sums.at(max_s.max(max_r));
        let mut ends = vec![0; (1 << BUCKET_BITS) + 1];
        let mut next = vec![0; 1 << BUCKET_BITS];
        // Buckets as `sort_rows` makes them, so that it finds the rows in theirs.
        let high = |max: u32| (32 - max.leading_zeros()).saturating_sub(BUCKET_BITS);
        let (high_s, high_r) = (high(max_s), high(max_r));
        let grouped = rows.len() >= 1 << 14 && high_s > 0 && high_r > 0;
        let mut pairs = if grouped {
            let by_receiver = |e: &EdgeRow| (e.receiver >> high_r) as usize;
            buckets(rows, by_receiver, &mut ends, &mut next);
            let counts: Vec<usize> = ends.windows(2).map(|w| w[1] - w[0]).collect();
            Pairs::in_parts(&counts, high_r)
        } else {
            Pairs::new(rows.len())
        };
        // The senders' buckets are counted in the receivers' half.
        let by_sender = |e: &EdgeRow| (e.sender >> high_s) as usize;
        ends.fill(0);
        let count = grouped.then_some((&mut ends[1..], high_s));
        self.receivers_half(rows, &mut sums, &mut pairs, count);
        // The rows are left grouped by sender, for a sort to finish.
        if grouped {
            place(rows, by_sender, &mut ends, &mut next);
        }
        let sender_shift = grouped.then_some(high_s);
        let both = self.senders_half(rows, sender_shift, &mut sums, &pairs);
        for (s, r) in both {
            sums.acc[s as usize].neighbours -= 1;
            sums.acc[r as usize].neighbours -= 1;
        }
        sums
    }
    /// The receivers' sums and neighbour counts; the higher-sender edges go into the pair
    /// set as (receiver, sender).
    /// With `count`, each row's sender bucket (`sender >> shift`) is counted too.
    fn receivers_half(
        &self,
        rows: &[EdgeRow],
        sums: &mut InstSums,
        pairs: &mut Pairs,
        mut count: Option<(&mut [usize], u32)>,
    ) {
        for (k, e) in rows.iter().enumerate() {
            if let Some((c, shift)) = &mut count {
                c[(e.sender >> *shift) as usize] += 1;
            }
            if let Some(a) = rows.get(k + AHEAD) {
                prefetch(&sums.acc, a.receiver as usize);
            }
            let (calls, _, net, bytes) = self.sums(e);
            let (s, r) = (e.sender, e.receiver);
            sums.received_from(s, r, calls, net, bytes);
            if s != r {
                sums.acc[r as usize].neighbours += 1;
            }
            if s > r {
                pairs.insert(r, s);
            }
        }
    }
    /// The senders' sums and neighbour counts; returns the pairs with edges both ways. A
    /// lower-sender edge the pair set may hold the other way is kept as "maybe" (about 1 in
    /// 200 absent ones are); a higher-sender edge is looked for among them once they are all
    /// known — at once when the rows are grouped by sender (`sender_shift`: the bucket shift)
    /// and its receiver's bucket came before, or else after the pass.
    fn senders_half(
        &self,
        rows: &[EdgeRow],
        sender_shift: Option<u32>,
        sums: &mut InstSums,
        pairs: &Pairs,
    ) -> Vec<(u32, u32)> {
        let mut maybe = Maybe::default();
        let (mut both, mut later) = (Vec::new(), Vec::new());
        for (k, e) in rows.iter().enumerate() {
            if let Some(a) = rows.get(k + AHEAD) {
                prefetch(&sums.acc, a.sender as usize);
            }
            let (s, r) = (e.sender, e.receiver);
            sums.sent(s, self.wide.get((s, r), 0, e.calls));
            if s != r {
                sums.acc[s as usize].neighbours += 1;
            }
            if s < r && pairs.maybe(s, r) {
                maybe.insert(s, r);
            } else if s > r {
                match sender_shift {
                    Some(h) if r >> h < s >> h => {
                        if maybe.contains(r, s) {
                            both.push((s, r));
                        }
                    }
                    _ => later.push((s, r)),
                }
            }
        }
        both.extend(later.into_iter().filter(|&(s, r)| maybe.contains(r, s)));
        both
    }
}

/// The "maybe" lower-sender edges of [`Edges::senders_half`], behind a 32 KiB bit filter:
/// a million higher-sender edges ask, a few thousand are in it.
struct Maybe {
    filter: Vec<u64>,
    set: FxHashSet<(u32, u32)>,
}

impl Default for Maybe {
    fn default() -> Maybe {
        Maybe {
            filter: vec![0; Maybe::WORDS],
            set: FxHashSet::default(),
        }
    }
}

impl Maybe {
    const WORDS: usize = 1 << 12;
    #[inline]
    fn bit(lo: u32, hi: u32) -> (usize, u64) {
        let h = edge_hash(lo, hi);
        ((h >> 6) as usize % Maybe::WORDS, 1 << (h & 63))
    }
    fn insert(&mut self, lo: u32, hi: u32) {
        let (w, b) = Maybe::bit(lo, hi);
        self.filter[w] |= b;
        self.set.insert((lo, hi));
    }
    #[inline]
    fn contains(&self, lo: u32, hi: u32) -> bool {
        let (w, b) = Maybe::bit(lo, hi);
        self.filter[w] & b != 0 && self.set.contains(&(lo, hi))
    }
}

/// Buckets of [`Edges::per_instance`]: 2^10 (at 10⁶ instances the pass took 85–94 ms with
/// 2^10 and 2^9, 128–163 with 2^11).
const BUCKET_BITS: u32 = 10;

/// How many rows ahead [`Edges::per_instance`] asks for the cells a row will need: a short
/// distance (at 10⁶ instances 8 rows took 75 ms, 32 rows 93 ms; a batch of 32 at once 100).
const AHEAD: usize = 8;

/// Which (lower, higher) pairs may have an edge: two bits per pair in one 64-bit word, 8
/// bits per edge, so the set stays in the cache where the edges do not and a question
/// costs one cell. With the higher-sender half of the edges in it, about 1 in 200 questions
/// about an absent pair is answered "maybe" (at 10⁶ instances 5,184 of them; with one bit
/// per pair 32,020), and only those pairs are looked for among the edges.
struct Pairs {
    bits: Vec<u64>,
    /// Per part (by the lower id's high bits, above `shift`): its first word and word mask.
    parts: Vec<(usize, u64)>,
    shift: u32,
}

impl Pairs {
    /// One part for all pairs.
    fn new(edges: usize) -> Pairs {
        Pairs::in_parts(&[edges], 32)
    }
    /// A part per bucket of lower ids (`lower >> shift`), sized for `edges[b]` pairs: with
    /// the rows grouped by the lower id's bucket, questions stay in one part, in the cache.
    fn in_parts(edges: &[usize], shift: u32) -> Pairs {
        let mut parts = Vec::with_capacity(edges.len());
        let mut words = 0;
        for &n in edges {
            let w = (n.max(8) * 8).next_power_of_two() / 64;
            parts.push((words, w as u64 - 1));
            words += w;
        }
        Pairs {
            bits: filled(words, 0),
            parts,
            shift,
        }
    }
    /// The pair's word and its two bits (from two other 6-bit parts of the hash).
    #[inline]
    fn bits(&self, lo: u32, hi: u32) -> (usize, u64) {
        let h = edge_hash(lo, hi);
        let b = 1 << (h >> 52 & 63) | 1 << (h >> 58);
        let part = (lo.checked_shr(self.shift).unwrap_or(0) as usize).min(self.parts.len() - 1);
        let (first, mask) = self.parts[part];
        (first + (h & mask) as usize, b)
    }
    #[inline]
    fn insert(&mut self, lo: u32, hi: u32) {
        let (w, b) = self.bits(lo, hi);
        self.bits[w] |= b;
    }
    #[inline]
    fn maybe(&self, lo: u32, hi: u32) -> bool {
        let (w, b) = self.bits(lo, hi);
        self.bits[w] & b == b
    }
}

impl Serialize for Edges {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let mut seq = ser.serialize_seq(Some(self.listed()))?;
        match &self.listed {
            Some(rows) => rows
                .iter()
                .try_for_each(|e| seq.serialize_element(&self.stats(e)))?,
            None => self.iter().try_for_each(|e| seq.serialize_element(&e))?,
        }
        seq.end()
    }
}

/// What a cheap pass over instances sees (no strings built).
#[derive(Debug, Clone, Copy)]
pub struct InstRow {
    pub id: u32,
    pub kind: InstKind,
    pub class: u32,
    pub active_time: u64,
    pub level: f64,
    pub received: u64,
    pub sent: u64,
    pub cyclic: u64,
    pub neighbours: u32,
}

/// The instances of an analysis, indexed by id; [`InstanceStats`] are built on demand.
#[derive(Debug, Clone, Default)]
pub struct Instances {
    core: Vec<Instance>,
    sums: InstSums,
    one_off: FxHashMap<u32, u64>,
    /// Waiting per instance (only those that waited).
    waits: FxHashMap<u32, u64>,
    /// Per instance that waited, the method whose messages waited most.
    waited_in: FxHashMap<u32, u32>,
    total: u64,
    names: Names,
    own_pid: Option<u64>,
    /// The ids the JSON lists when not all ([`super::lists`]), ascending.
    listed: Option<Vec<u32>>,
}

impl Instances {
    pub fn new(
        core: Vec<Instance>,
        sums: InstSums,
        one_off: FxHashMap<u32, u64>,
        waits: FxHashMap<u32, u64>,
        total: u64,
        names: &Names,
        own_pid: Option<u64>,
    ) -> Instances {
        // The per-instance names are built from the class names and process ids only.
        let mut own = Names::default();
        own.classes = names.classes.clone();
        own.processes = names.processes.clone();
        let names = own;
        Instances {
            core,
            sums,
            one_off,
            waits,
            waited_in: FxHashMap::default(),
            total,
            names,
            own_pid,
            listed: None,
        }
    }
    pub fn len(&self) -> usize {
        self.core.len()
    }
    /// The JSON lists only these instances (sorted and deduplicated here).
    pub(super) fn list_only(&mut self, mut ids: Vec<u32>) {
        ids.sort_unstable();
        ids.dedup();
        ids.retain(|&i| (i as usize) < self.core.len());
        self.listed = Some(ids);
    }
    /// How many instances the JSON lists.
    pub fn listed(&self) -> usize {
        self.listed.as_ref().map_or(self.core.len(), Vec::len)
    }
    pub fn is_empty(&self) -> bool {
        self.core.is_empty()
    }
    fn sum(&self, i: u32, field: usize, f: impl Fn(&InstAcc) -> u32) -> u64 {
        self.sums.get(i, field, f)
    }
    /// The numbers of instance `id`, without its strings.
    pub fn row(&self, id: u32) -> Option<InstRow> {
        let inst = self.core.get(id as usize)?;
        let active = self.sums.active(id);
        Some(InstRow {
            id,
            kind: inst.kind,
            class: inst.class,
            active_time: active,
            level: level(active, self.total),
            received: self.sum(id, RECEIVED, |a| a.received),
            sent: self.sum(id, SENT, |a| a.sent),
            cyclic: self.sum(id, CYCLIC, |a| a.cyclic),
            neighbours: self.sums.neighbours(id),
        })
    }
    /// Every instance's numbers, in id order. Streams the instances beside their sums and
    /// reads the side map of wide sums only when it holds any: selections pass over a
    /// million rows.
    /// Whether instance `id` stands for the objects a runtime folded into their class (their
    /// calls only counted: `Class#*`).
    pub fn is_folded(&self, id: u32) -> bool {
        self.core
            .get(id as usize)
            .is_some_and(|i| crate::analyse::walk::is_folded(i.oid()))
    }
    /// Each instance's id, kind and class id, without its sums (a pass over millions).
    pub fn kinds(&self) -> impl Iterator<Item = (u32, InstKind, u32)> + '_ {
        self.core
            .iter()
            .enumerate()
            .map(|(i, inst)| (i as u32, inst.kind, inst.class))
    }
    pub fn rows(&self) -> impl Iterator<Item = InstRow> + '_ {
        let narrow = self.sums.wide.0.is_empty();
        let acc = &self.sums.acc;
        self.core.iter().enumerate().map(move |(i, inst)| {
            let id = i as u32;
            match acc.get(i) {
                Some(a) if narrow => InstRow {
                    id,
                    kind: inst.kind,
                    class: inst.class,
                    active_time: a.active as u64,
                    level: level(a.active as u64, self.total),
                    received: a.received as u64,
                    sent: a.sent as u64,
                    cyclic: a.cyclic as u64,
                    neighbours: a.neighbours,
                },
                _ => self.row(id).expect("an instance's row"),
            }
        })
    }
    /// The instances whose messages waited off the CPU, with their waiting (any order).
    pub fn waiters(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.waits.iter().map(|(&i, &w)| (i, w))
    }
    /// Keeps, per instance, the method whose messages waited most of `by` (instance,
    /// method) -> waiting; ties go to the lower method id, so the choice is stable.
    pub(super) fn set_waited_in(&mut self, by: &FxHashMap<(u32, u32), u64>) {
        let mut most: FxHashMap<u32, (u64, u32)> = FxHashMap::default();
        for (&(i, m), &w) in by {
            let e = most.entry(i).or_insert((w, m));
            if (w, std::cmp::Reverse(m)) > (e.0, std::cmp::Reverse(e.1)) {
                *e = (w, m);
            }
        }
        self.waited_in = most.into_iter().map(|(i, (_, m))| (i, m)).collect();
    }
    /// The method instance `id` waited in most, when it waited.
    pub fn waited_in(&self, id: u32) -> Option<u32> {
        self.waited_in.get(&id).copied()
    }
    /// The net time instance `id`'s messages waited off the CPU.
    pub fn waiting(&self, id: u32) -> u64 {
        self.waits.get(&id).copied().unwrap_or(0)
    }
    pub fn one_off_time(&self, id: u32) -> u64 {
        self.one_off.get(&id).copied().unwrap_or(0)
    }
    /// Class name of an object or class instance (`None` for a root).
    pub fn class_of(&self, id: u32) -> Option<&str> {
        let i = self.core.get(id as usize)?;
        (i.kind != InstKind::Root).then(|| self.names.class(i.class))
    }
    pub fn label(&self, id: u32) -> String {
        self.core.get(id as usize).map_or_else(
            || "?".into(),
            |i| crate::analyse::walk::instance_label(i, &self.names),
        )
    }
    pub fn class_name(&self, class: u32) -> &str {
        self.names.class(class)
    }
    /// How many class names the trace defines (class ids below this have one).
    pub fn class_count(&self) -> usize {
        self.names.classes.len()
    }
    /// The full statistics of instance `id`.
    pub fn get(&self, id: u32) -> Option<InstanceStats> {
        let inst = self.core.get(id as usize)?;
        let r = self.row(id)?;
        let root = inst.kind == InstKind::Root;
        let bytes = self.sum(id, BYTES, |a| a.bytes);
        let names = &self.names;
        Some(InstanceStats {
            id,
            kind: inst.kind,
            label: crate::analyse::walk::instance_label(inst, names),
            class: (!root).then(|| names.class(inst.class).to_string()),
            oid: inst.oid(),
            tid: root.then_some(inst.tid()),
            pid: names
                .process_of(if root { inst.tid() } else { inst.oid() })
                .or(self.own_pid),
            size: inst.size(),
            created: inst.created(),
            destroyed: inst.destroyed(),
            active_time: r.active_time,
            waiting: self.waiting(id),
            level: r.level,
            band: Band::of(r.level),
            received: r.received,
            sent: r.sent,
            cyclic: r.cyclic,
            neighbours: r.neighbours,
            received_bytes: bytes,
            one_off_time: self.one_off.get(&id).copied().unwrap_or(0),
            granularity: per_byte(r.active_time, bytes),
        })
    }
    /// Every instance's statistics, in id order (built one at a time).
    pub fn iter(&self) -> impl Iterator<Item = InstanceStats> + '_ {
        (0..self.core.len() as u32).filter_map(|i| self.get(i))
    }
    /// The statistics of the first `n` rows passing `keep` in the order `before` (a strict
    /// "x comes first" order), in that order; the others are never built.
    pub fn top(
        &self,
        n: usize,
        keep: impl Fn(&InstRow) -> bool,
        before: impl Fn(&InstRow, &InstRow) -> Ordering,
    ) -> Vec<InstanceStats> {
        let mut top = TopRows::new(n, before);
        for r in self.rows().filter(|r| keep(r)) {
            top.offer(&r);
        }
        self.stats_of(&top.into_sorted())
    }
    /// The full statistics of these rows' instances, in their order.
    pub fn stats_of(&self, rows: &[InstRow]) -> Vec<InstanceStats> {
        rows.iter().filter_map(|r| self.get(r.id)).collect()
    }
}

/// The first `n` of the rows offered in the order `before` (a strict "x comes first"
/// order). A heap whose root is the last row kept: a row that does not make the cut, most
/// rows of a large run, costs one comparison, so several selections can share one pass
/// over a million instances.
pub struct TopRows<T, F> {
    n: usize,
    before: F,
    heap: Vec<T>,
}

impl<T: Copy, F: Fn(&T, &T) -> Ordering> TopRows<T, F> {
    pub fn new(n: usize, before: F) -> Self {
        TopRows {
            n,
            before,
            heap: Vec::new(),
        }
    }
    #[inline]
    pub fn offer(&mut self, r: &T) {
        if self.heap.len() < self.n {
            self.heap.push(*r);
            self.up(self.heap.len() - 1);
        } else if self.n > 0 && (self.before)(r, &self.heap[0]) == Ordering::Less {
            self.heap[0] = *r;
            self.down(0);
        }
    }
    /// Whether `x` comes before `y` (x belongs nearer the leaves).
    fn first(&self, x: usize, y: usize) -> bool {
        (self.before)(&self.heap[x], &self.heap[y]) == Ordering::Less
    }
    fn up(&mut self, mut i: usize) {
        while i > 0 {
            let p = (i - 1) / 2;
            if !self.first(p, i) {
                break;
            }
            self.heap.swap(p, i);
            i = p;
        }
    }
    fn down(&mut self, mut i: usize) {
        loop {
            let mut last = i;
            for c in [2 * i + 1, 2 * i + 2] {
                if c < self.heap.len() && self.first(last, c) {
                    last = c;
                }
            }
            if last == i {
                return;
            }
            self.heap.swap(i, last);
            i = last;
        }
    }
    /// The rows kept, in the order `before`.
    pub fn into_sorted(self) -> Vec<T> {
        let mut rows = self.heap;
        rows.sort_by(&self.before);
        rows
    }
}

impl Serialize for Instances {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let mut seq = ser.serialize_seq(Some(self.listed()))?;
        match &self.listed {
            Some(ids) => {
                for i in ids.iter().filter_map(|&i| self.get(i)) {
                    seq.serialize_element(&i)?;
                }
            }
            None => self.iter().try_for_each(|i| seq.serialize_element(&i))?,
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both halves of `n` messages from `from` to `to`, as [`Edges::per_instance`] adds them.
    fn messages(s: &mut InstSums, from: u32, to: u32, n: u64, net: u64, size: u64) {
        s.at(from.max(to));
        s.sent(from, n);
        s.received_from(from, to, n, net, size);
    }

    /// Sums past 2³² carry into the side map and read back exactly (times in ns pass 2³²
    /// after 4.3 s; counts after 4.3 G messages, simulated by starting the cell near the top).
    #[test]
    fn sums_past_32_bits_are_exact() {
        let mut s = InstSums::default();
        let mut e = EdgeSums::default();
        let big = 3_000_000_000u64;
        for _ in 0..5 {
            messages(&mut s, 0, 1, 1, big, 7);
            e.message(0, 1, big + 1, big, u32::MAX as u64);
        }
        s.acc[1].received = u32::MAX - 1;
        messages(&mut s, 0, 1, 1, 1, 0);
        messages(&mut s, 0, 1, 1, 1, 0);
        s.add_active(1, big);
        assert_eq!(s.active(1), 6 * big + 2);
        assert_eq!(s.received(1), u32::MAX as u64 + 1);
        assert_eq!(s.get(0, SENT, |a| a.sent), 7);
        // A merged aggregate of many messages counts them all.
        e.messages(0, 1, 3 << 32, 1, 1, 0);
        messages(&mut s, 2, 2, 1 << 33, 0, 0);
        assert_eq!(
            (s.received(2), s.get(2, CYCLIC, |a| a.cyclic)),
            (1 << 33, 1 << 33)
        );
        let edges = Edges::new(e, 1);
        let row = edges.get(0).unwrap();
        assert_eq!(
            (row.calls, row.aggregate_time, row.net_time, row.bytes),
            (
                5 + (3 << 32),
                5 * (big + 1) + 1,
                5 * big + 1,
                5 * u32::MAX as u64
            )
        );
    }

    /// The streaming `rows()` gives what `row(id)` gives, with and without sums past 32 bits.
    #[test]
    fn streamed_rows_equal_single_rows() {
        let mut e = EdgeSums::default();
        for k in 0..300u32 {
            e.message(k % 17, (k * 7) % 29, 5, 3, 8);
        }
        for wide in [false, true] {
            let mut e = Edges::new(std::mem::take(&mut e), 1000);
            if wide {
                let mut w = EdgeSums::default();
                w.messages(3, 4, 1 << 33, 1 << 34, 1 << 35, 0);
                e = Edges::new(w, 1000);
            }
            let sums = e.per_instance(30);
            let core: Vec<Instance> = (0..30)
                .map(|i| Instance::new(InstKind::Object, i % 3, i as u64 + 1))
                .collect();
            let inst = Instances::new(
                core,
                sums,
                FxHashMap::default(),
                FxHashMap::default(),
                1000,
                &Names::default(),
                None,
            );
            let streamed: Vec<_> = inst.rows().map(|r| format!("{r:?}")).collect();
            let single: Vec<_> = (0..30)
                .map(|i| format!("{:?}", inst.row(i).unwrap()))
                .collect();
            assert_eq!(streamed, single, "wide={wide}");
            let r = inst.row(4).unwrap();
            if wide {
                assert_eq!((r.active_time, r.received), (1 << 35, 1 << 33));
            } else {
                assert!(inst.rows().all(|r| r.received < 300) && r.received > 5);
            }
        }
    }

    /// Every path of `sort_rows` — small buckets, radix-sorted buckets with receivers
    /// past 22 bits, and a busy sender's bucket too large for the scratch — sorts like a
    /// plain sort.
    #[test]
    fn sort_rows_matches_a_plain_sort() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let row = |s: u32, r: u32| EdgeRow {
            sender: s,
            receiver: r,
            calls: s ^ r,
            agg: 0,
            net: 0,
            bytes: 0,
        };
        let mut rows = Vec::new();
        for k in 0..(LSD_MAX as u32 + 5000) {
            rows.push(row(7, k.wrapping_mul(2_654_435_761))); // one busy sender
        }
        for _ in 0..200_000 {
            let v = next();
            rows.push(row((v % 3_000_000) as u32, (v >> 32) as u32 >> (v % 20)));
        }
        let mut seen = rustc_hash::FxHashSet::default();
        rows.retain(|e| seen.insert((e.sender, e.receiver)));
        let mut want = rows.clone();
        want.sort_unstable_by_key(|e| (e.sender, e.receiver));
        let max = rows.iter().map(|e| e.sender).max().unwrap_or(0);
        sort_rows(&mut rows, max);
        let k = |v: &[EdgeRow]| {
            v.iter()
                .map(|e| (e.sender, e.receiver, e.calls))
                .collect::<Vec<_>>()
        };
        assert_eq!(k(&rows), k(&want));
    }

    /// The heap keeps exactly the first `n` rows of a plain sort, for every `n`, whatever
    /// the order the rows come in (ties on the key are broken by id, as every caller does).
    #[test]
    fn top_rows_are_the_first_of_a_sort() {
        let row = |id: u32, t: u64| InstRow {
            id,
            kind: InstKind::Object,
            class: 0,
            active_time: t,
            level: 0.0,
            received: 0,
            sent: 0,
            cyclic: 0,
            neighbours: 0,
        };
        let mut x = 7u64;
        let mut rows: Vec<InstRow> = (0..2000u32)
            .map(|id| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                row(id, (x >> 33) % 300)
            })
            .collect();
        let before =
            |a: &InstRow, b: &InstRow| b.active_time.cmp(&a.active_time).then(a.id.cmp(&b.id));
        for order in 0..3 {
            match order {
                1 => rows.sort_by(before),
                2 => rows.sort_by(|a, b| before(b, a)),
                _ => {}
            }
            let mut want = rows.clone();
            want.sort_by(before);
            for n in [0, 1, 2, 7, 100, 1999, 2000, 5000] {
                let mut t = TopRows::new(n, before);
                rows.iter().for_each(|r| t.offer(r));
                let got: Vec<_> = t.into_sorted().iter().map(|r| r.id).collect();
                let w: Vec<_> = want.iter().take(n).map(|r| r.id).collect();
                assert_eq!(got, w, "n={n} order={order}");
            }
        }
    }

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

    #[test]
    fn edges_are_found_again_and_sorted() {
        let mut e = EdgeSums::default();
        for k in 0..10_000u32 {
            e.message(k % 97, k % 89, 1, 1, 0);
        }
        assert_eq!(e.len(), 8633);
        let edges = Edges::new(e, 1);
        let rows: Vec<_> = edges.iter().map(|r| (r.sender, r.receiver)).collect();
        assert!(rows.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(edges.iter().map(|r| r.calls).sum::<u64>(), 10_000);
    }

    /// Many edges from senders across a wide id range take the bucket rounds of
    /// `sort_rows`; the order and every sum must match a plain sort, and the per-instance
    /// sums and neighbour counts a direct count, from the rows in the walk's order and sorted.
    #[test]
    fn large_edge_sets_sort_and_sum_like_a_direct_count() {
        let mut e = EdgeSums::default();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let n = 300_000u32;
        let mut direct: FxHashMap<(u32, u32), (u64, u64, u64)> = FxHashMap::default();
        for _ in 0..120_000 {
            let v = next();
            // A few busy senders, many with one or two receivers, some pairs both ways.
            let s = if v % 10 == 0 {
                (v >> 8) as u32 % 4
            } else {
                (v >> 8) as u32 % n
            };
            let r = if v % 7 == 0 { s } else { (v >> 32) as u32 % n };
            let (s, r) = if v % 5 == 0 { (r, s) } else { (s, r) };
            let (net, size) = (v % 1000, v % 64);
            // Every third pair is also sent the other way (counted once as neighbours).
            let pairs: &[(u32, u32)] = if v % 3 == 0 {
                &[(s, r), (r, s)]
            } else {
                &[(s, r)]
            };
            for &(s, r) in pairs {
                e.message(s, r, 2 * net, net, size);
                let d = direct.entry((s, r)).or_default();
                *d = (d.0 + 1, d.1 + net, d.2 + size);
            }
        }
        let edges = Edges::new(e, 1);
        // Sums from the walk's order first, then the sorted rows, then sums again from those.
        let sums = edges.per_instance(n as usize);
        let rows: Vec<_> = edges.iter().map(|r| (r.sender, r.receiver)).collect();
        let mut want: Vec<_> = direct.keys().copied().collect();
        want.sort_unstable();
        assert_eq!(rows, want);
        let sorted = edges.per_instance(n as usize);
        let mut received = vec![0u64; n as usize];
        let mut active = vec![0u64; n as usize];
        let mut sent = vec![0u64; n as usize];
        let mut pairs = rustc_hash::FxHashSet::default();
        for (&(s, r), &(calls, net, _)) in &direct {
            received[r as usize] += calls;
            active[r as usize] += net;
            sent[s as usize] += calls;
            if s != r {
                pairs.insert((s.min(r), s.max(r)));
            }
        }
        let mut neigh = vec![0u32; n as usize];
        for (a, b) in pairs {
            neigh[a as usize] += 1;
            neigh[b as usize] += 1;
        }
        for i in 0..n {
            assert_eq!(sums.received(i), received[i as usize], "received {i}");
            assert_eq!(sums.active(i), active[i as usize], "active {i}");
            assert_eq!(sums.get(i, SENT, |a| a.sent), sent[i as usize], "sent {i}");
        }
        let neighbours: Vec<u32> = (0..n).map(|i| sums.neighbours(i)).collect();
        assert_eq!(neighbours, neigh);
        for i in 0..n {
            assert_eq!(
                sorted.neighbours(i),
                neigh[i as usize],
                "sorted: neighbours {i}"
            );
            assert_eq!(
                sorted.received(i),
                received[i as usize],
                "sorted: received {i}"
            );
        }
    }
}
