//! Ranked proposals (docs/analysis.md, "Proposals"): candidates above the threshold (classes,
//! instances, heavy methods) are replayed with the what-if engine; those that pay come first,
//! ranked by predicted speedup, then plain statements for heavy subjects that gain nothing,
//! then the thesis's observations (§7.6) that do not contradict them.

use std::path::Path;

use rustc_hash::{FxHashMap, FxHashSet};

use super::hints::{Hint, HintKind};
use super::verdict::Candidate;
use super::{Analysis, Options};
use crate::analyse::machine;
use crate::analyse::trace::agg::FaultAgg;
use crate::analyse::walk::InstKind;
use crate::analyse::whatif::focus::Focus;
use crate::analyse::whatif::tree::{InstInfo, MethodInfo};
use crate::analyse::whatif::{self, Loaded, Plan};
use crate::error::Result;

/// Candidates of each kind (classes, instances, methods) replayed at most.
const PER_KIND: usize = 8;

/// Replays each candidate change, ranks the proposals that pay first, then the no-gain
/// statements, then the observations the replays did not answer.
/// `faults` are the trace's `F` records (read by the analysis's walk).
pub fn add(a: &mut Analysis, path: &Path, o: &Options, faults: &[FaultAgg]) -> Result<()> {
    // The replay holds the recorded messages (aggregated calls are not replayed).
    if a.totals.recorded_messages == 0 {
        return Ok(());
    }
    let objects = object_candidates(a, o);
    let (loaded, held) = if a.totals.recorded_messages <= o.max_replay_messages {
        (
            whatif::load(
                &[path.to_path_buf()],
                o.compensation(),
                o.manifest.as_deref(),
            )?,
            None,
        )
    } else {
        match load_whole_run(a, path, o, faults, &objects)? {
            Some(l) => l,
            None => return not_evaluated(a, path, o),
        }
    };
    for (m, t) in a.methods.iter_mut().zip(&loaded.tree.methods) {
        m.void = t.void;
    }
    // The enqueue cost measured once for the project (`.revy/machine.toml`), unless given.
    let kept = crate::analyse::enqueue::kept_for(o, loaded.tree.lang);
    let measured = machine::Measured {
        handoff_ns: loaded.tree.handoff_ns,
        enqueue_ns: kept.enqueue.as_ref().map(|k| k.ns),
        wake_ns: kept.wake.as_ref().map(|k| k.ns),
        post_ns: kept.post.as_ref().map(|k| k.ns),
        enqueue_range: kept.enqueue.as_ref().and_then(|k| k.range),
        handoff_kept: crate::analyse::enqueue::kept_handoff_for(o),
    };
    let m = machine::resolve(&o.machine(), &measured)?;
    let ends = machine::resolve_ends(&o.machine(), &measured)?;
    let j = judge_candidates(a, o, (&m, ends.as_ref()), &loaded, held.as_ref(), objects);
    if let Some(advice) = a.advice.as_mut() {
        if let Some(k) = kept.enqueue {
            advice.enqueue_source = k.source;
        }
        if let Some(k) = kept.wake {
            advice.wake_source = k.source;
        }
        if let Some(k) = kept.post {
            advice.post_source = k.source;
        }
        advice.take_source = machine::take_source(o.take_ns.is_some()).to_string();
    }
    let rest = unanswered_observations(a, &j);
    let (mut pays, mut none) = (j.pays, j.none);
    let speed = |h: &Hint| h.numbers.get("predicted_speedup").copied().unwrap_or(0.0);
    // Object changes first: a method pool is proposed only for methods that write no state
    // of their object, but calls may still share state the sources do not show.
    pays.sort_by(|(px, x), (py, y)| px.cmp(py).then(speed(y).total_cmp(&speed(x))));
    let pays: Vec<Hint> = pays.into_iter().map(|(_, h)| h).collect();
    if let (Some(note), Some(advice)) = (too_close(&pays), a.advice.as_mut()) {
        advice.notes.push(note);
    }
    none.sort_by(|x, y| {
        let l = |h: &Hint| h.numbers.get("level").copied().unwrap_or(0.0);
        l(y).total_cmp(&l(x))
    });
    none.truncate(o.max_hints_per_kind);
    if pays.is_empty() && none.is_empty() {
        let folded = folded_above(a, o);
        let text = if folded.is_empty() {
            "no class, instance or method is above the threshold once one-off messages (class loading, JIT, first I/O) are set aside: nothing here is worth its own thread".to_string()
        } else {
            format!(
                "no candidate a replay can hold: {} stand(s) for objects the runtime folded into their class (their calls only counted, none recorded), which no replay can move",
                folded.join(", ")
            )
        };
        none.push(Hint::new(
            HintKind::NoGain,
            "the run".into(),
            text,
            &[("predicted_speedup", 1.0)],
        ));
    }
    a.hints = pays.into_iter().chain(none).chain(rest).collect();
    Ok(())
}

