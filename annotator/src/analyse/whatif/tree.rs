//! The recorded message tree the replay runs on: one node per message plus one root node
//! per thread (spanning the thread's first to last event), children in send order. Times are
//! converted to the first trace's unit; several traces (processes) are concatenated. How a
//! trace becomes a tree is `load.rs`; a whole run's tree is focused instead (`focus.rs`): what
//! the replay does not look inside is merged.

use std::path::PathBuf;

use super::node::{Batch, Edge, Placed};
pub use super::node::{Merged, Node, NONE};
use crate::analyse::trace::{Names, Unit};
use crate::analyse::walk::{instance_label, InstKind, Instance};

#[derive(Debug, Clone)]
pub struct InstInfo {
    pub kind: InstKind,
    pub label: String,
    pub class: Option<String>,
    pub oid: u64,
}

#[derive(Debug, Clone)]
pub struct MethodInfo {
    pub class: String,
    pub name: String,
    pub signature: String,
    /// Returns nothing (`void`); `None` when unknown (treated as returning a value).
    pub void: Option<bool>,
    /// Writes no state of its receiver (the SAF's `stateless`), so its calls are independent
    /// and may run on a pool; `None` when unknown (treated as writing state).
    pub stateless: Option<bool>,
    /// A C++ method whose receiver's ID is looked up by address on every call (the SAF
    /// says its class gets no ID member): a counted call costs its caller `nid_cost` more.
    pub by_address: bool,
}

#[derive(Debug, Clone)]
pub struct ThreadInfo {
    pub label: String,
    pub root: u32,
    /// Probe cost per start+end pair, in the tree's unit: the part inside a message's own
    /// time (`probe_inside_ns=`; the whole pair for older traces), and the rest, in its
    /// sender's own time once per message sent.
    pub probe: f64,
    pub probe_out: f64,
}

#[derive(Debug, Default, Clone)]
pub struct Tree {
    pub nodes: Vec<Node>,
    /// Children of node `i` are `children[child_at[i]..child_at[i + 1]]`, in send order.
    pub child_at: Vec<u32>,
    pub children: Vec<u32>,
    pub instances: Vec<InstInfo>,
    pub methods: Vec<MethodInfo>,
    pub threads: Vec<ThreadInfo>,
    pub unit: Option<Unit>,
    pub paths: Vec<PathBuf>,
    /// Probe cost of each trace as found in its header (`probe_ns=`), in the tree's unit.
    pub probe_found: bool,
    /// The thread handoff the runtime measured at start-up (`handoff_ns=`), in ns; `None`
    /// for older traces.
    pub handoff_ns: Option<f64>,
    /// The traces' language (`lang=` of the header): whose queue a message is posted to.
    pub lang: Option<crate::instrument::model::Lang>,
    /// What a counted call of a throttled method cost its caller (`counted_ns=`), in the
    /// tree's unit: the batches take it off their sender's own time. 0: unknown (older
    /// traces) or not compensating.
    pub(crate) counted_cost: f64,
    /// What looking a receiver's ID up by address cost a call (`nid_ns=`, C++), in the
    /// tree's unit; added to `counted_cost` for methods `by_address`. 0: unknown.
    pub(crate) nid_cost: f64,
    /// Calls the runtimes aggregated instead of recording (not in the tree).
    pub aggregated_calls: u64,
    /// Some message carries page-fault time (a C++ trace on Linux with `fault_ns=`).
    pub faults_found: bool,
    /// Recorded messages read (a focused tree keeps fewer nodes).
    pub recorded: usize,
    /// What a focused tree's merged nodes hold, by [`Node::facts`].
    pub merged: Vec<Merged>,
    /// A focused tree's instances are those its nodes name: the walker's id of each (empty
    /// for a whole tree, whose instances are the walker's, in its order).
    pub walker_ids: Vec<u32>,
    /// What each batch node stands for (`batch.rs`), by [`Node::facts`].
    pub batches: Vec<Batch>,
    /// The throttled methods' counted calls as batches, and those left out.
    pub placed: Placed,
    /// Edges of counted calls waiting for the tree to be indexed.
    pub(super) pending: Vec<Edge>,
}

