//! Parallelisation hints after the thesis's guidelines (§7.6): only what is active enough is
//! worth a thread; start at the top; compare class/method averages with individuals; look at
//! chains where a message's own (net) time is small next to its aggregate; keep objects that
//! mostly talk to themselves or to one neighbour together.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::{Analysis, InstRow, InstanceStats, MessageRecord, Options, TopRows};
use crate::analyse::walk::InstKind;

/// What a hint is: a replayed proposal or statement first, then the thesis's observations.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum HintKind {
    /// A change that pays, with its predicted speedup (ranked first).
    Proposal,
    /// A heavy subject whose change gains nothing, said plainly.
    NoGain,
    CandidateInstance,
    CandidateMethod,
    CandidateMessage,
    Chain,
    SelfContained,
    SingleNeighbour,
    ClassOutlier,
    ClassUniform,
    MethodOutlier,
    MethodUniform,
    /// A method that spends much of its time in page faults (C++ on Linux).
    PageFaults,
    /// An instance whose messages mostly wait off the CPU: a synchronisation point.
    Waits,
    /// A method whose measured time is mostly the probe's own cost.
    ProbeCost,
}

impl HintKind {
    pub fn as_str(self) -> &'static str {
        match self {
            HintKind::Proposal => "proposal",
            HintKind::NoGain => "no-gain",
            HintKind::CandidateInstance => "candidate-instance",
            HintKind::CandidateMethod => "candidate-method",
            HintKind::CandidateMessage => "candidate-message",
            HintKind::Chain => "chain",
            HintKind::SelfContained => "self-contained",
            HintKind::SingleNeighbour => "single-neighbour",
            HintKind::ClassOutlier => "class-outlier",
            HintKind::ClassUniform => "class-uniform",
            HintKind::MethodOutlier => "method-outlier",
            HintKind::MethodUniform => "method-uniform",
            HintKind::PageFaults => "page-faults",
            HintKind::Waits => "waits",
            HintKind::ProbeCost => "probe-cost",
        }
    }
}

