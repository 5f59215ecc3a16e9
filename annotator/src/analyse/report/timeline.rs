//! The timeline's level-of-detail summaries, computed once by `revy report`: every message
//! of every thread (all of them, not the page's sample), one row per nesting depth, binned
//! into columns of the run's span at a few zoom levels (each 4× finer). Per column: the busy
//! time (the messages' time inside it, so a row's columns add up to its messages' time and
//! the top row's to the thread's busy time), the part of it spent waiting off the CPU, and
//! the method of the busiest slice (the message with the most time in it), which colours it.

use serde::Serialize;

/// Columns across the run at the coarsest level (halved while its cells exceed [`BUDGET`]).
pub const COLUMNS: u64 = 2048;
/// The coarsest level's columns at least.
pub const MIN_COLUMNS: u64 = 256;
/// Each level has this many times the columns of the one before.
pub const FACTOR: u64 = 4;
/// Levels at most; fewer when the filled cells would exceed [`BUDGET`].
pub const LEVELS: usize = 4;
/// Filled cells over all threads, rows and levels (bounds the page's size: ~14 bytes a cell).
pub const BUDGET: usize = 80_000;
/// Depth rows per thread: messages deeper than the last row lie inside one of its messages.
pub const ROWS: usize = 12;

/// One message (trace units; its method's id).
#[derive(Debug, Clone, Copy)]
pub struct Slice {
    pub start: u64,
    pub end: u64,
    pub method: u32,
    pub wait: u64,
}

/// Collects each thread's messages per depth during the report's walk.
#[derive(Debug, Default)]
pub struct Collector {
    /// Per thread (in first-seen order), its messages per depth row, each row in end order.
    pub threads: Vec<(u64, Vec<Vec<Slice>>)>,
    index: rustc_hash::FxHashMap<u64, usize>,
}

impl Collector {
    /// A message at `depth` (0: outermost); deeper than the last row is inside it, not kept.
    pub fn add(&mut self, tid: u64, depth: usize, s: Slice) {
        if depth >= ROWS {
            return;
        }
        let k = *self.index.entry(tid).or_insert_with(|| {
            self.threads.push((tid, Vec::new()));
            self.threads.len() - 1
        });
        let rows = &mut self.threads[k].1;
        if rows.len() <= depth {
            rows.resize_with(depth + 1, Vec::new);
        }
        rows[depth].push(s);
    }
}

/// The page's summaries: per thread, per depth row, per level, the filled columns.
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
    /// Busy time of its outermost messages (what its top row's columns add up to).
    pub busy: u64,
    /// Messages in its rows.
    pub messages: u64,
    /// Depth 0, 1, ...: the row's messages (deeper ones lie inside the last row's).
    pub rows: Vec<RowLod>,
}

#[derive(Debug, Default, Serialize)]
pub struct RowLod {
    /// Time of its messages (what each level's columns add up to).
    pub busy: u64,
    pub messages: u64,
    /// Per level, flat: `column step, busy, waiting, method` of each filled column (the
    /// step from the previous filled column, or from column 0; the method of its busiest
    /// slice). Flat and stepped to keep the page small.
    pub levels: Vec<Vec<u64>>,
}

/// A level's columns as the page gets them (see [`RowLod::levels`]).
fn flat(cells: &[[u64; 4]]) -> Vec<u64> {
    let mut out = Vec::with_capacity(4 * cells.len());
    let mut at = 0;
    for c in cells {
        out.extend([c[0] - at, c[1], c[2], c[3]]);
        at = c[0];
    }
    out
}

/// The columns of a [`flat`] level.
#[cfg(test)]
fn unflat(level: &[u64]) -> Vec<[u64; 4]> {
    let mut at = 0;
    (level.chunks_exact(4))
        .map(|c| {
            at += c[0];
            [at, c[1], c[2], c[3]]
        })
        .collect()
}