/// Predictions this close (the larger over the smaller) are not told apart: the replay's
/// predictions land within about 10 % of the measured speedups (docs/results.md), and
/// repeated runs of one program spread by a few per cent.
const CLOSE: f64 = 1.10;

/// The note when the first two proposals are within [`CLOSE`] of each other: their order
/// is not a finding, both are worth measuring.
fn too_close(pays: &[Hint]) -> Option<String> {
    let speed = |h: &Hint| h.numbers.get("predicted_speedup").copied().unwrap_or(0.0);
    let (a, b) = (pays.first()?, pays.get(1)?);
    let (sa, sb) = (speed(a), speed(b));
    if sb <= 1.0 || sa.max(sb) > CLOSE * sa.min(sb) {
        return None;
    }
    Some(format!(
        "{} ({sa:.2}×) and {} ({sb:.2}×) are predicted within {:.0} % of each other, closer than the replay tells apart (its predictions land within about 10 % of measured speedups): measure both before choosing",
        a.subject,
        b.subject,
        (sa.max(sb) / sa.min(sb) - 1.0) * 100.0
    ))
}

/// A whole run's tree: focused on every candidate, or, when their messages are too many
/// for one replay, on the most active candidates whose messages fit (a second walk); `None`
/// when not even those fit. With the focus it holds (`None`: no candidate, no walk).
fn load_whole_run(
    a: &Analysis,
    path: &Path,
    o: &Options,
    faults: &[FaultAgg],
    objects: &[Candidate],
) -> Result<Option<(Loaded, Option<Focus>)>> {
    let mut focus = focus(a, o, objects);
    if focus.instances.is_empty() && focus.methods.is_empty() {
        let recorded = usize::try_from(a.totals.recorded_messages).unwrap_or(usize::MAX);
        let m = o.manifest.as_deref();
        let l =
            whatif::load_without_messages(path, o.compensation(), method_infos(a), recorded, m)?;
        return Ok(Some((l, None)));
    }
    let info = |i: u32| inst_info(a, i);
    focus.count_when_over = true;
    let over = match whatif::load_focused(
        path,
        o.compensation(),
        &focus,
        &info,
        faults,
        o.manifest.as_deref(),
    )? {
        Ok(l) => return Ok(Some((l, Some(focus)))),
        Err(over) => over,
    };
    let Some(smaller) = fitting(a, o, objects, &focus, &over) else {
        return Ok(None);
    };
    Ok(
        match whatif::load_focused(
            path,
            o.compensation(),
            &smaller,
            &info,
            faults,
            o.manifest.as_deref(),
        )? {
            Ok(l) => Some((l, Some(smaller))),
            Err(_) => None,
        },
    )
}

/// The most active candidates (by level) whose messages, counted in `over`, fit the node
/// cap together at the nodes per message the whole focus needed (the messages they are
/// sent from and the merged stretches come with them), with a tenth to spare; `None` when
/// none fits.
fn fitting(
    a: &Analysis,
    o: &Options,
    objects: &[Candidate],
    all: &Focus,
    over: &whatif::focus::Over,
) -> Option<Focus> {
    let above = Above {
        total: a.totals.total_time.max(1) as f64,
        o,
    };
    // (level, instances, methods) of each candidate the focus was made of.
    let mut subjects: Vec<(f64, Vec<u32>, Vec<u32>)> = objects
        .iter()
        .map(|c| {
            (
                c.level,
                c.plan.instances.iter().copied().collect(),
                Vec::new(),
            )
        })
        .collect();
    subjects.extend(
        heavy_methods(a, &above)
            .into_iter()
            .map(|m| (m.level, Vec::new(), vec![m.id])),
    );
    subjects.sort_by(|x, y| y.0.total_cmp(&x.0));
    let budget = (0.9 * all.max_nodes as f64 / over.nodes_per_message.max(1.0)) as u64;
    let mut f = Focus {
        instances: FxHashSet::default(),
        methods: FxHashSet::default(),
        max_nodes: all.max_nodes,
        count_when_over: false,
    };
    let mut used = 0u64;
    for (_, insts, meths) in subjects {
        let more: u64 = insts
            .iter()
            .filter(|i| !f.instances.contains(i))
            .map(|i| over.instances.get(i).copied().unwrap_or(0))
            .chain(
                meths
                    .iter()
                    .filter(|m| !f.methods.contains(m))
                    .map(|m| over.methods.get(m).copied().unwrap_or(0)),
            )
            .sum();
        if used + more <= budget {
            used += more;
            f.instances.extend(insts);
            f.methods.extend(meths);
        }
    }
    (!f.instances.is_empty() || !f.methods.is_empty()).then_some(f)
}

