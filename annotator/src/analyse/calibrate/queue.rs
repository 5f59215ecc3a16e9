//! What a message post costs its sender, the way each target language's queue does it:
//! a post nobody waits for (a lock, a push, a signal with no waiter: no system call), a
//! post that wakes a receiver blocked on the queue (the signal's futex wake), and a post to
//! a receiver that is at the queue taking as fast as posts come (both threads at the
//! queue's lock and memory: the cache lines move between cores on every post, and the
//! receiver, often finding the queue just emptied, waits and is woken). C++: glibc's
//! `pthread_mutex`/`pthread_cond`, which `std::mutex`/`std::condition_variable` are, over a
//! deque of 32-byte items (a `std::function`); Java: a `LinkedBlockingQueue` put/take pair
//! in a JVM (`QueueCost.java`, run once).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The sender's cost of one post, in ns: nobody waiting, waking a blocked receiver, and
/// to a receiver at the queue (none: it never kept up with the sender within the window).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PostCost {
    pub post: f64,
    pub wake: f64,
    pub enqueue: Option<f64>,
    /// The at-the-queue windows' 10th and 90th percentiles (none: fewer than 4 windows had
    /// the receiver beside the sender; `enqueue` is then all batches' 10th percentile).
    pub enqueue_ends: Option<(f64, f64)>,
    /// How `enqueue` was measured (C++: [`CPP_ENQUEUE_HOW`], or [`CPP_ENQUEUE_RUST_HOW`]
    /// without a C++ compiler).
    pub enqueue_how: &'static str,
    /// The one-way cache-line transfer between the two cores right before and after the
    /// at-the-queue rounds, ns: this VM flips between ~20-60 ns and ~150-220 ns, and what a
    /// fine-grained pair pays differs with it (none: not probed).
    pub line: Option<(f64, f64)>,
}

pub(crate) const CPP_HOW: &str = "pthread mutex + condition variable (std::mutex/condition_variable) over a deque: post = 10th percentile of 400 batches of 100 lock/push/unlock/signal with no waiter; wake = 25th percentile of up to 300 such posts to a receiver blocked in pthread_cond_wait";

pub(crate) const JAVA_HOW: &str = "java.util.concurrent.LinkedBlockingQueue put/take in a JVM (java QueueCost.java): post = 10th percentile of 400 batches of 100 puts nobody takes; wake = 25th percentile of up to 300 puts to a consumer parked in take()";

/// How the at-the-queue figure (`enqueue`) is measured, C++ and Java.
pub(crate) const CPP_ENQUEUE_HOW: &str = "the pair's interval per message, both threads at the queue of an active object as tests/advice/common/cpp/active.h builds one (std::mutex, std::condition_variable, std::deque<std::function<void()>> of messages capturing 16 bytes, the receiver taking one per lock and calling it), compiled with the C++ compiler (QueueCost.cpp, -O2) and run with sender and receiver pinned to two cores: rounds of 20,000 messages posted back to back, each the time from the first post until the receiver has run the last, over 20,000 (counted when both threads ran at least 85 % of it); in 10 windows of 60 ms, one every 150 ms, each window's 25th percentile of up to 8 rounds (at least 3); the figure is the windows' median, the ends their 10th and 90th percentiles (fewer than 4 windows: all rounds' 25th percentile, at least 8); a cache line's one-way transfer between the two cores probed before and after";

/// Without a C++ compiler: the same rounds in Rust, over a `VecDeque` of 32-byte items
/// (cheaper than the `std::deque<std::function>` pair: 86-87 against 124-132 ns, same
/// minute and machine state).
pub(crate) const CPP_ENQUEUE_RUST_HOW: &str = "no C++ compiler to build QueueCost.cpp: the same rounds in revy itself, both threads at the queue (pthread mutex + condition variable over a Rust VecDeque of 32-byte items, the receiver taking one per lock), which runs faster than a std::deque<std::function> pair";

