//! The active-object replay (docs/analysis.md, "What-if replay"): a discrete-event simulation
//! over the recorded message tree. Each thread of the run, each active instance and a pool for
//! active methods is an executor; a message to an active receiver from another executor is
//! queued on it (FIFO, send order), the sender goes on at once when the method returns nothing
//! and waits for the result otherwise. At most `cores` executors run at once: when more are
//! runnable they share the cores equally (processor sharing, as time slicing does), tracked
//! with a virtual-work clock so each step costs a heap operation.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, VecDeque};

use rustc_hash::FxHashMap;

use super::plan::Plan;
use super::tree::{Tree, NONE};

const EPS: f64 = 1e-9;

/// Machine model of the prediction, times in the tree's unit.
#[derive(Debug, Clone)]
pub struct Params {
    pub cores: usize,
    /// Wake-up delay of a cross-thread message: paid by an idle receiver before it starts
    /// and by a sender waiting on a result, never as anyone's CPU time.
    pub handoff: f64,
    /// CPU the sender of an asynchronous message spends posting it to a queue its receiver
    /// has just emptied and is at (running, or waking): both threads at the queue.
    pub enqueue: f64,
    /// ... when the post wakes a receiver blocked on its queue (where the receiver pays the
    /// handoff): a system call.
    pub wake: f64,
    /// ... when it goes behind other queued messages, the receiver busy with them: a locked
    /// push, no system call.
    pub post: f64,
    /// CPU the receiver spends taking a message posted at the `enqueue` figure off its
    /// queue (both threads at the queue's lock and memory): a fine-grained receiver pays it
    /// on every message, besides the message's work. Coarser messages, taken after a
    /// wake-up or from behind others, pay none: a pop under an uncontended lock is a few
    /// ns against work of at least a handoff.
    pub take: f64,
    /// Placing active objects on another machine: per-message latency (each way)...
    pub latency: f64,
    /// ... and bytes per time unit (`None`: infinitely fast).
    pub bandwidth: Option<f64>,
    /// The wake-up against the woken thread's idle time (`wake.rs`), charged instead of
    /// `handoff` when dearer; `None`: the flat handoff.
    pub wake_curve: Option<super::wake::WakeCurve>,
}

impl Params {
    fn there(&self, bytes: u64) -> f64 {
        self.latency + self.bandwidth.map_or(0.0, |b| bytes as f64 / b)
    }
}

