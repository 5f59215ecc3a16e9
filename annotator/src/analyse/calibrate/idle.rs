//! A thread's wake-up as a function of how long it was parked. On a VM, a virtual CPU
//! whose thread parks for more than ~20-50 µs halts, and waking it goes through the
//! hypervisor: ~25-40 µs instead of the few µs of a back-to-back wake-up (a Java
//! queue+future round trip measured both, docs/runtime-fidelity.md, "The wake-up after
//! idling"). The handoff's windows (`calibrate.rs`) measure only back-to-back round
//! trips; this measures the curve in the gaps between them, so it costs no wall time.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::analyse::whatif::WakeCurve;

/// How the curve is measured.
pub(crate) const IDLE_HOW: &str = "in the gaps of the handoff's 20 windows: a thread parked on a mutex/condition variable for each idle time, woken by a post from a thread on another core (each pinned) that spins meanwhile and then spins for the answer (an atomic); per window and idle time the 25th percentile of 8 wake-ups after 2 not counted (a wake-up preempted on a busy machine spoils one, not the figure), the curve the windows' medians";

/// The idle times measured, in µs.
pub(crate) const IDLE_US: [f64; 7] = [0.0, 10.0, 20.0, 35.0, 50.0, 100.0, 300.0];

/// Wake-ups per idle time and window, after [`WARM`] not counted (the host's halt
/// polling adapts to the last idle times: the first after a change of idle time may be
/// the previous one's).
const PER: usize = 8;
const WARM: usize = 2;

/// A wake-up longer than this is a time slice, not a wake-up: not counted.
const PLAUSIBLE_NS: f64 = 2_000_000.0;

/// Each window's figures, per idle time (ns); the curve is made of their medians.
#[derive(Default)]
pub(crate) struct Samples {
    per_idle: Vec<Vec<f64>>,
}

impl Samples {
    /// One window: [`PER`] wake-ups after each idle time, their 25th percentile kept.
    pub(crate) fn window(&mut self) {
        self.per_idle.resize(IDLE_US.len(), Vec::new());
        let figures = window();
        for (k, f) in figures.into_iter().enumerate() {
            self.per_idle[k].extend(f);
        }
    }

    /// The curve: per idle time, the windows' median (`None`: fewer than 4 windows
    /// answered at some idle time).
    pub(crate) fn curve(&self) -> Option<WakeCurve> {
        self.at(0.5)
    }

    /// The curve and, when its windows saw two states (at some idle time of 20 µs or more
    /// the windows' 90th percentile is [`TWO_STATES`] times their 10th or more: a machine
    /// whose idle CPUs halted in some windows only), both ends: those percentiles.
    pub(crate) fn curves(&self) -> Option<Curves> {
        let point = self.curve()?;
        let (fast, slow) = (self.at(0.1)?, self.at(0.9)?);
        let apart = (IDLE_US.iter().zip(fast.wake.iter().zip(&slow.wake)))
            .any(|(us, (f, s))| *us >= 20.0 && *s >= TWO_STATES * f);
        Some(Curves {
            point,
            ends: apart.then_some((fast, slow)),
        })
    }

    /// Per idle time, the windows' `q` quantile.
    fn at(&self, q: f64) -> Option<WakeCurve> {
        let mut wake = Vec::with_capacity(IDLE_US.len());
        for w in &self.per_idle {
            if w.len() < 4 {
                return None;
            }
            let mut w = w.clone();
            w.sort_by(f64::total_cmp);
            wake.push(w[((w.len() - 1) as f64 * q).round() as usize]);
        }
        (wake.len() == IDLE_US.len()).then(|| WakeCurve {
            idle: IDLE_US.iter().map(|us| us * 1e3).collect(),
            wake,
        })
    }
}

/// The windows' curve and, in two states, its fast and slow ends.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Curves {
    pub point: WakeCurve,
    pub ends: Option<(WakeCurve, WakeCurve)>,
}

/// The slow end at least this many times the fast one after an idle time: two states.
const TWO_STATES: f64 = 2.0;

