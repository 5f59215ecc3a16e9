//! A synthetic trace generator (benchmarks, tests): nested calls on several threads whose
//! events interleave, written straight to either form without holding events in memory.

use std::io::Write;

use super::compact::CompactWriter;
use super::text::TextWriter;
use super::{Event, Form, Header, Names, Unit};

#[derive(Debug, Clone)]
pub struct Spec {
    /// Total events including creations (the count is met exactly, rounded up to even).
    pub events: u64,
    pub instances: u64,
    pub threads: u64,
    pub classes: u64,
    pub methods_per_class: u64,
    pub max_depth: usize,
    /// Distinct callees per object.
    pub fanout: u64,
    pub seed: u64,
}

impl Default for Spec {
    fn default() -> Self {
        Spec {
            events: 10_000,
            instances: 100,
            threads: 4,
            classes: 10,
            methods_per_class: 5,
            max_depth: 12,
            fanout: 4,
            seed: 42,
        }
    }
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x
}

/// xorshift64*: deterministic, dependency-free.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Where events go: the chosen form's writer.
enum Out<W: Write> {
    Text(TextWriter<W>),
    Compact(CompactWriter<W>),
}

impl<W: Write> Out<W> {
    /// Start a `form` trace: the header, then thread names (text) or all names (compact).
    fn open(form: Form, w: W, names: &Names) -> std::io::Result<Self> {
        let header = Header {
            unit: Unit::Ns,
            fields: vec![("lang".into(), "synthetic".into())],
            raw: None,
        };
        Ok(match form {
            Form::Text => {
                let mut t = TextWriter::new(w);
                t.header(&header)?;
                let mut tids: Vec<_> = names.threads.iter().collect();
                tids.sort();
                for (tid, n) in tids {
                    t.thread(*tid, n)?;
                }
                Out::Text(t)
            }
            Form::Compact => {
                let mut c = CompactWriter::new(w, &header)?;
                c.names(names)?;
                Out::Compact(c)
            }
        })
    }

    /// Write one event.
    #[inline]
    fn event(&mut self, ev: &Event, names: &Names) -> std::io::Result<()> {
        match self {
            Out::Text(t) => t.event(ev, names),
            Out::Compact(c) => c.event(ev),
        }
    }

    /// End the trace: the text form's footer counts the `written` events.
    fn finish(self, written: u64) -> std::io::Result<()> {
        match self {
            Out::Text(mut t) => {
                t.end(written)?;
                t.flush()
            }
            Out::Compact(c) => c.finish().map(|_| ()),
        }
    }
}

/// `spec`'s classes, methods (same signature for all) and thread names.
fn synth_names(spec: &Spec) -> Names {
    let mut names = Names::default();
    for c in 0..spec.classes {
        let cname = format!("pkg.Class{c}");
        for m in 0..spec.methods_per_class {
            names.intern_method(
                cname.as_bytes(),
                format!("m{m}").as_bytes(),
                b"!int^0!double^1!",
            );
        }
    }
    for t in 1..=spec.threads {
        names.threads.insert(
            t,
            if t == 1 {
                "main".into()
            } else {
                format!("worker-{t}")
            },
        );
    }
    names
}

/// Generate a trace; returns the number of events written.
pub fn generate<W: Write>(spec: &Spec, form: Form, w: W) -> std::io::Result<u64> {
    let names = synth_names(spec);
    let mut out = Out::open(form, w, &names)?;
    let mut walk = Walk::new(spec);
    let mut written = walk.creations(&mut out, &names)?;
    while written < spec.events {
        match walk.step(spec.events - written) {
            Step::Emit(ev) => out.event(&ev, &names)?,
            Step::Idle => continue,
            Step::Stop => break,
        }
        written += 1;
    }
    out.finish(written)?;
    Ok(written)
}

/// What one step of the walk produced.
enum Step {
    Emit(Event),
    /// Nothing this time (the chosen thread had no call to close).
    Idle,
    /// One event left cannot be a balanced message.
    Stop,
}