/// A time with a total order, for the heaps.
#[derive(Clone, Copy)]
struct F(f64);
impl PartialEq for F {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for F {}
impl PartialOrd for F {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for F {
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.total_cmp(&o.0)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    Idle,
    Waking,
    Running,
    Waiting,
    Off,
}

struct Cursor {
    node: u32,
    next: u32,
    pos: f64,
    /// Probe cost still to take off this message's own time.
    debt: f64,
    /// Executor waiting for this message's result.
    reply: u32,
}

#[derive(Clone, Copy)]
struct Task {
    node: u32,
    reply: u32,
    cause: u32,
    at: f64,
    /// The receiver's CPU to take it (and, for a batch, its calls) off the queue.
    take: f64,
}

struct Exec {
    label: String,
    queue: u32,
    stack: Vec<Cursor>,
    state: State,
    busy: f64,
    tasks: u64,
    /// Last finished segment (for the critical path) and its end time.
    cause: u32,
    cause_t: f64,
    waiting_on: u32,
    wait_since: f64,
    wait_for: u32,
    /// When a queue's worker last blocked on its queue (its idle time when woken).
    idle_since: f64,
    pending: f64,
    seg_start: f64,
    seg_node: u32,
}

struct Queue {
    items: VecDeque<Task>,
    /// Arrival time of the last message sent to it: a channel delivers in send order.
    last_at: f64,
    workers: Vec<u32>,
}

enum Ev {
    Start(u32),
    Arrive(u32, Task),
    Wake(u32),
    Result(u32, u32),
}

/// A stretch of work of one executor, linked to what enabled it.
#[derive(Clone, Copy)]
pub struct Seg {
    pub exec: u32,
    pub node: u32,
    pub t0: f64,
    pub t1: f64,
    pub work: f64,
    pub prev: u32,
}

pub struct ExecOut {
    pub label: String,
    pub busy: f64,
    pub messages: u64,
}

pub struct WaitOut {
    pub exec: u32,
    pub node: u32,
    pub time: f64,
}

/// What one replay found.
pub struct Outcome {
    pub time: f64,
    pub execs: Vec<ExecOut>,
    /// Chronological segments of the critical path.
    pub critical: Vec<Seg>,
    pub waits: Vec<WaitOut>,
    pub async_sends: u64,
    pub sync_sends: u64,
    /// Page-fault time taken off moved messages (at most: a debt larger than the message's
    /// own time is not all used).
    pub faults_dropped: f64,
    /// Work of the messages sent to another thread, and what their senders spent enqueuing
    /// the asynchronous ones.
    pub moved_work: f64,
    pub enqueue_time: f64,
    /// What their receivers spent taking them off their queues.
    pub take_time: f64,
    /// Of the asynchronous messages, those whose post woke a blocked receiver.
    pub wakes: f64,
    /// Cross-thread messages that were counted calls (sent as batches).
    pub counted_sends: u64,
    /// The wake-ups of receivers blocked on their queues by a message whose sender waits
    /// for its result, and of those senders by the result: idle time and delay charged.
    pub woken_receivers: super::wake::Charged,
    pub woken_callers: super::wake::Charged,
    /// The work those counted calls moved to their receivers.
    pub counted_work: f64,
    /// Executors still waiting at the end: the change deadlocks.
    pub deadlocked: Vec<String>,
}

/// Own time of each message with the probe cost and its waiting taken off (saturating),
/// and the
/// aggregate of each subtree made of those. A merged node (focused tree) brings its
/// messages' aggregate; the gaps inside it are its parent's own time.
pub fn compensated_aggregates(t: &Tree) -> Vec<f64> {
    let mut agg = vec![0.0; t.nodes.len()];
    for i in (0..t.nodes.len()).rev() {
        let n = &t.nodes[i];
        if n.merged > 0 {
            agg[i] = t.merged_of(i as u32).map_or(0.0, |m| m.work);
        } else if let Some(b) = t.batch_of(i as u32) {
            agg[i] = b.work;
        } else {
            let kids: f64 = t
                .kids(i as u32)
                .iter()
                .map(|&c| {
                    let cn = &t.nodes[c as usize];
                    cn.end - cn.start - merged_gap(t, c)
                })
                .sum();
            let own = (n.end - n.start - kids).max(0.0);
            let probe = t.probe_in_own(i as u32);
            agg[i] += (own - probe - n.wait).max(0.0);
        }
        if n.parent != NONE {
            let a = agg[i];
            agg[n.parent as usize] += a;
        }
    }
    agg
}

/// The parent's own time inside merged node `c` (0 for any other node).
fn merged_gap(t: &Tree, c: u32) -> f64 {
    if t.nodes[c as usize].merged == 0 {
        return 0.0;
    }
    t.merged_of(c).map_or(0.0, |m| m.gap)
}

pub struct Sim<'a> {
    t: &'a Tree,
    plan: &'a Plan,
    p: &'a Params,
    agg: &'a [f64],
    has_active: Vec<bool>,
    /// Page-fault time of each message's subtree (`Node::fault` summed).
    fault_sub: Vec<f64>,
    execs: Vec<Exec>,
    queues: Vec<Queue>,
    inst_queue: FxHashMap<u32, u32>,
    pool: u32,
    run: BinaryHeap<Reverse<(F, u32)>>,
    timed: BinaryHeap<Reverse<(F, u64)>>,
    events: FxHashMap<u64, Ev>,
    seq: u64,
    now: f64,
    v: f64,
    segs: Vec<Seg>,
    /// Whether `segs` are kept (the critical path needs them).
    path: bool,
    waits: Vec<WaitOut>,
    async_sends: u64,
    sync_sends: u64,
    faults_dropped: f64,
    moved_work: f64,
    enqueue_time: f64,
    take_time: f64,
    wakes: f64,
    counted_sends: u64,
    woken_receivers: super::wake::Charged,
    woken_callers: super::wake::Charged,
    counted_work: f64,
}

fn exec(label: String, queue: u32) -> Exec {
    Exec {
        label,
        queue,
        stack: Vec::new(),
        state: State::Idle,
        busy: 0.0,
        tasks: 0,
        cause: NONE,
        cause_t: f64::NEG_INFINITY,
        waiting_on: NONE,
        wait_since: 0.0,
        wait_for: NONE,
        idle_since: 0.0,
        pending: 0.0,
        seg_start: 0.0,
        seg_node: NONE,
    }
}

/// Replay `t` under `plan` (an empty plan replays the run as recorded: the baseline).
pub fn replay(t: &Tree, plan: &Plan, p: &Params, agg: &[f64]) -> Outcome {
    let mut s = Sim::new(t, plan, p, agg);
    s.run_all();
    s.outcome()
}

/// [`replay`] without the critical path (`Outcome::critical` empty): the rest of the
/// outcome is the same, but no segment is kept per chunk of work — a whole run's replay
/// makes millions, 40 bytes each, and a verdict or a baseline needs none of them.
pub fn replay_without_path(t: &Tree, plan: &Plan, p: &Params, agg: &[f64]) -> Outcome {
    let mut s = Sim::new(t, plan, p, agg);
    s.path = false;
    s.run_all();
    s.outcome()
}

/// Per node: whether its subtree holds an active message, and its subtree's fault time.
fn subtree_marks(t: &Tree, plan: &Plan) -> (Vec<bool>, Vec<f64>) {
    let mut has_active = vec![false; t.nodes.len()];
    let mut fault_sub = vec![0.0; t.nodes.len()];
    for i in (0..t.nodes.len()).rev() {
        let n = &t.nodes[i];
        fault_sub[i] += n.fault;
        if n.parent != NONE {
            let f = fault_sub[i];
            fault_sub[n.parent as usize] += f;
        }
        has_active[i] |= n.method != NONE && n.merged == 0 && plan.takes(n.method, n.receiver);
        if has_active[i] && n.parent != NONE {
            has_active[n.parent as usize] = true;
        }
    }
    (has_active, fault_sub)
}

impl<'a> Sim<'a> {
    fn new(t: &'a Tree, plan: &'a Plan, p: &'a Params, agg: &'a [f64]) -> Self {
        let (has_active, fault_sub) = subtree_marks(t, plan);
        let mut s = Sim {
            t,
            plan,
            p,
            agg,
            has_active,
            fault_sub,
            execs: Vec::new(),
            queues: Vec::new(),
            inst_queue: FxHashMap::default(),
            pool: NONE,
            run: BinaryHeap::new(),
            timed: BinaryHeap::new(),
            events: FxHashMap::default(),
            seq: 0,
            now: 0.0,
            v: 0.0,
            segs: Vec::new(),
            path: true,
            waits: Vec::new(),
            async_sends: 0,
            sync_sends: 0,
            faults_dropped: 0.0,
            moved_work: 0.0,
            enqueue_time: 0.0,
            take_time: 0.0,
            wakes: 0.0,
            counted_sends: 0,
            woken_receivers: Default::default(),
            woken_callers: Default::default(),
            counted_work: 0.0,
        };
        s.start_threads();
        s.open_queues();
        s
    }

