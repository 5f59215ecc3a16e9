//! The wake-up after idling: a thread parked longer costs more to wake on a VM (its virtual
//! CPU halts; docs/runtime-fidelity.md, "The wake-up after idling"). The replay charges each
//! wake-up of a receiver blocked on its queue, and of a caller blocked on a result, the
//! curve at its idle time in the replay (never less than the handoff), and sums what it
//! charged for the verdict.

use serde::Serialize;

use crate::analyse::trace::Unit;

/// Wake-up cost against idle time, both in one unit (ns as measured, the trace's unit in a
/// replay): points by rising idle time, linear between them, flat beyond the ends.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WakeCurve {
    pub idle: Vec<f64>,
    pub wake: Vec<f64>,
}

impl WakeCurve {
    /// The wake-up after `idle` (interpolated).
    pub(crate) fn at(&self, idle: f64) -> f64 {
        let (xs, ys) = (&self.idle, &self.wake);
        let Some(k) = xs.iter().position(|&x| x >= idle) else {
            return ys.last().copied().unwrap_or(0.0);
        };
        if k == 0 {
            return ys[0];
        }
        let (x0, x1, y0, y1) = (xs[k - 1], xs[k], ys[k - 1], ys[k]);
        if x1 <= x0 {
            return y1;
        }
        y0 + (y1 - y0) * (idle - x0) / (x1 - x0)
    }

    /// E.g. "a wake-up after idling (the project's, measured with the handoff): 4.00 µs
    /// after 0 ns, 28.0 µs after 20.0 µs, …; charged when dearer than the handoff".
    pub(crate) fn describe(&self, unit: Unit) -> String {
        let h = |x: f64| super::human(x, unit);
        let points: Vec<String> = (self.idle.iter().zip(&self.wake))
            .map(|(i, w)| format!("{} after {}", h(*w), h(*i)))
            .collect();
        format!(
            "a wake-up after idling (the project's, measured with the handoff): {}; charged when dearer than the handoff",
            points.join(", ")
        )
    }

    /// Both axes multiplied by `f` (ns to a trace's unit).
    pub(crate) fn scaled(&self, f: f64) -> WakeCurve {
        WakeCurve {
            idle: self.idle.iter().map(|x| x * f).collect(),
            wake: self.wake.iter().map(|y| y * f).collect(),
        }
    }

    /// Well formed: as many costs as idle times, at least one, rising idle times, all
    /// finite and not negative (a file edited by hand may hold anything).
    pub(crate) fn valid(&self) -> bool {
        !self.idle.is_empty()
            && self.idle.len() == self.wake.len()
            && self.idle.windows(2).all(|w| w[0] < w[1])
            && self
                .idle
                .iter()
                .chain(&self.wake)
                .all(|v| v.is_finite() && *v >= 0.0)
    }
}

/// The delay before a thread parked for `idle` runs again: the handoff, or the curve's
/// figure when larger.
pub(crate) fn delay(handoff: f64, curve: Option<&WakeCurve>, idle: f64) -> f64 {
    match curve {
        Some(c) => handoff.max(c.at(idle.max(0.0))),
        None => handoff,
    }
}

/// What the replay charged for one kind of wake-up (a receiver's by a message, a caller's
/// by a result): how many, their idle time and delay in all.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Charged {
    pub n: u64,
    pub idle: f64,
    pub delay: f64,
}

impl Charged {
    pub(crate) fn add(&mut self, idle: f64, delay: f64) {
        self.n += 1;
        self.idle += idle;
        self.delay += delay;
    }

    /// Mean idle time and delay (0 when none).
    pub(crate) fn means(&self) -> (f64, f64) {
        match self.n {
            0 => (0.0, 0.0),
            n => (self.idle / n as f64, self.delay / n as f64),
        }
    }
}