/// Too many messages to replay: say plainly that nothing was predicted, ahead of the
/// observations (which are not predictions: a "candidate" there may well lose once made
/// active).
fn not_evaluated(a: &mut Analysis, path: &Path, o: &Options) -> Result<()> {
    let text = format!(
        "not evaluated: the run recorded {} messages, and even the most active candidate's, with those they are sent from, are more than one replay holds ({} nodes), so no proposal was predicted; ask `revy whatif TRACE --active PATTERN` for a subject below (the observations that follow are not predictions)",
        a.totals.recorded_messages,
        focus_cap(o)
    );
    a.advice = Some(super::Advice {
        cores: machine::cores(o.cores)?,
        handoff: 0.0,
        handoff_source: "not evaluated".to_string(),
        handoff_range: None,
        wake_after_idle: None,
        enqueue: 0.0,
        enqueue_source: "not evaluated".to_string(),
        wake: 0.0,
        wake_source: "not evaluated".to_string(),
        post: 0.0,
        post_source: "not evaluated".to_string(),
        take: 0.0,
        take_source: "not evaluated".to_string(),
        candidates: 0,
        notes: Vec::new(),
        caveat: whatif::CAVEAT,
    });
    drop_parallel_observations(a, &saf_stateful(a, path, o.manifest.as_deref())?);
    a.hints
        .insert(0, Hint::new(HintKind::NoGain, "the run".into(), text, &[]));
    Ok(())
}

/// How much of a whole run the replays held, when they were focused on the candidates.
fn focused_note(t: &whatif::Tree) -> Option<String> {
    let merged = t.merged.len();
    (!t.walker_ids.is_empty()).then(|| {
        format!(
            "replayed on the candidates' messages, those they are sent from, and the other messages merged into {merged} stretches: {} nodes for {} recorded messages",
            t.nodes.len() - t.threads.len(),
            t.messages()
        )
    })
}

/// The candidates a whole run's replay could not hold (their messages too many).
fn left_out_note(left: &[Candidate]) -> Option<String> {
    (!left.is_empty()).then(|| {
        let names: Vec<&str> = left.iter().map(|c| c.subject.as_str()).collect();
        format!(
            "not replayed, their messages being more than one replay holds beside the others': {}; ask `revy whatif TRACE --active PATTERN` for one of them",
            names.join(", ")
        )
    })
}

/// The replays' verdicts, and the subjects they judged.
struct Judged {
    /// Proposals that pay, with whether each is a method pool (ranked after objects).
    pays: Vec<(bool, Hint)>,
    none: Vec<Hint>,
    inst: FxHashSet<u32>,
    meth: FxHashSet<u32>,
    class: FxHashSet<String>,
}