    /// One executor per profiled thread, each woken at its root's start (the earliest at 0).
    fn start_threads(&mut self) {
        let t = self.t;
        let t0 = t
            .threads
            .iter()
            .map(|th| t.nodes[th.root as usize].start)
            .fold(f64::INFINITY, f64::min);
        for th in &t.threads {
            let x = self.execs.len() as u32;
            self.execs.push(exec(th.label.clone(), NONE));
            self.execs[x as usize].stack.push(Cursor {
                node: th.root,
                next: 0,
                pos: t.nodes[th.root as usize].start,
                debt: 0.0,
                reply: NONE,
            });
            self.execs[x as usize].state = State::Waking;
            self.at(t.nodes[th.root as usize].start - t0, Ev::Start(x));
        }
    }

    /// A queue with one worker per active instance (in id order), and the pool's.
    fn open_queues(&mut self) {
        let (t, plan) = (self.t, self.plan);
        let mut insts: Vec<u32> = plan.instances.iter().copied().collect();
        insts.sort_unstable();
        for i in insts {
            let q = self.add_queue(1, &t.instances[i as usize].label);
            self.inst_queue.insert(i, q);
        }
        if !plan.methods.is_empty() {
            self.pool = self.add_queue(self.p.cores.max(1), "pool");
        }
    }