impl std::fmt::Display for HintKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for HintKind {
    fn eq(&self, o: &&str) -> bool {
        self.as_str() == *o
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Hint {
    pub kind: HintKind,
    /// What the hint is about, readable (`Account#4`, `Account.transfer`, `message 3`).
    pub subject: String,
    /// The whole advice in one sentence.
    pub text: String,
    /// The class it concerns.
    pub class: Option<String>,
    pub instance: Option<u32>,
    pub method: Option<u32>,
    /// Message order, for hints about one message.
    pub message: Option<u64>,
    pub reason: String,
    pub numbers: BTreeMap<&'static str, f64>,
}

impl Hint {
    pub fn new(
        kind: HintKind,
        subject: String,
        reason: String,
        nums: &[(&'static str, f64)],
    ) -> Hint {
        Hint {
            kind,
            text: format!("{subject}: {reason}"),
            subject,
            class: None,
            instance: None,
            method: None,
            message: None,
            reason,
            numbers: nums.iter().copied().collect(),
        }
    }
}

/// A share with one decimal, or two significant digits where one decimal would print a
/// 0.0 % for something that took time.
fn pct(x: f64) -> String {
    let p = x * 100.0;
    if p == 0.0 || p >= 0.05 {
        format!("{p:.1}%")
    } else {
        let digits = (1 - p.log10().floor() as i32).clamp(2, 9) as usize;
        format!("{p:.digits$}%")
    }
}

/// A net share below this of the aggregate makes a message a pass-through in a chain.
const CHAIN_NET_SHARE: f64 = 0.25;
/// An individual this many times the class/method mean is an outlier.
const OUTLIER_FACTOR: f64 = 3.0;

/// The outlier cut-off for a group of `n`: the top of `n` can be at most `n`× the mean, so
/// small groups use "holds three quarters of the group's time" instead.
fn outlier_factor(n: u64) -> f64 {
    OUTLIER_FACTOR.min(0.75 * n as f64)
}

/// What every guideline needs: the analysis, the user's threshold and the cap per kind.
struct Rules<'a> {
    a: &'a Analysis,
    o: &'a Options,
    total: u64,
}

impl Rules<'_> {
    /// Above the threshold: a share of the total (`level`) or, when given, a time.
    fn above(&self, time: u64, level: f64) -> bool {
        time > 0
            && (level >= self.o.threshold_level || self.o.threshold_time.is_some_and(|t| time >= t))
    }
    /// A time in the trace's unit, scaled for reading (`6.71 s`).
    fn t(&self, x: f64) -> String {
        crate::analyse::whatif::human(x, self.a.trace.unit)
    }
    fn cap(&self) -> usize {
        self.o.max_hints_per_kind
    }
    /// `time`'s share of the total (0 for an empty run).
    fn level(&self, time: u64) -> f64 {
        super::level(time, self.total)
    }
}

/// The hints, in a fixed order: candidates (instances, methods, messages), chains,
/// self-contained and single-neighbour instances, then class and method averages.
pub fn hints(a: &Analysis, o: &Options) -> Vec<Hint> {
    let r = Rules {
        a,
        o,
        total: a.totals.total_time,
    };
    let picks = pick_instances(&r);
    let mut msgs: Vec<_> = a.messages.list.iter().collect();
    msgs.sort_by(|x, y| {
        y.aggregate_time
            .cmp(&x.aggregate_time)
            .then(x.order.cmp(&y.order))
    });
    let mut out = Vec::new();
    waiters(&r, &mut out);
    probe_bound(&r, &mut out);
    candidate_instances(&r, &picks.active, &mut out);
    candidate_methods(&r, &mut out);
    candidate_messages(&r, &msgs, &mut out);
    chains(&r, &msgs, &mut out);
    self_contained(&picks.selfish, &mut out);
    below(
        &r,
        HintKind::SelfContained,
        picks.selfish_below,
        SELFISH,
        &mut out,
    );
    single_neighbours(&r, &picks.lonely, &mut out);
    below(
        &r,
        HintKind::SingleNeighbour,
        picks.lonely_below,
        LONELY,
        &mut out,
    );
    class_averages(&r, &picks.most_by_name(a), &mut out);
    method_averages(&r, &mut out);
    out
}

/// The instances the guidelines single out, found in one pass (a run can have millions).
struct Picks<'a> {
    /// Above the threshold, most active first (guidelines 1 and 2).
    active: Vec<InstanceStats>,
    /// Mostly messaging themselves, with few neighbours, above the threshold.
    selfish: Vec<InstanceStats>,
    /// With exactly one neighbour, above the threshold.
    lonely: Vec<InstanceStats>,
    /// How many of each were below the threshold, and the most active of them.
    selfish_below: Below,
    lonely_below: Below,
    /// The most active instance of each class id (the last one on ties) as (active, id).
    most: Vec<Option<(u64, u32)>>,
    /// The same for ids past the trace's class names (an unknown method's receivers).
    most_other: FxHashMap<&'a str, (u64, u32)>,
}

impl<'a> Picks<'a> {
    /// The most active instance of each class name (class ids of one name, e.g. from
    /// several processes, together; the last one on ties).
    fn most_by_name(self, a: &'a Analysis) -> FxHashMap<&'a str, (u64, u32)> {
        let mut by_name = self.most_other;
        for (c, m) in self.most.iter().enumerate() {
            if let Some(m) = *m {
                let e = by_name.entry(a.instances.class_name(c as u32)).or_insert(m);
                *e = (*e).max(m);
            }
        }
        by_name
    }
}

fn pick_instances<'a>(r: &Rules<'a>) -> Picks<'a> {
    let a = r.a;
    let cap = r.cap();
    let by_active =
        |x: &InstRow, y: &InstRow| y.active_time.cmp(&x.active_time).then(x.id.cmp(&y.id));
    let by_cyclic = |x: &InstRow, y: &InstRow| y.cyclic.cmp(&x.cyclic).then(x.id.cmp(&y.id));
    let mut active = TopRows::new(cap, by_active);
    let mut selfish = TopRows::new(cap, by_cyclic);
    let mut lonely = TopRows::new(cap, by_active);
    let mut most: Vec<Option<(u64, u32)>> = vec![None; a.instances.class_count()];
    let mut most_other: FxHashMap<&str, (u64, u32)> = FxHashMap::default();
    let (mut selfish_below, mut lonely_below) = (Below::default(), Below::default());
    for i in a.instances.rows().filter(|i| i.kind != InstKind::Root) {
        let above = r.above(i.active_time, i.level);
        if above {
            active.offer(&i);
        }
        if i.cyclic >= 2 && 2 * i.cyclic >= i.received && i.neighbours <= 2 {
            match above {
                true => selfish.offer(&i),
                false => selfish_below.add(i.active_time, i.level),
            }
        }
        if i.neighbours == 1 && i.received > 0 {
            match above {
                true => lonely.offer(&i),
                false => lonely_below.add(i.active_time, i.level),
            }
        }
        let m = (i.active_time, i.id);
        match most.get_mut(i.class as usize) {
            Some(e) => *e = Some(e.map_or(m, |e| e.max(m))),
            None => {
                let e = most_other
                    .entry(a.instances.class_name(i.class))
                    .or_insert(m);
                *e = (*e).max(m);
            }
        }
    }
    Picks {
        active: a.instances.stats_of(&active.into_sorted()),
        selfish: a.instances.stats_of(&selfish.into_sorted()),
        lonely: a.instances.stats_of(&lonely.into_sorted()),
        selfish_below,
        lonely_below,
        most,
        most_other,
    }
}

