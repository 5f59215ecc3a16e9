//! Graph layout, done once when the report is written (not on every open): positions of the
//! instance graph and of the class-level graph go into the page's JSON, keyed like the page's
//! nodes (`"17"` for an instance, `"c:Account"` for a class). A radial tree from the busiest
//! root (children ordered by activity), refined by a spring embedder with grid-bucketed
//! repulsion, then overlaps pushed apart. Deterministic: same trace, same picture.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use super::classes::ClassGraph;
use crate::analyse::analysis::{ClassStats, EdgeStats, InstanceStats};
use crate::analyse::walk::InstKind;

/// Positions per node key (whole pixels: the page draws at any zoom, sub-pixels add bytes).
#[derive(Debug, Default, Serialize)]
pub struct Layout {
    pub instances: BTreeMap<String, [i32; 2]>,
    pub classes: BTreeMap<String, [i32; 2]>,
}

/// One node to place: its key, activity (orders children) and drawn radius.
struct Node {
    key: String,
    active: u64,
    r: f64,
}

/// What the class-level graph is made of: the run's classes, the classes shown as their
/// instances and the whole run's class-level edges.
pub struct ClassInput<'a> {
    pub classes: &'a [ClassStats],
    pub graph: &'a ClassGraph,
    /// The run's busy time (class shares are of it).
    pub total: u64,
}

/// Lay out the page's instances and edges, and the whole run's class-level graph. `root`
/// is the instance drawn at the centre.
pub fn compute(
    instances: &[&InstanceStats],
    edges: &[&EdgeStats],
    root: Option<u32>,
    classes: &ClassInput,
) -> Layout {
    let index: FxHashMap<u32, usize> = instances
        .iter()
        .enumerate()
        .map(|(k, i)| (i.id, k))
        .collect();
    let pairs: Vec<(usize, usize)> = edges
        .iter()
        .filter_map(|e| Some((*index.get(&e.sender)?, *index.get(&e.receiver)?)))
        .collect();
    let start = root.and_then(|r| index.get(&r).copied()).unwrap_or(0);

    let inodes: Vec<Node> = instances
        .iter()
        .map(|i| Node {
            key: i.id.to_string(),
            active: i.active_time,
            r: 7.0 + 16.0 * i.level.sqrt(),
        })
        .collect();
    let ipos = place(&inodes, &pairs, start);

    let cnodes = class_nodes(instances, classes);
    let at: FxHashMap<&str, usize> = cnodes
        .iter()
        .enumerate()
        .map(|(k, n)| (n.key.as_str(), k))
        .collect();
    let cpairs: Vec<(usize, usize)> = classes
        .graph
        .edges
        .iter()
        .filter_map(|e| Some((*at.get(e.from.as_str())?, *at.get(e.to.as_str())?)))
        .collect();
    let cstart = root
        .and_then(|r| at.get(r.to_string().as_str()).copied())
        .unwrap_or(0);
    let cpos = place(&cnodes, &cpairs, cstart);

    Layout {
        instances: keyed(&inodes, &ipos),
        classes: keyed(&cnodes, &cpos),
    }
}

/// Class view: the drawn roots and instances of classes shown expanded as themselves, then
/// one node per other class of the run (sized by its whole-run share).
fn class_nodes(instances: &[&InstanceStats], c: &ClassInput) -> Vec<Node> {
    let expanded: FxHashSet<&str> = c.graph.expanded.iter().map(String::as_str).collect();
    let own = |i: &InstanceStats| {
        i.kind == InstKind::Root || i.class.as_deref().is_some_and(|c| expanded.contains(c))
    };
    let mut nodes: Vec<Node> = instances
        .iter()
        .filter(|i| own(i))
        .map(|i| Node {
            key: i.id.to_string(),
            active: i.active_time,
            r: 7.0 + 16.0 * i.level.sqrt(),
        })
        .collect();
    for k in c
        .classes
        .iter()
        .filter(|k| !expanded.contains(k.class.as_str()))
    {
        let level = k.active_time as f64 / c.total.max(1) as f64;
        nodes.push(Node {
            key: format!("c:{}", k.class),
            active: k.active_time,
            r: 9.0 + 18.0 * level.min(1.0).sqrt(),
        });
    }
    nodes
}