    fn add_queue(&mut self, workers: usize, label: &str) -> u32 {
        let q = self.queues.len() as u32;
        let mut ws = Vec::new();
        for k in 0..workers {
            let l = if workers == 1 {
                label.to_string()
            } else {
                format!("{label} worker {}", k + 1)
            };
            ws.push(self.execs.len() as u32);
            self.execs.push(exec(l, q));
        }
        self.queues.push(Queue {
            items: VecDeque::new(),
            last_at: f64::NEG_INFINITY,
            workers: ws,
        });
        q
    }

    fn at(&mut self, time: f64, ev: Ev) {
        self.seq += 1;
        self.events.insert(self.seq, ev);
        self.timed.push(Reverse((F(time), self.seq)));
    }

    fn run_all(&mut self) {
        loop {
            let r = self.run.len();
            let rate = if r == 0 {
                0.0
            } else {
                (self.p.cores.max(1) as f64 / r as f64).min(1.0)
            };
            let tc = self
                .run
                .peek()
                .map(|Reverse((F(v), _))| self.now + (v - self.v).max(0.0) / rate);
            let te = self.timed.peek().map(|Reverse((F(t), _))| *t);
            match (tc, te) {
                (None, None) => break,
                (Some(c), e) if e.is_none_or(|e| c <= e) => {
                    let Reverse((F(v), x)) = self.run.pop().unwrap();
                    self.now = c;
                    self.v = v;
                    self.chunk_done(x);
                    self.advance(x);
                }
                (_, Some(e)) => {
                    let Reverse((_, id)) = self.timed.pop().unwrap();
                    self.v += (e - self.now) * rate;
                    self.now = e;
                    let ev = self.events.remove(&id).unwrap();
                    self.handle(ev);
                }
                _ => unreachable!(),
            }
        }
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::Start(x) | Ev::Wake(x) => {
                self.execs[x as usize].state = State::Running;
                self.advance(x);
            }
            Ev::Arrive(q, task) => {
                self.queues[q as usize].items.push_back(task);
                let idle = self.queues[q as usize]
                    .workers
                    .iter()
                    .copied()
                    .find(|&w| self.execs[w as usize].state == State::Idle);
                if let Some(w) = idle {
                    let e = &mut self.execs[w as usize];
                    e.state = State::Waking;
                    let idle = self.now - e.idle_since;
                    let delay =
                        super::wake::delay(self.p.handoff, self.p.wake_curve.as_ref(), idle);
                    if task.reply != NONE {
                        self.woken_receivers.add(idle, delay);
                    }
                    self.at(self.now + delay, Ev::Wake(w));
                }
            }
            Ev::Result(x, cause) => {
                let e = &mut self.execs[x as usize];
                self.waits.push(WaitOut {
                    exec: x,
                    node: e.wait_for,
                    time: self.now - e.wait_since,
                });
                e.state = State::Running;
                e.waiting_on = NONE;
                if cause != NONE {
                    e.cause = cause;
                    e.cause_t = self.now;
                }
                self.advance(x);
            }
        }
    }

    fn chunk_done(&mut self, x: u32) {
        let e = &mut self.execs[x as usize];
        if !self.path {
            e.busy += e.pending;
            return;
        }
        self.segs.push(Seg {
            exec: x,
            node: e.seg_node,
            t0: e.seg_start,
            t1: self.now,
            work: e.pending,
            prev: e.cause,
        });
        e.busy += e.pending;
        e.cause = self.segs.len() as u32 - 1;
        e.cause_t = self.now;
    }

    fn compute(&mut self, x: u32, w: f64, node: u32) {
        let e = &mut self.execs[x as usize];
        e.state = State::Running;
        e.pending = w;
        e.seg_start = self.now;
        e.seg_node = node;
        self.run.push(Reverse((F(self.v + w), x)));
    }

    fn void(&self, node: u32) -> bool {
        let m = self.t.nodes[node as usize].method;
        self.t
            .methods
            .get(m as usize)
            .is_some_and(|m| m.void == Some(true))
    }

    /// Does `w` (transitively) wait for `x`? Then a call from `x` to `w` runs inline, as a
    /// re-entrant call would, instead of deadlocking.
    fn waits_for(&self, mut w: u32, x: u32) -> bool {
        for _ in 0..64 {
            let e = &self.execs[w as usize];
            if e.state != State::Waiting || e.waiting_on == NONE {
                return false;
            }
            let q = &self.queues[e.waiting_on as usize];
            if q.workers.len() != 1 {
                return false;
            }
            w = q.workers[0];
            if w == x {
                return true;
            }
        }
        false
    }

