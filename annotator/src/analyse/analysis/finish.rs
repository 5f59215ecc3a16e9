//! From the walk's accumulators to the [`Analysis`]: the instance and edge tables, the
//! per-method, per-class and per-thread statistics, the message list, and what the trace
//! lacked (warnings). Runs once after the events; the walk's own sink, [`Builder`], stays in
//! the parent module beside the walk (its inlining decides the walk's speed).

use std::collections::BTreeMap;
use std::path::Path;

use rustc_hash::{FxHashMap, FxHashSet};

use super::stats::TopMessages;
use super::table::InstSums;
use super::{
    aggregates, hints, level, per_byte, Analysis, Band, Builder, ClassStats, Edges, Instances,
    Lists, Messages, MethodAcc, MethodStats, Options, ThreadStats, Totals, TraceInfo, SCHEMA,
};
use crate::analyse::probe::Probe;
use crate::analyse::trace::TraceReader;
use crate::analyse::walk::{InstKind, Instance, Walker};

/// Turn the accumulators into the result (levels, bands, adjacency, classes, hints).
pub fn finish(
    path: &Path,
    opts: &Options,
    mut b: Builder,
    reader: &TraceReader,
    walker: &mut Walker,
) -> Analysis {
    b.flush();
    let names = reader.names();
    let own_pid = reader.header().pid();
    let status = reader.status();
    let run = b.clock.length(walker, b.probe);
    let total = run.busy;
    let one_offs = one_off_messages(&mut b);
    let coverage = aggregates::coverage(&status.aggregates, walker.messages, names);
    let warnings = trace_warnings(path, reader, walker, &coverage);

    let (edges, instances, classes) = tables(&mut b, reader, walker, total, &one_offs);
    let empty = empty_call(&b);
    let methods = method_stats(&b.methods, names, total, &coverage, empty);
    let messages = message_list(b.top, &one_offs, total, opts.detail_cap);
    let threads = thread_stats(walker, names, own_pid);

    let totals = Totals {
        run_span: run.span,
        total_time: total,
        instrumented_time: run.instrumented,
        waiting_time: b.waiting,
        probe_ns: None,
        compensated: false,
        probe: Default::default(),
        probe_note: String::new(),
        one_off_messages: one_offs.orders.len() as u64,
        instances: instances.len(),
        messages: walker.messages + b.aggregated_calls,
        recorded_messages: walker.messages,
        threads: walker.threads.len(),
        classes: classes.len(),
        methods: methods.len(),
        edges: edges.len(),
        cyclic_messages: b.cyclic,
        max_depth: walker.max_depth,
        balance: walker.balance.clone(),
    };
    let mut a = Analysis {
        schema: SCHEMA,
        trace: trace_info(path, reader, walker.events, warnings, coverage),
        options: opts.clone(),
        totals,
        lists: Lists::whole(opts.detail_cap, instances.len(), edges.len()),
        threads,
        instances,
        classes,
        methods,
        edges,
        messages,
        hints: Vec::new(),
        advice: None,
        events: None,
    };
    super::waited::fill(&mut a, path, opts);
    a.hints = hints::hints(&a, opts);
    a
}

/// The edge, instance and class tables. The edges (their lookup table dropped first) give
/// the instance sums and neighbour counts in any order; they are sorted only when first
/// read in order. Instance and edge rows are built only when read or serialised.
fn tables(
    b: &mut Builder,
    reader: &TraceReader,
    walker: &mut Walker,
    total: u64,
    one_offs: &OneOffs,
) -> (Edges, Instances, Vec<ClassStats>) {
    let names = reader.names();
    walker.release_index();
    let edges = Edges::new(std::mem::take(&mut b.edges), total);
    let mut sums = edges.per_instance(walker.instances.len());
    for t in &walker.threads {
        sums.add_active(t.root, t.span().saturating_sub(t.total));
    }
    let aggregates = &reader.status().aggregates;
    let classes = class_stats(&walker.instances, &sums, names, total, aggregates);
    let mut instances = Instances::new(
        std::mem::take(&mut walker.instances),
        sums,
        one_offs.by_instance.clone(),
        std::mem::take(&mut b.waits),
        total,
        names,
        reader.header().pid(),
    );
    instances.set_waited_in(&b.wait_in);
    (edges, instances, classes)
}

