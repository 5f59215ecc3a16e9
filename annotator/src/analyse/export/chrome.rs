//! Chrome Trace Event JSON (opens in Perfetto UI): one complete `X` slice per message,
//! written as messages finish, so slices of a thread nest exactly as its message stack did.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::Write;
use std::path::PathBuf;

use rustc_hash::FxHashMap;

use crate::analyse::trace::multi::split_tid;
use crate::analyse::trace::{Names, Unit};
use crate::analyse::walk::instance_label;
use crate::analyse::walk::{Closed, Instance, Sink, Walker};
use crate::error::{Error, Result};

pub struct ChromeSink<W: Write> {
    w: W,
    path: PathBuf,
    first: bool,
    err: Option<std::io::Error>,
    /// JSON-escaped `Class.method` per method id.
    names: Vec<Option<String>>,
    nanos_per_unit: u128,
    started: bool,
    /// Per thread: slices waiting for their same-start caller (see `write_event`).
    pending: FxHashMap<u64, Vec<(u32, String)>>,
    /// `--top N`: the N longest messages, written at the end in (thread, start, depth) order.
    top: Option<usize>,
    heap: BinaryHeap<Reverse<Kept>>,
    written: u64,
}

/// A message held for `--top`: ordered by aggregate time, then message order.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Kept {
    aggregate: u64,
    order: u64,
    tid: u64,
    start: u64,
    depth: u32,
    event: String,
}

fn json(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".into())
}

impl<W: Write> ChromeSink<W> {
    pub fn new(w: W, path: PathBuf) -> Self {
        ChromeSink {
            w,
            path,
            first: true,
            err: None,
            names: Vec::new(),
            nanos_per_unit: 1,
            started: false,
            pending: FxHashMap::default(),
            top: None,
            heap: BinaryHeap::new(),
            written: 0,
        }
    }

    pub fn set_top(&mut self, top: Option<usize>) {
        self.top = top;
    }

    /// A message the filter dropped: callees held back for it are written now.
    pub fn skipped(&mut self, c: &Closed) {
        if self.top.is_some() || self.err.is_some() {
            return;
        }
        if let Err(e) = self.release(c.tid, c.outer.len() as u32) {
            self.err = Some(e);
        }
    }

    /// Writes the held slices deeper than `depth` on thread `tid`.
    fn release(&mut self, tid: u64, depth: u32) -> std::io::Result<()> {
        if let Some(mut held) = self.pending.remove(&tid) {
            while held.last().is_some_and(|(d, _)| *d > depth) {
                let (_, e) = held.pop().unwrap_or_default();
                self.emit(&e)?;
            }
            if !held.is_empty() {
                self.pending.insert(tid, held);
            }
        }
        Ok(())
    }

    /// `displayTimeUnit` is the first key (Perfetto and chrome://tracing read it first).
    fn open(&mut self) -> std::io::Result<()> {
        let unit = if self.nanos_per_unit == 1 { "ns" } else { "ms" };
        writeln!(self.w, "{{\"displayTimeUnit\":\"{unit}\",\"traceEvents\":[")?;
        self.started = true;
        Ok(())
    }

    /// Microseconds with exact nanosecond decimals (Chrome's `ts` unit is µs).
    fn us(&self, t: u64) -> String {
        let n = t as u128 * self.nanos_per_unit;
        format!("{}.{:03}", n / 1000, n % 1000)
    }

    fn write_event(
        &mut self,
        c: &Closed,
        instances: &[Instance],
        names: &Names,
    ) -> std::io::Result<()> {
        if !self.started {
            // The unit is only known once the header was read: the first event comes after it.
            self.open()?;
        }
        let f = &c.frame;
        if let Some(n) = self.top {
            if self.misses_top(n, c) {
                return Ok(());
            }
        }
        self.intern_name(f.method, names);
        let ev = self.format_event(c, instances, names);
        // A slice starting at the same instant as its caller is held back until the caller
        // is written, so viewers that keep file order on equal timestamps nest it right.
        // The held slices deeper than this one at the top of the thread's pending stack are
        // its descendants (they closed first, so popping writes callers first).
        let depth = c.outer.len() as u32;
        if let Some(n) = self.top {
            self.keep_top(n, c, depth, ev);
            return Ok(());
        }
        if c.outer.last().is_some_and(|p| p.start == f.start) {
            self.pending.entry(c.tid).or_default().push((depth, ev));
            return Ok(());
        }
        self.emit(&ev)?;
        self.release(c.tid, depth)
    }

    /// `--top n`: whether the message cannot enter the `n` longest kept so far.
    #[inline]
    fn misses_top(&self, n: usize, c: &Closed) -> bool {
        let full = self.heap.len() >= n;
        let least = self.heap.peek().map(|Reverse(k)| (k.aggregate, k.order));
        n == 0 || (full && least >= Some((c.aggregate, c.frame.order)))
    }

    /// Caches the JSON-escaped `Class.method(params)` of `method` on first use.
    #[inline]
    fn intern_name(&mut self, method: u32, names: &Names) {
        let m = method as usize;
        if self.names.len() <= m {
            self.names.resize(m + 1, None);
        }
        if self.names[m].is_none() {
            let n = names
                .method(method)
                .map_or("?".to_string(), |d| d.shown(names));
            self.names[m] = Some(json(&n));
        }
    }

