//! Folded stacks for flame graphs: `root@tid;Class.method;… weight` (or `Class#oid.method`
//! frames with `--by-instance`), weighted by net time, so the weights sum to the analysis
//! total. Built as a calling-context tree, so memory grows with distinct call paths, not
//! with events; by class, instances of a class share their paths. The tree is capped
//! ([`MAX_STACKS`]): once full, a call on a new path counts (with all it calls) in one
//! `[other]` frame under its deepest kept caller, so weights still sum to the total.
//! Stacks are capped in depth too ([`MAX_DEPTH`]): calls deeper count in one `[deeper]`
//! frame, so a recursion 100,000 calls deep writes lines of bounded length, not its square.

use std::io::Write;

use rustc_hash::FxHashMap;

use crate::analyse::trace::Names;
use crate::analyse::walk::instance_label;
use crate::analyse::walk::{Closed, Frame, Instance, Sink, Walker};

#[derive(Clone, Copy)]
struct Node {
    /// `u32::MAX` for a thread's root node.
    parent: u32,
    /// Thread index for a root node, else the receiver instance (`u32::MAX`: by class).
    instance: u32,
    method: u32,
    /// Calls from the thread's root (the root is 0).
    depth: u32,
    weight: u64,
}

/// `method` of an `[other]` node: the calls under its parent that found the tree full.
const OTHER: u32 = u32::MAX - 1;
/// `method` of a `[deeper]` node: the calls under its parent past [`MAX_DEPTH`].
const DEEPER: u32 = u32::MAX - 2;

/// Frames kept in one stack; a flame graph cannot show more, and each line's length (so the
/// output's size) grows with it.
pub const MAX_DEPTH: u32 = 1024;

/// Distinct call paths kept (a few tens of MB of tree); beyond it, new paths fold into one
/// `[other]` frame under their deepest kept caller.
pub const MAX_STACKS: usize = 1 << 19;

pub struct FoldedSink {
    nodes: Vec<Node>,
    index: FxHashMap<(u32, u32, u32), u32>,
    roots: Vec<u32>,
    by_instance: bool,
    cap: usize,
    max_depth: u32,
    /// Calls (with everything they called) folded into `[other]` frames.
    pub folded_calls: u64,
    /// Calls past [`MAX_DEPTH`], counted in `[deeper]` frames.
    pub deeper_calls: u64,
}

impl FoldedSink {
    pub fn new(by_instance: bool) -> Self {
        Self::with_cap(by_instance, MAX_STACKS)
    }

    /// At most `cap` distinct call paths, plus one `[other]` frame per kept path.
    pub fn with_cap(by_instance: bool, cap: usize) -> Self {
        FoldedSink {
            nodes: Vec::new(),
            index: FxHashMap::default(),
            roots: Vec::new(),
            by_instance,
            cap,
            max_depth: MAX_DEPTH,
            folded_calls: 0,
            deeper_calls: 0,
        }
    }

    /// `[deeper]` frames in the tree.
    pub fn deeper_frames(&self) -> usize {
        self.nodes.iter().filter(|n| n.method == DEEPER).count()
    }

    /// `[other]` frames in the tree.
    pub fn other_frames(&self) -> usize {
        self.nodes.iter().filter(|n| n.method == OTHER).count()
    }

    /// The context of a call of (`instance`, `method`) under `parent`: its own node while
    /// the tree has room, else its parent's `[other]` (calls under `[other]` stay in it).
    fn child(&mut self, parent: u32, instance: u32, method: u32) -> u32 {
        let up = self.nodes[parent as usize];
        if up.method == DEEPER {
            self.deeper_calls += 1;
            return parent;
        }
        if up.method == OTHER {
            self.folded_calls += 1;
            return parent;
        }
        if up.depth >= self.max_depth {
            self.deeper_calls += 1;
            return self.node(parent, u32::MAX, DEEPER);
        }
        if self.nodes.len() < self.cap || self.index.contains_key(&(parent, instance, method)) {
            return self.node(parent, instance, method);
        }
        self.folded_calls += 1;
        self.node(parent, u32::MAX, OTHER)
    }

    fn node(&mut self, parent: u32, instance: u32, method: u32) -> u32 {
        let next = self.nodes.len() as u32;
        let id = *self.index.entry((parent, instance, method)).or_insert(next);
        if id == next {
            let depth = match parent {
                u32::MAX => 0,
                p => self.nodes[p as usize].depth + 1,
            };
            self.nodes.push(Node {
                parent,
                instance,
                method,
                depth,
                weight: 0,
            });
        }
        id
    }