/// What the reader and the walk found wrong or incomplete: the size limit, throttled
/// methods, what the aggregates cover, a missing end marker, unbalanced messages.
fn trace_warnings(
    path: &Path,
    reader: &TraceReader,
    walker: &Walker,
    coverage: &aggregates::Coverage,
) -> Vec<String> {
    let status = reader.status();
    let mut warnings = status.warnings.clone();
    let shown = crate::analyse::trace::multi::describe(path);
    warnings.extend(size_limit_warning(reader, &shown));
    warnings.extend(throttled_warning(coverage));
    warnings.extend(coverage.statement());
    if status.clean_end.is_none() && !status.cut_short {
        warnings.push(format!(
            "{}: no end marker: the run may have died; analysed up to the last complete entry",
            shown
        ));
    }
    let bal = &walker.balance;
    if bal.unmatched_ends + bal.closed_by_outer_end + bal.open_at_end > 0 {
        warnings.push(format!(
            "unbalanced messages: {} end(s) without start, {} closed by an outer end, {} open at the end{}",
            bal.unmatched_ends,
            bal.closed_by_outer_end,
            bal.open_at_end,
            bal.examples.first().map(|e| format!(" (e.g. {e})")).unwrap_or_default()
        ));
    }
    warnings
}

/// The runtime stopped recording at its size limit (the run's, with `budget=run`).
fn size_limit_warning(reader: &TraceReader, shown: &str) -> Option<String> {
    let status = reader.status();
    let max = status.truncated_at_size?;
    // With `budget=run` the limit was the run's, shared by its processes.
    let limit = match reader.header().get("budget") {
        Some("run") => {
            format!("the run's size limit (max_size={max}, shared by the run's processes: a shell command line's, unless `revy run` or REVY_BUDGET=FILE gave the run its own)")
        }
        _ => format!("its size limit (max_size={max})"),
    };
    let rest = if status.aggregates.is_empty() {
        "later activity is missing"
    } else {
        "it counted later calls as aggregates"
    };
    Some(format!(
        "{}: the runtime stopped recording events at {limit}; {rest}",
        shown
    ))
}

/// The methods the runtime throttled (the first five, when).
fn throttled_warning(coverage: &aggregates::Coverage) -> Option<String> {
    if coverage.throttled.is_empty() {
        return None;
    }
    let list: Vec<String> = coverage
        .throttled
        .iter()
        .take(5)
        .map(|t| {
            format!(
                "{} (t={}, estimated from the first {} calls)",
                t.method, t.t, t.calls
            )
        })
        .collect();
    Some(format!(
        "{} method(s) throttled (many short calls; counted as aggregates from then on, untimed: their later calls' time is estimated from the mean of the first calls): {}{}",
        coverage.throttled.len(),
        list.join(", "),
        if coverage.throttled.len() > 5 {
            ", …"
        } else {
            ""
        }
    ))
}

/// Every method the trace names, with its sums; a throttled one says from how many calls
/// its later calls' time was estimated.
fn method_stats(
    accs: &[MethodAcc],
    names: &crate::analyse::trace::Names,
    total: u64,
    coverage: &aggregates::Coverage,
    empty: Probe,
) -> Vec<MethodStats> {
    let mut methods: Vec<MethodStats> = names
        .methods
        .iter()
        .enumerate()
        .map(|(id, def)| {
            let a = accs.get(id).copied().unwrap_or_default();
            let lv = level(a.net.sum, total);
            MethodStats {
                id: id as u32,
                class: names.class(def.class).to_string(),
                method: def.name.clone(),
                signature: def.signature.clone(),
                calls: a.net.n,
                net_time: a.net.summary(),
                waiting: a.wait,
                blocks: Vec::new(),
                aggregate_time: a.agg.summary(),
                size: a.size.summary(),
                cyclic: a.cyclic,
                level: lv,
                probe_share: probe_share(a.recorded, a.sent, a.raw, empty),
                recorded_raw: (a.recorded, a.raw),
                band: Band::of(lv),
                granularity: per_byte(a.net.sum, a.size.sum),
                void: None,
                time_estimated_from: None,
            }
        })
        .collect();
    for t in &coverage.throttled {
        if let Some(m) = methods.get_mut(t.method_id as usize) {
            m.time_estimated_from = Some(t.calls);
        }
    }
    methods
}

