//! The readable text summary of `revy analyze`.

use std::fmt::Write;

use super::hints::HintKind;
use super::Analysis;
use crate::analyse::trace::display::signature;
use crate::analyse::walk::InstKind;

fn pct(x: f64) -> String {
    format!("{:5.1}%", x * 100.0)
}

/// A time in the trace's unit, scaled for reading (`6.71 s`, `22.0 ns`): the text shows no
/// raw counts of the unit; the JSON keeps them.
fn tm(a: &Analysis, x: f64) -> String {
    crate::analyse::whatif::human(x, a.trace.unit)
}

/// Render the summary; `top` rows per table.
pub fn text(a: &Analysis, top: usize) -> String {
    let mut s = String::new();
    header(&mut s, a);
    proposals(&mut s, a);
    instances(&mut s, a, top);
    messages(&mut s, a, top);
    methods(&mut s, a, top);
    classes(&mut s, a, top);
    observations(&mut s, a);
    if let Some(e) = &a.events {
        crate::analyse::events::render::text(&mut s, e, a.trace.unit);
    }
    s
}

/// Advice proper: a proposal or a statement that a change gains nothing.
fn is_advice(h: &super::Hint) -> bool {
    matches!(h.kind, HintKind::Proposal | HintKind::NoGain)
}

/// The trace, the run's totals and the warnings.
fn header(s: &mut String, a: &Analysis) {
    let u = a.trace.unit.as_str();
    let t = &a.totals;
    let _ = writeln!(
        s,
        "Trace {} ({:?} form, unit {u}): {} events, {} messages, {} instances, {} threads",
        a.trace.path, a.trace.form, a.trace.events, t.messages, t.instances, t.threads
    );
    if let Some(pids) = a.trace.header.get("processes") {
        let _ = writeln!(
            s,
            "Processes {pids}, on one time line (roots root@PID/TID, objects Class#oid@PID)"
        );
    }
    let run = crate::analyse::run::RunLength {
        span: t.run_span,
        busy: t.total_time,
        instrumented: t.instrumented_time,
        threads: t.threads,
    };
    let _ = writeln!(
        s,
        "{}, {} inside instrumented messages; {}",
        run.describe(|x| tm(a, x)),
        tm(a, t.instrumented_time as f64),
        t.probe_note
    );
    let _ = writeln!(
        s,
        "{} one-off messages; {} cyclic messages; max stack depth {}",
        t.one_off_messages, t.cyclic_messages, t.max_depth
    );
    for w in &a.trace.warnings {
        let _ = writeln!(s, "warning: {w}");
    }
}

/// The proposals and no-gain statements, ranked, with the what-if's settings.
fn proposals(s: &mut String, a: &Analysis) {
    if !a.hints.iter().any(is_advice) {
        return;
    }
    let _ = writeln!(
        s,
        "\nProposals, ranked by predicted speedup{}",
        a.advice
            .as_ref()
            .filter(|x| x.candidates > 0)
            .map_or(String::new(), |x| format!(
                " ({} core(s), handoff {} ({}), enqueue {} ({}), {} waking a blocked receiver ({}), {} behind others ({}), take {} ({}))",
                x.cores,
                tm(a, x.handoff),
                x.handoff_source,
                tm(a, x.enqueue),
                x.enqueue_source,
                tm(a, x.wake),
                x.wake_source,
                tm(a, x.post),
                x.post_source,
                tm(a, x.take),
                x.take_source
            ))
    );
    if let Some(r) = a.advice.as_ref().and_then(|x| x.handoff_range) {
        let _ = writeln!(
            s,
            "  note: the project's calibration saw two states, handoff {} and enqueue {} fast, {} and {} slow ({:.0} % of the handoff's windows slow): each verdict is the point prediction's, its range gives both ends",
            tm(a, r.fast),
            tm(a, r.enqueue_fast),
            tm(a, r.slow),
            tm(a, r.enqueue_slow),
            r.slow_share * 100.0
        );
    }
    for n in a.advice.iter().flat_map(|x| &x.notes) {
        let _ = writeln!(s, "  note: {n}");
    }
    for (i, h) in a.hints.iter().filter(|h| is_advice(h)).enumerate() {
        let _ = writeln!(s, "  {}. [{}] {}", i + 1, h.kind, h.text);
    }
    let _ = writeln!(
        s,
        "  (predictions hold only if the change is free of data races; `revy whatif` shows the details)"
    );
}

