//! Per-type results folded event by event as the tracker retires them: exact counts and
//! sums, the latency / work / waiting distributions (exact values up to [`EXACT`] per type,
//! then a log-linear histogram) and the slowest instances with their calls, so that memory
//! holds the live events and a fixed amount per type, not one record per event of the run.

use rustc_hash::FxHashSet;

use super::track::{EventRec, Segment, THREADS};
use super::{Dist, SLOWEST};
use crate::instrument::events::EventDef;

/// Values kept exactly per distribution; past them a histogram (relative error ≤ 1/256).
pub(crate) const EXACT: usize = 1 << 16;
/// Histogram: values below 2^MANT are their own bucket, then 2^MANT buckets per power of 2.
const MANT: u32 = 8;

/// A distribution folded value by value.
#[derive(Default)]
pub(crate) struct Vals {
    exact: Vec<u64>,
    hist: Option<Box<[u64]>>,
    n: u64,
    total: u64,
    max: u64,
}

fn bucket(v: u64) -> usize {
    if v < 1 << MANT {
        return v as usize;
    }
    let e = 63 - v.leading_zeros();
    let m = (v >> (e - MANT)) & ((1 << MANT) - 1);
    (((e - MANT + 1) << MANT) as u64 + m) as usize
}

/// The middle of bucket `b`'s values.
fn middle(b: usize) -> u64 {
    let (hi, m) = ((b >> MANT) as u32, (b & ((1 << MANT) - 1)) as u64);
    if hi == 0 {
        return m;
    }
    let e = hi + MANT - 1;
    let lo = ((1u64 << MANT) | m) << (e - MANT);
    lo + (1u64 << (e - MANT)) / 2
}

impl Vals {
    pub(crate) fn add(&mut self, v: u64) {
        self.n += 1;
        self.total += v;
        self.max = self.max.max(v);
        match &mut self.hist {
            Some(h) => h[bucket(v)] += 1,
            None if self.exact.len() < EXACT => self.exact.push(v),
            None => {
                let mut h = vec![0u64; (64 - MANT as usize + 1) << MANT].into_boxed_slice();
                for x in std::mem::take(&mut self.exact).into_iter().chain([v]) {
                    h[bucket(x)] += 1;
                }
                self.hist = Some(h);
            }
        }
    }

    /// Nearest-rank percentiles: exact while every value is kept, else the middle of the
    /// value's bucket (at most the maximum); count, total, mean and maximum exact.
    pub(crate) fn dist(&self) -> Dist {
        let Some(h) = &self.hist else {
            return Dist::of(self.exact.clone());
        };
        let at = |p: f64| {
            let rank = ((p * self.n as f64).ceil() as u64).clamp(1, self.n);
            let mut seen = 0;
            for (b, &c) in h.iter().enumerate() {
                seen += c;
                if seen >= rank {
                    return middle(b).min(self.max);
                }
            }
            self.max
        };
        Dist {
            p50: at(0.50),
            p90: at(0.90),
            p99: at(0.99),
            max: self.max,
            mean: self.total as f64 / self.n as f64,
            total: self.total,
        }
    }
}

/// A retired event among its type's slowest: its number, record and calls.
pub(crate) struct Slow {
    pub id: u32,
    pub rec: EventRec,
    pub segments: Vec<Segment>,
}

/// One event type's results so far.
#[derive(Default)]
pub(crate) struct TypeAcc {
    pub count: u64,
    pub objects: u64,
    pub bytes: u64,
    pub threads: FxHashSet<u32>,
    pub latency: Vals,
    pub work: Vals,
    pub waiting: Vals,
    /// At most [`SLOWEST`], slowest first (ties: lower number first).
    pub slowest: Vec<Slow>,
}

fn latency(e: &EventRec) -> u64 {
    e.end.saturating_sub(e.start)
}

impl TypeAcc {
    /// Folds event `id` in; `segments` gives its calls, asked only when it is among the
    /// slowest so far.
    pub(crate) fn fold(&mut self, id: u32, e: &EventRec, segments: impl FnOnce() -> Vec<Segment>) {
        let lat = latency(e);
        self.count += 1;
        self.objects += e.objects as u64;
        self.bytes += e.bytes;
        let n = (e.nthreads as usize).min(THREADS);
        self.threads.extend(e.threads[..n].iter().copied());
        self.latency.add(lat);
        self.work.add(e.work);
        self.waiting.add(lat.saturating_sub(e.work));
        let key = |s: &Slow| (std::cmp::Reverse(latency(&s.rec)), s.id);
        let mine = (std::cmp::Reverse(lat), id);
        if self.slowest.len() == SLOWEST && self.slowest.last().is_some_and(|w| key(w) < mine) {
            return;
        }
        let at = self.slowest.partition_point(|s| key(s) < mine);
        let slow = Slow {
            id,
            rec: *e,
            segments: segments(),
        };
        self.slowest.insert(at, slow);
        self.slowest.truncate(SLOWEST);
    }
}

/// Every type's results, from the events folded in the order they started.
pub(crate) struct Folded {
    pub kinds: Vec<String>,
    /// Per definition, its type's index.
    kind_of: Vec<usize>,
    pub accs: Vec<TypeAcc>,
    /// The first `cap` events (the JSON's list).
    pub listed: Vec<EventRec>,
    pub cap: usize,
    /// Events folded: the next one's number.
    pub count: u32,
}

impl Folded {
    pub(crate) fn new(defs: &[EventDef], cap: usize) -> Self {
        let mut kinds: Vec<String> = Vec::new();
        let kind_of = (defs.iter())
            .map(|d| match kinds.iter().position(|k| *k == d.kind) {
                Some(i) => i,
                None => {
                    kinds.push(d.kind.clone());
                    kinds.len() - 1
                }
            })
            .collect();
        Folded {
            accs: kinds.iter().map(|_| TypeAcc::default()).collect(),
            kinds,
            kind_of,
            listed: Vec::new(),
            cap,
            count: 0,
        }
    }

    /// Folds the next event in (by start); returns its number.
    pub(crate) fn fold(&mut self, e: &EventRec, segments: impl FnOnce() -> Vec<Segment>) -> u32 {
        let id = self.count;
        self.count += 1;
        if self.listed.len() < self.cap {
            self.listed.push(*e);
        }
        self.accs[self.kind_of[e.def as usize]].fold(id, e, segments);
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_hold_their_values_within_a_256th() {
        for v in [
            0u64,
            1,
            255,
            256,
            257,
            1000,
            123_456,
            9_876_543_210,
            u64::MAX / 3,
        ] {
            let m = middle(bucket(v));
            assert!(m.abs_diff(v) <= v / 256 + 1, "{v} -> {m}");
            assert_eq!(bucket(m), bucket(v), "{v}");
        }
    }

    #[test]
    fn past_the_exact_values_percentiles_come_from_the_histogram() {
        let mut a = Vals::default();
        let n = EXACT as u64 * 2;
        for v in 1..=n {
            a.add(v * 1000);
        }
        let d = a.dist();
        assert_eq!((d.max, d.total), (n * 1000, 1000 * n * (n + 1) / 2));
        let p99 = n * 99 / 100 * 1000;
        assert!(d.p99.abs_diff(p99) <= p99 / 256, "{} vs {p99}", d.p99);
    }
}