/// A message's waiting from this share of its time makes its receiver a waiter.
const WAIT_SHARE: f64 = 0.5;

/// Instances whose messages were mostly off the CPU (blocked on a lock, queue or I/O, or
/// preempted), with waiting and work together above the threshold: synchronisation
/// points, not work. Their waiting is not active time, so they rank by their work only.
fn waiters(r: &Rules, out: &mut Vec<Hint>) {
    let a = r.a;
    let mut ws: Vec<(u64, u32)> = a.instances.waiters().map(|(i, w)| (w, i)).collect();
    ws.sort_by(|x, y| y.cmp(x));
    for (wait, id) in ws.into_iter().take(r.cap()) {
        let Some(i) = a.instances.get(id) else {
            continue;
        };
        let all = i.active_time + wait;
        let share = wait as f64 / all.max(1) as f64;
        if share < WAIT_SHARE || !r.above(all, r.level(all)) {
            continue;
        }
        // The method whose messages to it waited most, with what its body blocks on.
        let within = a
            .instances
            .waited_in(id)
            .and_then(|m| a.methods.iter().find(|x| x.id == m))
            .map(|m| {
                format!(
                    " in {}",
                    super::waited::describe(&m.class, &m.method, &m.blocks)
                )
            });
        let mut h = Hint::new(
            HintKind::Waits,
            i.label.clone(),
            format!(
                "waits {:.0} % of its active time ({} of {} off the CPU){}: a synchronisation point, not work; its waiting is left out of its active time and of the proposals",
                share * 100.0,
                r.t(wait as f64),
                r.t(all as f64),
                within.unwrap_or_default(),
            ),
            &[("waiting", wait as f64), ("active_time", i.active_time as f64), ("share", share)],
        );
        h.instance = Some(id);
        h.class = i.class.clone();
        out.push(h);
    }
}

