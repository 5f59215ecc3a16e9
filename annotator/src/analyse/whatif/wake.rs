//! The wake-up after idling: a thread parked longer costs more to wake on a VM (its virtual
//! CPU halts; docs/runtime-fidelity.md, "The wake-up after idling"). The replay charges each
//! wake-up of a receiver blocked on its queue, and of a caller blocked on a result, the
//! curve at its idle time in the replay (never less than the handoff), and sums what it
//! charged for the verdict.

use serde::Serialize;

use super::sim::Params;
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
    pub fn at(&self, idle: f64) -> f64 {
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

    /// Both axes multiplied by `f` (ns to a trace's unit).
    pub fn scaled(&self, f: f64) -> WakeCurve {
        WakeCurve {
            idle: self.idle.iter().map(|x| x * f).collect(),
            wake: self.wake.iter().map(|y| y * f).collect(),
        }
    }

    /// Well formed: as many costs as idle times, at least one, rising idle times, all
    /// finite and not negative (a file edited by hand may hold anything).
    pub fn valid(&self) -> bool {
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
pub(crate) fn delay(p: &Params, idle: f64) -> f64 {
    match &p.wake_curve {
        Some(c) => p.handoff.max(c.at(idle.max(0.0))),
        None => p.handoff,
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
    pub fn means(&self) -> (f64, f64) {
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
            super::cost::count(c.n),
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
    use super::*;

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
        let bad = WakeCurve {
            idle: vec![10.0, 5.0],
            wake: vec![1.0, 1.0],
        };
        assert!(!bad.valid());
    }
}
