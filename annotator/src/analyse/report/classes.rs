//! The class-level graph of the whole run: one node per class, every thread root and every
//! instance of a small class itself (so a pipeline of a few stages keeps its shape), and the
//! edges between them summed over every edge of the analysis (not only over the instances
//! the page draws, which at 10⁶ instances are a thousandth of them).

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use crate::analyse::analysis::{Analysis, InstanceStats};
use crate::analyse::walk::InstKind;

/// A class with at most this many instances, all drawn, is shown as its instances.
pub const SMALL: u64 = 8;

/// The class-level graph the page draws first.
#[derive(Debug, Default, Serialize)]
pub struct ClassGraph {
    /// Classes shown as their instances (few, all drawn).
    pub expanded: Vec<String>,
    /// Every edge between class-level nodes, heaviest first.
    pub edges: Vec<ClassEdge>,
}

/// The class graph of `a` given the instances the page draws.
pub fn graph(a: &Analysis, drawn: &[InstanceStats]) -> ClassGraph {
    let mut count: FxHashMap<&str, u64> = FxHashMap::default();
    for i in drawn.iter().filter(|i| i.kind != InstKind::Root) {
        if let Some(c) = &i.class {
            *count.entry(c).or_default() += 1;
        }
    }
    let mut expanded: Vec<String> = a
        .classes
        .iter()
        .filter(|c| c.instances <= SMALL && count.get(c.class.as_str()) == Some(&c.instances))
        .map(|c| c.class.clone())
        .collect();
    expanded.sort();
    let small: FxHashSet<&str> = expanded.iter().map(String::as_str).collect();
    let own: FxHashSet<u32> = drawn
        .iter()
        .filter(|i| i.class.as_deref().is_some_and(|c| small.contains(c)))
        .map(|i| i.id)
        .collect();
    let edges = edges(a, &own);
    ClassGraph { expanded, edges }
}

/// Messages from one class-level node to another, over the whole run. Node keys are the
/// page's: `"c:Class"` for a class, the instance id for a thread root.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ClassEdge {
    pub from: String,
    pub to: String,
    pub calls: u64,
    pub net_time: u64,
    pub aggregate_time: u64,
    pub bytes: u64,
}

/// A class-level node: a class id, or an instance kept as itself.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Key {
    Inst(u32),
    Class(u32),
}

/// Every class-level edge of the run, heaviest (net time) first, ties by keys; roots and
/// the instances in `own` stay themselves.
fn edges(a: &Analysis, own: &FxHashSet<u32>) -> Vec<ClassEdge> {
    let key: Vec<Key> = a
        .instances
        .kinds()
        .map(|(id, kind, class)| match kind {
            InstKind::Root => Key::Inst(id),
            _ if own.contains(&id) => Key::Inst(id),
            _ => Key::Class(class),
        })
        .collect();
    let mut sums: FxHashMap<(Key, Key), [u64; 4]> = FxHashMap::default();
    for e in a.edges.iter() {
        let (Some(&s), Some(&r)) = (key.get(e.sender as usize), key.get(e.receiver as usize))
        else {
            continue;
        };
        let v = sums.entry((s, r)).or_default();
        v[0] += e.calls;
        v[1] += e.net_time;
        v[2] += e.aggregate_time;
        v[3] += e.bytes;
    }
    let name = |k: Key| match k {
        Key::Inst(id) => id.to_string(),
        Key::Class(c) => format!("c:{}", a.instances.class_name(c)),
    };
    // Class ids of one name (a trace set's processes) add up under that name.
    let mut named: FxHashMap<(String, String), [u64; 4]> = FxHashMap::default();
    for ((s, r), v) in sums {
        let e = named.entry((name(s), name(r))).or_default();
        for k in 0..4 {
            e[k] += v[k];
        }
    }
    let mut out: Vec<ClassEdge> = named
        .into_iter()
        .map(|((from, to), v)| ClassEdge {
            from,
            to,
            calls: v[0],
            net_time: v[1],
            aggregate_time: v[2],
            bytes: v[3],
        })
        .collect();
    out.sort_by(|x, y| {
        y.net_time
            .cmp(&x.net_time)
            .then_with(|| (&x.from, &x.to).cmp(&(&y.from, &y.to)))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::report::{data, synth_input, Caps};

    /// Few instances per class: every class stays its instances, and the class edges still
    /// carry every call of the run.
    #[test]
    fn small_classes_stay_instances_and_edges_sum_the_run() {
        let spec = crate::analyse::trace::synth::Spec {
            events: 20_000,
            instances: 60,
            threads: 2,
            classes: 20,
            seed: 9,
            ..Default::default()
        };
        let caps = Caps::default();
        let input = synth_input(&spec, &caps);
        let d = data(&input, &caps);
        let g = &d.class_graph;
        assert_eq!(g.expanded.len(), d.classes.len());
        assert!(g
            .edges
            .iter()
            .all(|e| !e.from.starts_with("c:") && !e.to.starts_with("c:")));
        let calls: u64 = g.edges.iter().map(|e| e.calls).sum();
        let all: u64 = input.analysis.edges.iter().map(|e| e.calls).sum();
        assert_eq!(calls, all);
        // Many instances per class: class nodes only, the same calls.
        let big = graph(&input.analysis, &[]);
        assert!(big.expanded.is_empty());
        assert_eq!(big.edges.iter().map(|e| e.calls).sum::<u64>(), all);
    }
}