/// Replays every candidate change against the baseline; sets the analysis's advice header.
/// A focused tree (`held`: its focus) replays only the candidates within its focus; the
/// others are named in a note.
/// `machines`: the point model, and both ends of a machine in two states.
fn judge_candidates(
    a: &mut Analysis,
    o: &Options,
    machines: (
        &machine::Machine,
        Option<&(machine::Machine, machine::Machine)>,
    ),
    loaded: &whatif::Loaded,
    held: Option<&Focus>,
    objects: Vec<Candidate>,
) -> Judged {
    let (m, ends) = machines;
    let unit = loaded.tree.unit();
    let p = m.params(unit, 0.0, None);
    let ends = ends.map(|(f, s)| (f.params(unit, 0.0, None), s.params(unit, 0.0, None)));
    let mut j = Judged {
        pays: Vec::new(),
        none: Vec::new(),
        inst: FxHashSet::default(),
        meth: FxHashSet::default(),
        class: FxHashSet::default(),
    };
    let (cands, stateful) = candidates(a, o, loaded, objects);
    // A heavy method that writes its object's state is no pool: observations that advise
    // running it in parallel would contradict that (its object is the candidate).
    j.meth.extend(stateful);
    let within = |plan: &Plan| {
        held.is_none_or(|f| {
            plan.instances.iter().all(|i| f.instances.contains(i))
                && plan.methods.iter().all(|m| f.methods.contains(m))
        })
    };
    let (cands, left): (Vec<Candidate>, Vec<Candidate>) =
        cands.into_iter().partition(|c| within(&c.plan));
    a.advice = Some(super::Advice {
        cores: p.cores,
        handoff: p.handoff,
        handoff_source: m.handoff_source.clone(),
        handoff_range: ends.as_ref().map(|(f, s)| super::AdviceHandoffRange {
            fast: f.handoff,
            slow: s.handoff,
            enqueue_fast: f.enqueue,
            enqueue_slow: s.enqueue,
            slow_share: m.handoff_range.map_or(0.0, |r| r.slow_share),
        }),
        wake_after_idle: p.wake_curve.clone(),
        enqueue: p.enqueue,
        enqueue_source: whatif::HANDOFF_GIVEN.to_string(),
        wake: p.wake,
        wake_source: whatif::HANDOFF_GIVEN.to_string(),
        post: p.post,
        post_source: whatif::HANDOFF_GIVEN.to_string(),
        take: p.take,
        take_source: whatif::HANDOFF_GIVEN.to_string(),
        candidates: cands.len(),
        // The return types matter to the proposals (the probe cost is in the totals).
        notes: loaded
            .warnings
            .iter()
            .filter(|w| w.contains("return type"))
            .cloned()
            .chain(focused_note(&loaded.tree))
            .chain(left_out_note(&left))
            .collect(),
        caveat: whatif::CAVEAT,
    });
    let base = whatif::baseline(loaded, &p);
    for c in cands {
        let plan = c.plan.in_tree(&loaded.tree);
        let subject = std::slice::from_ref(&c.subject);
        let mut w = whatif::predict_without_path(loaded, &plan, &p, subject, base);
        w.handoff_range = ends
            .as_ref()
            .map(|(f, s)| whatif::predict_range(loaded, &plan, f, s, 0.0));
        let h = super::verdict::judge(a, loaded, &c, &plan, &w);
        j.inst.extend(c.instance);
        j.meth.extend(c.method);
        if c.instance.is_none() && c.method.is_none() {
            j.class.insert(c.subject.clone());
        }
        if h.kind == HintKind::Proposal {
            j.pays.push((c.pool, h));
        } else {
            j.none.push(h);
        }
    }
    j
}

/// The observations minus those the replays answered (a "candidate" hint next to a proposal
/// or a no-gain statement for the same subject would repeat or contradict it). Observations
/// that say "parallelise X" are dropped where a replay judged X, where X is an entry point,
/// or where X's time is mostly one-off messages.
fn unanswered_observations(a: &Analysis, j: &Judged) -> Vec<Hint> {
    let entry = entry_points(a);
    let off_meth = one_off_by_method(a);
    let mostly_one_off_inst = |i: u32| {
        let active = a.instances.row(i).map_or(0, |x| x.active_time);
        2 * a.instances.one_off_time(i) > active
    };
    let mostly_one_off_meth = |m: u32| {
        let x = &a.methods[m as usize];
        2 * off_meth.get(&m).copied().unwrap_or(0) > x.net_time.total
    };
    let keep = |h: &Hint| {
        use HintKind::*;
        let class = matches!(h.kind, ClassOutlier | ClassUniform);
        let advises = matches!(
            h.kind,
            CandidateInstance | CandidateMethod | CandidateMessage | MethodOutlier | MethodUniform
        ) || class;
        let about_inst = !class
            && h.instance.is_some_and(|i| {
                j.inst.contains(&i) || entry.contains(&i) || mostly_one_off_inst(i)
            });
        let about_meth = h
            .method
            .is_some_and(|m| j.meth.contains(&m) || mostly_one_off_meth(m));
        // Never advise on the entry point (`main`), whatever the observation.
        let about_main = h
            .method
            .is_some_and(|m| a.methods[m as usize].method == "main");
        let about_class = class
            && (j.class.contains(&h.subject)
                || h.instance
                    .is_some_and(|i| j.inst.contains(&i) || mostly_one_off_inst(i)));
        let one_off = h
            .message
            .is_some_and(|m| a.messages.list.iter().any(|x| x.order == m && x.one_off));
        !about_main && !(advises && (about_inst || about_meth || about_class || one_off))
    };
    a.hints.iter().filter(|h| keep(h)).cloned().collect()
}