/// Methods whose measured time is mostly probe cost, with that time above the threshold:
/// said so (they are no candidates).
fn probe_bound(r: &Rules, out: &mut Vec<Hint>) {
    let mut meth: Vec<(&super::MethodStats, u64)> =
        r.a.methods
            .iter()
            .filter(|m| m.probe_bound())
            .map(|m| (m, m.measured()))
            .filter(|&(_, t)| r.above(t, r.level(t)))
            .collect();
    meth.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.id.cmp(&y.0.id)));
    for (m, measured) in meth.into_iter().take(r.cap()) {
        let recorded = m.recorded_raw.0;
        let per_call = m.probe_share * measured as f64 / recorded.max(1) as f64;
        let mut h = Hint::new(
            HintKind::ProbeCost,
            format!("{}.{}", m.class, m.method),
            format!(
                "its {recorded} recorded call(s) measured {} ({} per call), {:.0} % of which is the probe's own cost ({} per call): its time is mostly instrumentation, so it is no candidate; exclude it from annotation for a truer profile",
                r.t(measured as f64),
                r.t(measured as f64 / recorded.max(1) as f64),
                m.probe_share * 100.0,
                r.t(per_call)
            ),
            &[("calls", recorded as f64), ("measured", measured as f64), ("probe_per_call", per_call), ("probe_share", m.probe_share)],
        );
        h.method = Some(m.id);
        h.class = Some(m.class.clone());
        out.push(h);
    }
}

/// Guidelines 1 and 2: instances above the threshold, most active first (not those whose
/// class's time is mostly probe cost).
fn candidate_instances(r: &Rules, active: &[InstanceStats], out: &mut Vec<Hint>) {
    let bound = r.a.probe_bound_classes();
    for i in active
        .iter()
        .filter(|i| !i.class.as_deref().is_some_and(|c| bound.contains(c)))
    {
        let mut h = Hint::new(
            HintKind::CandidateInstance,
            i.label.clone(),
            format!(
                "active {} = {} of the total, above the threshold: a candidate to run in its own thread or process (work down from the top)",
                r.t(i.active_time as f64),
                pct(i.level)
            ),
            &[("active_time", i.active_time as f64), ("level", i.level), ("neighbours", i.neighbours as f64)],
        );
        h.instance = Some(i.id);
        out.push(h);
    }
}

/// Methods above the threshold by their total net time.
fn candidate_methods(r: &Rules, out: &mut Vec<Hint>) {
    let mut meth: Vec<_> =
        r.a.methods
            .iter()
            .filter(|m| r.above(m.net_time.total, m.level) && !m.probe_bound())
            .collect();
    meth.sort_by(|x, y| {
        y.net_time
            .total
            .cmp(&x.net_time.total)
            .then(x.id.cmp(&y.id))
    });
    for m in meth.into_iter().take(r.cap()) {
        let mut h = Hint::new(
            HintKind::CandidateMethod,
            format!("{}.{}", m.class, m.method),
            format!(
                "its {} call(s) are active {} in total = {} of the total (mean {} per call)",
                m.calls,
                r.t(m.net_time.total as f64),
                pct(m.level),
                r.t(m.net_time.mean)
            ),
            &[
                ("calls", m.calls as f64),
                ("net_time", m.net_time.total as f64),
                ("level", m.level),
                ("mean", m.net_time.mean),
            ],
        );
        h.method = Some(m.id);
        out.push(h);
    }
}

/// Single messages above the threshold by their net time (`msgs`: largest aggregate first).
fn candidate_messages(r: &Rules, msgs: &[&MessageRecord], out: &mut Vec<Hint>) {
    let a = r.a;
    for m in msgs
        .iter()
        .filter(|m| r.above(m.net_time, m.level))
        .take(r.cap())
    {
        let mut h = Hint::new(
            HintKind::CandidateMessage,
            format!(
                "message {} ({} → {}.{})",
                m.order,
                a.label(m.sender),
                a.label(m.receiver),
                a.method_only(m.method)
            ),
            format!(
                "net {} = {} of the total, above the threshold: could be spawned as its own task",
                r.t(m.net_time as f64),
                pct(m.level)
            ),
            &[
                ("net_time", m.net_time as f64),
                ("aggregate_time", m.aggregate_time as f64),
                ("level", m.level),
            ],
        );
        h.message = Some(m.order);
        h.method = Some(m.method);
        out.push(h);
    }
}