pub(crate) const JAVA_ENQUEUE_HOW: &str = "java.util.concurrent.LinkedBlockingQueue, both threads at the queue (java QueueCost.java, sender and consumer pinned to two cores by revy): batches of 100 puts behind a backlog of 400 (put once the queue has drained), after 0.3 s of the same to warm the JIT, during which the consumer, in take(), took at least 90 % of them and the queue never emptied; in 10 windows of 60 ms, one every 150 ms, each window's 10th percentile (at least 8 batches); the figure is the windows' median, the ends their 10th and 90th percentiles (fewer than 4 windows: 1.5 s more, the 10th percentile of at least 20 batches)";

/// The at-the-queue windows' slow end at least this many times their fast end: two states
/// (separate measurements in one state spread up to 1.4× under load: 85-120 ns).
pub(crate) const TWO_STATES: f64 = 1.5;

/// The at-the-queue windows, their spacing and length.
const AT_QUEUE_WINDOWS: u32 = 10;
const AT_QUEUE_EVERY: Duration = Duration::from_millis(150);
const AT_QUEUE_WINDOW: Duration = Duration::from_millis(60);

/// Messages per round of the pair, rounds per window at most (the window's figure is their
/// 25th percentile, of at least 3), and the share of a round's wall time each thread must
/// have run for it to count.
const PAIR_N: u64 = 20_000;
const PAIR_PER_WINDOW: usize = 8;
const PAIR_RAN: f64 = 0.85;

/// A pthread mutex and condition variable, shared by the sender and the receiver. The
/// experiment's own counters sit on cache lines of their own, apart from the queue's and
/// from each other: a counter the receiver bumps on every take beside the lock's line made
/// that line move twice per message, a cost no active object pays (the calibration read
/// 150-166 ns where a C++ `std::deque<std::function>` pair pays 80-105 ns, same state).
struct Shared {
    m: std::cell::UnsafeCell<libc::pthread_mutex_t>,
    cv: std::cell::UnsafeCell<libc::pthread_cond_t>,
    /// Queued items, a `std::function`'s size each (guarded by `m`).
    items: std::cell::UnsafeCell<std::collections::VecDeque<[u64; 4]>>,
    waiting: Line<AtomicBool>,
    /// How often the receiver found the queue empty and waited.
    waits: Line<AtomicU64>,
    taken: Line<AtomicU64>,
    stop: Line<AtomicBool>,
    /// The receiver's wall and CPU clocks when it took a round's first and last item
    /// (ns; the last one's wall clock is written last, [`Marks::done`]).
    marks: Line<Marks>,
}

/// What the receiver records on a round's marked items ([`pair_round`]).
#[derive(Default)]
struct Marks {
    first_wall: AtomicU64,
    first_cpu: AtomicU64,
    last_cpu: AtomicU64,
    /// The last item's wall clock, 0 until it is taken.
    done: AtomicU64,
}

/// An item's tag: a round's first item, its last one, any other.
const FIRST: u64 = 1;
const LAST: u64 = 2;

/// A value alone on its cache line(s) (128 bytes: adjacent-line prefetch pairs lines).
#[repr(align(128))]
struct Line<T>(T);

impl<T> std::ops::Deref for Line<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

// SAFETY: `items` is only touched under `m`; the pthread objects are made for sharing.
unsafe impl Sync for Shared {}

impl Shared {
    fn new() -> Self {
        Shared {
            m: std::cell::UnsafeCell::new(libc::PTHREAD_MUTEX_INITIALIZER),
            cv: std::cell::UnsafeCell::new(libc::PTHREAD_COND_INITIALIZER),
            items: std::cell::UnsafeCell::new(std::collections::VecDeque::with_capacity(
                PAIR_N as usize + 1024,
            )),
            waiting: Line(AtomicBool::new(false)),
            waits: Line(AtomicU64::new(0)),
            taken: Line(AtomicU64::new(0)),
            stop: Line(AtomicBool::new(false)),
            marks: Line(Marks::default()),
        }
    }

    /// What `std::condition_variable` code posts with: lock, push, unlock, notify.
    fn post(&self) {
        self.post_tagged(0);
    }