/// Methods the SAF beside the trace (or the manifest) says write state of their object (none
/// without a SAF: unreplayed, nothing is judged).
fn saf_stateful(a: &Analysis, path: &Path, manifest: Option<&Path>) -> Result<FxHashSet<u32>> {
    let Some(saf) = whatif::plan::find_saf(path, manifest) else {
        return Ok(FxHashSet::default());
    };
    let saf = crate::instrument::saf::Saf::load(&saf)?;
    let mut stateless = rustc_hash::FxHashMap::default();
    for c in &saf.classes {
        for m in &c.methods {
            stateless.insert(
                (c.qname.as_str(), m.name.as_str(), m.sgn.as_str()),
                m.stateless,
            );
        }
    }
    Ok(a.methods
        .iter()
        .filter(|m| {
            stateless.get(&(m.class.as_str(), m.method.as_str(), m.signature.as_str()))
                == Some(&false)
        })
        .map(|m| m.id)
        .collect())
}

/// Drop the observations that advise running one of `methods` in parallel.
fn drop_parallel_observations(a: &mut Analysis, methods: &FxHashSet<u32>) {
    a.hints.retain(|h| {
        let advises = matches!(
            h.kind,
            HintKind::CandidateMethod | HintKind::MethodOutlier | HintKind::MethodUniform
        );
        !(advises && h.method.is_some_and(|m| methods.contains(&m)))
    });
}

/// Net time of one-off messages per method.
fn one_off_by_method(a: &Analysis) -> rustc_hash::FxHashMap<u32, u64> {
    let mut m = rustc_hash::FxHashMap::default();
    for x in a.messages.list.iter().filter(|x| x.one_off) {
        *m.entry(x.method).or_default() += x.net_time;
    }
    m
}

/// Instances that receive a program's entry point (`main`), never proposed.
fn entry_points(a: &Analysis) -> FxHashSet<u32> {
    let mains: FxHashSet<u32> = a
        .methods
        .iter()
        .filter(|m| m.method == "main")
        .map(|m| m.id)
        .collect();
    a.messages
        .list
        .iter()
        .filter(|m| mains.contains(&m.method))
        .map(|m| m.receiver)
        .collect()
}

/// What counts as above the threshold: the run's total and the options' two thresholds.
struct Above<'a> {
    total: f64,
    o: &'a Options,
}

impl Above<'_> {
    fn time(&self, time: u64) -> bool {
        time > 0
            && (time as f64 / self.total >= self.o.threshold_level
                || self.o.threshold_time.is_some_and(|t| time >= t))
    }
}

/// Time that is not one-off (class loading, first I/O): what a change could overlap.
fn steady(active: u64, one_off: u64) -> u64 {
    active.saturating_sub(one_off)
}

/// The candidates to replay, and the heavy methods left out because they (may) write state
/// of their object.
fn candidates(
    a: &Analysis,
    o: &Options,
    l: &Loaded,
    objects: Vec<Candidate>,
) -> (Vec<Candidate>, Vec<u32>) {
    let above = Above {
        total: a.totals.total_time.max(1) as f64,
        o,
    };
    let mut out = objects;
    let (methods, stateful) = method_candidates(a, &above, l);
    out.extend(methods);
    (out, stateful)
}

