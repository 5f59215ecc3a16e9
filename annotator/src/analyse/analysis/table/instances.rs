//! The instances of an analysis: their walk records beside their sums.

use std::cmp::Ordering;

use rustc_hash::FxHashMap;
use serde::ser::{Serialize, SerializeSeq, Serializer};

use super::sums::{InstAcc, InstSums, BYTES, CYCLIC, RECEIVED, SENT};
use super::TopRows;
use crate::analyse::analysis::{level, per_byte, Band, InstanceStats};
use crate::analyse::trace::Names;
use crate::analyse::walk::{InstKind, Instance};

/// What a cheap pass over instances sees (no strings built).
#[derive(Debug, Clone, Copy)]
pub struct InstRow {
    pub id: u32,
    pub kind: InstKind,
    pub class: u32,
    pub active_time: u64,
    pub level: f64,
    pub received: u64,
    pub sent: u64,
    pub cyclic: u64,
    pub neighbours: u32,
}

/// The instances of an analysis, indexed by id; [`InstanceStats`] are built on demand.
#[derive(Debug, Clone, Default)]
pub struct Instances {
    core: Vec<Instance>,
    sums: InstSums,
    one_off: FxHashMap<u32, u64>,
    /// Waiting per instance (only those that waited).
    waits: FxHashMap<u32, u64>,
    /// Per instance that waited, the method whose messages waited most.
    waited_in: FxHashMap<u32, u32>,
    total: u64,
    names: Names,
    own_pid: Option<u64>,
    /// The ids the JSON lists when not all ([`super::lists`]), ascending.
    listed: Option<Vec<u32>>,
}

