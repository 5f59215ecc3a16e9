//! Compact per-instance and per-edge statistics (issue 13, item 4): a run can have millions
//! of instances and edges, so sums are kept in 32-bit cells whose carries spill into a side
//! map (rarely used: a sum must pass 2³² to get there), and the public rows
//! ([`InstanceStats`](super::InstanceStats), [`EdgeStats`](super::EdgeStats)) are built only when asked for or serialised.
//!
//! By part: the walk's accumulators (`sums`: per instance, `edge_sums`: per edge), the
//! analysis's views built from them (`edges`, `instances`), the edge sort (`sort`) and the
//! top-n selection both views use (`top`).

use rustc_hash::FxHashMap;

mod edge_sums;
mod edges;
mod instances;
mod sort;
mod sums;
#[cfg(test)]
mod tests;
mod top;

pub use edge_sums::EdgeSums;
pub use edges::Edges;
pub use instances::{InstRow, Instances};
pub use sums::InstSums;
pub use top::TopRows;

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
