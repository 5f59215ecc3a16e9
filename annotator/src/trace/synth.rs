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

enum Out<W: Write> {
    Text(TextWriter<W>),
    Compact(CompactWriter<W>),
}

/// Generate a trace; returns the number of events written.
pub fn generate<W: Write>(spec: &Spec, form: Form, w: W) -> std::io::Result<u64> {
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
    let header = Header {
        unit: Unit::Ns,
        fields: vec![("lang".into(), "synthetic".into())],
        raw: None,
    };
    let mut out = match form {
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
            c.names(&names)?;
            Out::Compact(c)
        }
    };
    let mut emit = |ev: Event, names: &Names| -> std::io::Result<()> {
        match &mut out {
            Out::Text(t) => t.event(&ev, names),
            Out::Compact(c) => c.event(&ev),
        }
    };
    let mut rng = Rng(spec.seed | 1);
    let mut clock = vec![1_000_000u64; spec.threads as usize];
    let mut written = 0u64;
    let creations = spec.instances.min(spec.events / 4);
    for oid in 1..=creations {
        clock[0] += 1 + rng.below(20);
        let ev = Event::Create {
            tid: 1,
            class: ((oid - 1) % spec.classes) as u32,
            oid,
            size: Some(16 + 8 * (oid % 7)),
            t: Some(clock[0]),
        };
        emit(ev, &names)?;
        written += 1;
    }
    let mut stacks: Vec<Vec<(u32, u64)>> = vec![Vec::new(); spec.threads as usize];
    let mut th = 0usize;
    let mut run = 0u64;
    let objs = creations.max(1);
    while written < spec.events {
        // Switch threads every few events so their entries interleave.
        if run == 0 {
            th = rng.below(spec.threads) as usize;
            run = 1 + rng.below(16);
        }
        run -= 1;
        let open: u64 = stacks.iter().map(|s| s.len() as u64).sum();
        let remaining = spec.events - written;
        if open == 0 && remaining < 2 {
            break; // one event left cannot be a balanced message
        }
        let tid = th as u64 + 1;
        let stack = &mut stacks[th];
        clock[th] += 1 + rng.below(50);
        let t = clock[th];
        let must_close = remaining <= open;
        let push = !must_close
            && remaining > open + 1
            && (stack.is_empty() || (stack.len() < spec.max_depth && rng.below(100) < 52));
        if push {
            // Like real programs, each object talks to a few fixed others; only roots
            // pick freely, so distinct edges stay bounded as the trace grows.
            let oid = match stack.last() {
                Some(&(_, caller)) => {
                    let k = rng.below(spec.fanout.max(1));
                    1 + mix(caller.wrapping_mul(31).wrapping_add(k)) % objs
                }
                None => 1 + rng.below(objs),
            };
            let class = (oid - 1) % spec.classes;
            let method =
                (class * spec.methods_per_class + rng.below(spec.methods_per_class)) as u32;
            stack.push((method, oid));
            emit(
                Event::Start {
                    tid,
                    method,
                    oid,
                    size: 8 * rng.below(8),
                    t,
                },
                &names,
            )?;
        } else if let Some((method, oid)) = stack.pop() {
            emit(
                Event::End {
                    tid,
                    method,
                    oid,
                    t,
                },
                &names,
            )?;
        } else {
            continue;
        }
        written += 1;
    }
    match out {
        Out::Text(mut t) => {
            t.end(written)?;
            t.flush()?;
        }
        Out::Compact(c) => {
            c.finish()?;
        }
    }
    Ok(written)
}