    /// Write one line per calling context with a positive weight (the `top` heaviest if
    /// given); returns (lines written, stacks with a weight).
    pub fn write(
        &self,
        w: &mut impl Write,
        walker: &Walker,
        names: &Names,
        top: Option<usize>,
    ) -> std::io::Result<(usize, usize)> {
        let mut ids: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| self.nodes[i].weight > 0)
            .collect();
        let stacks = ids.len();
        if let Some(n) = top.filter(|&n| n < ids.len()) {
            ids.sort_by_key(|&i| (std::cmp::Reverse(self.nodes[i].weight), i));
            ids.truncate(n);
            ids.sort_unstable();
        }
        let mut labels: Vec<Option<String>> = vec![None; self.nodes.len()];
        let mut path = Vec::new();
        for &id in &ids {
            let n = self.nodes[id];
            path.clear();
            let mut cur = id as u32;
            while cur != u32::MAX {
                path.push(cur);
                cur = self.nodes[cur as usize].parent;
            }
            let mut line = String::new();
            for (k, &p) in path.iter().rev().enumerate() {
                if k > 0 {
                    line.push(';');
                }
                let label = labels[p as usize].get_or_insert_with(|| {
                    let n = self.nodes[p as usize];
                    let s = if n.parent == u32::MAX {
                        format!("root@{}", walker.threads[n.instance as usize].tid)
                    } else if n.method == OTHER {
                        "[other]".to_string()
                    } else if n.method == DEEPER {
                        "[deeper]".to_string()
                    } else if n.instance == u32::MAX {
                        names.method(n.method).map_or("?".into(), |d| {
                            format!("{}.{}", names.class(d.class), d.name)
                        })
                    } else {
                        let m = names.method(n.method).map_or("?", |d| d.name.as_str());
                        format!(
                            "{}.{m}",
                            instance_label(&walker.instances[n.instance as usize], names)
                        )
                    };
                    s.replace([';', ' '], "_")
                });
                line.push_str(label);
            }
            writeln!(w, "{line} {}", n.weight)?;
        }
        Ok((ids.len(), stacks))
    }
}

impl Sink for FoldedSink {
    fn started(&mut self, parent: Option<u32>, thread: usize, frame: &Frame) -> u32 {
        let parent = match parent {
            Some(p) => p,
            None => {
                if self.roots.len() <= thread {
                    self.roots.resize(thread + 1, u32::MAX);
                }
                if self.roots[thread] == u32::MAX {
                    self.roots[thread] = self.node(u32::MAX, thread as u32, u32::MAX);
                }
                self.roots[thread]
            }
        };
        let instance = if self.by_instance {
            frame.receiver
        } else {
            u32::MAX
        };
        self.child(parent, instance, frame.method)
    }

    fn closed(&mut self, c: &Closed, _instances: &[Instance], _names: &Names) {
        self.nodes[c.frame.ctx as usize].weight += c.net;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::walk::walk_trace;

    fn folded(trace: &std::path::Path, cap: usize) -> (FoldedSink, String, u64) {
        let mut sink = FoldedSink::with_cap(true, cap);
        let (reader, walker) = walk_trace(trace, &mut sink).unwrap();
        let mut out = Vec::new();
        sink.write(&mut out, &walker, reader.names(), None).unwrap();
        let text = String::from_utf8(out).unwrap();
        let total = text
            .lines()
            .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
            .sum();
        (sink, text, total)
    }

    #[test]
    fn capped_tree_folds_new_paths_into_other_and_keeps_the_total() {
        let dir = tempfile::tempdir().unwrap();
        let trace = dir.path().join("t.rvt");
        let spec = crate::analyse::trace::synth::Spec {
            events: 20_000,
            instances: 300,
            threads: 2,
            seed: 9,
            ..Default::default()
        };
        let f = std::io::BufWriter::new(std::fs::File::create(&trace).unwrap());
        crate::analyse::trace::synth::generate(&spec, crate::analyse::trace::Form::Compact, f)
            .unwrap();
        let (all, _, total) = folded(&trace, usize::MAX);
        assert!(all.nodes.len() > 1000, "{} paths", all.nodes.len());
        assert_eq!(all.folded_calls, 0);
        let (capped, text, capped_total) = folded(&trace, 200);
        // The cap plus at most one [other] per kept path (and the thread roots).
        assert!(capped.nodes.len() <= 2 * 200 + 2, "{}", capped.nodes.len());
        assert!(capped.folded_calls > 0 && capped.other_frames() > 0);
        assert!(text.lines().any(|l| l.contains(";[other] ")), "{text}");
        // [other] is always a leaf: nothing is called under it.
        assert!(!text.contains("[other];"));
        assert_eq!(capped_total, total, "net times still sum to the total");
    }
}