/// E.g. "6,001 receivers' wake-ups after ~35 µs idle ≈ 30 µs each and 6,001 callers'
/// after ~100 µs ≈ 33 µs each".
pub(crate) fn describe(receivers: &Charged, callers: &Charged, unit: Unit) -> String {
    let h = |x: f64| super::human(x, unit);
    let one = |c: &Charged, whose: &str| {
        let (idle, delay) = c.means();
        format!(
            "{} {whose} wake-ups after ~{} idle ≈ {} each",
            super::count(c.n),
            h(idle),
            h(delay)
        )
    };
    match (receivers.n, callers.n) {
        (0, _) => one(callers, "callers'"),
        (_, 0) => one(receivers, "receivers'"),
        _ => format!(
            "{} and {}",
            one(receivers, "receivers'"),
            one(callers, "callers'")
        ),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::super::sim::Params;
    use super::super::{baseline, load, plan, predict, Loaded, Plan};
    use super::*;

    /// Chain's shape: `main` parses 35 µs, then asks `Lexer.next` (value-returning: it
    /// waits) for a token that takes 100 µs, 100 times.
    fn chain() -> (Loaded, Plan, tempfile::NamedTempFile) {
        super::super::test_chain(100, 35_000, 100_000)
    }

    fn params(curve: Option<WakeCurve>) -> Params {
        Params {
            cores: 2,
            handoff: 2_000.0,
            enqueue: 100.0,
            wake: 2_000.0,
            post: 20.0,
            take: 100.0,
            latency: 0.0,
            bandwidth: None,
            wake_curve: curve,
        }
    }

    /// This VM quiet (docs/runtime-fidelity.md): ~3-5 µs back to back, ~30 µs once parked
    /// for 20 µs or more.
    fn quiet() -> WakeCurve {
        WakeCurve {
            idle: vec![0.0, 5_000.0, 20_000.0, 50_000.0, 100_000.0, 300_000.0],
            wake: vec![4_000.0, 3_000.0, 28_000.0, 32_000.0, 30_000.0, 38_000.0],
        }
    }

    #[test]
    fn a_chain_whose_threads_idle_pays_the_dear_wake_ups() {
        let (l, plan, _f) = chain();
        let flat = params(None);
        let w = predict(&l, &plan, &flat, &[]);
        // 100 round trips of 2 handoffs of 2 µs against 13.5 ms: 13.5 / 13.9.
        assert!(
            (w.predicted_speedup - 13.535 / 13.935).abs() < 0.01,
            "{w:?}"
        );
        let dear = params(Some(quiet()));
        let w = predict(&l, &plan, &dear, &[]);
        // The Lexer idles 35 µs plus the caller's wake-up (~32 µs each), the caller 100 µs
        // plus the Lexer's (~31 µs each): ~63 µs a round trip.
        assert!(
            (0.65..0.72).contains(&w.predicted_speedup),
            "{}",
            w.predicted_speedup
        );
        let c = w.cost.expect("messages were sent");
        assert_eq!(c.dominant, "handoff", "{c:?}");
        assert!(
            c.text
                .starts_with("100 round trips: 100 receivers' wake-ups after ~6"),
            "{}",
            c.text
        );
        assert!(
            c.text.contains("100 callers' wake-ups after ~13"),
            "{}",
            c.text
        );
        // The baseline has no cross-thread message: the curve leaves it alone.
        assert_eq!(baseline(&l, &flat), baseline(&l, &dear));
    }

    /// Two 10 ms calls a caller waits for: the wake-ups are there but small against the
    /// waiting, which stays what the verdict names.
    #[test]
    fn coarse_round_trips_still_name_the_waiting() {
        let mut f = tempfile::Builder::new().suffix(".dtf").tempfile().unwrap();
        writeln!(f, "##### revy-trace 1 unit=ns lang=java pid=1").unwrap();
        writeln!(f, "<Msg cls=Main oid=0 mth=main sgn=!! size=8 tid=1 t=0>").unwrap();
        for t in [1_000_000u64, 12_000_000] {
            writeln!(
                f,
                "<Msg cls=Worker oid=1 mth=run sgn=!! size=8 tid=1 t={t}>"
            )
            .unwrap();
            let end = t + 10_000_000;
            writeln!(f, "</Msg cls=Worker oid=1 mth=run sgn=!! tid=1 t={end}>").unwrap();
        }
        writeln!(f, "</Msg cls=Main oid=0 mth=main sgn=!! tid=1 t=23000000>").unwrap();
        writeln!(f, "##### end events=0").unwrap();
        f.flush().unwrap();
        let l = load(&[f.path().to_path_buf()], false, None).unwrap();
        let mut plan = Plan::default();
        plan::add_pattern(&l.tree, &mut plan, "Worker").unwrap();
        let w = predict(&l, &plan, &params(Some(quiet())), &[]);
        let c = w.cost.expect("messages were sent");
        assert_eq!(c.dominant, "waiting for results", "{c:?}");
        // 2 round trips of ~30 + ~38 µs (the Worker idle 1 ms, then 1 ms; the caller 10 ms).
        let slower = w.predicted_time - w.baseline_time;
        assert!((100_000.0..180_000.0).contains(&slower), "{slower}");
    }

    #[test]
    fn a_flat_curve_at_the_handoff_predicts_as_the_handoff_does() {
        let (l, plan, _f) = chain();
        let flat = WakeCurve {
            idle: vec![0.0, 300_000.0],
            wake: vec![2_000.0, 2_000.0],
        };
        let a = predict(&l, &plan, &params(None), &[]);
        let b = predict(&l, &plan, &params(Some(flat)), &[]);
        assert_eq!(a.predicted_time, b.predicted_time);
        // A curve below the handoff never makes a wake-up cheaper than it.
        let cheap = WakeCurve {
            idle: vec![0.0],
            wake: vec![500.0],
        };
        let c = predict(&l, &plan, &params(Some(cheap)), &[]);
        assert_eq!(a.predicted_time, c.predicted_time);
        let dominant = |w: &super::super::WhatIf| w.cost.as_ref().map(|c| c.dominant);
        assert_eq!(dominant(&a), Some("waiting for results"));
        assert_eq!(dominant(&b), dominant(&a));
        assert_eq!(dominant(&c), dominant(&a));
    }

    #[test]
    fn the_curve_interpolates_and_is_flat_beyond_its_ends() {
        let c = WakeCurve {
            idle: vec![0.0, 20.0, 50.0],
            wake: vec![3.0, 13.0, 33.0],
        };
        assert!(c.valid());
        assert_eq!(c.at(0.0), 3.0);
        assert_eq!(c.at(10.0), 8.0);
        assert_eq!(c.at(35.0), 23.0);
        assert_eq!(c.at(1_000.0), 33.0);
        assert!((c.scaled(0.001).at(0.035) - 0.023).abs() < 1e-12);
        let text = c.describe(Unit::Ns);
        assert!(
            text.contains("3.00 ns after 0 ns, 13.0 ns after 20.0 ns"),
            "{text}"
        );
        let bad = WakeCurve {
            idle: vec![10.0, 5.0],
            wake: vec![1.0, 1.0],
        };
        assert!(!bad.valid());
    }
}
