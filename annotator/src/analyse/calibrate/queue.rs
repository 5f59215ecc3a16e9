//! What a message post costs its sender, the way each target language's queue does it:
//! a post nobody waits for (a lock, a push, a signal with no waiter: no system call) and a
//! post that wakes a receiver blocked on the queue (the signal's futex wake). C++: glibc's
//! `pthread_mutex`/`pthread_cond`, which `std::mutex`/`std::condition_variable` are; Java:
//! a `LinkedBlockingQueue` put/take pair in a JVM (`QueueCost.java`, run once).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The sender's cost of one post, in ns: nobody waiting, and waking a blocked receiver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PostCost {
    pub post: f64,
    pub wake: f64,
}

pub(crate) const CPP_HOW: &str = "pthread mutex + condition variable (std::mutex/condition_variable): post = 10th percentile of 400 batches of 100 lock/push/unlock/signal with no waiter; wake = 25th percentile of up to 300 such posts to a receiver blocked in pthread_cond_wait";

pub(crate) const JAVA_HOW: &str = "java.util.concurrent.LinkedBlockingQueue put/take in a JVM (java QueueCost.java): post = 10th percentile of 400 batches of 100 puts nobody takes; wake = 25th percentile of up to 300 puts to a consumer parked in take()";

/// A pthread mutex and condition variable, shared by the sender and the receiver.
struct Shared {
    m: std::cell::UnsafeCell<libc::pthread_mutex_t>,
    cv: std::cell::UnsafeCell<libc::pthread_cond_t>,
    /// Queued items (guarded by `m`).
    items: std::cell::UnsafeCell<u64>,
    waiting: AtomicBool,
    taken: AtomicU64,
    stop: AtomicBool,
}

// SAFETY: `items` is only touched under `m`; the pthread objects are made for sharing.
unsafe impl Sync for Shared {}

impl Shared {
    fn new() -> Self {
        Shared {
            m: std::cell::UnsafeCell::new(libc::PTHREAD_MUTEX_INITIALIZER),
            cv: std::cell::UnsafeCell::new(libc::PTHREAD_COND_INITIALIZER),
            items: std::cell::UnsafeCell::new(0),
            waiting: AtomicBool::new(false),
            taken: AtomicU64::new(0),
            stop: AtomicBool::new(false),
        }
    }

    /// What `std::condition_variable` code posts with: lock, push, unlock, notify.
    fn post(&self) {
        // SAFETY: initialised pthread objects; `items` under the mutex.
        unsafe {
            libc::pthread_mutex_lock(self.m.get());
            *self.items.get() += 1;
            libc::pthread_mutex_unlock(self.m.get());
            libc::pthread_cond_signal(self.cv.get());
        }
    }

    /// The receiver: takes everything queued, blocking while the queue is empty.
    fn receive(&self) {
        // SAFETY: as in `post`; the flag is set under the mutex, so a sender that locks it
        // after seeing the flag finds the receiver inside pthread_cond_wait.
        unsafe {
            libc::pthread_mutex_lock(self.m.get());
            while !self.stop.load(Ordering::Acquire) {
                while *self.items.get() == 0 && !self.stop.load(Ordering::Acquire) {
                    self.waiting.store(true, Ordering::Release);
                    libc::pthread_cond_wait(self.cv.get(), self.m.get());
                    self.waiting.store(false, Ordering::Release);
                }
                *self.items.get() = 0;
                self.taken.fetch_add(1, Ordering::AcqRel);
            }
            libc::pthread_mutex_unlock(self.m.get());
        }
    }
}

/// C++'s costs, measured here (`None`: too few wakes answered within 1.5 s).
pub(crate) fn cpp() -> Option<PostCost> {
    let s = Shared::new();
    let mut post = Vec::with_capacity(400);
    for _ in 0..400 {
        let t0 = Instant::now();
        for _ in 0..100 {
            s.post();
        }
        post.push(t0.elapsed().as_nanos() as f64 / 100.0);
    }
    post.sort_by(f64::total_cmp);
    let wake = std::thread::scope(|scope| {
        scope.spawn(|| s.receive());
        let w = wakes(&s);
        s.stop.store(true, Ordering::Release);
        s.post();
        w
    })?;
    Some(PostCost {
        post: post[post.len() / 10],
        wake,
    })
}

/// The 25th percentile of posts to a receiver blocked on the condition variable.
fn wakes(s: &Shared) -> Option<f64> {
    let deadline = Instant::now() + Duration::from_millis(1500);
    let mut wake = Vec::with_capacity(300);
    let mut k = 0;
    while wake.len() < 300 && k < 2000 && Instant::now() < deadline {
        k += 1;
        let before = s.taken.load(Ordering::Acquire);
        while !s.waiting.load(Ordering::Acquire) && Instant::now() < deadline {
            std::hint::spin_loop();
        }
        // Inside pthread_cond_wait by now, but maybe not yet asleep in the kernel.
        let settle = Instant::now();
        while settle.elapsed() < Duration::from_micros(20) {
            std::hint::spin_loop();
        }
        let t0 = Instant::now();
        s.post();
        let ns = t0.elapsed().as_nanos() as f64;
        while s.taken.load(Ordering::Acquire) == before && Instant::now() < deadline {
            std::hint::spin_loop();
        }
        if k > 20 {
            wake.push(ns);
        }
    }
    wake.sort_by(f64::total_cmp);
    (wake.len() >= 20).then(|| wake[wake.len() / 4])
}

/// Java's costs, measured in a JVM (`java` from `JAVA_HOME` or the path, 11 or later for
/// the source launcher); `None` when it cannot run.
pub(crate) fn java() -> Option<PostCost> {
    let dir = tempfile::tempdir().ok()?;
    let src = dir.path().join("QueueCost.java");
    std::fs::write(&src, include_str!("QueueCost.java")).ok()?;
    let java = std::env::var_os("JAVA_HOME")
        .map(|h| std::path::PathBuf::from(h).join("bin/java"))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| "java".into());
    let out = std::process::Command::new(java)
        .arg(&src)
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    parse(&String::from_utf8_lossy(&out.stdout))
}

/// `post_ns=<p> wake_ns=<w>`, both positive.
fn parse(line: &str) -> Option<PostCost> {
    let field = |key: &str| {
        line.split_whitespace()
            .find_map(|f| f.strip_prefix(key))
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v > 0.0)
    };
    Some(PostCost {
        post: field("post_ns=")?,
        wake: field("wake_ns=")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_jvms_line_is_read() {
        let c = parse("post_ns=45.5 wake_ns=7003.0\n").unwrap();
        assert_eq!((c.post, c.wake), (45.5, 7003.0));
        assert_eq!(parse("post_ns=45.5 wake_ns=0.0"), None);
    }

    #[test]
    fn a_post_that_wakes_costs_more_than_one_nobody_waits_for() {
        // Measured 12-19 ns against µs here: a wide margin for a loaded machine.
        if let Some(c) = cpp() {
            assert!(c.post > 0.0 && c.wake > 0.0, "{c:?}");
            assert!(c.wake > c.post, "{c:?}");
        }
    }
}