/// Whole-pixel positions by node key.
fn keyed(nodes: &[Node], pos: &[(f64, f64)]) -> BTreeMap<String, [i32; 2]> {
    nodes
        .iter()
        .zip(pos)
        .map(|(n, p)| (n.key.clone(), [p.0.round() as i32, p.1.round() as i32]))
        .collect()
}

/// Positions for `nodes` joined by `pairs` (directed, repeated and self pairs allowed).
fn place(nodes: &[Node], pairs: &[(usize, usize)], start: usize) -> Vec<(f64, f64)> {
    let n = nodes.len();
    if n == 0 {
        return Vec::new();
    }
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut seen = FxHashSet::default();
    for &(a, b) in pairs {
        if a != b && seen.insert((a.min(b), a.max(b))) {
            adj[a].push(b);
            adj[b].push(a);
        }
    }
    for a in &mut adj {
        a.sort_by(|&x, &y| nodes[y].active.cmp(&nodes[x].active).then(x.cmp(&y)));
    }
    let mut pos = radial_tree(nodes, &adj, start);
    relax(nodes, &adj, start, &mut pos);
    separate(nodes, start, &mut pos);
    pos
}

/// BFS tree from `start` (components not reached hang off it, busiest first); each node
/// gets an angular sector proportional to its leaves, rings spaced so nodes fit.
fn radial_tree(nodes: &[Node], adj: &[Vec<usize>], start: usize) -> Vec<(f64, f64)> {
    let n = nodes.len();
    let t = Tree::span(nodes, adj, start);
    let mut leaves = vec![1.0f64; n];
    for &v in t.order.iter().rev() {
        if !t.kids[v].is_empty() {
            leaves[v] = t.kids[v].iter().map(|&w| leaves[w]).sum();
        }
    }
    let radius = ring_radii(&t.depth);
    let mut sector = vec![(0.0, std::f64::consts::TAU); n];
    let mut pos = vec![(0.0, 0.0); n];
    for &v in &t.order {
        let (a0, a1) = sector[v];
        let mid = (a0 + a1) / 2.0;
        pos[v] = (
            radius[t.depth[v]] * mid.cos(),
            radius[t.depth[v]] * mid.sin(),
        );
        let mut a = a0;
        for &w in &t.kids[v] {
            let s = (a1 - a0) * leaves[w] / leaves[v];
            sector[w] = (a, a + s);
            a += s;
        }
    }
    pos
}

/// A spanning tree of the graph, in BFS order from its root.
struct Tree {
    parent: Vec<usize>,
    depth: Vec<usize>,
    kids: Vec<Vec<usize>>,
    order: Vec<usize>,
}

impl Tree {
    /// The BFS tree from `start`, with the nodes it cannot reach hung off `start`, busiest
    /// first, each with its own BFS subtree.
    fn span(nodes: &[Node], adj: &[Vec<usize>], start: usize) -> Tree {
        let n = nodes.len();
        let mut t = Tree {
            parent: vec![usize::MAX; n],
            depth: vec![0usize; n],
            kids: vec![Vec::new(); n],
            order: vec![start],
        };
        t.parent[start] = start;
        t.bfs(adj, start);
        let mut rest: Vec<usize> = (0..n).filter(|&v| t.parent[v] == usize::MAX).collect();
        rest.sort_by(|&a, &b| nodes[b].active.cmp(&nodes[a].active).then(a.cmp(&b)));
        for v in rest {
            if t.parent[v] != usize::MAX {
                continue;
            }
            t.parent[v] = start;
            t.depth[v] = 1;
            t.kids[start].push(v);
            t.order.push(v);
            t.bfs(adj, v);
        }
        t
    }