impl Tree {
    pub fn kids(&self, i: u32) -> &[u32] {
        let i = i as usize;
        &self.children[self.child_at[i] as usize..self.child_at[i + 1] as usize]
    }
    /// The probe cost in node `i`'s own time: its inside part, and the outside part of each
    /// recorded message it sent (merged ones counted; batches of counted calls pay the
    /// counting, `counted_cost`, instead). 0 for a thread's root.
    pub fn probe_in_own(&self, i: u32) -> f64 {
        let n = &self.nodes[i as usize];
        if n.method == NONE {
            return 0.0;
        }
        let th = &self.threads[n.thread as usize];
        if th.probe_out == 0.0 {
            return th.probe;
        }
        let sent: u64 = self
            .kids(i)
            .iter()
            .map(|&c| match self.merged_of(c) {
                Some(m) => m.direct,
                None => u64::from(self.batch_of(c).is_none()),
            })
            .sum();
        th.probe + th.probe_out * sent as f64
    }
    pub fn unit(&self) -> Unit {
        self.unit.unwrap_or(Unit::Ns)
    }
    /// `Class#id.method` of a message node, the thread's root label for a root node.
    pub fn node_label(&self, i: u32) -> String {
        let n = &self.nodes[i as usize];
        let inst = &self.instances[n.receiver as usize].label;
        let label = match self.methods.get(n.method as usize) {
            Some(m) => format!("{inst}.{}", m.name),
            None => inst.clone(),
        };
        if let Some(b) = self.batch_of(i) {
            return format!("{label} ×{} counted calls", b.calls);
        }
        match n.merged {
            0 | 1 => label,
            k => format!("{label} and {} more", k - 1),
        }
    }
    pub fn messages(&self) -> usize {
        self.recorded
    }
    /// What merged node `i` holds (`None` for a recorded message or a root).
    pub fn merged_of(&self, i: u32) -> Option<&Merged> {
        let n = &self.nodes[i as usize];
        (n.merged > 0)
            .then(|| self.merged.get(n.facts as usize))
            .flatten()
    }
    /// What batch node `i` stands for (`None` for any other node).
    pub fn batch_of(&self, i: u32) -> Option<&Batch> {
        let n = &self.nodes[i as usize];
        (n.merged == 0 && n.facts != NONE)
            .then(|| self.batches.get(n.facts as usize))
            .flatten()
    }

    pub(super) fn index_children(&mut self) {
        let n = self.nodes.len();
        let mut count = vec![0u32; n + 1];
        for node in &self.nodes {
            if node.parent != NONE {
                count[node.parent as usize + 1] += 1;
            }
        }
        for i in 0..n {
            count[i + 1] += count[i];
        }
        let mut fill = count.clone();
        self.children = vec![0; count[n] as usize];
        // Node order is start order, so children land in send order.
        for (i, node) in self.nodes.iter().enumerate() {
            if node.parent != NONE {
                let p = node.parent as usize;
                self.children[fill[p] as usize] = i as u32;
                fill[p] += 1;
            }
        }
        self.child_at = count;
        // Batch nodes come after the recorded ones: put them in their place in time.
        if !self.batches.is_empty() {
            for i in 0..n {
                let (a, b) = (self.child_at[i] as usize, self.child_at[i + 1] as usize);
                let nodes = &self.nodes;
                self.children[a..b]
                    .sort_by(|&x, &y| nodes[x as usize].start.total_cmp(&nodes[y as usize].start));
            }
        }
    }
}

pub(super) fn inst_info(i: &Instance, names: &Names, process: usize) -> InstInfo {
    let mut label = instance_label(i, names);
    if process > 0 && i.kind == InstKind::Root {
        label = format!("{label} (process {})", process + 1);
    }
    InstInfo {
        kind: i.kind,
        label,
        class: (i.kind != InstKind::Root).then(|| names.class(i.class).to_string()),
        oid: i.oid(),
    }
}