/// What an empty call costs, in trace units, split by where it falls: the probe cost the
/// run paid per call (the one subtracted; else the header's or the given one, at most the
/// run's cheapest call, all of it inside).
fn empty_call(b: &Builder) -> Probe {
    if !b.probe.is_zero() {
        return b.probe;
    }
    Probe {
        inside: b.paid.min(b.clock.smallest()),
        outside: 0,
    }
}

/// The share of `raw` (the recorded calls' net time) that the probes cost: `calls` insides
/// and an outside per message they `sent` (a leaf pays the inside part only, a parent the
/// outside part of each child too).
fn probe_share(calls: u64, sent: u64, raw: u64, empty: Probe) -> f64 {
    if raw == 0 {
        return 0.0;
    }
    let paid = calls as f64 * empty.inside as f64 + sent as f64 * empty.outside as f64;
    (paid / raw as f64).min(1.0)
}

/// The kept messages, largest aggregate first, with their levels, bands and one-off marks.
fn message_list(top: TopMessages, one_offs: &OneOffs, total: u64, cap: usize) -> Messages {
    let seen = top.seen;
    let mut list = top.into_sorted();
    for m in &mut list {
        m.level = level(m.net_time, total);
        m.band = Band::of(m.level);
        m.one_off = one_offs.orders.contains(&m.order);
        m.granularity = per_byte(m.net_time, m.size);
    }
    Messages {
        cap,
        total: seen,
        complete: list.len() as u64 == seen,
        list,
    }
}

fn thread_stats(
    walker: &Walker,
    names: &crate::analyse::trace::Names,
    own_pid: Option<u64>,
) -> Vec<ThreadStats> {
    walker
        .threads
        .iter()
        .map(|t| ThreadStats {
            tid: t.tid,
            pid: names.process_of(t.tid).or(own_pid),
            name: names.thread_name(t.tid).map(str::to_string),
            root: t.root,
            messages: t.messages,
            total_time: t.total,
            span: t.span(),
        })
        .collect()
}

fn trace_info(
    path: &Path,
    reader: &TraceReader,
    events: u64,
    warnings: Vec<String>,
    coverage: aggregates::Coverage,
) -> TraceInfo {
    let header = reader.header();
    let status = reader.status();
    let mut hmap: BTreeMap<String, String> = header.fields.iter().cloned().collect();
    if let Some(raw) = &header.raw {
        hmap.insert("comment".into(), raw.clone());
    }
    TraceInfo {
        path: path.display().to_string(),
        form: reader.form(),
        unit: header.unit,
        header: hmap,
        events,
        bytes: reader.bytes_read(),
        clean_end: status.clean_end.is_some(),
        truncated: status.truncated_at_size.is_some(),
        cut_short: status.cut_short,
        warnings,
        coverage,
    }
}

fn class_row(c: &str) -> ClassStats {
    ClassStats {
        class: c.to_string(),
        instances: 0,
        messages: 0,
        active_time: 0,
        mean_active_time: 0.0,
        mean_level: 0.0,
        max_level: 0.0,
        total_size: 0,
        created: 0,
        destroyed: 0,
        live: 0,
        max_size: None,
    }
}

/// Adds the sums of `b` (same class name) to `a`.
fn merge_class_rows(a: &mut ClassStats, b: &ClassStats) {
    a.instances += b.instances;
    a.messages += b.messages;
    a.active_time += b.active_time;
    a.max_level = a.max_level.max(b.max_level);
    a.total_size += b.total_size;
    a.max_size = a.max_size.max(b.max_size);
    a.created += b.created;
    a.destroyed += b.destroyed;
}

