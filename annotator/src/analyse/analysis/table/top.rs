//! The first n rows of a pass in a given order.

use std::cmp::Ordering;

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
