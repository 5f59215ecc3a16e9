//! The edges of an analysis, and the per-instance sums built from them.

use std::sync::{Mutex, OnceLock};

use rustc_hash::FxHashSet;
use serde::ser::{Serialize, SerializeSeq, Serializer};

use super::edge_sums::{edge_hash, EdgeRow, EdgeSums};
use super::sort::{buckets, place, sort_rows, BUCKET_BITS};
use super::sums::{InstAcc, InstSums};
use super::{filled, TopRows, Wide};
use crate::analyse::analysis::{level, Band, EdgeStats};
use crate::analyse::walk::prefetch;

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
    pub(in crate::analyse::analysis) fn list_heaviest(&mut self, n: usize) {
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
    pub(in crate::analyse::analysis) fn for_each_listed(&self, mut f: impl FnMut(&EdgeStats)) {
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