    /// [`Shared::post`] of an item tagged [`FIRST`], [`LAST`] or 0.
    fn post_tagged(&self, tag: u64) {
        // SAFETY: initialised pthread objects; `items` under the mutex.
        unsafe {
            libc::pthread_mutex_lock(self.m.get());
            (*self.items.get()).push_back(std::hint::black_box([tag, 2, 3, 4]));
            libc::pthread_mutex_unlock(self.m.get());
            libc::pthread_cond_signal(self.cv.get());
        }
    }

    /// The receiver, as an active object's loop: takes one item per lock, blocking while
    /// the queue is empty.
    fn receive(&self) {
        // SAFETY: as in `post`; the flag is set under the mutex, so a sender that locks it
        // after seeing the flag finds the receiver inside pthread_cond_wait.
        unsafe {
            while !self.stop.load(Ordering::Acquire) {
                libc::pthread_mutex_lock(self.m.get());
                while (*self.items.get()).is_empty() && !self.stop.load(Ordering::Acquire) {
                    self.waiting.store(true, Ordering::Release);
                    self.waits.fetch_add(1, Ordering::AcqRel);
                    libc::pthread_cond_wait(self.cv.get(), self.m.get());
                    self.waiting.store(false, Ordering::Release);
                }
                let item = (*self.items.get()).pop_front();
                libc::pthread_mutex_unlock(self.m.get());
                // The message's call: a round's marked items read the clocks.
                match std::hint::black_box(item).map(|i| i[0]) {
                    Some(FIRST) => {
                        let m = &self.marks;
                        m.first_wall.store(wall_ns(), Ordering::Relaxed);
                        m.first_cpu.store(thread_cpu_ns() as u64, Ordering::Relaxed);
                    }
                    Some(LAST) => {
                        let m = &self.marks;
                        m.last_cpu.store(thread_cpu_ns() as u64, Ordering::Relaxed);
                        m.done.store(wall_ns(), Ordering::Release);
                    }
                    _ => {}
                }
                self.taken.fetch_add(1, Ordering::Release);
            }
        }
    }

    /// Empties the queue (between the uncontended batches, nobody taking).
    fn clear(&self) {
        // SAFETY: as in `post`.
        unsafe {
            libc::pthread_mutex_lock(self.m.get());
            (*self.items.get()).clear();
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
        s.clear();
    }
    post.sort_by(f64::total_cmp);
    let wake = std::thread::scope(|scope| {
        scope.spawn(|| s.receive());
        let w = wakes(&s);
        s.stop.store(true, Ordering::Release);
        s.post();
        w
    });
    let (at_queue, enqueue_how, line) = match active_pair() {
        Some(a) => (
            a.enqueue.map(|e| (e, a.enqueue_ends)),
            CPP_ENQUEUE_HOW,
            a.line,
        ),
        None => (pinned_at_queue(), CPP_ENQUEUE_RUST_HOW, None),
    };
    Some(PostCost {
        post: post[post.len() / 10],
        wake: wake?,
        enqueue: at_queue.map(|a| a.0),
        enqueue_ends: at_queue.and_then(|a| a.1),
        enqueue_how,
        line,
    })
}

/// The at-the-queue figure measured by `QueueCost.cpp` (embedded), compiled with `$CXX`
/// (else `c++`, `g++`) into a scratch folder and run once; `None` when no compiler built
/// it or it gave no line (the caller measures in Rust then).
fn active_pair() -> Option<PostCost> {
    let dir = tempfile::tempdir().ok()?;
    let src = dir.path().join("QueueCost.cpp");
    std::fs::write(&src, include_str!("QueueCost.cpp")).ok()?;
    let exe = dir.path().join("queue_cost");
    let compilers = std::env::var("CXX")
        .into_iter()
        .chain(["c++".into(), "g++".into()]);
    let built = compilers.into_iter().any(|cxx| {
        std::process::Command::new(cxx)
            .args(["-std=c++11", "-O2", "-pthread", "-o"])
            .arg(&exe)
            .arg(&src)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    if !built {
        return None;
    }
    let out = std::process::Command::new(&exe)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let line = String::from_utf8_lossy(&out.stdout);
    out.status.success().then(|| parse_pair(&line)).flatten()
}

/// `QueueCost.cpp`'s line: `enqueue_ns=<e> [enqueue_fast_ns=<f> enqueue_slow_ns=<s>]
/// line_ns=<before>,<after>` (`enqueue_ns=0`: no figure).
fn parse_pair(line: &str) -> Option<PostCost> {
    let with_post = format!("post_ns=1 wake_ns=1 {line}");
    let c = parse(&with_post)?;
    let probe = line
        .split_whitespace()
        .find_map(|f| f.strip_prefix("line_ns="))
        .and_then(|v| v.split_once(','))
        .and_then(|(a, b)| Some((a.parse::<f64>().ok()?, b.parse::<f64>().ok()?)))
        .filter(|(a, b)| *a > 0.0 && *b > 0.0);
    Some(PostCost {
        enqueue_how: CPP_ENQUEUE_HOW,
        line: probe,
        ..c
    })
}

/// [`at_queue`] with the sender and the receiver each on a core of its own (the first two
/// this process may use): left to the scheduler on a loaded machine, a woken receiver is
/// put on its waker's core and the two take turns instead of running side by side. Both
/// are threads of their own, so the caller's affinity is untouched.
fn pinned_at_queue() -> Option<(f64, Option<(f64, f64)>)> {
    let cores = allowed_cores();
    let s = Shared::new();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            if let Some(&c) = cores.get(1) {
                pin(c);
            }
            s.receive()
        });
        let e = scope
            .spawn(|| {
                if let Some(&c) = cores.first() {
                    pin(c);
                }
                at_queue(&s)
            })
            .join()
            .ok()
            .flatten();
        s.stop.store(true, Ordering::Release);
        s.post();
        e
    })
}