/// Guideline 4: chains — a big message whose own work is small; the callee does it.
fn chains(r: &Rules, msgs: &[&MessageRecord], out: &mut Vec<Hint>) {
    let a = r.a;
    let chained = msgs.iter().filter_map(|m| {
        let pass_through = r.above(m.aggregate_time, r.level(m.aggregate_time))
            && (m.net_time as f64) < CHAIN_NET_SHARE * m.aggregate_time as f64;
        pass_through.then_some((m, m.heaviest_callee?))
    });
    for (m, c) in chained.take(r.cap()) {
        let mut h = Hint::new(
            HintKind::Chain,
            format!("message {} ({}.{})", m.order, a.label(m.receiver), a.method_only(m.method)),
            format!(
                "aggregate {} but only {} net ({}): the real work is in its calls of {} on {} ({}, {:.0}% of the aggregate); split the chain there, or spawn one thread running both",
                r.t(m.aggregate_time as f64),
                r.t(m.net_time as f64),
                pct(m.net_time as f64 / m.aggregate_time.max(1) as f64),
                a.method_name(c.method),
                if c.receiver == u32::MAX { "several receivers".into() } else { a.label(c.receiver) },
                r.t(c.aggregate_time as f64),
                100.0 * c.aggregate_time as f64 / m.aggregate_time.max(1) as f64
            ),
            &[("aggregate_time", m.aggregate_time as f64), ("net_time", m.net_time as f64), ("callee_aggregate_time", c.aggregate_time as f64)],
        );
        h.message = Some(m.order);
        h.method = Some(m.method);
        out.push(h);
    }
}

/// Objects that mostly message themselves with few neighbours: keep them whole.
fn self_contained(selfish: &[InstanceStats], out: &mut Vec<Hint>) {
    for i in selfish {
        let mut h = Hint::new(
            HintKind::SelfContained,
            i.label.clone(),
            format!(
                "{} of its {} received messages are sent by itself and it has {} neighbour(s): a self-contained unit to place or thread as a whole, not to split",
                i.cyclic, i.received, i.neighbours
            ),
            &[("cyclic", i.cyclic as f64), ("received", i.received as f64), ("neighbours", i.neighbours as f64), ("level", i.level)],
        );
        h.instance = Some(i.id);
        out.push(h);
    }
}

/// Instances an observation fits but whose activity is below the threshold: counted, and
/// the most active one's time kept for the summary line.
#[derive(Default, Clone, Copy)]
struct Below {
    n: u64,
    max_time: u64,
    max_level: f64,
}

impl Below {
    fn add(&mut self, time: u64, level: f64) {
        self.n += 1;
        self.max_time = self.max_time.max(time);
        self.max_level = self.max_level.max(level);
    }
}

const SELFISH: &str = "mostly message themselves";
const LONELY: &str = "talk to one other instance only";

/// One line for the instances of an observation below the threshold: listing each (a run
/// has thousands of idle helpers) would bury the ones that matter.
fn below(r: &Rules, kind: HintKind, b: Below, what: &str, out: &mut Vec<Hint>) {
    if b.n == 0 {
        return;
    }
    out.push(Hint::new(
        kind,
        format!("{} instance(s) below the threshold", b.n),
        format!(
            "{what}, each active at most {} ({}): not listed, placing them matters little",
            r.t(b.max_time as f64),
            pct(b.max_level)
        ),
        &[
            ("instances", b.n as f64),
            ("max_active_time", b.max_time as f64),
            ("max_level", b.max_level),
        ],
    ));
}

