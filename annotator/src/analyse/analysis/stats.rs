//! Streaming accumulators and the top-N message keeper.

use std::cmp::Reverse;

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
    /// Adds `n` values of sum `sum` known only by their range (the runtime's aggregates):
    /// the sum of squares counts them at their mean.
    pub fn merge(&mut self, n: u64, sum: u64, min: u64, max: u64) {
        if n == 0 {
            return;
        }
        if self.n == 0 || min < self.min {
            self.min = min;
        }
        self.max = self.max.max(max);
        self.n += n;
        self.sum += sum;
        let mean = sum as f64 / n as f64;
        self.sq += n as f64 * mean * mean;
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
    /// Net work time (waiting excluded).
    pub net_time: u64,
    /// Net time waiting off the CPU (blocked or preempted; measured on long calls).
    pub waiting: u64,
    pub size: u64,
    /// 0 for a message sent by the thread's root.
    pub depth: u32,
    pub parent_order: Option<u64>,
    pub cyclic: bool,
    /// The callee with the largest aggregate time.
    pub heaviest_callee: Option<Callee>,
    pub level: f64,
    pub band: super::Band,
    /// Far above its method's typical call (class loading, JIT, first I/O): never the
    /// basis of a proposal.
    pub one_off: bool,
    /// Net time per byte of message size.
    pub granularity: Option<f64>,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Callee {
    pub method: u32,
    pub receiver: u32,
    pub aggregate_time: u64,
}

/// Keeps the `cap` messages with the largest aggregate time (all of them when fewer); on
/// equal aggregates the earlier message wins. Candidates above the current floor collect in
/// a buffer that is cut back to the best `cap` when it reaches 1.25 × cap: amortised O(1)
/// per message and cache-friendly, unlike a heap of records. The buffer holds [`Kept`]
/// rows, not [`MessageRecord`]s: with the default cap it is the analysis's largest table
/// after the instances and edges.
pub struct TopMessages {
    cap: usize,
    buf: Vec<Kept>,
    /// Once cut, a message must have a larger aggregate than this to be kept.
    floor: Option<u64>,
    pub seen: u64,
}

/// What a [`MessageRecord`] holds before the analysis derives its level, band, one-off mark
/// and granularity: 104 bytes instead of 152.
#[derive(Debug, Clone, Copy)]
struct Kept {
    order: u64,
    tid: u64,
    start: u64,
    end: u64,
    aggregate: u64,
    net: u64,
    waiting: u64,
    size: u64,
    /// `u64::MAX`: sent by the thread's root.
    parent: u64,
    callee_aggregate: u64,
    method: u32,
    sender: u32,
    receiver: u32,
    /// The depth, and in the top bit whether the message is cyclic.
    depth_cyclic: u32,
    /// `u32::MAX`: no callee (a callee's receiver may itself be `u32::MAX`, "several").
    callee_method: u32,
    callee_receiver: u32,
}

const CYCLIC: u32 = 1 << 31;

/// Rows made into records between two returns of their memory (768 KiB).
const RETURN_EVERY: usize = 8192;

impl Kept {
    fn of(m: &MessageRecord) -> Kept {
        let c = m.heaviest_callee;
        Kept {
            order: m.order,
            tid: m.tid,
            start: m.start,
            end: m.end,
            aggregate: m.aggregate_time,
            net: m.net_time,
            waiting: m.waiting,
            size: m.size,
            parent: m.parent_order.unwrap_or(u64::MAX),
            callee_aggregate: c.map_or(0, |c| c.aggregate_time),
            method: m.method,
            sender: m.sender,
            receiver: m.receiver,
            depth_cyclic: m.depth.min(CYCLIC - 1) | if m.cyclic { CYCLIC } else { 0 },
            callee_method: c.map_or(u32::MAX, |c| c.method),
            callee_receiver: c.map_or(0, |c| c.receiver),
        }
    }
    fn record(&self) -> MessageRecord {
        MessageRecord {
            order: self.order,
            tid: self.tid,
            method: self.method,
            sender: self.sender,
            receiver: self.receiver,
            start: self.start,
            end: self.end,
            aggregate_time: self.aggregate,
            net_time: self.net,
            waiting: self.waiting,
            size: self.size,
            depth: self.depth_cyclic & !CYCLIC,
            parent_order: (self.parent != u64::MAX).then_some(self.parent),
            cyclic: self.depth_cyclic & CYCLIC != 0,
            heaviest_callee: (self.callee_method != u32::MAX).then_some(Callee {
                method: self.callee_method,
                receiver: self.callee_receiver,
                aggregate_time: self.callee_aggregate,
            }),
            level: 0.0,
            band: super::Band::Rest,
            one_off: false,
            granularity: None,
        }
    }
}

impl TopMessages {
    pub fn new(cap: usize) -> Self {
        TopMessages {
            cap,
            buf: Vec::new(),
            floor: None,
            seen: 0,
        }
    }
    /// Whether a message with this aggregate could be kept (avoids building records).
    #[inline]
    pub fn wants(&self, aggregate: u64) -> bool {
        self.cap > 0 && self.floor.is_none_or(|f| aggregate > f)
    }
    /// Offers a message; its level, band, one-off mark and granularity are not kept (the
    /// records come back with defaults there, for the analysis to fill in).
    pub fn push(&mut self, m: MessageRecord) {
        if !self.wants(m.aggregate_time) {
            return;
        }
        self.buf.push(Kept::of(&m));
        if self.buf.len() > self.cap + self.cap / 4 {
            self.cut();
        }
    }
    fn cut(&mut self) {
        if self.buf.len() <= self.cap {
            return;
        }
        // Later messages never beat kept ones of equal aggregate, so `floor` is strict.
        self.buf
            .select_nth_unstable_by_key(self.cap - 1, |m| (Reverse(m.aggregate), m.order));
        self.buf.truncate(self.cap);
        self.floor = self.buf.iter().map(|m| m.aggregate).min();
    }
    /// The kept messages, in no particular order (the buffer is cut back to them first: it
    /// may hold up to a quarter more, the ones a later cut would drop).
    pub fn kept(&mut self) -> impl Iterator<Item = MessageRecord> + '_ {
        self.cut();
        self.buf.iter().map(Kept::record)
    }

    /// The kept messages in message order. The records (144 bytes each) are made from the
    /// back of the rows (96 bytes), which give their memory back as they go: with both
    /// whole at once they were the analysis's peak (at 10⁶ instances 6 MB above the rest).
    pub fn into_sorted(mut self) -> Vec<MessageRecord> {
        self.cut();
        let mut v = self.buf;
        v.sort_by_key(|m| m.order);
        let mut out = Vec::with_capacity(v.len());
        while !v.is_empty() {
            let rest = v.len().saturating_sub(RETURN_EVERY);
            out.extend(v.drain(rest..).rev().map(|k| k.record()));
            v.shrink_to_fit();
        }
        out.reverse();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(order: u64, agg: u64) -> MessageRecord {
        MessageRecord {
            order,
            tid: 0,
            method: 0,
            sender: 0,
            receiver: 0,
            start: 0,
            end: agg,
            aggregate_time: agg,
            net_time: agg,
            waiting: 0,
            size: 0,
            depth: 0,
            parent_order: None,
            cyclic: false,
            heaviest_callee: None,
            one_off: false,
            granularity: None,
            level: 0.0,
            band: super::super::Band::Rest,
        }
    }

    /// A record comes back as it went in, but for the fields the analysis derives later.
    #[test]
    fn kept_rows_round_trip() {
        assert_eq!(std::mem::size_of::<Kept>(), 104);
        let mut m = rec(7, 40);
        m.tid = 3;
        m.parent_order = Some(2);
        m.cyclic = true;
        m.depth = 5;
        m.waiting = 11;
        m.heaviest_callee = Some(Callee {
            method: 9,
            receiver: u32::MAX,
            aggregate_time: 11,
        });
        assert_eq!(Kept::of(&m).record(), m);
        m.cyclic = false;
        m.parent_order = None;
        m.heaviest_callee = None;
        assert_eq!(Kept::of(&m).record(), m);
    }

    /// Until the end the buffer may hold more than `cap` candidates; `kept` gives only the
    /// `cap` largest (the one-off marks were computed over the whole buffer: a message that
    /// was not kept could count as a one-off).
    #[test]
    fn kept_is_cut_to_the_cap() {
        let mut t = TopMessages::new(8);
        for i in 0..10 {
            t.push(rec(i, 100 + i));
        }
        let mut orders: Vec<u64> = t.kept().map(|m| m.order).collect();
        orders.sort();
        assert_eq!(orders, [2, 3, 4, 5, 6, 7, 8, 9]);
    }

    #[test]
    fn keeps_the_largest_and_the_earliest_on_ties() {
        let mut t = TopMessages::new(3);
        for (i, agg) in [5, 1, 7, 5, 9, 5, 2, 7, 0, 5].into_iter().enumerate() {
            t.push(rec(i as u64, agg));
        }
        let kept: Vec<(u64, u64)> = t
            .into_sorted()
            .iter()
            .map(|m| (m.order, m.aggregate_time))
            .collect();
        assert_eq!(kept, [(2, 7), (4, 9), (7, 7)]);
        let mut t = TopMessages::new(4);
        for (i, agg) in [5, 1, 5, 5, 5].into_iter().enumerate() {
            t.push(rec(i as u64, agg));
        }
        let kept: Vec<u64> = t.into_sorted().iter().map(|m| m.order).collect();
        assert_eq!(kept, [0, 2, 3, 4]);
    }

    /// Records are made a chunk at a time from the back of the rows: across several
    /// chunks they still come whole and in message order.
    #[test]
    fn sorted_records_span_chunks_in_order() {
        let n = 2 * RETURN_EVERY + 123;
        let mut t = TopMessages::new(n);
        // Scattered aggregates and three threads; the cap is n, so none is cut.
        for i in 0..n as u64 {
            let mut m = rec(i, 1 + (i * 7919) % 5000);
            m.tid = i % 3;
            t.push(m);
        }
        let got = t.into_sorted();
        assert_eq!(got.len(), n);
        for (i, m) in got.iter().enumerate() {
            assert_eq!((m.order, m.tid), (i as u64, i as u64 % 3));
            assert_eq!(m.aggregate_time, 1 + (i as u64 * 7919) % 5000);
        }
    }

    #[test]
    fn acc_matches_javiz_style_statistics() {
        let mut a = Acc::default();
        for x in [2, 4, 4, 4, 5, 5, 7, 9] {
            a.add(x);
        }
        let s = a.summary();
        assert_eq!((s.total, s.min, s.max), (40, 2, 9));
        assert_eq!((s.mean, s.std_dev), (5.0, 2.0));
    }
}