/// The generator's state: per-thread clocks and call stacks, and which thread runs.
struct Walk<'s> {
    spec: &'s Spec,
    rng: Rng,
    clock: Vec<u64>,
    /// Open calls per thread: (method, receiver oid).
    stacks: Vec<Vec<(u32, u64)>>,
    /// The running thread (index) and how many more steps it runs.
    th: usize,
    run: u64,
    /// Objects created up front (at least 1): the receivers calls pick from.
    objs: u64,
}

impl<'s> Walk<'s> {
    /// A walk before any event, seeded from `spec`.
    fn new(spec: &'s Spec) -> Self {
        Walk {
            spec,
            rng: Rng(spec.seed | 1),
            clock: vec![1_000_000u64; spec.threads as usize],
            stacks: vec![Vec::new(); spec.threads as usize],
            th: 0,
            run: 0,
            objs: spec.instances.min(spec.events / 4).max(1),
        }
    }

    /// Write the objects' creations on the main thread first; returns how many.
    fn creations<W: Write>(&mut self, out: &mut Out<W>, names: &Names) -> std::io::Result<u64> {
        let spec = self.spec;
        let creations = spec.instances.min(spec.events / 4);
        for oid in 1..=creations {
            self.clock[0] += 1 + self.rng.below(20);
            let ev = Event::Create {
                tid: 1,
                class: ((oid - 1) % spec.classes) as u32,
                oid,
                size: Some(16 + 8 * (oid % 7)),
                t: Some(self.clock[0]),
            };
            out.event(&ev, names)?;
        }
        Ok(creations)
    }

    /// The next call or return, with `remaining` events still to write.
    #[inline]
    fn step(&mut self, remaining: u64) -> Step {
        // Switch threads every few events so their entries interleave.
        if self.run == 0 {
            self.th = self.rng.below(self.spec.threads) as usize;
            self.run = 1 + self.rng.below(16);
        }
        self.run -= 1;
        let open: u64 = self.stacks.iter().map(|s| s.len() as u64).sum();
        if open == 0 && remaining < 2 {
            return Step::Stop;
        }
        let th = self.th;
        let tid = th as u64 + 1;
        let depth = self.stacks[th].len();
        self.clock[th] += 1 + self.rng.below(50);
        let t = self.clock[th];
        let must_close = remaining <= open;
        let push = !must_close
            && remaining > open + 1
            && (depth == 0 || (depth < self.spec.max_depth && self.rng.below(100) < 52));
        if push {
            Step::Emit(self.call(tid, t))
        } else if let Some((method, oid)) = self.stacks[th].pop() {
            Step::Emit(Event::End {
                tid,
                method,
                oid,
                t,
                cpu: None,
            })
        } else {
            Step::Idle
        }
    }

    /// Open a call on the running thread: its receiver, method and size.
    #[inline]
    fn call(&mut self, tid: u64, t: u64) -> Event {
        let spec = self.spec;
        let oid = self.callee();
        let class = (oid - 1) % spec.classes;
        let method =
            (class * spec.methods_per_class + self.rng.below(spec.methods_per_class)) as u32;
        self.stacks[self.th].push((method, oid));
        Event::Start {
            tid,
            method,
            oid,
            size: 8 * self.rng.below(8),
            t,
        }
    }

    /// The receiver of a new call on the running thread.
    #[inline]
    fn callee(&mut self) -> u64 {
        // Like real programs, each object talks to a few fixed others; only roots
        // pick freely, so distinct edges stay bounded as the trace grows.
        match self.stacks[self.th].last() {
            Some(&(_, caller)) => {
                let k = self.rng.below(self.spec.fanout.max(1));
                1 + mix(caller.wrapping_mul(31).wrapping_add(k)) % self.objs
            }
            None => 1 + self.rng.below(self.objs),
        }
    }
}