/// Bins every thread's rows over `[t0, t1]` at the levels the budget allows.
pub fn summarise(c: Collector, t0: u64, t1: u64) -> Timeline {
    let span = t1.saturating_sub(t0).max(1);
    let all = |n: u64| -> Vec<Vec<Vec<[u64; 4]>>> {
        (c.threads.iter())
            .map(|(_, rows)| rows.iter().map(|r| bin(r, t0, span, n)).collect())
            .collect()
    };
    let cells = |lv: &Vec<Vec<Vec<[u64; 4]>>>| lv.iter().flatten().map(Vec::len).sum::<usize>();
    // The coarsest level: as many columns as fit the budget.
    let mut n = COLUMNS;
    let mut level = all(n);
    while cells(&level) > BUDGET && n > MIN_COLUMNS {
        n /= 2;
        level = all(n);
    }
    let mut used = cells(&level);
    // A finer level only while the messages outnumber the cells: past that, columns only
    // cut long messages into pieces (23 messages of a bank example made 600 kB of them).
    let messages: usize = c
        .threads
        .iter()
        .flat_map(|(_, r)| r.iter().map(Vec::len))
        .sum();
    let (mut columns, mut levels) = (vec![n], vec![level]);
    while levels.len() < LEVELS && used < messages {
        n *= FACTOR;
        let level = all(n);
        used += cells(&level);
        if used > BUDGET {
            break;
        }
        columns.push(n);
        levels.push(level);
    }
    let mut out: Vec<ThreadLod> = Vec::with_capacity(c.threads.len());
    for (k, (tid, rows)) in c.threads.iter().enumerate() {
        let rows: Vec<RowLod> = (rows.iter().enumerate())
            .map(|(d, r)| RowLod {
                busy: r.iter().map(|s| s.end.saturating_sub(s.start)).sum(),
                messages: r.len() as u64,
                levels: levels.iter().map(|l| flat(&l[k][d])).collect(),
            })
            .collect();
        out.push(ThreadLod {
            tid: *tid,
            busy: rows.first().map_or(0, |r| r.busy),
            messages: rows.iter().map(|r| r.messages).sum(),
            rows,
        });
    }
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
    fn every_row_adds_up_to_its_messages_time() {
        let mut c = Collector::default();
        for k in 0..10_000u64 {
            c.add(7, 0, slice(k * 10 + 1, k * 10 + 8));
            c.add(7, 1, slice(k * 10 + 2, k * 10 + 5));
            c.add(7, ROWS, slice(k * 10 + 3, k * 10 + 4)); // inside depth ROWS - 1: not kept
        }
        c.add(9, 0, slice(0, 100_000));
        let t = summarise(c, 0, 100_000);
        assert_eq!(t.columns, vec![2048, 8192]);
        let busy: Vec<Vec<u64>> = t
            .threads
            .iter()
            .map(|th| th.rows.iter().map(|r| r.busy).collect())
            .collect();
        assert_eq!(busy, vec![vec![70_000, 30_000], vec![100_000]]);
        for th in &t.threads {
            assert_eq!(th.busy, th.rows[0].busy);
            for row in &th.rows {
                for level in &row.levels {
                    let sum: u64 = unflat(level).iter().map(|c| c[1]).sum();
                    assert_eq!(sum, row.busy, "thread {}", th.tid);
                }
            }
        }
        assert_eq!(unflat(&t.threads[1].rows[0].levels[0]).len(), 2048);
        assert_eq!(
            &t.threads[1].rows[0].levels[0][..8],
            &[0, 48, 0, 1, 1, 49, 0, 1]
        );
    }

    #[test]
    fn few_long_messages_get_one_level() {
        let mut c = Collector::default();
        c.add(1, 0, slice(0, 1_000_000));
        let t = summarise(c, 0, 1_000_000);
        assert_eq!(t.columns, vec![COLUMNS]);
    }

    #[test]
    fn the_page_stays_within_the_budget() {
        // 16 threads × 12 rows of back-to-back messages: every column of every row filled.
        let mut c = Collector::default();
        for tid in 0..16u64 {
            for d in 0..ROWS {
                for k in 0..5000u64 {
                    c.add(tid, d, slice(k * 20, k * 20 + 20));
                }
            }
        }
        let t = summarise(c, 0, 100_000);
        let cells: usize = (t.threads.iter())
            .flat_map(|th| {
                th.rows
                    .iter()
                    .flat_map(|r| r.levels.iter().map(|l| l.len() / 4))
            })
            .sum();
        assert!(cells <= BUDGET, "{cells} cells");
        assert_eq!(t.columns, vec![MIN_COLUMNS]);
        for th in &t.threads {
            let sum: u64 = unflat(&th.rows[ROWS - 1].levels[0])
                .iter()
                .map(|c| c[1])
                .sum();
            assert_eq!(sum, 100_000);
        }
    }
}