    /// The message's `X` slice as one JSON object.
    #[inline]
    fn format_event(&self, c: &Closed, instances: &[Instance], names: &Names) -> String {
        let f = &c.frame;
        let recv = &instances[f.receiver as usize];
        let size = recv.size().map_or("null".to_string(), |s| s.to_string());
        let (ts, dur) = (self.us(f.start), self.us(c.aggregate));
        let (pid, tid) = split_tid(names, c.tid, 1);
        format!(
            "{{\"name\":{},\"cat\":\"message\",\"ph\":\"X\",\"ts\":{ts},\"dur\":{dur},\"pid\":{pid},\"tid\":{tid},\"args\":{{\"receiver\":{},\"class\":{},\"oid\":{},\"sender\":{},\"message_size\":{},\"object_size\":{size},\"net\":{},\"order\":{}}}}}",
            self.names[f.method as usize].as_deref().unwrap_or("\"?\""),
            json(&instance_label(recv, names)),
            json(names.class(recv.class)),
            recv.oid(),
            json(&instance_label(&instances[f.sender as usize], names)),
            f.size,
            c.net,
            f.order,
        )
    }

    /// `--top n`: holds the slice among the `n` longest, dropping the least one past `n`.
    #[inline]
    fn keep_top(&mut self, n: usize, c: &Closed, depth: u32, ev: String) {
        self.heap.push(Reverse(Kept {
            aggregate: c.aggregate,
            order: c.frame.order,
            tid: c.tid,
            start: c.frame.start,
            depth,
            event: ev,
        }));
        if self.heap.len() > n {
            self.heap.pop();
        }
    }

    fn emit(&mut self, ev: &str) -> std::io::Result<()> {
        if !self.first {
            self.w.write_all(b",\n")?;
        }
        self.first = false;
        self.written += 1;
        self.w.write_all(ev.as_bytes())
    }

    /// Each event's flow (`[[events]]`): an arrow from one of its calls to the next across
    /// threads (flow events `s`, `t`, `f` bound to the slices they start in).
    pub fn event_flows(&mut self, steps: &[super::events::Step], names: &Names) {
        for s in steps {
            if self.err.is_some() {
                return;
            }
            let ph = match (s.first, s.last) {
                (true, _) => "s",
                (_, true) => "f",
                _ => "t",
            };
            let bp = if s.last { ",\"bp\":\"e\"" } else { "" };
            let (pid, tid) = split_tid(names, s.tid, 1);
            let ev = format!(
                "{{\"ph\":\"{ph}\",\"id\":{},\"cat\":\"revy.event\",\"name\":{},\"pid\":{pid},\"tid\":{tid},\"ts\":{}{bp}}}",
                s.event,
                json(&s.kind),
                self.us(s.t)
            );
            let r = (|| {
                if !self.started {
                    self.open()?;
                }
                self.emit(&ev)
            })();
            if let Err(e) = r {
                self.err = Some(e);
            }
        }
    }

    /// Thread names, close the JSON and flush; returns the slices written.
    pub fn finish(mut self, walker: &Walker, names: &Names, _unit: Unit) -> Result<u64> {
        let r = (|| -> std::io::Result<()> {
            if !self.started {
                self.open()?;
            }
            let mut kept: Vec<Kept> = std::mem::take(&mut self.heap)
                .into_iter()
                .map(|Reverse(k)| k)
                .collect();
            kept.sort_by_key(|k| (k.tid, k.start, k.depth, k.order));
            for k in kept {
                self.emit(&k.event)?;
            }
            let mut tids: Vec<u64> = self.pending.keys().copied().collect();
            tids.sort_unstable();
            for tid in tids {
                for (_, e) in self
                    .pending
                    .remove(&tid)
                    .unwrap_or_default()
                    .into_iter()
                    .rev()
                {
                    self.emit(&e)?;
                }
            }
            let mut sep = if self.first { "" } else { ",\n" };
            if names.processes.is_empty() {
                write!(self.w, "{sep}{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{{\"name\":\"revy trace\"}}}}")?;
                sep = ",\n";
            }
            for pid in &names.processes {
                write!(self.w, "{sep}{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{pid},\"tid\":0,\"args\":{{\"name\":\"revy trace, process {pid}\"}}}}")?;
                sep = ",\n";
            }
            for t in &walker.threads {
                let name = names
                    .thread_name(t.tid)
                    .map_or_else(|| format!("thread {}", t.tid), str::to_string);
                let (pid, tid) = split_tid(names, t.tid, 1);
                write!(self.w, "{sep}{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{pid},\"tid\":{tid},\"args\":{{\"name\":{}}}}}", json(&name))?;
            }
            self.w.write_all(b"\n]}\n")?;
            self.w.flush()
        })();
        if let Some(e) = self.err.take() {
            return Err(Error::io(&self.path, e));
        }
        let slices = self.written;
        r.map(|_| slices).map_err(|e| Error::io(&self.path, e))
    }

    pub fn set_unit(&mut self, unit: Unit) {
        self.nanos_per_unit = match unit {
            Unit::Ns => 1,
            Unit::Us => 1_000,
            Unit::Ms => 1_000_000,
            Unit::S => 1_000_000_000,
        };
    }
}

impl<W: Write> Sink for ChromeSink<W> {
    fn closed(&mut self, c: &Closed, instances: &[Instance], names: &Names) {
        if self.err.is_none() {
            if let Err(e) = self.write_event(c, instances, names) {
                self.err = Some(e);
            }
        }
    }
}
