//! Streaming accumulators and the top-N message keeper.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::Serialize;

/// Calls, total, min, max, mean and standard deviation of a series (as JaViz reports).
#[derive(Debug, Clone, Copy, Default)]
pub struct Acc {
    pub n: u64,
    pub sum: u64,
    pub min: u64,
    pub max: u64,
    /// Sum of squares in f64: exact enough for a std-dev, never overflows.
    pub sq: f64,
}

impl Acc {
    #[inline]
    pub fn add(&mut self, x: u64) {
        if self.n == 0 || x < self.min {
            self.min = x;
        }
        self.max = self.max.max(x);
        self.n += 1;
        self.sum += x;
        self.sq += (x as f64) * (x as f64);
    }
    pub fn summary(&self) -> Summary {
        let mean = if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        };
        let var = if self.n == 0 {
            0.0
        } else {
            (self.sq / self.n as f64 - mean * mean).max(0.0)
        };
        Summary {
            total: self.sum,
            min: self.min,
            max: self.max,
            mean,
            std_dev: var.sqrt(),
        }
    }
}

/// Population statistics of one quantity over a method's calls.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Summary {
    pub total: u64,
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub std_dev: f64,
}

/// One message kept for the message-order view.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MessageRecord {
    /// Message order: the position of its start among all messages (0-based).
    pub order: u64,
    pub tid: u64,
    pub method: u32,
    pub sender: u32,
    pub receiver: u32,
    pub start: u64,
    pub end: u64,
    pub aggregate_time: u64,
    pub net_time: u64,
    pub size: u64,
    /// 0 for a message sent by the thread's root.
    pub depth: u32,
    pub parent_order: Option<u64>,
    pub cyclic: bool,
    /// The callee with the largest aggregate time.
    pub heaviest_callee: Option<Callee>,
    pub level: f64,
    pub band: super::Band,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Callee {
    pub method: u32,
    pub receiver: u32,
    pub aggregate_time: u64,
}

struct ByAgg(MessageRecord);

impl PartialEq for ByAgg {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
    }
}
impl Eq for ByAgg {}
impl PartialOrd for ByAgg {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for ByAgg {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.key().cmp(&o.key())
    }
}
impl ByAgg {
    /// Larger aggregate wins; on ties the earlier message wins.
    fn key(&self) -> (u64, Reverse<u64>) {
        (self.0.aggregate_time, Reverse(self.0.order))
    }
}

/// Keeps the `cap` messages with the largest aggregate time (all of them when fewer).
pub struct TopMessages {
    cap: usize,
    heap: BinaryHeap<Reverse<ByAgg>>,
    pub seen: u64,
}

impl TopMessages {
    pub fn new(cap: usize) -> Self {
        TopMessages {
            cap,
            heap: BinaryHeap::new(),
            seen: 0,
        }
    }
    /// Whether a message with this aggregate would be kept (avoids building records).
    #[inline]
    pub fn wants(&self, aggregate: u64) -> bool {
        self.heap.len() < self.cap
            || self
                .heap
                .peek()
                .is_some_and(|m| aggregate > m.0 .0.aggregate_time)
    }
    pub fn push(&mut self, m: MessageRecord) {
        if self.cap == 0 {
            return;
        }
        if self.heap.len() < self.cap {
            self.heap.push(Reverse(ByAgg(m)));
        } else if let Some(mut min) = self.heap.peek_mut() {
            if ByAgg(m.clone()) > min.0 {
                *min = Reverse(ByAgg(m));
            }
        }
    }
    /// The kept messages in message order.
    pub fn into_sorted(self) -> Vec<MessageRecord> {
        let mut v: Vec<_> = self.heap.into_iter().map(|r| r.0 .0).collect();
        v.sort_by_key(|m| m.order);
        v
    }
}
