//! Per-instance accumulators.

use super::Wide;

/// Per-instance sums, 24 bytes each; `neighbours` beside the sums so that the pass that
/// builds them touches one random cell per edge, not two.
#[derive(Debug, Default, Clone, Copy)]
pub struct InstAcc {
    pub(super) active: u32,
    pub(super) received: u32,
    pub(super) sent: u32,
    pub(super) cyclic: u32,
    pub(super) bytes: u32,
    pub(super) neighbours: u32,
}

pub(super) const ACTIVE: usize = 0;
pub(super) const RECEIVED: usize = 1;
pub(super) const SENT: usize = 2;
pub(super) const CYCLIC: usize = 3;
pub(super) const BYTES: usize = 4;

/// Per-instance accumulators, indexed by instance id.
#[derive(Debug, Default, Clone)]
pub struct InstSums {
    pub(super) acc: Vec<InstAcc>,
    pub(super) wide: Wide<u32, 5>,
}

impl InstSums {
    #[inline]
    pub(super) fn at(&mut self, i: u32) -> &mut InstAcc {
        let i = i as usize;
        if self.acc.len() <= i {
            self.acc.resize(i + 1, InstAcc::default());
        }
        &mut self.acc[i]
    }
    /// `n` messages from `s` to `r` with these summed net times and sizes: the receiver's
    /// side (the sender's is [`InstSums::sent`]).
    #[inline]
    pub(super) fn received_from(&mut self, s: u32, r: u32, n: u64, net: u64, size: u64) {
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
    pub(super) fn sent(&mut self, s: u32, n: u64) {
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
    pub(super) fn get(&self, i: u32, field: usize, f: impl Fn(&InstAcc) -> u32) -> u64 {
        let lo = self.acc.get(i as usize).map_or(0, f);
        self.wide.get(i, field, lo)
    }
}
