//! The timeline's level-of-detail summaries, computed once by `revy report`: every thread's
//! outermost messages (all of them, not the page's sample) binned into columns of the run's
//! span at a few zoom levels (each 4× finer). Per column: the busy time (the messages' time
//! inside it, so a thread's columns add up to its busy time), the part of it spent waiting
//! off the CPU, and the method of the busiest slice (the message with the most time in it),
//! which colours the column.

use serde::Serialize;

/// Columns across the run at the coarsest level.
pub const COLUMNS: u64 = 2048;
/// Each level has this many times the columns of the one before.
pub const FACTOR: u64 = 4;
/// Levels at most; fewer when the threads' cells would exceed [`BUDGET`].
pub const LEVELS: usize = 3;
/// Filled cells over all threads and levels (bounds the page's size: ~25 bytes a cell).
pub const BUDGET: usize = 60_000;

/// One outermost message (trace units; its method's id).
#[derive(Debug, Clone, Copy)]
pub struct Slice {
    pub start: u64,
    pub end: u64,
    pub method: u32,
    pub wait: u64,
}

/// Collects each thread's outermost messages during the report's walk.
#[derive(Debug, Default)]
pub struct Collector {
    /// Per thread (the walk's thread index), its outermost messages in end order.
    pub threads: Vec<(u64, Vec<Slice>)>,
    index: rustc_hash::FxHashMap<u64, usize>,
}

impl Collector {
    pub fn add(&mut self, tid: u64, s: Slice) {
        let k = *self.index.entry(tid).or_insert_with(|| {
            self.threads.push((tid, Vec::new()));
            self.threads.len() - 1
        });
        self.threads[k].1.push(s);
    }
}

/// The page's summaries: per level, per thread, the filled columns.
#[derive(Debug, Default, Serialize)]
pub struct Timeline {
    /// The columns' origin and the run's end (trace units).
    pub t0: u64,
    pub t1: u64,
    /// Columns at each level.
    pub columns: Vec<u64>,
    pub threads: Vec<ThreadLod>,
}

#[derive(Debug, Default, Serialize)]
pub struct ThreadLod {
    pub tid: u64,
    /// Busy time of its outermost messages (what its columns add up to).
    pub busy: u64,
    pub messages: u64,
    /// Per level: `[column, busy, waiting, method]` of each filled column (the method of
    /// its busiest slice).
    pub levels: Vec<Vec<[u64; 4]>>,
}

/// Bins every thread's slices over `[t0, t1]`.
pub fn summarise(c: Collector, t0: u64, t1: u64) -> Timeline {
    let span = t1.saturating_sub(t0).max(1);
    let mut columns = Vec::new();
    let mut n = COLUMNS;
    let mut cells = 0usize;
    let threads = c.threads.len().max(1);
    while columns.len() < LEVELS && (columns.is_empty() || cells + threads * n as usize <= BUDGET) {
        columns.push(n);
        cells += threads * n as usize;
        n *= FACTOR;
    }
    let mut out: Vec<ThreadLod> = c
        .threads
        .into_iter()
        .map(|(tid, slices)| ThreadLod {
            tid,
            busy: slices.iter().map(|s| s.end.saturating_sub(s.start)).sum(),
            messages: slices.len() as u64,
            levels: columns.iter().map(|&n| bin(&slices, t0, span, n)).collect(),
        })
        .collect();
    out.sort_by_key(|t| t.tid);
    Timeline {
        t0,
        t1,
        columns,
        threads: out,
    }
}

/// One level of one thread: slices in end order do not overlap (one stack per thread).
fn bin(slices: &[Slice], t0: u64, span: u64, n: u64) -> Vec<[u64; 4]> {
    // Column k covers [t0 + k·span/n, t0 + (k+1)·span/n), in exact integer arithmetic.
    let edge = |k: u64| t0 + ((k as u128 * span as u128) / n as u128) as u64;
    let col =
        |t: u64| (((t.saturating_sub(t0)) as u128 * n as u128 / span as u128) as u64).min(n - 1);
    let mut out: Vec<[u64; 4]> = Vec::new();
    // (best overlap, its column cell) kept for the open column.
    let mut best = 0u64;
    for s in slices {
        if s.end <= s.start {
            continue;
        }
        // Columns past `col(end)` start at or after the end (columns can be under a unit).
        let (c0, c1) = (col(s.start), (col(s.end) + 1).min(n - 1));
        let len = s.end - s.start;
        for k in c0..=c1 {
            let (a, b) = (edge(k).max(s.start), edge(k + 1).min(s.end));
            let b = if k == n - 1 { s.end } else { b };
            let part = b.saturating_sub(a);
            if part == 0 {
                continue;
            }
            let wait = ((s.wait as u128 * part as u128) / len as u128) as u64;
            if out.last().is_none_or(|c| c[0] != k) {
                out.push([k, 0, 0, 0]);
                best = 0;
            }
            let c = out.last_mut().expect("a column");
            c[1] += part;
            c[2] += wait;
            if part > best {
                best = part;
                c[3] = s.method as u64;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice(start: u64, end: u64) -> Slice {
        Slice {
            start,
            end,
            method: 1,
            wait: 0,
        }
    }

    #[test]
    fn columns_add_up_to_the_busy_time() {
        let mut c = Collector::default();
        for k in 0..1000u64 {
            c.add(7, slice(k * 10 + 1, k * 10 + 8));
        }
        c.add(9, slice(0, 10_000));
        let t = summarise(c, 0, 10_000);
        assert_eq!(t.columns, vec![2048, 8192]);
        for th in &t.threads {
            for level in &th.levels {
                let sum: u64 = level.iter().map(|c| c[1]).sum();
                assert_eq!(sum, th.busy, "thread {}", th.tid);
            }
        }
        assert_eq!(t.threads[0].busy, 7000);
        assert_eq!(t.threads[1].levels[0].len(), 2048);
    }
}
