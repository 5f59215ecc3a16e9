//! One ranking of the run's objects for the whole page: the answer's first line is its top
//! entry and the class, instance and method tables open sorted by it, so the two cannot
//! disagree. Proposals that pay come first (in the analysis's order); then every replayed
//! verdict and every class of the run by share of busy time, each with its speedup (×1.00
//! when nothing pays) and its cause in plain words.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use crate::analyse::analysis::hints::HintKind;
use crate::analyse::analysis::{Analysis, ClassStats, Hint};
use crate::analyse::walk::InstKind;
use crate::analyse::whatif::human;

/// One ranked object.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Ranked {
    /// `class`, `instance` or `method`: the table it is a row of.
    pub kind: &'static str,
    /// The page's key of that row: the class name, the instance id, the method id.
    pub key: String,
    pub subject: String,
    /// Its class (an instance's or method's too: the class table ranks a class by its best).
    pub class: Option<String>,
    /// Its share of the run's busy time.
    pub share: f64,
    /// Predicted speedup of making it active (1.0: no replay gains anything).
    pub speedup: f64,
    /// Whether the change pays (a proposal).
    pub pays: bool,
    /// The analysis's verdict it stands for (index into the hints), if any.
    pub hint: Option<usize>,
    /// The whole line, in human units.
    pub text: String,
}

/// The ranking of `a`'s objects, best first.
pub fn rank(a: &Analysis) -> Vec<Ranked> {
    let (mut pays, mut rest) = (Vec::new(), Vec::new());
    let mut judged: FxHashSet<&str> = FxHashSet::default();
    for (k, h) in a.hints.iter().enumerate() {
        let Some(mut r) = verdict(a, k, h) else {
            continue;
        };
        if let Some(c) = &h.class {
            judged.insert(c);
        }
        if r.kind == "class" {
            judged.insert(&h.subject);
        }
        r.text = h.text.clone();
        if r.pays {
            pays.push(r);
        } else {
            rest.push(r);
        }
    }
    let one_off = one_off_by_class(a);
    let probe = a.probe_bound_classes();
    for c in a
        .classes
        .iter()
        .filter(|c| !judged.contains(c.class.as_str()))
    {
        let off = one_off.get(c.class.as_str()).copied().unwrap_or(0);
        rest.push(unjudged(a, c, off, probe.contains(c.class.as_str())));
    }
    rest.sort_by(|x, y| {
        y.share
            .total_cmp(&x.share)
            .then_with(|| x.subject.cmp(&y.subject))
    });
    pays.extend(rest);
    pays
}

/// The ranked entry of a replayed verdict (a proposal or a no-gain statement about an
/// object); `None` for observations and for the run as a whole.
fn verdict(a: &Analysis, k: usize, h: &Hint) -> Option<Ranked> {
    if !matches!(h.kind, HintKind::Proposal | HintKind::NoGain) {
        return None;
    }
    let speedup = h.numbers.get("predicted_speedup").copied().unwrap_or(1.0);
    let share = h.numbers.get("level").copied().unwrap_or(0.0);
    let (kind, key) = if h.class.as_deref() == Some(h.subject.as_str()) {
        ("class", h.subject.clone())
    } else if let Some(m) = h.method {
        ("method", m.to_string())
    } else if let Some(i) = h.instance {
        ("instance", i.to_string())
    } else if a.classes.iter().any(|c| c.class == h.subject) {
        ("class", h.subject.clone())
    } else {
        return None;
    };
    Some(Ranked {
        kind,
        key,
        subject: h.subject.clone(),
        class: h.class.clone().or_else(|| {
            h.instance
                .and_then(|i| a.instances.class_of(i).map(String::from))
        }),
        share,
        speedup,
        pays: h.kind == HintKind::Proposal,
        hint: Some(k),
        text: String::new(),
    })
}

/// Net time of one-off messages (class loading, JIT, first I/O) per class name.
fn one_off_by_class(a: &Analysis) -> FxHashMap<&str, u64> {
    let mut by: FxHashMap<&str, u64> = FxHashMap::default();
    for r in a.instances.rows().filter(|r| r.kind != InstKind::Root) {
        let t = a.instances.one_off_time(r.id);
        if t > 0 {
            *by.entry(a.instances.class_name(r.class)).or_default() += t;
        }
    }
    by
}