/// Per idle time, the 25th percentile of [`PER`] wake-ups (none when none was plausible).
/// The sleeper and the waker are threads of their own, each kept on a core of its own (the
/// first two this process may use; the caller's affinity is untouched): left to the
/// scheduler, a sleeper spawned after the caller slept can land on the waker's core, where
/// a wake-up is a preemption (~3.5 µs here whatever the idle time) instead of the other
/// core's wake from halt (~16-22 µs after 10 µs or more: measured both ways on this VM).
fn window() -> Vec<Option<f64>> {
    let cores = super::queue::allowed_cores();
    if cores.len() < 2 {
        return vec![None; IDLE_US.len()];
    }
    let pair = Arc::new((Mutex::new(0u64), Condvar::new()));
    let answered = Arc::new(AtomicU64::new(0));
    let (other, told) = (Arc::clone(&pair), Arc::clone(&answered));
    let sleeper_core = cores[1];
    // The sleeper answers each new value through the atomic, then parks again.
    let sleeper = std::thread::spawn(move || {
        super::queue::pin(sleeper_core);
        let (m, cv) = &*other;
        let mut seen = 0;
        loop {
            let mut g = m.lock().unwrap_or_else(|e| e.into_inner());
            while *g == seen {
                g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
            }
            seen = *g;
            drop(g);
            told.store(seen, Ordering::Release);
            if seen == u64::MAX {
                return;
            }
        }
    });
    let waker_core = cores[0];
    let waker = std::thread::spawn(move || {
        super::queue::pin(waker_core);
        wake_ups(&pair, &answered)
    });
    let out = waker.join().unwrap_or_else(|_| vec![None; IDLE_US.len()]);
    let _ = sleeper.join();
    out
}

/// The waker's side of [`window`]: posts after each idle time, spins for the answer, and
/// finally tells the sleeper to stop.
fn wake_ups(pair: &(Mutex<u64>, Condvar), answered: &AtomicU64) -> Vec<Option<f64>> {
    let (m, cv) = pair;
    let mut v = 0u64;
    let post = |v: u64| {
        *m.lock().unwrap_or_else(|e| e.into_inner()) = v;
        cv.notify_one();
    };
    // One round first: the sleeper is running and parked.
    v += 1;
    post(v);
    spin_until(|| answered.load(Ordering::Acquire) == v);
    let mut out = Vec::with_capacity(IDLE_US.len());
    for us in IDLE_US {
        let mut w = Vec::with_capacity(PER);
        for k in 0..WARM + PER {
            let idle = Instant::now() + Duration::from_nanos((us * 1e3) as u64);
            spin_until(|| Instant::now() >= idle);
            v += 1;
            let t0 = Instant::now();
            post(v);
            spin_until(|| answered.load(Ordering::Acquire) == v);
            let ns = t0.elapsed().as_nanos() as f64;
            if k >= WARM && ns <= PLAUSIBLE_NS {
                w.push(ns);
            }
        }
        w.sort_by(f64::total_cmp);
        out.push(w.get(w.len() / 4).copied());
    }
    post(u64::MAX);
    out
}

fn spin_until(mut done: impl FnMut() -> bool) {
    while !done() {
        std::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_give_a_curve_over_every_idle_time() {
        let mut s = Samples::default();
        for _ in 0..4 {
            s.window();
        }
        // On a machine too busy for a plausible wake-up no curve is a right answer.
        if let Some(c) = s.curve() {
            assert_eq!(c.idle.len(), IDLE_US.len());
            assert!(
                c.wake.iter().all(|w| *w > 0.0 && *w <= PLAUSIBLE_NS),
                "{c:?}"
            );
        }
    }

    #[test]
    fn too_few_windows_give_no_curve() {
        let s = Samples {
            per_idle: vec![vec![1_000.0; 3]; IDLE_US.len()],
        };
        assert_eq!(s.curve(), None);
        let s = Samples {
            per_idle: vec![vec![1_000.0, 30_000.0, 31_000.0, 29_000.0]; IDLE_US.len()],
        };
        assert_eq!(s.curve().unwrap().wake[3], 30_000.0);
    }

    #[test]
    fn windows_that_halt_in_some_states_only_give_both_ends() {
        // 14 windows flat at 4 µs (busy), 6 where a CPU idle 20 µs or more halted (30 µs).
        let per_idle = IDLE_US
            .iter()
            .map(|&us| {
                let mut w = vec![4_000.0; 14];
                w.extend([if us >= 20.0 { 30_000.0 } else { 4_000.0 }; 6]);
                w
            })
            .collect();
        let c = Samples { per_idle }.curves().unwrap();
        assert_eq!(c.point.at(50_000.0), 4_000.0, "the median: the busy state");
        let (fast, slow) = c.ends.expect("two states");
        assert_eq!((fast.at(50_000.0), slow.at(50_000.0)), (4_000.0, 30_000.0));
        assert_eq!(slow.at(0.0), 4_000.0);
        // All windows alike: one state.
        let one = Samples {
            per_idle: vec![vec![4_000.0; 20]; IDLE_US.len()],
        };
        assert_eq!(one.curves().unwrap().ends, None);
    }
}
