//! The tests' own decoder of compact traces (`.rvt`, annotator/trace/FORMAT.md), written from
//! the format document rather than with the library's reader, so the runtimes are checked
//! against the spec. It asserts the structure while decoding: `H` first, `M` after its `C`,
//! every event's class or method defined before use, time never going back within a block,
//! block lengths and counts exact.

use std::collections::HashMap;

/// Event kinds (the byte before each event in a `B` block).
pub const CRT: u8 = 1;
pub const DST: u8 = 2;
pub const START: u8 = 3;
pub const END: u8 = 4;
/// An end with its call's on-CPU time.
pub const END_CPU: u8 = 5;
/// A key a message carries across threads or processes (`[[remote]]`): its method and key.
pub const KEY: u8 = 6;
/// An end carrying only its time: it ends its thread's innermost open start.
pub const END_BARE: u8 = 7;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ev {
    Crt {
        cls: u64,
        oid: u64,
        size: u64,
    },
    Dst {
        cls: u64,
        oid: u64,
    },
    Start {
        mth: u64,
        oid: u64,
        size: u64,
    },
    End {
        mth: u64,
        oid: u64,
        cpu: Option<u64>,
    },
    Key {
        mth: u64,
        key: u64,
    },
}

impl Ev {
    pub fn kind(&self) -> u8 {
        match self {
            Ev::Crt { .. } => CRT,
            Ev::Dst { .. } => DST,
            Ev::Start { .. } => START,
            Ev::End { .. } => END,
            Ev::Key { .. } => KEY,
        }
    }
    /// The class id (Crt, Dst) or method id (Start, End, Key).
    pub fn id(&self) -> u64 {
        match *self {
            Ev::Crt { cls, .. } | Ev::Dst { cls, .. } => cls,
            Ev::Start { mth, .. } | Ev::End { mth, .. } | Ev::Key { mth, .. } => mth,
        }
    }
    pub fn oid(&self) -> u64 {
        match *self {
            Ev::Crt { oid, .. } | Ev::Dst { oid, .. } => oid,
            Ev::Start { oid, .. } | Ev::End { oid, .. } => oid,
            // a key is not an object id
            Ev::Key { .. } => 0,
        }
    }
    /// The size of a Crt or Start; 0 for the others.
    pub fn size(&self) -> u64 {
        match *self {
            Ev::Crt { size, .. } | Ev::Start { size, .. } => size,
            _ => 0,
        }
    }
    /// An end's on-CPU time, when recorded.
    pub fn cpu(&self) -> Option<u64> {
        match *self {
            Ev::End { cpu, .. } => cpu,
            _ => None,
        }
    }
}

#[derive(Debug, Default)]
pub struct Trace {
    pub header: String,
    pub classes: HashMap<u64, String>,
    /// Method id → (class id, name, signature).
    pub methods: HashMap<u64, (u64, String, String)>,
    pub threads: HashMap<u64, String>,
    /// (tid, time, event) in file order.
    pub events: Vec<(u64, u64, Ev)>,
    pub end: Option<u64>,
    pub truncated: bool,
    /// Calls counted in `A` records (annotator/trace/FORMAT.md) instead of as events.
    pub aggregated: u64,
    /// Method ids named by `X` (throttled) records.
    pub throttled: Vec<u64>,
    /// `F` records' entries: (tid, method id, oid, calls measured, faults).
    pub faults: Vec<(u64, u64, u64, u64, u64)>,
    /// `S` records: (tid, method id, time, per call, timed calls), in file order.
    pub estimates: Vec<(u64, u64, u64, u64, u64)>,
    /// Objects created and destroyed past `max_size`, per class id (`O` records).
    pub objects: HashMap<u64, (u64, u64)>,
    /// Per thread, its open starts (method id, oid), innermost last: what a bare end ends.
    pub open: HashMap<u64, Vec<(u64, u64)>>,
    /// Ends read as bare ends (kind 7).
    pub bare_ends: u64,
}

impl Trace {
    /// The events as (tid, kind, id, oid, size, time) rows.
    pub fn rows(&self) -> Vec<(u64, u8, u64, u64, u64, u64)> {
        (self.events.iter())
            .map(|&(tid, time, e)| (tid, e.kind(), e.id(), e.oid(), e.size(), time))
            .collect()
    }
}

struct Rd<'a> {
    b: &'a [u8],
    i: usize,
}

impl Rd<'_> {
    fn v(&mut self) -> u64 {
        let (mut r, mut s) = (0u64, 0);
        loop {
            let x = self.b[self.i];
            self.i += 1;
            r |= ((x & 0x7f) as u64) << s;
            s += 7;
            if x < 0x80 {
                return r;
            }
        }
    }
    fn z(&mut self) -> i64 {
        let u = self.v();
        ((u >> 1) as i64) ^ -((u & 1) as i64)
    }
    fn s(&mut self) -> String {
        let n = self.v() as usize;
        let t = String::from_utf8(self.b[self.i..self.i + n].to_vec()).unwrap();
        self.i += n;
        t
    }
    fn event(&mut self) -> Ev {
        let kind = self.b[self.i];
        self.i += 1;
        match kind {
            CRT => Ev::Crt {
                cls: self.v(),
                oid: self.v(),
                size: self.v(),
            },
            DST => Ev::Dst {
                cls: self.v(),
                oid: self.v(),
            },
            START => Ev::Start {
                mth: self.v(),
                oid: self.v(),
                size: self.v(),
            },
            END => Ev::End {
                mth: self.v(),
                oid: self.v(),
                cpu: None,
            },
            END_CPU => Ev::End {
                mth: self.v(),
                oid: self.v(),
                cpu: Some(self.v()),
            },
            KEY => Ev::Key {
                mth: self.v(),
                key: self.v(),
            },
            // its method and oid are its thread's innermost open start's (see `block`)
            END_BARE => Ev::End {
                mth: u64::MAX,
                oid: u64::MAX,
                cpu: None,
            },
            k => panic!("bad event kind {k}"),
        }
    }
}