/// Classes with several objects, every object its own thread; not the classes of the entry
/// points.
fn class_candidates(a: &Analysis, above: &Above, entry: &FxHashSet<u32>) -> Vec<Candidate> {
    let entry_classes: FxHashSet<&str> = entry
        .iter()
        .filter_map(|&i| a.instances.class_of(i))
        .collect();
    // Each class's objects in id order, from one pass over the instances (one pass per
    // class cost classes × instances).
    let mut by_id: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    // A folded stand-in (`Class#*`) is no object a replay could move: its calls were only
    // counted.
    let objects = a
        .instances
        .kinds()
        .filter(|i| i.1 == InstKind::Object && !a.instances.is_folded(i.0));
    for (id, _, class) in objects {
        by_id.entry(class).or_default().push(id);
    }
    // Class ids of one name (a trace set's processes define their own) join under it.
    let mut objects: FxHashMap<&str, Vec<u32>> = FxHashMap::default();
    for (class, ids) in by_id {
        objects
            .entry(a.instances.class_name(class))
            .or_default()
            .extend(ids);
    }
    for ids in objects.values_mut() {
        ids.sort_unstable();
    }
    let mut classes: Vec<_> = a
        .classes
        .iter()
        .filter(|c| c.instances >= 2 && !entry_classes.contains(c.class.as_str()))
        .map(|c| {
            // Class rows are one per name (`class_stats` keys them by name): take, not copy.
            let ids = objects.remove(c.class.as_str()).unwrap_or_default();
            let one_off: u64 = ids.iter().map(|&i| a.instances.one_off_time(i)).sum();
            (c, ids, steady(c.active_time, one_off))
        })
        // Objects are what becomes active: a class of fewer than two (static receivers of
        // several processes, one object beside its static methods) would replay nothing
        // new — its single object is an instance candidate.
        .filter(|(_, ids, t)| ids.len() >= 2 && above.time(*t))
        .collect();
    classes.sort_by_key(|c| std::cmp::Reverse(c.2));
    let subject = |(c, ids, t): (&super::ClassStats, Vec<u32>, u64)| Candidate {
        subject: c.class.clone(),
        class: Some(c.class.clone()),
        instance: None,
        method: None,
        plan: Plan {
            instances: ids.into_iter().collect(),
            methods: Default::default(),
        },
        level: t as f64 / above.total,
        pool: false,
    };
    classes.into_iter().take(PER_KIND).map(subject).collect()
}

/// The folded stand-ins (`Class#*`) above the threshold: no candidates, since no replay
/// holds their calls.
fn folded_above(a: &Analysis, o: &Options) -> Vec<String> {
    let above = Above {
        total: a.totals.total_time.max(1) as f64,
        o,
    };
    a.instances
        .top(
            PER_KIND,
            |i| a.instances.is_folded(i.id) && above.time(i.active_time),
            |x, y| y.active_time.cmp(&x.active_time).then(x.id.cmp(&y.id)),
        )
        .into_iter()
        .map(|i| i.label)
        .collect()
}

/// The most active single instances (not roots, not entry points, not the stand-ins of
/// folded objects, whose messages the replay never holds).
fn instance_candidates(a: &Analysis, above: &Above, entry: &FxHashSet<u32>) -> Vec<Candidate> {
    let insts = a.instances.top(
        PER_KIND,
        |i| {
            // Steady time is at most the active time: most instances are out at once,
            // without looking their one-off time up.
            i.kind != InstKind::Root
                && above.time(i.active_time)
                && !entry.contains(&i.id)
                && !a.instances.is_folded(i.id)
                && above.time(steady(i.active_time, a.instances.one_off_time(i.id)))
        },
        |x, y| y.active_time.cmp(&x.active_time).then(x.id.cmp(&y.id)),
    );
    let subject = |i: super::InstanceStats| Candidate {
        subject: i.label.clone(),
        class: i.class.clone(),
        instance: Some(i.id),
        method: None,
        plan: Plan {
            instances: [i.id].into_iter().collect(),
            methods: Default::default(),
        },
        level: i.level,
        pool: false,
    };
    insts.into_iter().map(subject).collect()
}

/// The class and instance candidates (one pass over the instances each: a whole run has
/// millions, so they are made once).
fn object_candidates(a: &Analysis, o: &Options) -> Vec<Candidate> {
    let above = Above {
        total: a.totals.total_time.max(1) as f64,
        o,
    };
    let entry = entry_points(a);
    let mut out = class_candidates(a, &above, &entry);
    out.extend(instance_candidates(a, &above, &entry));
    // Objects whose class's time is mostly probe cost are no candidates on that basis.
    let bound = a.probe_bound_classes();
    out.retain(|c| !c.class.as_deref().is_some_and(|k| bound.contains(k)));
    out
}