    /// The page-fault time message `c` (with `subtree`, its callees' too) sheds when executor
    /// `x` is not the thread that recorded it: faults belong to the recording thread's
    /// allocation pattern (its heap handing pages back to the OS between allocations), and a
    /// thread the change creates allocates from memory of its own (docs/analysis.md, "What-if replay").
    fn moved_faults(&self, x: u32, c: u32, subtree: bool) -> f64 {
        if x == self.t.nodes[c as usize].thread {
            return 0.0;
        }
        if subtree {
            self.fault_sub[c as usize]
        } else {
            self.t.nodes[c as usize].fault
        }
    }

    /// The queue a message goes to, or `None` to run it on the executor at hand.
    fn route(&self, c: u32, x: u32) -> Option<u32> {
        let n = &self.t.nodes[c as usize];
        if n.merged > 0 {
            return None;
        }
        if let Some(&q) = self.inst_queue.get(&n.receiver) {
            let w = self.queues[q as usize].workers[0];
            if w == x || (!self.void(c) && self.waits_for(w, x)) {
                return None;
            }
            return Some(q);
        }
        if self.plan.methods.contains(&n.method) && self.execs[x as usize].queue != self.pool {
            return Some(self.pool);
        }
        None
    }

    /// Run executor `x` until it needs CPU time, waits or runs out of work.
    fn advance(&mut self, x: u32) {
        let t = self.t;
        loop {
            let xi = x as usize;
            let Some(top) = self.execs[xi].stack.last_mut() else {
                match self.take_task(x) {
                    None => return,
                    Some((node, take)) if take > EPS => return self.compute(x, take, node),
                    Some(_) => continue,
                }
            };
            let node = top.node;
            let kids = t.kids(node);
            if (top.next as usize) < kids.len() {
                let c = kids[top.next as usize];
                let cn = &t.nodes[c as usize];
                let gap = (cn.start - top.pos).max(0.0);
                top.pos = top.pos.max(cn.start);
                let w = take(gap, &mut top.debt);
                if w > EPS {
                    return self.compute(x, w, node);
                }
                top.next += 1;
                top.pos = cn.end;
                let busy = match self.route(c, x) {
                    None if !self.has_active[c as usize] => self.run_inline(x, c),
                    None => {
                        self.descend(x, c);
                        false
                    }
                    Some(q) => self.send(x, c, q, node),
                };
                if busy {
                    return;
                }
            } else {
                let end = t.nodes[node as usize].end;
                let gap = (end - top.pos).max(0.0);
                top.pos = end;
                let w = take(gap, &mut top.debt);
                if w > EPS {
                    return self.compute(x, w, node);
                }
                self.return_from(x);
            }
        }
    }

    /// Child `c`, with nothing active below it, runs on `x` as one piece of work (less the
    /// page faults a moved object no longer takes); true when `x` is now busy. A merged
    /// node's gaps are its sender's own time: they pay what is left of its probe debt.
    fn run_inline(&mut self, x: u32, c: u32) -> bool {
        let mut f = self.moved_faults(x, c, true).min(self.agg[c as usize]);
        if f > 0.0 && self.t.nodes[c as usize].merged > 0 {
            f = self.t.merged_of(c).map_or(0.0, |m| m.shed);
        }
        self.faults_dropped += f;
        let gap = merged_gap(self.t, c);
        let own = match self.execs[x as usize].stack.last_mut() {
            Some(top) if gap > 0.0 => take(gap, &mut top.debt),
            _ => gap,
        };
        let w = self.agg[c as usize] - f + own;
        if w > EPS {
            self.compute(x, w, c);
            return true;
        }
        false
    }

    /// `x` walks into child `c` (something below it is active), owing the probe cost.
    fn descend(&mut self, x: u32, c: u32) {
        let debt = self.debt(x, c);
        self.execs[x as usize].stack.push(Cursor {
            node: c,
            next: 0,
            pos: self.t.nodes[c as usize].start,
            debt,
            reply: NONE,
        });
    }