    /// Adds the nodes not yet in the tree that `from` reaches, level by level.
    fn bfs(&mut self, adj: &[Vec<usize>], from: usize) {
        let mut q = vec![from];
        while !q.is_empty() {
            let mut next = Vec::new();
            for v in q {
                for &w in &adj[v] {
                    if self.parent[w] != usize::MAX {
                        continue;
                    }
                    self.parent[w] = v;
                    self.depth[w] = self.depth[v] + 1;
                    self.kids[v].push(w);
                    self.order.push(w);
                    next.push(w);
                }
            }
            q = next;
        }
    }
}

/// Ring radii by depth: at least 110 apart, and wide enough for the ring's nodes.
fn ring_radii(depth: &[usize]) -> Vec<f64> {
    let rings = depth.iter().max().map_or(1, |d| d + 1);
    let mut per_ring = vec![0usize; rings];
    for &d in depth {
        per_ring[d] += 1;
    }
    let mut radius = vec![0.0f64; rings];
    for d in 1..rings {
        radius[d] = (radius[d - 1] + 110.0).max(per_ring[d] as f64 * 46.0 / std::f64::consts::TAU);
    }
    radius
}

fn cell(x: f64, size: f64) -> i64 {
    (x / size).floor() as i64
}

/// Spring embedder: repulsion between nodes within 3 edge lengths (grid buckets), springs
/// along edges (weaker at hubs), gentle gravity; `start` stays at the origin.
fn relax(nodes: &[Node], adj: &[Vec<usize>], start: usize, pos: &mut [(f64, f64)]) {
    let n = nodes.len();
    let (l, reach) = (90.0, 270.0);
    let iters = if n > 1500 { 40 } else { 120 };
    let tree = pos.to_vec();
    let pull = if n <= 60 { 0.5 } else { 0.0 };
    let springs: Vec<(usize, usize)> = (0..n)
        .flat_map(|a| adj[a].iter().filter(move |&&b| a < b).map(move |&b| (a, b)))
        .collect();
    let deg: Vec<f64> = adj.iter().map(|a| a.len().max(1) as f64).collect();
    let mut force = vec![(0.0f64, 0.0f64); n];
    let mut grid: FxHashMap<(i64, i64), Vec<usize>> = FxHashMap::default();
    for it in 0..iters {
        let temp = 40.0 * (1.0 - it as f64 / iters as f64) + 2.0;
        force.iter_mut().for_each(|f| *f = (0.0, 0.0));
        near_pairs(&mut grid, pos, reach, |a, b, pos| {
            let (mut vx, mut vy) = (pos[b].0 - pos[a].0, pos[b].1 - pos[a].1);
            let mut d2 = vx * vx + vy * vy;
            if d2 > reach * reach {
                return;
            }
            if d2 < 0.01 {
                (vx, vy, d2) = ((b as f64).cos(), (b as f64).sin(), 1.0);
            }
            let d = d2.sqrt();
            let f = l * l / d;
            let (ux, uy) = (vx / d * f, vy / d * f);
            force[a].0 -= ux;
            force[a].1 -= uy;
            force[b].0 += ux;
            force[b].1 += uy;
        });
        for &(a, b) in &springs {
            let (vx, vy) = (pos[b].0 - pos[a].0, pos[b].1 - pos[a].1);
            let d = vx.hypot(vy).max(1e-9);
            let f = d * d / l / (deg[a] * deg[b]).sqrt().max(1.0);
            let (ux, uy) = (vx / d * f, vy / d * f);
            force[a].0 += ux;
            force[a].1 += uy;
            force[b].0 -= ux;
            force[b].1 -= uy;
        }
        for k in 0..n {
            if k == start {
                pos[k] = (0.0, 0.0);
                continue;
            }
            let (mut fx, mut fy) = force[k];
            fx -= pos[k].0 * 0.02;
            fy -= pos[k].1 * 0.02;
            fx += (tree[k].0 - pos[k].0) * pull;
            fy += (tree[k].1 - pos[k].1) * pull;
            let f = fx.hypot(fy).max(1e-9);
            let step = f.min(temp);
            pos[k].0 += fx / f * step;
            pos[k].1 += fy / f * step;
        }
    }
}