/// Per class: sums and averages over its instances (roots have no class), with the objects
/// the runtime counted without creation or destruction entries (`aggs.classes`).
fn class_stats(
    insts: &[Instance],
    sums: &InstSums,
    names: &crate::analyse::trace::Names,
    total: u64,
    aggs: &crate::analyse::trace::agg::Aggregates,
) -> Vec<ClassStats> {
    // Summed per class id first (no name lookup per instance: there can be millions), then
    // by name (ids of one name, e.g. across the processes of a trace set, add up).
    let mut by_id: Vec<Option<ClassStats>> = vec![None; names.classes.len()];
    let mut other: BTreeMap<&str, ClassStats> = BTreeMap::new();
    for (id, i) in insts.iter().enumerate() {
        if i.kind == InstKind::Root {
            continue;
        }
        let c = || names.class(i.class);
        let e = match by_id.get_mut(i.class as usize) {
            Some(slot) => slot.get_or_insert_with(|| class_row(c())),
            None => other.entry(c()).or_insert_with(|| class_row(c())),
        };
        let active = sums.active(id as u32);
        e.instances += 1;
        e.messages += sums.received(id as u32);
        e.active_time += active;
        e.max_level = e.max_level.max(level(active, total));
        e.total_size += i.size().unwrap_or(0);
        e.max_size = e.max_size.max(i.size());
        e.created += i.logged_created() as u64;
        e.destroyed += i.destroyed().is_some() as u64;
    }
    let mut classes = other;
    for (id, row) in by_id.into_iter().enumerate() {
        let Some(row) = row else { continue };
        let c = names.class(id as u32);
        match classes.get_mut(c) {
            Some(e) => merge_class_rows(e, &row),
            None => {
                classes.insert(c, row);
            }
        }
    }
    add_counted_objects(&mut classes, names, aggs);
    classes
        .into_values()
        .map(|mut c| {
            let n = c.instances.max(1) as f64;
            c.mean_active_time = c.active_time as f64 / n;
            c.mean_level = level(c.active_time, total) / n;
            c.live = c.created.saturating_sub(c.destroyed);
            c
        })
        .collect()
}

/// The objects the runtime counted per class without an entry (past `max_size`).
fn add_counted_objects<'a>(
    classes: &mut BTreeMap<&'a str, ClassStats>,
    names: &'a crate::analyse::trace::Names,
    aggs: &crate::analyse::trace::agg::Aggregates,
) {
    for x in &aggs.classes {
        let c = names.class(x.class);
        let e = classes.entry(c).or_insert_with(|| class_row(c));
        e.created += x.created;
        e.destroyed += x.destroyed;
        e.total_size += x.size;
        if x.created > 0 {
            e.max_size = e.max_size.max(Some(x.size_max));
        }
    }
}

/// A message at least this many times the mean of its method's other calls is a one-off.
const ONE_OFF_FACTOR: f64 = 10.0;

struct OneOffs {
    orders: FxHashSet<u64>,
    by_instance: FxHashMap<u32, u64>,
}

