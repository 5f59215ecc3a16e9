//! This machine's costs of a cross-thread message: the sender's posts (`queue.rs`, as each
//! language's queue does it: nobody waiting, waking a blocked receiver, both threads at the
//! queue) and the receiver's wake-up (the handoff). `enqueue.rs` keeps them per project;
//! these only measure.

pub(crate) mod idle;
pub(crate) mod queue;

use std::time::{Duration, Instant};

/// How [`handoff`] measures.
pub(crate) const HANDOFF_HOW: &str = "20 windows of 25 ms, one every 100 ms (2 s): in each, the 25th percentile of up to 200 batches of 4 mutex/condition-variable round trips (each batch's fastest), halved; the figure is the windows' median, the fast and slow ends their 10th and 90th percentiles, two states when those differ by 2x or more";

/// Windows, their spacing and length: this VM's wake-up cost flips between states over
/// seconds (a round trip of ~5 µs in one, 25-50 µs in the other), so one window lands in
/// either; twenty over 2 s show both when the machine flips within them.
const WINDOWS: usize = 20;
const EVERY: Duration = Duration::from_millis(100);
const WINDOW: Duration = Duration::from_millis(25);

/// The slow end at least this many times the fast one: two states, not noise (windows in
/// one state agree within a few per cent; under load, levels 1.7× apart were seen, which
/// move a prediction little).
pub(crate) const TWO_STATES: f64 = 2.0;

/// A cost as windows spread over time saw it (the handoff one way, an at-the-queue post),
/// in ns.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Windows {
    /// The windows' median: the figure a point prediction replays.
    pub ns: f64,
    /// The 10th and 90th percentiles of the windows' figures.
    pub fast: f64,
    pub slow: f64,
    /// The share of windows nearer the slow end (log scale).
    pub slow_share: f64,
    /// Each window's figure, in the order measured.
    pub windows: Vec<f64>,
}

impl Windows {
    /// The windows disagree beyond the noise (`by`: [`TWO_STATES`] for the handoff,
    /// [`queue::TWO_STATES`] for a post): the machine flips between two states.
    pub(crate) fn two_states(&self, by: f64) -> bool {
        self.slow >= by * self.fast
    }
}

/// The cost from the windows' figures (`None`: fewer than 4 windows gave one).
pub(crate) fn states(windows: &[f64]) -> Option<Windows> {
    let mut w: Vec<f64> = windows.iter().copied().filter(|x| *x > 0.0).collect();
    if w.len() < 4 {
        return None;
    }
    w.sort_by(f64::total_cmp);
    let at = |q: f64| w[((w.len() - 1) as f64 * q).round() as usize];
    let (fast, slow) = (at(0.1), at(0.9));
    let mid = (fast.ln() + slow.ln()) / 2.0;
    let slow_n = w.iter().filter(|x| x.ln() > mid).count();
    Some(Windows {
        ns: at(0.5),
        fast,
        slow,
        slow_share: if slow > fast {
            slow_n as f64 / w.len() as f64
        } else {
            0.0
        },
        windows: windows.to_vec(),
    })
}

/// This machine's handoff over [`WINDOWS`] windows spread over 2 s (see [`HANDOFF_HOW`]),
/// `None` when fewer than 4 windows gave a plausible figure (a machine too busy); and the
/// wake-up against idle time measured right after each window (`idle.rs`, in the gaps).
pub(crate) fn handoff() -> (Option<Windows>, Option<idle::Curves>) {
    let start = Instant::now();
    let mut figures = Vec::with_capacity(WINDOWS);
    let mut idle = idle::Samples::default();
    for i in 0..WINDOWS {
        let at = start + EVERY * i as u32;
        if let Some(wait) = at.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        figures.extend(handoff_ns(WINDOW));
        idle.window();
    }
    (states(&figures), idle.curves())
}

/// One-way handoff between two threads here (a mutex/condition-variable ping-pong) within
/// `window`, in ns, or `None` when the machine gave no plausible figure (fewer than 8
/// batches answered in the window, or above 500 µs: a time slice, not a wake-up). Batches
/// of 4 round trips, each batch's fastest counting and a low percentile of those: a
/// preempted round trip spoils one batch, not the figure.
pub(crate) fn handoff_ns(window: Duration) -> Option<f64> {
    use std::sync::{Arc, Condvar, Mutex};
    const BATCHES: usize = 200;
    const PER: u64 = 4;
    let stop = u64::MAX;
    let pair = Arc::new((Mutex::new(0u64), Condvar::new()));
    let other = Arc::clone(&pair);
    // The echo answers every odd value with the next even one until told to stop.
    let echo = std::thread::spawn(move || {
        let (m, cv) = &*other;
        let mut g = m.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            while *g % 2 == 0 {
                g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
            }
            if *g == stop {
                return;
            }
            *g += 1;
            cv.notify_one();
        }
    });
    let (m, cv) = &*pair;
    let deadline = Instant::now() + window;
    let mut fastest = Vec::with_capacity(BATCHES);
    let mut v = 0u64;
    while fastest.len() < BATCHES && Instant::now() < deadline {
        let mut best = f64::INFINITY;
        for _ in 0..PER {
            let t0 = Instant::now();
            let mut g = m.lock().unwrap_or_else(|e| e.into_inner());
            v += 1;
            *g = v;
            cv.notify_one();
            while *g == v {
                g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
            }
            v = *g;
            drop(g);
            best = best.min(t0.elapsed().as_nanos() as f64);
        }
        fastest.push(best);
    }
    *m.lock().unwrap_or_else(|e| e.into_inner()) = stop;
    cv.notify_one();
    let _ = echo.join();
    fastest.sort_by(f64::total_cmp);
    let ns = fastest.get(fastest.len() / 4)? / 2.0;
    (fastest.len() >= 8 && ns <= 500_000.0).then_some(ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handoff_is_plausible_when_measured() {
        if let Some(h) = handoff_ns(Duration::from_millis(25)) {
            assert!(h > 0.0 && h <= 500_000.0, "{h}");
        }
    }

    #[test]
    fn windows_in_two_states_give_both_ends() {
        // This VM at 05:45: 14 windows at ~2.4 µs, 6 at ~14 µs (a 25-50 µs round trip).
        let mut w = vec![2_400.0; 14];
        w.extend([14_000.0, 13_500.0, 15_200.0, 14_100.0, 12_900.0, 14_800.0]);
        let h = states(&w).unwrap();
        assert!(h.two_states(TWO_STATES), "{h:?}");
        assert_eq!(
            (h.ns, h.fast),
            (2_400.0, 2_400.0),
            "the median is the fast state's"
        );
        assert!((12_900.0..=15_200.0).contains(&h.slow), "{h:?}");
        assert!((h.slow_share - 0.3).abs() < 1e-9, "{h:?}");
        assert_eq!(h.windows.len(), 20);
    }

    #[test]
    fn windows_that_agree_give_one_figure() {
        // One state, a few per cent apart, and one window an outlier: no range.
        let mut w: Vec<f64> = (0..19).map(|i| 2_300.0 + 10.0 * i as f64).collect();
        w.push(9_000.0);
        let h = states(&w).unwrap();
        assert!(!h.two_states(TWO_STATES), "{h:?}");
        assert!((2_300.0..2_500.0).contains(&h.ns), "{h:?}");
        // Too few windows answered: no figure.
        assert_eq!(states(&[2_000.0, 0.0, 2_100.0]), None);
    }
}
