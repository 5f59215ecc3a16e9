//! The what-if at both ends of a machine that flips between two states: this VM's wake-up
//! costs ~2 µs one way in one state and ~15 µs in the other, flipping within a second, and
//! the project's calibration (`analyse::calibrate`, 20 windows over 2 s) keeps both ends
//! when its windows disagree by 2× or more; the at-the-queue post (10 windows over 1.5 s)
//! when its own do by 1.5×. The point prediction replays the windows' medians; these
//! replay each end, so a synchronous chain's prediction is a range.

use serde::Serialize;

use super::{baseline, human, predict_without_path, Loaded, Params, Plan};
use crate::analyse::trace::Unit;

/// The prediction at both ends of a handoff whose calibration windows saw two states (this
/// machine's wake-ups flip between a fast and a slow one): the point prediction replays the
/// windows' median, these the fast and the slow end, each with its own baseline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HandoffRange {
    /// The fast and the slow state's handoff, in `unit`.
    pub handoff_fast: f64,
    pub handoff_slow: f64,
    /// The sender's at-the-queue post at each end (the point's when its windows agreed).
    pub enqueue_fast: f64,
    pub enqueue_slow: f64,
    /// The share of the calibration's windows in the slow state.
    pub slow_share: f64,
    /// The wake-up after 50 µs idle at each end, when the project's wake-up curve saw two
    /// states (some windows' idle CPUs halted, others' not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wake_after_50us_fast: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wake_after_50us_slow: Option<f64>,
    pub baseline_time_fast: f64,
    pub predicted_time_fast: f64,
    pub predicted_speedup_fast: f64,
    pub baseline_time_slow: f64,
    pub predicted_time_slow: f64,
    pub predicted_speedup_slow: f64,
    /// The lower and the higher of the two speedups.
    pub speedup_low: f64,
    pub speedup_high: f64,
}

/// [`HandoffRange`] of `plan`: replayed (without the critical path) with `fast` and `slow`.
pub fn predict_range(
    l: &Loaded,
    plan: &Plan,
    fast: &Params,
    slow: &Params,
    slow_share: f64,
) -> HandoffRange {
    let at = |p: &Params| {
        let base = baseline(l, p);
        let w = predict_without_path(l, plan, p, &[], base);
        (base, w.predicted_time, w.predicted_speedup)
    };
    let (bf, tf, sf) = at(fast);
    let (bs, ts, ss) = at(slow);
    // 50 µs in the trace's unit: the idle time after which this VM's wake-ups are dear.
    let idle = super::ns_to(l.tree.unit(), 50_000.0);
    let wake = |p: &Params| p.wake_curve.as_ref().map(|c| c.at(idle));
    let two = fast.wake_curve != slow.wake_curve;
    HandoffRange {
        handoff_fast: fast.handoff,
        handoff_slow: slow.handoff,
        enqueue_fast: fast.enqueue,
        enqueue_slow: slow.enqueue,
        slow_share,
        wake_after_50us_fast: wake(fast).filter(|_| two),
        wake_after_50us_slow: wake(slow).filter(|_| two),
        baseline_time_fast: bf,
        predicted_time_fast: tf,
        predicted_speedup_fast: sf,
        baseline_time_slow: bs,
        predicted_time_slow: ts,
        predicted_speedup_slow: ss,
        speedup_low: sf.min(ss),
        speedup_high: sf.max(ss),
    }
}

impl HandoffRange {
    /// One line: both ends, which is which, how often the slow one.
    pub fn describe(&self, unit: Unit) -> String {
        let wake = match (self.wake_after_50us_fast, self.wake_after_50us_slow) {
            (Some(f), Some(s)) => format!(
                "; a wake-up after 50 µs idle {} at the fast end, {} at the slow one (the wake-up curve's windows saw both)",
                human(f, unit),
                human(s, unit)
            ),
            _ => String::new(),
        };
        let text = format!(
            "{:.2}× with the fast state's handoff {} and enqueue {}, {:.2}× with the slow state's {} and {} ({:.0} % of the handoff's windows slow): this machine's costs flip between two states",
            self.predicted_speedup_fast,
            human(self.handoff_fast, unit),
            human(self.enqueue_fast, unit),
            self.predicted_speedup_slow,
            human(self.handoff_slow, unit),
            human(self.enqueue_slow, unit),
            self.slow_share * 100.0
        );
        text + &wake
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `main` calls `Lexer.next` (value-returning: the caller waits) 10 times, 1 µs each,
    /// with 1 µs of its own work between.
    fn chain() -> (Loaded, Plan, tempfile::NamedTempFile) {
        super::super::test_chain(10, 1_000, 1_000)
    }

    fn at(handoff: f64) -> Params {
        Params {
            cores: 2,
            handoff,
            enqueue: 100.0,
            wake: 100.0,
            post: 10.0,
            take: 100.0,
            latency: 0.0,
            bandwidth: None,
            wake_curve: None,
        }
    }

    #[test]
    fn a_wake_up_curve_in_two_states_gives_both_ends() {
        let (l, plan, _f) = chain();
        let curve = |after: f64| super::super::WakeCurve {
            idle: vec![0.0, 500.0],
            wake: vec![2_000.0, after],
        };
        let (mut fast, mut slow) = (at(2_000.0), at(2_000.0));
        fast.wake_curve = Some(curve(2_000.0));
        slow.wake_curve = Some(curve(15_000.0));
        let r = predict_range(&l, &plan, &fast, &slow, 0.0);
        assert!(r.predicted_speedup_slow < r.predicted_speedup_fast, "{r:?}");
        assert_eq!(
            (r.wake_after_50us_fast, r.wake_after_50us_slow),
            (Some(2_000.0), Some(15_000.0))
        );
        assert!(r.describe(Unit::Ns).contains("15.0 µs at the slow one"));
        let r = predict_range(&l, &plan, &at(2_000.0), &at(15_000.0), 0.3);
        assert_eq!(r.wake_after_50us_slow, None, "one curve: not said");
    }

    #[test]
    fn a_synchronous_chain_loses_more_at_the_slow_end() {
        let (l, plan, _f) = chain();
        let r = predict_range(&l, &plan, &at(2_000.0), &at(15_000.0), 0.3);
        // 10 round trips of 2 handoffs against 21 µs: 21 / (21 + 40) and 21 / (21 + 300).
        assert!(
            (r.predicted_speedup_fast - 21.0 / 61.0).abs() < 0.02,
            "{r:?}"
        );
        assert!(
            (r.predicted_speedup_slow - 21.0 / 321.0).abs() < 0.01,
            "{r:?}"
        );
        assert_eq!(
            (r.speedup_low, r.speedup_high),
            (r.predicted_speedup_slow, r.predicted_speedup_fast)
        );
        assert_eq!(
            (r.handoff_fast, r.handoff_slow, r.slow_share),
            (2_000.0, 15_000.0, 0.3)
        );
        let text = r.describe(Unit::Ns);
        assert!(
            text.contains("0.07× with the slow state's 15.0 µs and 100 ns (30 %"),
            "{text}"
        );
    }
}