/// Calls `f(a, b, pos)` for every pair `a < b` of points in touching grid cells of `size`
/// (the candidates of a short-range force; `f` may move points, each `a`'s cell is taken
/// when its turn comes). `grid` is reused between calls.
fn near_pairs(
    grid: &mut FxHashMap<(i64, i64), Vec<usize>>,
    pos: &mut [(f64, f64)],
    size: f64,
    mut f: impl FnMut(usize, usize, &mut [(f64, f64)]),
) {
    grid.values_mut().for_each(Vec::clear);
    for (k, p) in pos.iter().enumerate() {
        grid.entry((cell(p.0, size), cell(p.1, size)))
            .or_default()
            .push(k);
    }
    for a in 0..pos.len() {
        let (cx, cy) = (cell(pos[a].0, size), cell(pos[a].1, size));
        for dx in -1..=1 {
            for dy in -1..=1 {
                let Some(bucket) = grid.get(&(cx + dx, cy + dy)) else {
                    continue;
                };
                for &b in bucket.iter().filter(|&&b| b > a) {
                    f(a, b, pos);
                }
            }
        }
    }
}

/// Push overlapping nodes apart (circles plus a margin), a few rounds.
fn separate(nodes: &[Node], start: usize, pos: &mut [(f64, f64)]) {
    let min_d = 34.0;
    let mut grid: FxHashMap<(i64, i64), Vec<usize>> = FxHashMap::default();
    for _ in 0..30 {
        let mut moved = false;
        near_pairs(&mut grid, pos, min_d, |a, b, pos| {
            let (mut vx, mut vy) = (pos[b].0 - pos[a].0, pos[b].1 - pos[a].1);
            let mut d = vx.hypot(vy);
            let want = min_d.max(nodes[a].r + nodes[b].r + 8.0);
            if d >= want {
                return;
            }
            if d < 0.01 {
                (vx, vy, d) = ((b as f64).cos(), (b as f64).sin(), 1.0);
            }
            let push = (want - d) / 2.0;
            let (ux, uy) = (vx / d * push, vy / d * push);
            if a != start {
                pos[a].0 -= ux;
                pos[a].1 -= uy;
            }
            if b != start {
                pos[b].0 += ux;
                pos[b].1 += uy;
            }
            moved = true;
        });
        if !moved {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::report::{data, synth_input, Caps};

    #[test]
    fn every_node_placed_root_at_centre_apart_and_deterministic() {
        let spec = crate::analyse::trace::synth::Spec {
            events: 30_000,
            instances: 400,
            threads: 2,
            classes: 10,
            seed: 4,
            ..Default::default()
        };
        let caps = Caps::default();
        let input = synth_input(&spec, &caps);
        let d = data(&input, &caps);
        let l = &d.layout;
        assert_eq!(l.instances.len(), d.instances.len());
        let small = &d.class_graph.expanded;
        for i in &d.instances {
            assert!(l.instances.contains_key(&i.id.to_string()), "{}", i.label);
            let key = match (&i.class, i.kind) {
                (Some(c), k) if k != InstKind::Root && !small.contains(c) => format!("c:{c}"),
                _ => i.id.to_string(),
            };
            assert!(l.classes.contains_key(&key), "{key}");
        }
        assert_eq!(l.classes.keys().filter(|k| k.starts_with("c:")).count(), 10);
        let root = d.main_root.unwrap().to_string();
        assert_eq!(l.instances[&root], [0, 0]);
        assert_eq!(l.classes[&root], [0, 0]);
        // Overlaps pushed apart: no two class nodes within 20 px.
        let c: Vec<_> = l.classes.values().collect();
        for (k, a) in c.iter().enumerate() {
            for b in &c[k + 1..] {
                let d2 = (a[0] - b[0]).pow(2) + (a[1] - b[1]).pow(2);
                assert!(d2 >= 400, "{a:?} {b:?}");
            }
        }
        let again = compute(
            &d.instances.iter().collect::<Vec<_>>(),
            &d.edges.iter().collect::<Vec<_>>(),
            d.main_root,
            &ClassInput {
                classes: d.classes,
                graph: &d.class_graph,
                total: d.totals.total_time,
            },
        );
        assert_eq!(again.instances, l.instances);
        assert_eq!(again.classes, l.classes);
    }
}