/// Objects with one neighbour: keep them beside it.
fn single_neighbours(r: &Rules, lonely: &[InstanceStats], out: &mut Vec<Hint>) {
    for i in lonely {
        let mut h = Hint::new(
            HintKind::SingleNeighbour,
            i.label.clone(),
            format!("talks to one other instance only: keep it on the same machine as that neighbour to avoid communication (active {}, {})", r.t(i.active_time as f64), pct(i.level)),
            &[("neighbours", 1.0), ("active_time", i.active_time as f64), ("level", i.level)],
        );
        h.instance = Some(i.id);
        out.push(h);
    }
}

/// Guideline 3 for classes: the class mean against its most active instance (`most`, by
/// class name: (active time, id)).
fn class_averages(r: &Rules, most: &FxHashMap<&str, (u64, u32)>, out: &mut Vec<Hint>) {
    let a = r.a;
    let mut n = 0;
    for c in &a.classes {
        if n == r.cap() || c.instances < 2 {
            continue;
        }
        let class_level = c.mean_level * c.instances as f64;
        if !r.above(c.active_time, class_level) {
            continue;
        }
        n += 1;
        let outlier = most
            .get(c.class.as_str())
            .and_then(|m| a.instances.get(m.1));
        let Some(top) = outlier else { continue };
        let ratio = top.active_time as f64 / c.mean_active_time.max(f64::MIN_POSITIVE);
        let nums = [
            ("instances", c.instances as f64),
            ("mean_active_time", c.mean_active_time),
            ("max_active_time", top.active_time as f64),
            ("ratio", ratio),
        ];
        // An outlier must matter on its own, not only next to its class mean.
        let cut = outlier_factor(c.instances);
        let mut h = if ratio >= cut && r.above(top.active_time, top.level) {
            Hint::new(HintKind::ClassOutlier, c.class.clone(), format!("{} is active {}, {ratio:.1}× the mean of the {} instances of its class ({}): parallelise that instance, not the whole class", top.label, r.t(top.active_time as f64), c.instances, r.t(c.mean_active_time)), &nums)
        } else {
            let why = if ratio >= cut {
                "its most active instance stands out but is below the threshold on its own"
            } else {
                "its instances are alike"
            };
            Hint::new(HintKind::ClassUniform, c.class.clone(), format!("{why} (the most active is {ratio:.1}× the class mean of {}); its {} instances together take {} of the total: parallelise all instances of the class", r.t(c.mean_active_time), c.instances, pct(class_level)), &nums)
        };
        h.instance = Some(top.id);
        out.push(h);
    }
}

/// Guideline 3 for methods: the mean call against the slowest.
fn method_averages(r: &Rules, out: &mut Vec<Hint>) {
    let mut n = 0;
    for m in &r.a.methods {
        if n == r.cap() || m.calls < 2 || !r.above(m.net_time.total, m.level) {
            continue;
        }
        n += 1;
        let ratio = m.net_time.max as f64 / m.net_time.mean.max(f64::MIN_POSITIVE);
        let nums = [
            ("calls", m.calls as f64),
            ("mean", m.net_time.mean),
            ("max", m.net_time.max as f64),
            ("std_dev", m.net_time.std_dev),
            ("ratio", ratio),
        ];
        let name = format!("{}.{}", m.class, m.method);
        let cut = outlier_factor(m.calls);
        let mut h = if ratio >= cut && r.above(m.net_time.max, r.level(m.net_time.max)) {
            Hint::new(HintKind::MethodOutlier, name, format!("its slowest call takes {}, {ratio:.1}× the mean of {}: parallelise that message rather than every call", r.t(m.net_time.max as f64), r.t(m.net_time.mean)), &nums)
        } else {
            let why = if ratio >= cut {
                "its slowest call stands out but is below the threshold on its own"
            } else {
                "its calls are alike"
            };
            Hint::new(HintKind::MethodUniform, name, format!("{why} (mean {}, std-dev {}, slowest {ratio:.1}× the mean); its {} calls together take {}: parallelise all its invocations, e.g. as a task per call", r.t(m.net_time.mean), r.t(m.net_time.std_dev), m.calls, pct(m.level)), &nums)
        };
        h.method = Some(m.id);
        out.push(h);
    }
}