pub fn decode(bytes: &[u8]) -> Trace {
    assert_eq!(&bytes[..8], b"RVYTRC\x00\x01", "magic");
    let mut r = Rd { b: bytes, i: 8 };
    let mut t = Trace::default();
    let mut first = true;
    while r.i < bytes.len() {
        let tag = bytes[r.i];
        r.i += 1;
        assert!(first == (tag == b'H'), "H must be the first record");
        first = false;
        match tag {
            b'H' => t.header = r.s(),
            b'C' => {
                let id = r.v();
                t.classes.insert(id, r.s());
            }
            b'M' => {
                let id = r.v();
                let cls = r.v();
                let name = r.s();
                let sgn = r.s();
                assert!(t.classes.contains_key(&cls), "M before its C");
                t.methods.insert(id, (cls, name, sgn));
            }
            b'N' => {
                let id = r.v();
                t.threads.insert(id, r.s());
            }
            b'T' => {
                r.v();
                t.truncated = true;
            }
            b'E' => t.end = Some(r.v()),
            b'B' => block(&mut r, &mut t),
            b'X' => {
                r.v();
                let m = r.v();
                assert!(t.methods.contains_key(&m), "X before its M");
                t.throttled.push(m);
                skip(&mut r, 3);
            }
            b'S' => {
                let tid = r.v();
                let m = r.v();
                assert!(t.methods.contains_key(&m), "S before its M");
                let (time, per_call) = (r.v(), r.v());
                let (p10, p90, timed) = (r.v(), r.v(), r.v());
                assert!(p10 <= per_call && per_call <= p90 && timed > 0, "S spread");
                t.estimates.push((tid, m, time, per_call, timed));
            }
            b'A' => aggregates(&mut r, &mut t),
            b'F' => faults(&mut r, &mut t),
            b'O' => objects(&mut r, &mut t),
            x => panic!("bad record tag {x:#x} at {}", r.i - 1),
        }
    }
    t
}

/// Reads `n` varints (zigzag ones read the same way).
fn skip(r: &mut Rd, n: usize) {
    for _ in 0..n {
        r.v();
    }
}

fn aggregates(r: &mut Rd, t: &mut Trace) {
    skip(r, 2);
    for _ in 0..r.v() {
        let m = r.v();
        assert!(t.methods.contains_key(&m), "A names a method before its M");
        t.aggregated += r.v();
        skip(r, 9);
    }
    for _ in 0..r.v() {
        skip(r, 8);
    }
    skip(r, 2);
}

fn faults(r: &mut Rd, t: &mut Trace) {
    let tid = r.v();
    for _ in 0..r.v() {
        let m = r.v();
        assert!(t.methods.contains_key(&m), "F names a method before its M");
        let (oid, calls, faults) = (r.v(), r.v(), r.v());
        assert!(calls > 0, "an F entry without a measured call");
        t.faults.push((tid, m, oid, calls, faults));
    }
}

/// `O`: tid, n, n × (class id, created, destroyed, size sum, size max).
fn objects(r: &mut Rd, t: &mut Trace) {
    r.v();
    for _ in 0..r.v() {
        let c = r.v();
        assert!(t.classes.contains_key(&c), "O names a class before its C");
        let (created, destroyed) = (r.v(), r.v());
        let (size, max) = (r.v(), r.v());
        assert!(max <= size && (created > 0 || size == 0), "O sizes");
        let e = t.objects.entry(c).or_default();
        e.0 += created;
        e.1 += destroyed;
    }
}

fn block(r: &mut Rd, t: &mut Trace) {
    let tid = r.v();
    let mut time = r.v();
    let count = r.v();
    let len = r.v() as usize;
    let end = r.i + len;
    for _ in 0..count {
        let mut ev = r.event();
        let open = t.open.entry(tid).or_default();
        match ev {
            Ev::Start { mth, oid, .. } => open.push((mth, oid)),
            Ev::End { mth: u64::MAX, .. } => {
                let (mth, oid) = open.pop().expect("a bare end with no open start");
                ev = Ev::End {
                    mth,
                    oid,
                    cpu: None,
                };
                t.bare_ends += 1;
            }
            Ev::End { mth, oid, .. } if open.last() == Some(&(mth, oid)) => {
                open.pop();
            }
            _ => {}
        }
        let dt = r.z();
        assert!(dt >= 0, "time goes back within a thread");
        time = (time as i64 + dt) as u64;
        let id = ev.id();
        match ev.kind() {
            CRT | DST => assert!(t.classes.contains_key(&id), "class {id} used before C"),
            _ => assert!(t.methods.contains_key(&id), "method {id} used before M"),
        }
        t.events.push((tid, time, ev));
    }
    assert_eq!(r.i, end, "block length");
}
