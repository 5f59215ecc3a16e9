//! This machine's costs of a cross-thread message: the sender's post (`queue.rs`, as each
//! language's queue does it) and the receiver's wake-up (the handoff). `enqueue.rs` keeps
//! them per project; these only measure.

pub(crate) mod queue;

use std::time::{Duration, Instant};

/// How [`enqueue_ns`] measures, as `.revy/machine.toml` records it (a changed method is
/// measured anew).
pub(crate) const ENQUEUE_HOW: &str = "10th percentile of 400 batches of 100 locked queue pushes, each with a notify nobody waits for";

/// How [`handoff_ns`] measures.
pub(crate) const HANDOFF_HOW: &str = "25th percentile of up to 400 batches of 4 mutex/condition-variable round trips (each batch's fastest), halved; within 80 ms";

/// What posting a message costs its sender here, in ns: a locked queue push and a notify
/// nobody waits for. Many short batches and a low percentile, so that other processes on a
/// loaded machine do not move the figure. Rust's `notify_one` makes a system call (a futex
/// wake) on every post, as a post that wakes a waiting receiver does; a post to a busy one
/// (glibc's `pthread_cond_signal` with no waiter, Java's `LinkedBlockingQueue`) makes none:
/// 12-19 ns against 253-350 ns here. The replay charges it for a post to a queue its
/// receiver has just emptied and is at (both threads at the queue's lock and memory): the
/// hand-made fine-grained versions pay ~150 ns to several hundred a post there.
pub(crate) fn enqueue_ns() -> f64 {
    use std::collections::VecDeque;
    use std::sync::{Condvar, Mutex};
    const BATCHES: usize = 400;
    const N: usize = 100;
    let q = Mutex::new(VecDeque::with_capacity(N));
    let cv = Condvar::new();
    let mut per_push = Vec::with_capacity(BATCHES);
    for _ in 0..BATCHES {
        q.lock().unwrap_or_else(|e| e.into_inner()).clear();
        let t0 = Instant::now();
        for i in 0..N as u64 {
            q.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push_back(std::hint::black_box(i));
            cv.notify_one();
        }
        per_push.push(t0.elapsed().as_nanos() as f64 / N as f64);
    }
    per_push.sort_by(f64::total_cmp);
    per_push[BATCHES / 10]
}

/// One-way handoff between two threads here (a mutex/condition-variable ping-pong), in ns,
/// or `None` when the machine gave no plausible figure (fewer than 8 batches answered in
/// the window, or above 500 µs: a time slice, not a wake-up). Batches of 4 round trips, each
/// batch's fastest counting and a low percentile of those: a preempted round trip spoils one
/// batch, not the figure, and many batches make the percentile steady.
pub(crate) fn handoff_ns() -> Option<f64> {
    use std::sync::{Arc, Condvar, Mutex};
    const BATCHES: usize = 400;
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
    let deadline = Instant::now() + Duration::from_millis(80);
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
    #[test]
    fn the_handoff_is_plausible_when_measured() {
        if let Some(h) = super::handoff_ns() {
            assert!(h > 0.0 && h <= 500_000.0, "{h}");
        }
    }
}