/// What the candidates replay: every instance of the class and instance candidates and
/// every heavy method (stateful or not: which are is known once the tree is loaded).
fn focus(a: &Analysis, o: &Options, objects: &[Candidate]) -> Focus {
    let above = Above {
        total: a.totals.total_time.max(1) as f64,
        o,
    };
    let mut instances = FxHashSet::default();
    for c in objects {
        instances.extend(c.plan.instances.iter().copied());
    }
    Focus {
        count_when_over: false,
        instances,
        methods: heavy_methods(a, &above).iter().map(|m| m.id).collect(),
        max_nodes: focus_cap(o),
    }
}

/// The analysis's methods as the replay describes them (by id, as the trace's names).
fn method_infos(a: &Analysis) -> Vec<MethodInfo> {
    a.methods
        .iter()
        .map(|m| MethodInfo {
            class: m.class.clone(),
            name: m.method.clone(),
            signature: m.signature.clone(),
            void: None,
            stateless: None,
            by_address: false,
        })
        .collect()
}

/// Nodes a focused tree holds at most: no labels per instance, most of a whole run's tree,
/// so twice the whole tree's cap (~190 bytes a node while it loads: 0.4 GB; yaml-cpp's
/// suite needs 1.2 M).
fn focus_cap(o: &Options) -> usize {
    usize::try_from(o.max_replay_messages.saturating_mul(2)).unwrap_or(usize::MAX)
}

/// The replay's description of instance `i` (the analysis numbered instances as the
/// replay's walk does).
fn inst_info(a: &Analysis, i: u32) -> InstInfo {
    match a.instances.get(i) {
        Some(s) => InstInfo {
            kind: s.kind,
            label: s.label,
            class: s.class,
            oid: s.oid,
        },
        None => InstInfo {
            kind: InstKind::Object,
            label: "?".into(),
            class: None,
            oid: 0,
        },
    }
}

/// Methods above the threshold once one-off calls are set aside (not `main`), heaviest
/// first.
fn heavy_methods<'a>(a: &'a Analysis, above: &Above) -> Vec<&'a super::MethodStats> {
    let off = one_off_by_method(a);
    let msteady =
        |m: &super::MethodStats| steady(m.net_time.total, off.get(&m.id).copied().unwrap_or(0));
    let mut meths: Vec<_> = a
        .methods
        .iter()
        .filter(|m| m.method != "main" && !m.probe_bound() && above.time(msteady(m)))
        .collect();
    meths.sort_by(|x, y| msteady(y).cmp(&msteady(x)).then(x.id.cmp(&y.id)));
    meths
}

/// Heavy methods to run as pool tasks, and the heavy ones left out as stateful. A pool runs
/// calls at once: only valid when no call depends on what an earlier one left in its
/// object, i.e. for methods that write no state of their receiver (the SAF).
fn method_candidates(a: &Analysis, above: &Above, l: &Loaded) -> (Vec<Candidate>, Vec<u32>) {
    let stateless = |m: &super::MethodStats| {
        l.tree
            .methods
            .get(m.id as usize)
            .is_some_and(|t| t.stateless == Some(true))
    };
    let (meths, stateful): (Vec<_>, Vec<_>) = heavy_methods(a, above)
        .into_iter()
        .partition(|m| stateless(m));
    let subject = |m: &super::MethodStats| Candidate {
        subject: format!("{}.{}", m.class, m.method),
        class: Some(m.class.clone()),
        instance: None,
        method: Some(m.id),
        plan: Plan {
            instances: Default::default(),
            methods: [m.id].into_iter().collect(),
        },
        level: m.level,
        pool: true,
    };
    let out = meths.into_iter().take(PER_KIND).map(subject).collect();
    (out, stateful.into_iter().map(|m| m.id).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_proposals_within_ten_per_cent_are_said_to_be_too_close_to_rank() {
        let hint = |who: &str, s: f64| {
            Hint::new(
                HintKind::Proposal,
                who.into(),
                String::new(),
                &[("predicted_speedup", s)],
            )
        };
        // The pipeline's: Writer#3 1.45× against Transformer 1.37× (measured 1.38×, 1.46×).
        let close = too_close(&[hint("Writer#3", 1.45), hint("Transformer", 1.37)]).unwrap();
        assert!(
            close.starts_with("Writer#3 (1.45×) and Transformer (1.37×) are predicted within 6 %"),
            "{close}"
        );
        assert_eq!(too_close(&[hint("A", 2.0), hint("B", 1.37)]), None);
        assert_eq!(too_close(&[hint("A", 1.0), hint("B", 0.98)]), None);
        assert_eq!(too_close(&[hint("A", 1.5)]), None);
    }
}