/// The most active instances.
fn instances(s: &mut String, a: &Analysis, top: usize) {
    let _ = writeln!(
        s,
        "\nTop instances by active time (work on the CPU; waiting off it is its own column)"
    );
    let _ = writeln!(
        s,
        "  {:<32} {:>12} {:>7} {:>12} {:>8} {:>6} {:>6} {:>10}",
        "instance", "active", "level", "waiting", "received", "cyclic", "neigh", "size"
    );
    let inst = a.instances.top(
        top,
        |i| i.kind != InstKind::Root,
        |x, y| y.active_time.cmp(&x.active_time).then(x.id.cmp(&y.id)),
    );
    for i in &inst {
        let size = i.size.map_or("-".into(), |s| s.to_string());
        let _ = writeln!(
            s,
            "  {:<32} {:>12} {} {:>12} {:>8} {:>6} {:>6} {:>10}",
            i.label,
            tm(a, i.active_time as f64),
            pct(i.level),
            tm(a, i.waiting as f64),
            i.received,
            i.cyclic,
            i.neighbours,
            size
        );
    }
}

/// The messages with the largest aggregate times.
fn messages(s: &mut String, a: &Analysis, top: usize) {
    let _ = writeln!(s, "\nTop messages by aggregate time");
    let _ = writeln!(
        s,
        "  {:>8} {:<24} {:<36} {:>10} {:>10} {:>7} {:>8}",
        "order", "sender", "receiver.method", "aggregate", "net", "level", "size"
    );
    let mut msgs: Vec<_> = a.messages.list.iter().collect();
    msgs.sort_by(|x, y| {
        y.aggregate_time
            .cmp(&x.aggregate_time)
            .then(x.order.cmp(&y.order))
    });
    for m in msgs.iter().take(top) {
        let name = format!("{}.{}", a.label(m.receiver), a.method_only(m.method));
        let _ = writeln!(
            s,
            "  {:>8} {:<24} {:<36} {:>10} {:>10} {} {:>8}",
            m.order,
            a.label(m.sender),
            name,
            tm(a, m.aggregate_time as f64),
            tm(a, m.net_time as f64),
            pct(m.level),
            m.size
        );
    }
    if !a.messages.complete {
        let _ = writeln!(
            s,
            "  (detail kept for the top {} of {} messages)",
            a.messages.list.len(),
            a.messages.total
        );
    }
}

/// Methods by net time.
fn methods(s: &mut String, a: &Analysis, top: usize) {
    let _ = writeln!(
        s,
        "\nMethods by net work time (calls, net total/min/max/mean/std-dev, aggregate total, level, waiting)"
    );
    let mut meth: Vec<_> = a.methods.iter().filter(|m| m.calls > 0).collect();
    meth.sort_by(|x, y| {
        y.net_time
            .total
            .cmp(&x.net_time.total)
            .then(x.id.cmp(&y.id))
    });
    for m in meth.iter().take(top) {
        let n = &m.net_time;
        let _ = writeln!(
            s,
            "  {:<40} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {} {:>10}",
            format!("{}.{}{}", m.class, m.method, signature(&m.signature)),
            m.calls,
            tm(a, n.total as f64),
            tm(a, n.min as f64),
            tm(a, n.max as f64),
            tm(a, n.mean),
            tm(a, n.std_dev),
            tm(a, m.aggregate_time.total as f64),
            pct(m.level),
            tm(a, m.waiting as f64)
        );
        if let Some(n) = m.time_estimated_from {
            let _ = writeln!(
                s,
                "    (throttled: times past its first {n} timed calls are estimated)"
            );
        }
    }
}

/// Classes by mean activity level.
fn classes(s: &mut String, a: &Analysis, top: usize) {
    let _ = writeln!(s, "\nClasses by average activity");
    let mut cls: Vec<_> = a.classes.iter().collect();
    cls.sort_by(|x, y| y.mean_level.total_cmp(&x.mean_level));
    for c in cls.iter().take(top) {
        let _ = writeln!(
            s,
            "  {:<40} {:>6} instances {:>8} created  mean {} max {}",
            c.class,
            c.instances,
            c.created,
            pct(c.mean_level),
            pct(c.max_level)
        );
    }
}

/// The thesis's observations (every hint that is not a proposal).
fn observations(s: &mut String, a: &Analysis) {
    let _ = writeln!(
        s,
        "\nObservations (threshold {} of the total{})",
        pct(a.options.threshold_level).trim(),
        (a.options.threshold_time).map_or(String::new(), |t| format!(" or {}", tm(a, t as f64)))
    );
    if a.hints.iter().all(is_advice) {
        let _ = writeln!(s, "  none");
    }
    for h in a.hints.iter().filter(|h| !is_advice(h)) {
        let _ = writeln!(s, "  [{}] {}: {}", h.kind, h.subject, h.reason);
    }
}
