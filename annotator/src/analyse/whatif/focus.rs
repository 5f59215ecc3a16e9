//! A message tree focused on some subjects, for traces too big to hold every message (a
//! whole run: tens of millions). The replay only looks inside a message whose subtree holds
//! a moved message (`Sim::run_inline`): any other subtree runs as one piece of work on the
//! thread that reaches it. So the focused tree keeps the messages to the focus's instances
//! and methods and every message they are sent from, and merges each stretch of other
//! messages a kept message sends one after another into one node that carries what the
//! replay needs of them: their compensated aggregate time, page-fault time, and the
//! sender's own time between them (which still pays the sender's probe cost). The
//! replay's results are the same as on the whole tree (up to floating-point rounding) for
//! any plan within the focus.

use rustc_hash::{FxHashMap, FxHashSet};

use super::node::{Faults, Merged, Node, NONE};
use crate::analyse::trace::Names;
use crate::analyse::walk::{Closed, Frame, Instance, Sink};

/// What a focused tree keeps: messages to these instances or of these methods (the
/// walker's ids), and the messages they are sent from.
pub struct Focus {
    pub instances: FxHashSet<u32>,
    pub methods: FxHashSet<u32>,
    /// Nodes kept at most: past it the load gives up (the replay would hold too much)...
    pub max_nodes: usize,
    /// ... unless it is to count, to the end, the messages each focused instance and method
    /// receives (to choose a smaller focus that fits: see [`Over`]).
    pub count_when_over: bool,
}

/// A focus that did not fit: the recorded messages each of its instances and methods
/// received (complete when counted to the end, else up to where the load gave up).
#[derive(Debug, Default)]
pub struct Over {
    pub instances: FxHashMap<u32, u64>,
    pub methods: FxHashMap<u32, u64>,
    /// Nodes the focus had kept per message in focus when it gave up: what a smaller
    /// focus will need per message of its own.
    pub nodes_per_message: f64,
}

/// Messages one kept message (or a thread's root) sent one after another since its last
/// kept one, merged: trace units.
#[derive(Clone, Copy, Default)]
struct Run {
    count: u64,
    /// The messages the sender sent itself (the rest are theirs).
    direct: u64,
    start: u64,
    end: u64,
    /// Sum of the merged messages' spans (the rest of `end - start` is the sender's).
    span: u64,
    work: f64,
    fault: f64,
    /// Each merged message's faults up to its own time: what it sheds when moved.
    shed: f64,
    /// The heaviest merged message: (work, method, receiver); it names the node.
    top: (f64, u32, u32),
}

impl Run {
    fn add(&mut self, start: u64, end: u64, span: u64, sub: &Sub, who: (u32, u32)) {
        if self.count == 0 {
            self.start = start;
        }
        self.count += sub.count;
        self.direct += 1;
        self.end = end;
        self.span = self.span.saturating_add(span);
        self.work += sub.work;
        self.fault += sub.fault;
        self.shed += sub.fault.min(sub.work);
        if self.count == sub.count || sub.work > self.top.0 {
            self.top = (sub.work, who.0, who.1);
        }
    }
}

/// A closed subtree with nothing in focus: its messages, compensated aggregate and faults.
struct Sub {
    count: u64,
    work: f64,
    fault: f64,
}

/// An open message: its node once kept, and the run of messages it sent since.
struct Open {
    node: u32,
    frame: Frame,
    run: Run,
}

/// The sink that builds a focused tree's nodes (see the module's comment).
pub(super) struct Collector<'a> {
    focus: &'a Focus,
    /// Probe cost per message, in the trace's unit: inside its own time, and outside (in
    /// its sender's).
    probe: (f64, f64),
    faults: &'a Faults,
    stacks: Vec<Vec<Open>>,
    /// Per thread: the run of its root (outermost messages not kept).
    roots: Vec<Run>,
    /// The tree's nodes as the walk makes them: times in the trace's unit, parents among
    /// these nodes (`NONE`: the thread's root), receivers and threads the walker's.
    nodes: Vec<Node>,
    merged: Vec<Merged>,
    pub threads_used: Vec<bool>,
    recorded: usize,
    over: bool,
    counts: Over,
    /// Messages in focus so far.
    focused: u64,
    /// The aggregated edges, each with its thread's tid (counted calls: `batch.rs`).
    pub edges: Vec<(u64, crate::analyse::walk::Resolved)>,
}

impl<'a> Collector<'a> {
    pub fn new(focus: &'a Focus, probe: (f64, f64), faults: &'a Faults) -> Self {
        Collector {
            focus,
            probe,
            faults,
            stacks: Vec::new(),
            roots: Vec::new(),
            nodes: Vec::new(),
            merged: Vec::new(),
            threads_used: Vec::new(),
            recorded: 0,
            over: false,
            counts: Over::default(),
            focused: 0,
            edges: Vec::new(),
        }
    }

    /// The nodes, what the merged ones hold (by [`Node::facts`]), and the recorded
    /// messages; the focus's counts when it kept too many nodes.
    #[allow(clippy::type_complexity)]
    pub fn finish(&mut self) -> Result<(Vec<Node>, Vec<Merged>, usize), Over> {
        for th in 0..self.roots.len() {
            self.flush(th, 0);
        }
        if self.over {
            return Err(std::mem::take(&mut self.counts));
        }
        let merged = std::mem::take(&mut self.merged);
        Ok((std::mem::take(&mut self.nodes), merged, self.recorded))
    }

    /// The node of a recorded message starting (its end is set when it closes).
    fn message(&self, f: &Frame, parent: u32, th: usize) -> Node {
        Node {
            method: f.method,
            receiver: f.receiver,
            size: f.size,
            start: f.start as f64,
            end: f.start as f64,
            parent,
            thread: th as u32,
            fault: self.faults.get(&(f.method, f.oid)).copied().unwrap_or(0.0),
            wait: 0.0,
            merged: 0,
            facts: NONE,
        }
    }