/// A class no replay judged, with why nothing is proposed for it.
/// `probe`: its time is mostly the probe's own cost.
fn unjudged(a: &Analysis, c: &ClassStats, one_off: u64, probe: bool) -> Ranked {
    let total = a.totals.total_time.max(1);
    let share = c.active_time as f64 / total as f64;
    let t = |x: u64| human(x as f64, a.trace.unit);
    let o = &a.options;
    let above = c.active_time > 0
        && (share >= o.threshold_level || o.threshold_time.is_some_and(|x| c.active_time >= x));
    let whose = if c.instances == 1 {
        "its one instance is".to_string()
    } else {
        format!("its {} instances together are", grouped(c.instances))
    };
    let size = format!(
        "{whose} {} of busy time ({})",
        share_text(share),
        t(c.active_time)
    );
    let cause = if c.active_time == 0 {
        format!("{whose} idle: nothing to move")
    } else if 2 * one_off >= c.active_time {
        format!("{size}, mostly one-off messages ({}: class loading, JIT, first I/O), which no thread would speed up", t(one_off))
    } else if probe {
        format!("{size}, mostly the probe's own cost: instrumentation, not work")
    } else if !above {
        format!(
            "{size}, below the {} threshold: too little work to pay for a thread of its own",
            share_text(o.threshold_level)
        )
    } else {
        format!("{size}, but no replay judged it (see the hints below)")
    };
    Ranked {
        kind: "class",
        key: c.class.clone(),
        subject: c.class.clone(),
        class: Some(c.class.clone()),
        share,
        speedup: 1.0,
        pays: false,
        hint: None,
        text: format!("{}: {cause}", c.class),
    }
}

/// A count with thousands separated (`33,333`).
fn grouped(n: u64) -> String {
    let d = n.to_string();
    let mut out = String::with_capacity(d.len() + d.len() / 3);
    for (k, c) in d.chars().enumerate() {
        if k > 0 && (d.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A share as people read it: one decimal, or two significant digits when that would
/// print 0.0 % (never a 0.0 % for something that took time).
pub fn share_text(x: f64) -> String {
    let p = x * 100.0;
    if p == 0.0 || p >= 0.05 {
        format!("{p:.1} %")
    } else {
        let digits = (1 - p.log10().floor() as i32).clamp(2, 9) as usize;
        format!("{p:.digits$} %")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_shares_keep_their_figure() {
        assert_eq!(share_text(0.1234), "12.3 %");
        assert_eq!(share_text(0.0), "0.0 %");
        assert_eq!(share_text(0.00018235), "0.018 %");
        assert_eq!(share_text(0.0000666), "0.0067 %");
        assert_eq!(grouped(33_333), "33,333");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000_000), "1,000,000");
    }

    /// Nothing pays on a synthetic run: the top entry is its biggest class, ×1.00, with the
    /// threshold as cause; every class is ranked, by share.
    #[test]
    fn no_gain_run_ranks_its_biggest_class_first() {
        let spec = crate::analyse::trace::synth::Spec {
            events: 20_000,
            instances: 1000,
            threads: 4,
            classes: 30,
            seed: 5,
            ..Default::default()
        };
        let input = crate::analyse::report::synth_input(&spec, &Default::default());
        let a = &input.analysis;
        let r = rank(a);
        let top = a.classes.iter().max_by_key(|c| c.active_time).unwrap();
        assert_eq!(
            (r[0].kind, r[0].key.as_str()),
            ("class", top.class.as_str())
        );
        assert_eq!(r[0].speedup, 1.0);
        assert_eq!(r[0].class.as_deref(), Some(top.class.as_str()));
        assert!(
            r[0].text.contains("below the 10.0 % threshold"),
            "{}",
            r[0].text
        );
        assert_eq!(
            r.iter().filter(|x| x.kind == "class").count(),
            a.classes.len()
        );
        assert!(r.windows(2).all(|w| w[0].share >= w[1].share));
    }
}
