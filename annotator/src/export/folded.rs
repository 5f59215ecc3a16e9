//! Folded stacks for flame graphs: `root@tid;Class.method;… weight` (or `Class#oid.method`
//! frames with `--by-instance`), weighted by net time, so the weights sum to the analysis
//! total. Built as a calling-context tree, so memory grows with distinct call paths, not
//! with events; by class, instances of a class share their paths.

use std::io::Write;

use rustc_hash::FxHashMap;

use crate::analysis::instance_label;
use crate::analysis::walk::{Closed, Frame, Instance, Sink, Walker};
use crate::trace::Names;

#[derive(Clone, Copy)]
struct Node {
    /// `u32::MAX` for a thread's root node.
    parent: u32,
    /// Thread index for a root node, else the receiver instance (`u32::MAX`: by class).
    instance: u32,
    method: u32,
    weight: u64,
}

#[derive(Default)]
pub struct FoldedSink {
    nodes: Vec<Node>,
    index: FxHashMap<(u32, u32, u32), u32>,
    roots: Vec<u32>,
    by_instance: bool,
}

impl FoldedSink {
    pub fn new(by_instance: bool) -> Self {
        FoldedSink {
            by_instance,
            ..Self::default()
        }
    }

    fn node(&mut self, parent: u32, instance: u32, method: u32) -> u32 {
        let next = self.nodes.len() as u32;
        let id = *self.index.entry((parent, instance, method)).or_insert(next);
        if id == next {
            self.nodes.push(Node {
                parent,
                instance,
                method,
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
        self.node(parent, instance, frame.method)
    }

    fn closed(&mut self, c: &Closed, _instances: &[Instance], _names: &Names) {
        self.nodes[c.frame.ctx as usize].weight += c.net;
    }
}