    /// What executor `x` takes off message `c`'s own time as it runs it: the probe cost,
    /// the page faults a moved message sheds, its time off the CPU; for a batch of counted
    /// calls, all but their work.
    fn debt(&mut self, x: u32, c: u32) -> f64 {
        let cn = &self.t.nodes[c as usize];
        if self.t.batch_of(c).is_some() {
            return (cn.end - cn.start - self.agg[c as usize]).max(0.0);
        }
        let probe = self.t.probe_in_own(c);
        let f = self.moved_faults(x, c, false);
        self.faults_dropped += f;
        probe + f + cn.wait
    }

    /// `x` sends child `c` to queue `q`: a void message goes asynchronously (the sender pays
    /// the enqueue), else `x` waits for the result; true when `x` is now busy or waiting.
    fn send(&mut self, x: u32, c: u32, q: u32, node: u32) -> bool {
        let xi = x as usize;
        let size = self.t.nodes[c as usize].size;
        let void = self.void(c);
        let (waits, backlog) = self.receiver_at(q);
        // A batch of counted calls is that many messages.
        let batch = self.t.batch_of(c).map(|b| b.calls);
        let n = batch.unwrap_or(1);
        let [wakes, at, behind] = match void {
            true => self.posts(c, n, waits, backlog),
            false => [0.0; 3],
        };
        let qu = &mut self.queues[q as usize];
        qu.last_at = qu.last_at.max(self.now + self.p.there(size));
        let task = Task {
            node: c,
            reply: if void { NONE } else { x },
            cause: self.execs[xi].cause,
            at: qu.last_at,
            take: at * self.p.take,
        };
        self.at(task.at, Ev::Arrive(q, task));
        self.counted_sends += batch.unwrap_or(0);
        self.moved_work += self.agg[c as usize];
        if batch.is_some() {
            self.counted_work += self.agg[c as usize];
        }
        if void {
            self.async_sends += n;
            self.wakes += wakes;
            let p = self.p;
            let enqueue = wakes * p.wake + at * p.enqueue + behind * p.post;
            if enqueue > EPS {
                self.enqueue_time += enqueue;
                self.compute(x, enqueue, node);
                return true;
            }
            return false;
        }
        self.sync_sends += n;
        let e = &mut self.execs[xi];
        e.state = State::Waiting;
        e.waiting_on = q;
        e.wait_since = self.now;
        e.wait_for = c;
        true
    }

    /// What a message posted to `q` now finds: its receiver blocked on the queue (a worker
    /// idle, nothing queued or on its way; a worker waking is not blocked), and whether
    /// other messages are queued ahead of it.
    fn receiver_at(&self, q: u32) -> (bool, bool) {
        let qu = &self.queues[q as usize];
        let backlog = !qu.items.is_empty() || qu.last_at > self.now;
        let idle = qu
            .workers
            .iter()
            .any(|&w| self.execs[w as usize].state == State::Idle);
        (!backlog && idle, backlog)
    }

    /// Of the `n` posts of message `c`: [waking a blocked receiver, to the queue it has just
    /// emptied and is at, behind others]. Only a message whose own work keeps its receiver
    /// away from the queue for at least a handoff tells these apart: it finds the receiver
    /// blocked (a system call), else busy with earlier messages (a locked push). A finer
    /// one is taken off the queue about as fast as it is posted, so sender and receiver
    /// meet at the queue's lock and memory on every post whatever the replay finds: it
    /// pays the figure measured for that. A batch of counted calls is judged by its work
    /// per call and stands for calls spread over its sender's time, never a burst of
    /// wake-ups: its coarse calls go behind each other when a backlog builds (work per call
    /// at least the sender's interval), else each is at the queue.
    fn posts(&self, c: u32, n: u64, waits: bool, backlog: bool) -> [f64; 3] {
        let mut out = [0.0; 3];
        let (work, keeps_up) = match self.t.batch_of(c) {
            Some(b) => {
                let work = b.work / b.calls.max(1) as f64;
                (work, work < b.between + self.p.post)
            }
            None => (self.agg[c as usize], !backlog),
        };
        let slot = if work < self.p.handoff {
            1
        } else if self.t.batch_of(c).is_none() && waits {
            0
        } else if keeps_up {
            1
        } else {
            2
        };
        out[slot] = n as f64;
        out
    }