/// The CPUs this process may run on, in order.
pub(super) fn allowed_cores() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is an empty set; sched_getaffinity fills it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// Keeps the calling thread on `core` (best effort: unpinned if refused).
pub(super) fn pin(core: usize) {
    pin_thread(0, core);
}

/// Keeps thread `tid` (0: the calling one) on `core`, best effort.
fn pin_thread(tid: libc::pid_t, core: usize) {
    // SAFETY: as in `allowed_cores`.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(core, &mut set);
        libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// The pair's interval per message at the queue (see [`CPP_ENQUEUE_HOW`]), in windows
/// spread over 1.5 s ([`pair_round`]s in each): the windows' median and, when at least 4
/// windows gave one, their 10th and 90th percentiles; else the 25th percentile of all
/// rounds (at least 8), as one figure. `None`: fewer rounds ran undisturbed.
fn at_queue(s: &Shared) -> Option<(f64, Option<(f64, f64)>)> {
    let start = Instant::now();
    let (mut figures, mut all) = (Vec::new(), Vec::new());
    for i in 0..AT_QUEUE_WINDOWS {
        if let Some(wait) = (start + AT_QUEUE_EVERY * i).checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let until = Instant::now() + AT_QUEUE_WINDOW;
        let (mut rounds, mut k) = (Vec::new(), 0);
        while rounds.len() < PAIR_PER_WINDOW && Instant::now() < until {
            k += 1;
            let r = pair_round(s);
            // The first round grows the queue and warms the receiver's path.
            if i > 0 || k > 1 {
                rounds.extend(r);
            }
        }
        rounds.sort_by(f64::total_cmp);
        if rounds.len() >= 3 {
            figures.push(rounds[rounds.len() / 4]);
        }
        all.extend(rounds);
    }
    if let Some(w) = crate::analyse::calibrate::states(&figures) {
        return Some((w.ns, Some((w.fast, w.slow))));
    }
    all.sort_by(f64::total_cmp);
    (all.len() >= 8).then(|| (all[all.len() / 4], None))
}

/// One round: [`PAIR_N`] items posted back to back to a receiver that takes them one per
/// lock (waking it from the empty queue the last round left), the time per message from
/// the first post until the receiver has taken the last. As an active object's stream of
/// fine messages: while both run, every post and take meets the other thread at the
/// queue's lock and memory, and what is still queued when the sender stops is taken at the
/// uncontended pace. `None` when the sender or the receiver ran less than [`PAIR_RAN`] of
/// the round's wall time (preempted by other load; a receiver that waited for posts is
/// not), or the receiver did not finish within 200 ms.
fn pair_round(s: &Shared) -> Option<f64> {
    let m = &s.marks;
    m.done.store(0, Ordering::Release);
    let waits = s.waits.load(Ordering::Acquire);
    let (w0, c0) = (wall_ns(), thread_cpu_ns());
    s.post_tagged(FIRST);
    for _ in 2..PAIR_N {
        s.post();
    }
    s.post_tagged(LAST);
    let (w1, c1) = (wall_ns(), thread_cpu_ns());
    let deadline = Instant::now() + Duration::from_millis(200);
    let done = loop {
        match m.done.load(Ordering::Acquire) {
            0 if Instant::now() > deadline => return None,
            0 => std::hint::spin_loop(),
            d => break d,
        }
    };
    let sender_ran = c1 - c0 >= PAIR_RAN * w1.saturating_sub(w0) as f64;
    let (rw, rc) = (
        done.saturating_sub(m.first_wall.load(Ordering::Relaxed)),
        m.last_cpu.load(Ordering::Relaxed)
            - m.first_cpu
                .load(Ordering::Relaxed)
                .min(m.last_cpu.load(Ordering::Relaxed)),
    );
    let receiver_ran =
        rc as f64 >= PAIR_RAN * rw as f64 || s.waits.load(Ordering::Acquire) != waits;
    (sender_ran && receiver_ran && done > w0).then(|| (done - w0) as f64 / PAIR_N as f64)
}

/// The monotonic clock, ns (comparable between the two threads).
fn wall_ns() -> u64 {
    clock_ns(libc::CLOCK_MONOTONIC)
}

/// The calling thread's CPU time, ns: a batch's time less what other load took of it.
fn thread_cpu_ns() -> f64 {
    clock_ns(libc::CLOCK_THREAD_CPUTIME_ID) as f64
}

fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(clock, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
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
    let mut child = std::process::Command::new(java)
        .arg(&src)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let answer = child.stdin.take();
    let lines = std::io::BufReader::new(child.stdout.take()?);
    let costs = answer_pins(lines, answer);
    let ok = child.wait().ok()?.success();
    costs.filter(|_| ok)
}

/// Reads the JVM's lines: pins the two threads a `pin <sender> <receiver>` line names to
/// two cores and answers it (closing the JVM's input unanswered, it goes on unpinned); the
/// costs are the line that has them.
fn answer_pins(
    lines: impl std::io::BufRead,
    mut answer: Option<std::process::ChildStdin>,
) -> Option<PostCost> {
    use std::io::Write;
    let cores = allowed_cores();
    for line in lines.lines() {
        let line = line.ok()?;
        if let Some(tids) = line.strip_prefix("pin ") {
            let mut tids = tids.split_whitespace().map(str::parse::<libc::pid_t>);
            for (tid, core) in tids.by_ref().zip(cores.iter().take(2)) {
                if let Ok(tid) = tid {
                    pin_thread(tid, *core);
                }
            }
            if let Some(mut a) = answer.take() {
                let _ = writeln!(a);
            }
        } else if line.starts_with("post_ns=") {
            return parse(&line);
        }
    }
    None
}

/// `post_ns=<p> wake_ns=<w> enqueue_ns=<e> [enqueue_fast_ns=<f> enqueue_slow_ns=<s>]`, all
/// positive (`enqueue_ns=0`: not measured; the ends only when the windows gave them).
fn parse(line: &str) -> Option<PostCost> {
    let field = |key: &str| {
        line.split_whitespace()
            .find_map(|f| f.strip_prefix(key))
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v > 0.0)
    };
    let enqueue = field("enqueue_ns=");
    let ends = field("enqueue_fast_ns=").zip(field("enqueue_slow_ns="));
    Some(PostCost {
        post: field("post_ns=")?,
        wake: field("wake_ns=")?,
        enqueue,
        enqueue_ends: ends.filter(|_| enqueue.is_some()),
        enqueue_how: JAVA_ENQUEUE_HOW,
        line: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_jvms_line_is_read() {
        let c = parse("post_ns=45.5 wake_ns=7003.0 enqueue_ns=180.5\n").unwrap();
        assert_eq!((c.post, c.wake, c.enqueue), (45.5, 7003.0, Some(180.5)));
        assert_eq!(parse("post_ns=45.5 wake_ns=0.0"), None);
        let c = parse("post_ns=45.5 wake_ns=7003.0 enqueue_ns=0.0").unwrap();
        assert_eq!(c.enqueue, None, "not measured");
        let c =
            parse("post_ns=45 wake_ns=7003 enqueue_ns=180 enqueue_fast_ns=150 enqueue_slow_ns=390")
                .unwrap();
        assert_eq!(
            (c.enqueue, c.enqueue_ends),
            (Some(180.0), Some((150.0, 390.0)))
        );
    }

    #[test]
    fn the_pair_programs_line_is_read_with_its_line_probe() {
        let c = parse_pair(
            "enqueue_ns=124.5 enqueue_fast_ns=110.6 enqueue_slow_ns=133.2 line_ns=52,205\n",
        )
        .unwrap();
        assert_eq!(c.enqueue, Some(124.5));
        assert_eq!(c.enqueue_ends, Some((110.6, 133.2)));
        assert_eq!(c.line, Some((52.0, 205.0)));
        assert_eq!(c.enqueue_how, CPP_ENQUEUE_HOW);
        let c = parse_pair("enqueue_ns=0.0 line_ns=40,41").unwrap();
        assert_eq!(c.enqueue, None, "no rounds counted");
        assert_eq!(parse_pair("enqueue_ns=120 line_ns=x").unwrap().line, None);
    }

    #[test]
    fn an_active_objects_pair_is_measured_with_its_own_queue() {
        // Before, C++'s figure came from a Rust queue of plain items, its receiver bumping a
        // counter beside the lock on every take: 150-166 ns in the slow line state and
        // 74-105 ns in the fast one, where a std::deque<std::function> pair's interval was
        // 106-116 and 99-126 ns (telemetry's own pair: 120-131 and 108-136 ns a message).
        let c = active_pair().expect("QueueCost.cpp built with the C++ compiler and ran");
        assert_eq!(c.enqueue_how, CPP_ENQUEUE_HOW);
        let e = c.enqueue.expect("rounds ran undisturbed within 1.5 s");
        assert!(e > 1.0 && e < 100_000.0, "{c:?}");
        let (before, after) = c.line.expect("the line probed");
        assert!(before > 0.0 && after > 0.0, "{c:?}");
    }

    #[test]
    fn the_senders_clock_leaves_out_time_it_did_not_run() {
        // A batch timed on the wall clock counts the time other load took of the sender's
        // core (at-the-queue figures of 96-396 ns beside hogs); its CPU time does not.
        let t0 = thread_cpu_ns();
        std::thread::sleep(Duration::from_millis(50));
        let slept = thread_cpu_ns() - t0;
        assert!(slept < 10e6, "{slept} ns of CPU over a 50 ms sleep");
        let t0 = thread_cpu_ns();
        let until = Instant::now() + Duration::from_millis(5);
        while Instant::now() < until {
            std::hint::spin_loop();
        }
        assert!(thread_cpu_ns() > t0, "a busy thread's CPU clock advances");
    }

    #[test]
    fn a_post_that_wakes_costs_more_than_one_nobody_waits_for() {
        // Measured 12-19 ns against µs here: a wide margin for a loaded machine. At the
        // queue, both threads running: 219-417 ns (release build) beside 4 hogs.
        // `None` only when fewer than 20 wake-ups fit in 1.5 s: a failure, not a skip (the
        // at-queue figure may be missing where two cores cannot be had).
        let c = cpp().expect("no wake-up measured in 1.5 s");
        assert!(c.post > 0.0 && c.wake > 0.0, "{c:?}");
        assert!(c.wake > c.post, "{c:?}");
        if let Some(e) = c.enqueue {
            assert!(e > c.post, "{c:?}");
        }
        if let Some((fast, slow)) = c.enqueue_ends {
            assert!(
                fast <= c.enqueue.unwrap() && c.enqueue.unwrap() <= slow,
                "{c:?}"
            );
        }
    }
}
