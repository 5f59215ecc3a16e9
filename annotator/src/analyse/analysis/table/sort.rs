//! The (sender, receiver) sort of edge rows, and the in-place bucketing it shares with
//! [`super::Edges::per_instance`].

use super::edge_sums::EdgeRow;

/// Buckets of [`super::Edges::per_instance`]: 2^10 (at 10⁶ instances the pass took 85–94 ms with
/// 2^10 and 2^9, 128–163 with 2^11).
pub(super) const BUCKET_BITS: u32 = 10;

/// Sorts rows by (sender, receiver): first in place into buckets by the sender's high bits
/// (each round moves each row once; its writes go to one of at most 1024 places at a time),
/// then each bucket — small enough for the core's cache — by a least-significant-digit
/// radix sort through a scratch buffer of its size (a huge bucket, one busy sender's, by a
/// second in-place round and comparison sorts instead, so the scratch stays small). A
/// comparison sort of millions of rows at once spends its time on cache misses, and a
/// comparison sort per handful of rows on mispredicted branches.
/// `max` is the highest sender.
pub(super) fn sort_rows(rows: &mut [EdgeRow], max: u32) {
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
pub(super) const LSD_MAX: usize = 1 << 16;

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
pub(super) fn buckets(
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
pub(super) fn place(
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