impl Instances {
    pub fn new(
        core: Vec<Instance>,
        sums: InstSums,
        one_off: FxHashMap<u32, u64>,
        waits: FxHashMap<u32, u64>,
        total: u64,
        names: &Names,
        own_pid: Option<u64>,
    ) -> Instances {
        // The per-instance names are built from the class names and process ids only.
        let mut own = Names::default();
        own.classes = names.classes.clone();
        own.processes = names.processes.clone();
        let names = own;
        Instances {
            core,
            sums,
            one_off,
            waits,
            waited_in: FxHashMap::default(),
            total,
            names,
            own_pid,
            listed: None,
        }
    }
    pub fn len(&self) -> usize {
        self.core.len()
    }
    /// The JSON lists only these instances (sorted and deduplicated here).
    pub(in crate::analyse::analysis) fn list_only(&mut self, mut ids: Vec<u32>) {
        ids.sort_unstable();
        ids.dedup();
        ids.retain(|&i| (i as usize) < self.core.len());
        self.listed = Some(ids);
    }
    /// How many instances the JSON lists.
    pub fn listed(&self) -> usize {
        self.listed.as_ref().map_or(self.core.len(), Vec::len)
    }
    pub fn is_empty(&self) -> bool {
        self.core.is_empty()
    }
    fn sum(&self, i: u32, field: usize, f: impl Fn(&InstAcc) -> u32) -> u64 {
        self.sums.get(i, field, f)
    }
    /// The numbers of instance `id`, without its strings.
    pub fn row(&self, id: u32) -> Option<InstRow> {
        let inst = self.core.get(id as usize)?;
        let active = self.sums.active(id);
        Some(InstRow {
            id,
            kind: inst.kind,
            class: inst.class,
            active_time: active,
            level: level(active, self.total),
            received: self.sum(id, RECEIVED, |a| a.received),
            sent: self.sum(id, SENT, |a| a.sent),
            cyclic: self.sum(id, CYCLIC, |a| a.cyclic),
            neighbours: self.sums.neighbours(id),
        })
    }
    /// Every instance's numbers, in id order. Streams the instances beside their sums and
    /// reads the side map of wide sums only when it holds any: selections pass over a
    /// million rows.
    /// Whether instance `id` stands for the objects a runtime folded into their class (their
    /// calls only counted: `Class#*`).
    pub fn is_folded(&self, id: u32) -> bool {
        self.core
            .get(id as usize)
            .is_some_and(|i| crate::analyse::walk::is_folded(i.oid()))
    }
    /// Each instance's id, kind and class id, without its sums (a pass over millions).
    pub fn kinds(&self) -> impl Iterator<Item = (u32, InstKind, u32)> + '_ {
        self.core
            .iter()
            .enumerate()
            .map(|(i, inst)| (i as u32, inst.kind, inst.class))
    }
    pub fn rows(&self) -> impl Iterator<Item = InstRow> + '_ {
        let narrow = self.sums.wide.0.is_empty();
        let acc = &self.sums.acc;
        self.core.iter().enumerate().map(move |(i, inst)| {
            let id = i as u32;
            match acc.get(i) {
                Some(a) if narrow => InstRow {
                    id,
                    kind: inst.kind,
                    class: inst.class,
                    active_time: a.active as u64,
                    level: level(a.active as u64, self.total),
                    received: a.received as u64,
                    sent: a.sent as u64,
                    cyclic: a.cyclic as u64,
                    neighbours: a.neighbours,
                },
                _ => self.row(id).expect("an instance's row"),
            }
        })
    }
    /// The instances whose messages waited off the CPU, with their waiting (any order).
    pub fn waiters(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.waits.iter().map(|(&i, &w)| (i, w))
    }
    /// Keeps, per instance, the method whose messages waited most of `by` (instance,
    /// method) -> waiting; ties go to the lower method id, so the choice is stable.
    pub(in crate::analyse::analysis) fn set_waited_in(&mut self, by: &FxHashMap<(u32, u32), u64>) {
        let mut most: FxHashMap<u32, (u64, u32)> = FxHashMap::default();
        for (&(i, m), &w) in by {
            let e = most.entry(i).or_insert((w, m));
            if (w, std::cmp::Reverse(m)) > (e.0, std::cmp::Reverse(e.1)) {
                *e = (w, m);
            }
        }
        self.waited_in = most.into_iter().map(|(i, (_, m))| (i, m)).collect();
    }
    /// The method instance `id` waited in most, when it waited.
    pub fn waited_in(&self, id: u32) -> Option<u32> {
        self.waited_in.get(&id).copied()
    }
    /// The net time instance `id`'s messages waited off the CPU.
    pub fn waiting(&self, id: u32) -> u64 {
        self.waits.get(&id).copied().unwrap_or(0)
    }
    pub fn one_off_time(&self, id: u32) -> u64 {
        self.one_off.get(&id).copied().unwrap_or(0)
    }
    /// Class name of an object or class instance (`None` for a root).
    pub fn class_of(&self, id: u32) -> Option<&str> {
        let i = self.core.get(id as usize)?;
        (i.kind != InstKind::Root).then(|| self.names.class(i.class))
    }
    pub fn label(&self, id: u32) -> String {
        self.core.get(id as usize).map_or_else(
            || "?".into(),
            |i| crate::analyse::walk::instance_label(i, &self.names),
        )
    }
    pub fn class_name(&self, class: u32) -> &str {
        self.names.class(class)
    }
    /// How many class names the trace defines (class ids below this have one).
    pub fn class_count(&self) -> usize {
        self.names.classes.len()
    }
    /// The full statistics of instance `id`.
    pub fn get(&self, id: u32) -> Option<InstanceStats> {
        let inst = self.core.get(id as usize)?;
        let r = self.row(id)?;
        let root = inst.kind == InstKind::Root;
        let bytes = self.sum(id, BYTES, |a| a.bytes);
        let names = &self.names;
        Some(InstanceStats {
            id,
            kind: inst.kind,
            label: crate::analyse::walk::instance_label(inst, names),
            class: (!root).then(|| names.class(inst.class).to_string()),
            oid: inst.oid(),
            tid: root.then_some(inst.tid()),
            pid: names
                .process_of(if root { inst.tid() } else { inst.oid() })
                .or(self.own_pid),
            size: inst.size(),
            created: inst.created(),
            destroyed: inst.destroyed(),
            active_time: r.active_time,
            waiting: self.waiting(id),
            level: r.level,
            band: Band::of(r.level),
            received: r.received,
            sent: r.sent,
            cyclic: r.cyclic,
            neighbours: r.neighbours,
            received_bytes: bytes,
            one_off_time: self.one_off.get(&id).copied().unwrap_or(0),
            granularity: per_byte(r.active_time, bytes),
        })
    }
    /// Every instance's statistics, in id order (built one at a time).
    pub fn iter(&self) -> impl Iterator<Item = InstanceStats> + '_ {
        (0..self.core.len() as u32).filter_map(|i| self.get(i))
    }
    /// The statistics of the first `n` rows passing `keep` in the order `before` (a strict
    /// "x comes first" order), in that order; the others are never built.
    pub fn top(
        &self,
        n: usize,
        keep: impl Fn(&InstRow) -> bool,
        before: impl Fn(&InstRow, &InstRow) -> Ordering,
    ) -> Vec<InstanceStats> {
        let mut top = TopRows::new(n, before);
        for r in self.rows().filter(|r| keep(r)) {
            top.offer(&r);
        }
        self.stats_of(&top.into_sorted())
    }
    /// The full statistics of these rows' instances, in their order.
    pub fn stats_of(&self, rows: &[InstRow]) -> Vec<InstanceStats> {
        rows.iter().filter_map(|r| self.get(r.id)).collect()
    }
}

impl Serialize for Instances {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let mut seq = ser.serialize_seq(Some(self.listed()))?;
        match &self.listed {
            Some(ids) => {
                for i in ids.iter().filter_map(|&i| self.get(i)) {
                    seq.serialize_element(&i)?;
                }
            }
            None => self.iter().try_for_each(|i| seq.serialize_element(&i))?,
        }
        seq.end()
    }
}