    /// `x`'s top message is done: pop it and, for a task, send the result back.
    fn return_from(&mut self, x: u32) {
        let xi = x as usize;
        let done = self.execs[xi].stack.pop().unwrap();
        if done.reply != NONE {
            // The caller has been parked since it sent the message.
            let there = self.p.there(0);
            let idle = self.now + there - self.execs[done.reply as usize].wait_since;
            let delay = super::wake::delay(self.p.handoff, self.p.wake_curve.as_ref(), idle);
            self.woken_callers.add(idle, delay);
            let mut back = there + delay;
            // A batch's caller waited for each of its calls: one round trip per call more.
            if let Some(b) = self.t.batch_of(done.node) {
                let size = self.t.nodes[done.node as usize].size;
                let trip = self.p.there(size) + self.p.there(0) + 2.0 * self.p.handoff;
                back += b.calls.saturating_sub(1) as f64 * trip;
            }
            let cause = self.execs[xi].cause;
            self.at(self.now + back, Ev::Result(done.reply, cause));
        }
    }

    /// Start the next queued message: its node and the receiver's CPU to take it off the
    /// queue (`x` computes that first); `None` when there is none (the executor idles).
    fn take_task(&mut self, x: u32) -> Option<(u32, f64)> {
        let e = &self.execs[x as usize];
        let task = match e.queue {
            NONE => None,
            q => self.queues[q as usize].items.pop_front(),
        };
        let e = &mut self.execs[x as usize];
        let Some(task) = task else {
            e.state = if e.queue == NONE {
                State::Off
            } else {
                State::Idle
            };
            e.idle_since = self.now;
            return None;
        };
        e.tasks += self.t.batch_of(task.node).map_or(1, |b| b.calls);
        if task.at >= e.cause_t {
            e.cause = task.cause;
        }
        let debt = self.debt(x, task.node);
        let pos = self.t.nodes[task.node as usize].start;
        let e = &mut self.execs[x as usize];
        e.stack.push(Cursor {
            node: task.node,
            next: 0,
            pos,
            debt,
            reply: task.reply,
        });
        self.take_time += task.take;
        Some((task.node, task.take))
    }

    fn outcome(mut self) -> Outcome {
        let critical = critical_path(std::mem::take(&mut self.segs));
        let deadlocked = self
            .execs
            .iter()
            .filter(|e| e.state == State::Waiting)
            .map(|e| e.label.clone())
            .collect();
        Outcome {
            time: self.now,
            execs: self
                .execs
                .into_iter()
                .map(|e| ExecOut {
                    label: e.label,
                    busy: e.busy,
                    messages: e.tasks,
                })
                .collect(),
            critical,
            waits: self.waits,
            async_sends: self.async_sends,
            sync_sends: self.sync_sends,
            faults_dropped: self.faults_dropped,
            moved_work: self.moved_work,
            enqueue_time: self.enqueue_time,
            take_time: self.take_time,
            wakes: self.wakes,
            counted_sends: self.counted_sends,
            woken_receivers: self.woken_receivers,
            woken_callers: self.woken_callers,
            counted_work: self.counted_work,
            deadlocked,
        }
    }
}

/// The chain of segments that ends last, in time order, made in place: a replay of a
/// whole run has millions of segments and its critical path may hold most of them, so a
/// copy of the chain beside them doubled the replay's peak. A segment's `prev` is always
/// an earlier one, so the chain's positions rise and each of its segments moves down.
fn critical_path(mut segs: Vec<Seg>) -> Vec<Seg> {
    let last = (0..segs.len()).max_by(|&a, &b| segs[a].t1.total_cmp(&segs[b].t1).then(a.cmp(&b)));
    let mut chain = Vec::new();
    let mut at = last.map_or(NONE, |i| i as u32);
    while at != NONE {
        chain.push(at);
        at = segs[at as usize].prev;
    }
    for (k, &i) in chain.iter().rev().enumerate() {
        segs[k] = segs[i as usize];
        segs[k].prev = if k == 0 { NONE } else { k as u32 - 1 };
    }
    segs.truncate(chain.len());
    segs.shrink_to_fit();
    segs
}

/// `gap` less what is left of the probe debt.
fn take(gap: f64, debt: &mut f64) -> f64 {
    let d = gap.min(*debt);
    *debt -= d;
    gap - d
}

#[cfg(test)]
#[path = "sim_tests.rs"]
mod tests;
