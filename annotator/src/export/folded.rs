//! Folded stacks for flame graphs: `root@tid;Class#oid.method;… weight`, weighted by net
//! time, so the weights sum to the analysis total. Built as a calling-context tree, so
//! memory grows with distinct call paths, not with events.

use std::io::Write;

use rustc_hash::FxHashMap;

use crate::analysis::instance_label;
use crate::analysis::walk::{Closed, Frame, Instance, Sink, Walker};
use crate::trace::Names;

#[derive(Clone, Copy)]
struct Node {
    /// `u32::MAX` for a thread's root node.
    parent: u32,
    /// Thread index for a root node, else the receiver instance.
    instance: u32,
    method: u32,
    weight: u64,
}

#[derive(Default)]
pub struct FoldedSink {
    nodes: Vec<Node>,
    index: FxHashMap<(u32, u32, u32), u32>,
    roots: Vec<u32>,
}

impl FoldedSink {
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

    /// Write one line per calling context with a positive weight.
    pub fn write(&self, w: &mut impl Write, walker: &Walker, names: &Names) -> std::io::Result<()> {
        let mut labels: Vec<Option<String>> = vec![None; self.nodes.len()];
        let mut path = Vec::new();
        for (id, n) in self.nodes.iter().enumerate() {
            if n.weight == 0 {
                continue;
            }
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
        Ok(())
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
        self.node(parent, frame.receiver, frame.method)
    }

    fn closed(&mut self, c: &Closed, _instances: &[Instance], _names: &Names) {
        self.nodes[c.frame.ctx as usize].weight += c.net;
    }
}