    /// Counts a message in focus against its receiver and its method.
    fn count(&mut self, f: &Frame) {
        self.focused += 1;
        if self.focus.instances.contains(&f.receiver) {
            *self.counts.instances.entry(f.receiver).or_default() += 1;
        }
        if self.focus.methods.contains(&f.method) {
            *self.counts.methods.entry(f.method).or_default() += 1;
        }
    }

    fn in_focus(&self, f: &Frame) -> bool {
        self.focus.instances.contains(&f.receiver) || self.focus.methods.contains(&f.method)
    }

    /// Keeps every message open on thread `th` that is not kept yet, outermost first, each
    /// after the run its sender had so far.
    fn keep_open(&mut self, th: usize) {
        let stack = &self.stacks[th];
        let from = stack
            .iter()
            .rposition(|o| o.node != NONE)
            .map_or(0, |k| k + 1);
        for k in from..self.stacks[th].len() {
            self.flush(th, k);
            let parent = if k == 0 {
                NONE
            } else {
                self.stacks[th][k - 1].node
            };
            let f = self.stacks[th][k].frame;
            self.stacks[th][k].node = self.push(self.message(&f, parent, th));
        }
    }

    /// The run of the sender of stack position `k` (the root's for 0) becomes a merged
    /// node, if it holds anything.
    fn flush(&mut self, th: usize, k: usize) {
        let (run, parent) = match k {
            0 => (std::mem::take(&mut self.roots[th]), NONE),
            _ => {
                let o = &mut self.stacks[th][k - 1];
                (std::mem::take(&mut o.run), o.node)
            }
        };
        self.flush_run(th, run, parent);
    }

    /// `run` as a merged node sent by node `parent` (`NONE`: the thread's root).
    fn flush_run(&mut self, th: usize, run: Run, parent: u32) {
        if run.count == 0 {
            return;
        }
        let (_, method, receiver) = run.top;
        let node = self.push(Node {
            method,
            receiver,
            size: 0,
            start: run.start as f64,
            end: run.end as f64,
            parent,
            thread: th as u32,
            fault: run.fault,
            wait: 0.0,
            merged: u32::try_from(run.count).unwrap_or(u32::MAX),
            facts: self.merged.len() as u32,
        });
        if node == NONE {
            return; // past the cap: nothing is kept any more
        }
        let gap = run.end.saturating_sub(run.start).saturating_sub(run.span);
        self.merged.push(Merged {
            work: run.work,
            direct: run.direct,
            gap: gap as f64,
            shed: run.shed,
        });
    }

    fn push(&mut self, node: Node) -> u32 {
        if self.nodes.len() >= self.focus.max_nodes && !self.over {
            self.over = true;
            self.counts.nodes_per_message = self.nodes.len() as f64 / self.focused.max(1) as f64;
            // What was collected is of no use now; the counts go on.
            self.nodes = Vec::new();
            self.merged = Vec::new();
        }
        if self.over {
            return NONE;
        }
        self.nodes.push(node);
        self.nodes.len() as u32 - 1
    }
}

impl Sink for Collector<'_> {
    fn gave_up(&self) -> bool {
        self.over && !self.focus.count_when_over
    }

    fn started(&mut self, _parent: Option<u32>, th: usize, f: &Frame) -> u32 {
        let focused = self.in_focus(f);
        if focused {
            self.count(f);
        }
        if self.over {
            return th as u32;
        }
        if self.stacks.len() <= th {
            self.stacks.resize_with(th + 1, Vec::new);
            self.roots.resize(th + 1, Run::default());
            self.threads_used.resize(th + 1, false);
        }
        self.threads_used[th] = true;
        self.recorded += 1;
        self.stacks[th].push(Open {
            node: NONE,
            frame: *f,
            run: Run::default(),
        });
        if focused {
            self.keep_open(th);
        }
        // The walker hands it back with the end: which stack to pop.
        th as u32
    }

    fn closed(&mut self, c: &Closed, _: &[Instance], _: &Names) {
        if self.over {
            return;
        }
        let th = c.frame.ctx as usize;
        let Some(o) = self.stacks[th].pop() else {
            return;
        };
        if o.node != NONE {
            self.flush_run(th, o.run, o.node);
            if let Some(n) = self.nodes.get_mut(o.node as usize) {
                n.end = c.end as f64;
                n.wait = c.wait as f64;
            }
            return;
        }
        // Nothing in focus below: the whole subtree joins its sender's run.
        let f = &o.frame;
        let span = c.end.saturating_sub(f.start);
        let own = span.saturating_sub(o.run.span) as f64;
        let sub = Sub {
            count: 1 + o.run.count,
            work: (own - self.probe.0 - self.probe.1 * f.children as f64 - c.wait as f64).max(0.0)
                + o.run.work,
            fault: self.faults.get(&(f.method, f.oid)).copied().unwrap_or(0.0) + o.run.fault,
        };
        let who = (f.method, f.receiver);
        let run = match self.stacks[th].last_mut() {
            Some(p) => &mut p.run,
            None => &mut self.roots[th],
        };
        run.add(f.start, c.end, span, &sub, who);
    }

    fn aggregated(
        &mut self,
        aggs: &crate::analyse::trace::agg::Aggregates,
        edges: &[crate::analyse::walk::Resolved],
        _: &[Instance],
    ) {
        self.edges = crate::analyse::walk::with_tids(aggs, edges);
    }
}

#[cfg(test)]
#[path = "focus_tests.rs"]
mod tests;