/// The kept messages far above their method's typical call: more than [`ONE_OFF_FACTOR`]×
/// the mean of the method's other calls (so a method called once is never a one-off).
fn one_off_messages(b: &mut Builder) -> OneOffs {
    let mut out = OneOffs {
        orders: FxHashSet::default(),
        by_instance: FxHashMap::default(),
    };
    for m in b.top.kept() {
        let Some(acc) = b.methods.get(m.method as usize) else {
            continue;
        };
        if acc.net.n < 3 {
            continue;
        }
        // A runtime's negative net correction (an aggregate row without calls) can leave the
        // method's sum below a kept message: nothing to judge it against.
        let Some(rest) = acc.net.sum.checked_sub(m.net_time) else {
            continue;
        };
        let others = rest as f64 / (acc.net.n - 1) as f64;
        if m.net_time as f64 > ONE_OFF_FACTOR * others.max(1.0) {
            out.orders.insert(m.order);
            *out.by_instance.entry(m.receiver).or_default() += m.net_time;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::analysis::PROBE_BOUND;

    /// Fails before: the whole pair per call was the probes' share, so a leaf whose net
    /// time is twice its inside part read as all probe, and a parent of 50 empty children
    /// (their outsides in its net time) as 4 % probe.
    #[test]
    fn the_probe_share_counts_the_inside_per_call_and_the_outside_per_child() {
        let p = Probe {
            inside: 20,
            outside: 30,
        };
        // 100 calls of a leaf of 40 each: half of it its probes' inside part.
        assert!((probe_share(100, 0, 4000, p) - 0.5).abs() < 1e-9);
        // 10 calls of a parent sending 50 each, 20 + 50 × 30 + 30 of work a call.
        let share = probe_share(10, 500, 10 * 1550, p);
        assert!(share > PROBE_BOUND && (share - 1520.0 / 1550.0).abs() < 1e-9);
    }
}

#[cfg(test)]
mod cap_tests {
    use crate::analyse::analysis::{analyze_path, Options};

    /// A header whose inside part is a fraction over the shortest leaf (9.12 ns against
    /// 9) but rounds to it in trace units: the walk subtracts the header's split as it is,
    /// so the analysis must say so (no cap, no warning), not report a cap it never applied.
    #[test]
    fn a_cap_lost_to_rounding_is_not_reported() {
        let mut s = String::from(
            "##### revy-trace 1 unit=ns probe_ns=30.4 probe_inside_ns=9.12\n\
             ##### thread tid=1 name=t1\n\
             <Msg cls=A oid=1 mth=run sgn=!! size=0 tid=1 t=0>\n",
        );
        for c in 0..2 {
            let t = 100 + c * 100;
            s += &format!(
                "<Msg cls=B oid=2 mth=leaf sgn=!! size=0 tid=1 t={t}>\n\
                 </Msg cls=B oid=2 mth=leaf sgn=!! tid=1 t={}>\n",
                t + 9
            );
        }
        s += "</Msg cls=A oid=1 mth=run sgn=!! tid=1 t=1000>\n";
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.dtf");
        std::fs::write(&path, s).unwrap();
        let a = analyze_path(&path, &Options::default()).unwrap();
        let p = &a.totals.probe;
        assert!(!p.capped, "{p:?}");
        assert_eq!(a.totals.probe_ns, Some(30.4));
        assert!(
            a.trace.warnings.iter().all(|w| !w.contains("exceeds")),
            "{:?}",
            a.trace.warnings
        );
    }
}

#[cfg(test)]
mod one_off_tests {
    use super::super::{Builder, Options};
    use super::*;
    use crate::analyse::trace::agg::{Aggregates, MethodAgg};
    use crate::analyse::walk::{Closed, Frame, Sink};

    /// A runtime's negative net correction (an aggregate row without calls) can leave a
    /// method's net sum below one of its kept messages. Fails before: the subtraction
    /// overflowed and `revy analyze` panicked (seen once in CI on a C++ suite's trace).
    #[test]
    fn a_method_sum_below_a_kept_message_is_not_judged() {
        let mut b = Builder::new(&Options::default());
        let names = crate::analyse::trace::Names::default();
        for (i, net) in [10u64, 10, 1_000].into_iter().enumerate() {
            let frame = Frame::opened(i as u64, 0, 1, 1, 0);
            let c = Closed {
                frame,
                thread: 0,
                tid: 1,
                end: net,
                aggregate: net,
                net,
                wait: 0,
                outer: &[],
            };
            b.closed(&c, &[], &names);
        }
        let fix = MethodAgg {
            method: 0,
            net: -1_000,
            ..MethodAgg::default()
        };
        let aggs = Aggregates {
            methods: vec![fix],
            ..Aggregates::default()
        };
        b.add_aggregates(&aggs, &[]);
        b.flush();
        assert!(b.methods[0].net.sum < 1_000);
        assert!(b.top.kept().any(|m| m.net_time == 1_000));
        let one_offs = one_off_messages(&mut b);
        assert!(one_offs.orders.is_empty());
    }
}
