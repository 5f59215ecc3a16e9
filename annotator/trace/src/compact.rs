//! The compact (binary) form: reader and writer. Blocks are read whole and decoded from
//! a slice, so the per-event cost is a few varint decodes.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;

use rustc_hash::FxHashMap;

use super::open::Open;
use super::{escape_name, Event, Header, MethodDef, Names, RawEvent, Status, BUF_SIZE};
use crate::error::{Error, Result};

pub const MAGIC: [u8; 8] = *b"RVYTRC\x00\x01";
/// A runtime flushes a thread's buffer as one block at about this size.
pub const BLOCK_BYTES: usize = 64 * 1024;
/// Larger blocks than this are taken as corruption rather than allocated.
const MAX_BLOCK: u64 = 1 << 30;
/// The event kind of an end with its call's on-CPU time (laid out as a start: id, oid, value,
/// time delta).
pub const END_CPU: u8 = 5;
/// The event kind of a remote call's key: method id, key, time delta.
pub const KEY: u8 = RawEvent::KEY;
/// The event kind of an end carrying only its time delta: the end of its thread's innermost
/// open start (the Java runtime's usual end; the reader keeps each thread's open starts).
pub const END_BARE: u8 = 7;
enum Fail {
    /// The file ends inside a record.
    Eof,
    Bad(&'static str),
    /// Readable but wrong (e.g. an unknown time unit): an error, not a cut.
    Invalid(String),
    Io(std::io::Error),
}

/// File ids below this are looked up in a table (at most 256 KiB); larger ones in a map,
/// so a crafted id costs one entry, never a table sized after it.
const DIRECT_IDS: u32 = 1 << 16;

/// A file's class or method ids mapped onto the dense ids of [`Names`] (runtimes define ids
/// lazily and sparsely; the readers' tables grow only with definitions actually read).
#[derive(Default)]
struct IdMap {
    direct: Vec<u32>,
    sparse: FxHashMap<u32, u32>,
}

impl IdMap {
    /// Always inlined (once per event in the decoder); the rare large id goes out of line.
    #[inline(always)]
    fn get(&self, id: u64) -> Option<u32> {
        if id < DIRECT_IDS as u64 {
            let d = *self.direct.get(id as usize)?;
            return (d != u32::MAX).then_some(d);
        }
        self.get_sparse(id)
    }
    #[cold]
    fn get_sparse(&self, id: u64) -> Option<u32> {
        if self.sparse.is_empty() {
            return None;
        }
        self.sparse.get(&u32::try_from(id).ok()?).copied()
    }
    fn set(&mut self, id: u32, dense: u32) {
        if id < DIRECT_IDS {
            if self.direct.len() <= id as usize {
                self.direct.resize(id as usize + 1, u32::MAX);
            }
            self.direct[id as usize] = dense;
        } else {
            self.sparse.insert(id, dense);
        }
    }
}

pub struct CompactReader<R: Read> {
    r: BufReader<R>,
    path: PathBuf,
    pub names: Names,
    pub header: Header,
    pub status: Status,
    classes: IdMap,
    methods: IdMap,
    offset: u64,
    block: Vec<u8>,
    pos: usize,
    left: u64,
    tid: u64,
    t: u64,
    /// Where the current block's record started (for warnings).
    block_at: u64,
    records: u64,
    done: bool,
    open: Open,
    /// The header says `ends=bare`: the threads' open starts are kept (other traces, whose
    /// ends all name their calls, skip that work).
    bare: bool,
    /// Why the last event did not decode, when more can be said than "corrupt".
    why: Option<&'static str>,
}

impl<R: Read> CompactReader<R> {
    pub fn new(path: PathBuf, r: R) -> Result<Self> {
        let mut me = CompactReader {
            r: BufReader::with_capacity(BUF_SIZE, r),
            path,
            names: Names::default(),
            header: Header::default(),
            status: Status::default(),
            classes: IdMap::default(),
            methods: IdMap::default(),
            offset: 0,
            block: Vec::new(),
            pos: 0,
            left: 0,
            tid: 0,
            t: 0,
            block_at: 0,
            records: 0,
            done: false,
            open: Open::default(),
            bare: false,
            why: None,
        };
        let mut magic = [0u8; 8];
        if me.r.read_exact(&mut magic).is_err() || magic != MAGIC {
            return Err(Error::input(format!(
                "{}: not a Revy compact trace (bad magic)",
                me.path.display()
            )));
        }
        me.offset = 8;
        // Read the header record now so the unit is known before the first event.
        me.fill()?;
        Ok(me)
    }

    pub fn bytes_read(&self) -> u64 {
        self.offset
    }

    #[inline]
    pub fn next_event(&mut self) -> Result<Option<Event>> {
        loop {
            if self.left > 0 {
                match self.decode() {
                    Some(ev) => {
                        self.left -= 1;
                        return Ok(Some(ev));
                    }
                    None => {
                        self.corrupt_block();
                        return Ok(None);
                    }
                }
            }
            if self.done {
                return Ok(None);
            }
            self.fill()?;
        }
    }

    /// Appends events to `out` until it holds `n` (fewer at the end of the trace): one
    /// call per block of events, so the decode loop stays tight.
    pub fn next_events(&mut self, out: &mut Vec<RawEvent>, n: usize) -> Result<()> {
        while out.len() < n {
            if self.left > 0 {
                let want = ((n - out.len()) as u64).min(self.left);
                for _ in 0..want {
                    match self.decode_raw() {
                        Some(ev) => out.push(ev),
                        None => {
                            self.corrupt_block();
                            return Ok(());
                        }
                    }
                }
                self.left -= want;
                continue;
            }
            if self.done {
                return Ok(());
            }
            self.fill()?;
        }
        Ok(())
    }

    /// An event of the current block does not decode: the rest of the block is dropped and
    /// the reading ends there.
    fn corrupt_block(&mut self) {
        self.left = 0;
        let at = self.block_at;
        let why = match self.why.take() {
            Some(why) => format!("corrupt event in the block at byte {at}: {why}"),
            None => format!("corrupt event in the block at byte {at}"),
        };
        // The block's events before the bad one were decoded and are kept.
        self.stop_after(why, "the last event before it");
    }

    fn stop(&mut self, why: String) {
        self.stop_after(why, "the previous complete block");
    }

    fn stop_after(&mut self, why: String, kept: &str) {
        self.status.cut_short = true;
        self.status.warnings.push(format!(
            "{}: {why}; analysed up to {kept}",
            self.path.display()
        ));
        self.done = true;
    }

    /// Read records until a block is loaded or the file ends.
    fn fill(&mut self) -> Result<()> {
        while !self.done && self.left == 0 {
            let at = self.offset;
            match self.record() {
                Ok(true) => self.records += 1,
                Ok(false) => self.done = true,
                Err(Fail::Io(e)) => return Err(Error::io(&self.path, e)),
                Err(Fail::Invalid(why)) => {
                    return Err(Error::input(format!(
                        "{}: byte {at}: {why}",
                        self.path.display()
                    )))
                }
                Err(_) if self.records == 0 => {
                    return Err(Error::input(format!(
                        "{}: byte {at}: not a Revy trace (corrupt first record)",
                        self.path.display()
                    )))
                }
                Err(Fail::Eof) => self.stop(format!("file ends inside the record at byte {at}")),
                Err(Fail::Bad(why)) => self.stop(format!("{why} at byte {at}")),
            }
        }
        Ok(())
    }

    /// One top-level record; `Ok(false)` at a clean end of file.
    fn record(&mut self) -> std::result::Result<bool, Fail> {
        let tag = match self.byte_opt()? {
            None => return Ok(false),
            Some(t) => t,
        };
        match tag {
            b'H' => {
                let text = self.string()?;
                self.header = Header::from_pairs(&text).map_err(Fail::Invalid)?;
                self.bare = self.header.get("ends") == Some("bare");
            }
            b'C' => self.class_def()?,
            b'M' => self.method_def()?,
            b'N' => {
                let tid = self.var()?;
                let name = self.string()?;
                self.names.threads.insert(tid, name);
            }
            b'B' => self.block()?,
            b'T' => self.status.truncated_at_size = Some(self.var()?),
            b'A' => self.aggregate()?,
            b'O' => self.objects()?,
            b'X' => self.throttled()?,
            b'S' => self.estimate()?,
            b'F' => self.faults()?,
            b'E' => self.status.clean_end = Some(self.var()?),
            b'R' if self.magic_follows()? => {
                return Err(Fail::Bad(
                    "a second trace begins (traces joined end to end: pass them as separate files)",
                ))
            }
            _ => return Err(Fail::Bad("unknown record tag")),
        }
        Ok(true)
    }

    /// A `C` record: a class name (a later definition of the same id renames it).
    fn class_def(&mut self) -> std::result::Result<(), Fail> {
        let id = small(self.var()?)?;
        let name = self.string()?;
        match self.classes.get(id as u64) {
            Some(d) => self.names.classes[d as usize] = name,
            None => {
                let d = self.names.push_class(name);
                self.classes.set(id, d);
            }
        }
        Ok(())
    }

    /// An `M` record: a method of a class defined before (a later definition replaces it).
    fn method_def(&mut self) -> std::result::Result<(), Fail> {
        let id = small(self.var()?)?;
        let class = self.var()?;
        let name = self.string()?;
        let signature = self.string()?;
        let class = self
            .classes
            .get(class)
            .ok_or(Fail::Bad("method of an undefined class"))?;
        let def = MethodDef {
            class,
            name,
            signature,
        };
        match self.methods.get(id as u64) {
            Some(d) => self.names.methods[d as usize] = def,
            None => {
                let d = self.names.push_method(def);
                self.methods.set(id, d);
            }
        }
        Ok(())
    }

    /// A `B` record: a block of one thread's events, read whole; its events are decoded as
    /// they are asked for.
    fn block(&mut self) -> std::result::Result<(), Fail> {
        self.block_at = self.offset - 1;
        self.tid = self.var()?;
        self.open.switch(self.tid);
        self.t = self.var()?;
        let count = self.var()?;
        let len = self.var()?;
        if len > MAX_BLOCK {
            return Err(Fail::Bad("implausible block length"));
        }
        self.read_block(len)?;
        self.pos = 0;
        self.left = count;
        Ok(())
    }

    /// An `X` record: a method the runtime throttled on a thread, and when.
    fn throttled(&mut self) -> std::result::Result<(), Fail> {
        let tid = self.var()?;
        let method = self.method_id()?;
        let (t, calls, total) = (self.var()?, self.var()?, self.var()?);
        self.status
            .aggregates
            .throttled
            .push(super::agg::Throttled {
                tid,
                method,
                t,
                calls,
                total,
            });
        Ok(())
    }

    /// An `S` record: a throttled method's estimate per call from a time on, and its basis.
    fn estimate(&mut self) -> std::result::Result<(), Fail> {
        let tid = self.var()?;
        let method = self.method_id()?;
        let (t, per_call) = (self.var()?, self.var()?);
        let (p10, p90, timed) = (self.var()?, self.var()?, self.var()?);
        self.status.aggregates.estimates.push(super::agg::Estimate {
            tid,
            method,
            t,
            per_call,
            p10,
            p90,
            timed,
        });
        Ok(())
    }

    /// A method id of an `A`/`X` record: defined before, else the record is invalid.
    fn method_id(&mut self) -> std::result::Result<u32, Fail> {
        let id = self.var()?;
        self.methods.get(id).ok_or_else(|| {
            Fail::Invalid(format!(
                "aggregate record names method id {id}, which no M record defines (a damaged trace)"
            ))
        })
    }

    fn zig(&mut self) -> std::result::Result<i64, Fail> {
        let z = self.var()?;
        Ok(((z >> 1) as i64) ^ -((z & 1) as i64))
    }

    /// An `A` record: one thread's aggregates. Entries are pushed as they are read, so a
    /// crafted count allocates no more than the bytes in the file.
    fn aggregate(&mut self) -> std::result::Result<(), Fail> {
        use super::agg::{MethodAgg, ThreadAgg};
        let tid = self.var()?;
        let last_t = self.var()?;
        let n = self.var()?;
        for _ in 0..n {
            let method = self.method_id()?;
            let m = MethodAgg {
                tid,
                method,
                calls: self.var()?,
                agg: self.var()?,
                net: self.zig()?,
                size: self.var()?,
                agg_min: self.var()?,
                agg_max: self.var()?,
                net_min: self.var()?,
                net_max: self.var()?,
                size_min: self.var()?,
                size_max: self.var()?,
            };
            self.status.aggregates.methods.push(m);
        }
        let n = self.var()?;
        for _ in 0..n {
            let e = self.edge_aggregate(tid)?;
            self.status.aggregates.edges.push(e);
        }
        let (folded, dropped) = (self.var()?, self.var()?);
        self.status.aggregates.threads.push(ThreadAgg {
            tid,
            last_t,
            folded,
            dropped,
        });
        Ok(())
    }

    /// One sender→receiver entry of an `A` record: the sender as (class, oid) when known.
    fn edge_aggregate(&mut self, tid: u64) -> std::result::Result<super::agg::EdgeAgg, Fail> {
        let from = match self.var()? {
            0 => None,
            m => {
                let sender = self.methods.get(m - 1).ok_or_else(|| {
                    Fail::Invalid(format!(
                        "aggregate record names sender method id {}, which no M record defines (a damaged trace)",
                        m - 1
                    ))
                })?;
                Some(self.names.methods[sender as usize].class)
            }
        };
        // The sender's oid is written either way.
        let from_oid = self.var()?;
        let method = self.method_id()?;
        Ok(super::agg::EdgeAgg {
            tid,
            from: from.map(|c| (c, from_oid)),
            method,
            oid: self.var()?,
            calls: self.var()?,
            agg: self.var()?,
            net: self.zig()?,
            size: self.var()?,
        })
    }

    /// An `F` record: one thread's page faults per (method, oid), pushed as read.
    fn faults(&mut self) -> std::result::Result<(), Fail> {
        let tid = self.var()?;
        let n = self.var()?;
        for _ in 0..n {
            let f = super::agg::FaultAgg {
                tid,
                method: self.method_id()?,
                oid: self.var()?,
                calls: self.var()?,
                faults: self.var()?,
            };
            self.status.aggregates.faults.push(f);
        }
        Ok(())
    }

    /// An `O` record: one thread's creations and destructions past `max_size`, per class.
    /// Entries are pushed as they are read (a crafted count allocates nothing ahead).
    fn objects(&mut self) -> std::result::Result<(), Fail> {
        let tid = self.var()?;
        let n = self.var()?;
        for _ in 0..n {
            let id = self.var()?;
            let class = self.classes.get(id).ok_or_else(|| {
                Fail::Invalid(format!(
                    "object record names class id {id}, which no C record defines (a damaged trace)"
                ))
            })?;
            let x = super::agg::ClassAgg {
                tid,
                class,
                created: self.var()?,
                destroyed: self.var()?,
                size: self.var()?,
                size_max: self.var()?,
            };
            self.status.aggregates.classes.push(x);
        }
        Ok(())
    }

    /// Read `len` bytes into the block buffer. The buffer grows with the bytes actually
    /// there, so a crafted length never allocates more than the file holds.
    fn read_block(&mut self, len: u64) -> std::result::Result<(), Fail> {
        self.block.clear();
        let got = read_at_most(&mut self.r, len, &mut self.block)?;
        self.offset += got;
        if got < len {
            return Err(Fail::Eof);
        }
        Ok(())
    }

    /// After an `R` tag: whether the rest of the compact magic follows (a joined trace).
    fn magic_follows(&mut self) -> std::result::Result<bool, Fail> {
        let mut rest = Vec::new();
        read_at_most(&mut self.r, 6, &mut rest)?;
        Ok(rest[..] == MAGIC[1..7])
    }

    fn byte_opt(&mut self) -> std::result::Result<Option<u8>, Fail> {
        let buf = self.r.fill_buf().map_err(Fail::Io)?;
        let Some(&b) = buf.first() else {
            return Ok(None);
        };
        self.r.consume(1);
        self.offset += 1;
        Ok(Some(b))
    }

    fn var(&mut self) -> std::result::Result<u64, Fail> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte_opt()?.ok_or(Fail::Eof)?;
            n |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(Fail::Bad("overlong varint"))
    }

    fn string(&mut self) -> std::result::Result<String, Fail> {
        let len = self.var()?;
        if len > 1 << 20 {
            return Err(Fail::Bad("implausible string length"));
        }
        let mut s = Vec::new();
        let got = read_at_most(&mut self.r, len, &mut s)?;
        self.offset += got;
        if got < len {
            return Err(Fail::Eof);
        }
        Ok(escape_name(&s))
    }

    /// Decode one event from the loaded block; `None` when it is malformed. Always inlined:
    /// a call per event cost the 10⁴-instance bench 8 % when the compiler chose one.
    #[inline(always)]
    fn decode(&mut self) -> Option<Event> {
        let b = &self.block;
        let mut p = self.pos;
        let kind = *b.get(p)?;
        if kind == END_BARE {
            let (method, oid, t) = self.decode_bare()?;
            let tid = self.tid;
            return Some(Event::End {
                tid,
                method,
                oid,
                t,
                cpu: None,
            });
        }
        p += 1;
        let a = slice_var(b, &mut p)?;
        let oid = slice_var(b, &mut p)?;
        let size = if kind & 1 != 0 {
            slice_var(b, &mut p)?
        } else {
            0
        };
        let z = slice_var(b, &mut p)?;
        let dt = ((z >> 1) as i64) ^ -((z & 1) as i64);
        self.t = self.t.wrapping_add(dt as u64);
        self.pos = p;
        let (tid, t) = (self.tid, self.t);
        // Ids must be defined before use; an undefined one means corrupt data.
        let id = if kind <= 2 {
            self.classes.get(a)?
        } else {
            self.methods.get(a)?
        };
        Some(match kind {
            1 => Event::Create {
                tid,
                class: id,
                oid,
                size: Some(size),
                t: Some(t),
            },
            2 => Event::Destroy {
                tid,
                class: id,
                oid,
                t: Some(t),
            },
            3 => {
                if self.bare {
                    self.open.note(RawEvent::START, id, oid);
                }
                Event::Start {
                    tid,
                    method: id,
                    oid,
                    size,
                    t,
                }
            }
            4 | END_CPU => {
                if self.bare {
                    self.open.note(RawEvent::END, id, oid);
                }
                Event::End {
                    tid,
                    method: id,
                    oid,
                    t,
                    cpu: (kind == END_CPU).then_some(size),
                }
            }
            KEY => Event::Key {
                tid,
                method: id,
                key: oid,
                t,
            },
            _ => return None,
        })
    }
}

impl<R: Read> CompactReader<R> {
    /// A bare end (kind byte, time delta) at `self.pos`: (method, oid, time) of the thread's
    /// innermost open start, which it ends; `None` (with the reason) when it has none.
    #[inline(always)]
    fn decode_bare(&mut self) -> Option<(u32, u64, u64)> {
        let mut p = self.pos + 1;
        let z = slice_var(&self.block, &mut p)?;
        if !self.bare {
            self.why = Some("an end of kind 7 in a trace whose header lacks ends=bare");
            return None;
        }
        let Some((method, oid)) = self.open.end_innermost() else {
            self.why = Some("an end (kind 7) with no open start on its thread");
            return None;
        };
        let dt = ((z >> 1) as i64) ^ -((z & 1) as i64);
        self.t = self.t.wrapping_add(dt as u64);
        self.pos = p;
        Some((method, oid, self.t))
    }

    /// [`CompactReader::decode`] into a [`RawEvent`], with no branch on the event's kind: the
    /// varint after the object id is a size for creations and starts and the time delta
    /// otherwise, so the varint after it is read either way (an unsized event's next
    /// varint is the following event's kind byte, or nothing at the block's end) and the
    /// values are selected. Same events, same failures as `decode`.
    #[inline(always)]
    fn decode_raw(&mut self) -> Option<RawEvent> {
        let b = &self.block;
        let mut p = self.pos;
        let kind = *b.get(p)?;
        if !(RawEvent::CREATE..=KEY).contains(&kind) {
            if kind != END_BARE {
                return None;
            }
            let (id, oid, t) = self.decode_bare()?;
            return Some(RawEvent {
                tid: self.tid,
                oid,
                size: 0,
                t,
                id,
                kind: RawEvent::END,
                known: 2,
            });
        }
        p += 1;
        let a = slice_var(b, &mut p)?;
        let oid = slice_var(b, &mut p)?;
        let first = slice_var(b, &mut p)?;
        let after_first = p;
        let second = slice_var(b, &mut p);
        let sized = kind & 1 != 0;
        if sized & second.is_none() {
            return None;
        }
        // Selected by masks: the compiler turned `if sized` into branches.
        let all = (sized as u64).wrapping_neg();
        let size = first & all;
        let z = (second.unwrap_or(0) & all) | (first & !all);
        self.pos = after_first + ((p - after_first) & all as usize);
        let dt = ((z >> 1) as i64) ^ -((z & 1) as i64);
        self.t = self.t.wrapping_add(dt as u64);
        // Ids must be defined before use; an undefined one means corrupt data.
        let ids = [&self.classes, &self.methods][(kind > RawEvent::DESTROY) as usize];
        // An end with its on-CPU time (kind 5) is an end whose `size` is that time.
        let cpu = (kind == END_CPU) as u8;
        let id = ids.get(a)?;
        let kind = kind - cpu;
        if self.bare {
            self.open.note(kind, id, oid); // the open starts, for bare ends
        }
        Some(RawEvent {
            tid: self.tid,
            oid,
            size,
            t: self.t,
            id,
            kind,
            known: 2 | (sized as u8 & !cpu) | cpu << 2,
        })
    }
}

/// Append up to `len` bytes of `r` to `out`; returns how many there were.
fn read_at_most(r: &mut impl Read, len: u64, out: &mut Vec<u8>) -> std::result::Result<u64, Fail> {
    let got = r.take(len).read_to_end(out).map_err(Fail::Io)?;
    Ok(got as u64)
}

fn small(n: u64) -> std::result::Result<u32, Fail> {
    u32::try_from(n).map_err(|_| Fail::Bad("id out of range"))
}

#[inline(always)]
fn slice_var(b: &[u8], p: &mut usize) -> Option<u64> {
    let first = *b.get(*p)?;
    *p += 1;
    if first < 0x80 {
        return Some(first as u64);
    }
    let mut n = (first & 0x7f) as u64;
    let mut shift = 7;
    loop {
        let x = *b.get(*p)?;
        *p += 1;
        n |= ((x & 0x7f) as u64) << shift;
        if x < 0x80 {
            return Some(n);
        }
        shift += 7;
        if shift >= 64 {
            return None;
        }
    }
}

pub fn put_var(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_var(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

#[derive(Default)]
struct ThreadBuf {
    bytes: Vec<u8>,
    count: u64,
    base: u64,
    last: u64,
    /// Open starts (method, oid), for bare ends.
    open: Vec<(u32, u64)>,
}

/// Writes the compact form; buffers per thread and flushes ~64 KiB blocks like a runtime.
/// Callers define classes and methods (by id) before events that use them.
pub struct CompactWriter<W: Write> {
    w: W,
    threads: FxHashMap<u64, ThreadBuf>,
    events: u64,
    rec: Vec<u8>,
    bare_ends: bool,
}

impl<W: Write> CompactWriter<W> {
    pub fn new(mut w: W, header: &Header) -> std::io::Result<Self> {
        w.write_all(&MAGIC)?;
        let mut text = format!("unit={}", header.unit.as_str());
        for (k, v) in &header.fields {
            text.push_str(&format!(" {k}={}", v.replace(' ', "_")));
        }
        let mut me = CompactWriter {
            w,
            threads: FxHashMap::default(),
            events: 0,
            rec: Vec::new(),
            bare_ends: false,
        };
        me.rec.push(b'H');
        put_str(&mut me.rec, &text);
        me.emit()?;
        Ok(me)
    }

    /// A writer that writes an end without on-CPU time that ends its thread's innermost
    /// open start as a bare end ([`END_BARE`], as the Java runtime does) instead of naming
    /// its call; its header says so (`ends=bare`).
    pub fn with_bare_ends(w: W, header: &Header) -> std::io::Result<Self> {
        let mut h = header.clone();
        h.fields.retain(|(k, _)| k != "ends");
        h.fields.push(("ends".into(), "bare".into()));
        let mut me = Self::new(w, &h)?;
        me.bare_ends = true;
        Ok(me)
    }

    fn emit(&mut self) -> std::io::Result<()> {
        self.w.write_all(&self.rec)?;
        self.rec.clear();
        Ok(())
    }

    pub fn class(&mut self, id: u32, name: &str) -> std::io::Result<()> {
        self.rec.push(b'C');
        put_var(&mut self.rec, id as u64);
        put_str(&mut self.rec, name);
        self.emit()
    }

    pub fn method(&mut self, id: u32, def: &MethodDef) -> std::io::Result<()> {
        self.rec.push(b'M');
        put_var(&mut self.rec, id as u64);
        put_var(&mut self.rec, def.class as u64);
        put_str(&mut self.rec, &def.name);
        put_str(&mut self.rec, &def.signature);
        self.emit()
    }

    pub fn thread(&mut self, tid: u64, name: &str) -> std::io::Result<()> {
        self.rec.push(b'N');
        put_var(&mut self.rec, tid);
        put_str(&mut self.rec, name);
        self.emit()
    }

    /// Define every name of `names` (classes, methods, threads).
    pub fn names(&mut self, names: &Names) -> std::io::Result<()> {
        for (i, c) in names.classes.iter().enumerate() {
            self.class(i as u32, c)?;
        }
        for (i, m) in names.methods.iter().enumerate() {
            self.method(i as u32, m)?;
        }
        let mut tids: Vec<_> = names.threads.iter().collect();
        tids.sort();
        for (tid, name) in tids {
            self.thread(*tid, name)?;
        }
        Ok(())
    }

    pub fn event(&mut self, ev: &Event) -> std::io::Result<()> {
        let (tid, kind, id, oid, size, t) = match *ev {
            Event::Create {
                tid,
                class,
                oid,
                size,
                t,
            } => (tid, 1u8, class, oid, Some(size.unwrap_or(0)), t),
            Event::Destroy { tid, class, oid, t } => (tid, 2, class, oid, None, t),
            Event::Start {
                tid,
                method,
                oid,
                size,
                t,
            } => (tid, 3, method, oid, Some(size), Some(t)),
            Event::End {
                tid,
                method,
                oid,
                t,
                cpu,
            } => match cpu {
                Some(c) => (tid, END_CPU, method, oid, Some(c), Some(t)),
                None => (tid, 4, method, oid, None, Some(t)),
            },
            Event::Key {
                tid,
                method,
                key,
                t,
            } => (tid, KEY, method, key, None, Some(t)),
        };
        let b = self.threads.entry(tid).or_default();
        if b.count == 0 {
            b.base = t.unwrap_or(b.last);
            b.last = b.base;
        }
        let t = t.unwrap_or(b.last);
        let innermost = b.open.last() == Some(&(id, oid));
        let bare = self.bare_ends && kind == 4 && innermost;
        if self.bare_ends && kind == 3 {
            b.open.push((id, oid));
        } else if self.bare_ends && (kind == 4 || kind == END_CPU) && innermost {
            b.open.pop();
        }
        if bare {
            b.bytes.push(END_BARE);
        } else {
            b.bytes.push(kind);
            put_var(&mut b.bytes, id as u64);
            put_var(&mut b.bytes, oid);
            if let Some(s) = size {
                put_var(&mut b.bytes, s);
            }
        }
        let dt = t.wrapping_sub(b.last) as i64;
        put_var(&mut b.bytes, ((dt << 1) ^ (dt >> 63)) as u64);
        b.last = t;
        b.count += 1;
        self.events += 1;
        if b.bytes.len() >= BLOCK_BYTES {
            self.flush_thread(tid)?;
        }
        Ok(())
    }

    fn flush_thread(&mut self, tid: u64) -> std::io::Result<()> {
        let Some(b) = self.threads.get_mut(&tid) else {
            return Ok(());
        };
        if b.count == 0 {
            return Ok(());
        }
        self.rec.push(b'B');
        put_var(&mut self.rec, tid);
        put_var(&mut self.rec, b.base);
        put_var(&mut self.rec, b.count);
        put_var(&mut self.rec, b.bytes.len() as u64);
        self.w.write_all(&self.rec)?;
        self.rec.clear();
        self.w.write_all(&b.bytes)?;
        b.bytes.clear();
        b.count = 0;
        Ok(())
    }

    fn flush_all(&mut self) -> std::io::Result<()> {
        let mut tids: Vec<u64> = self.threads.keys().copied().collect();
        tids.sort_unstable();
        for tid in tids {
            self.flush_thread(tid)?;
        }
        Ok(())
    }

    /// Mark the trace as stopped at the size limit (like a runtime past max_size).
    pub fn truncated(&mut self, max_size: u64) -> std::io::Result<()> {
        self.flush_all()?;
        self.rec.push(b'T');
        put_var(&mut self.rec, max_size);
        self.emit()
    }

    /// Flush every thread and write the end record; returns the writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.flush_all()?;
        self.rec.push(b'E');
        put_var(&mut self.rec, self.events);
        self.emit()?;
        self.w.flush()?;
        Ok(self.w)
    }

    /// Flush every thread without an end record (a run that died).
    pub fn abandon(mut self) -> std::io::Result<W> {
        self.flush_all()?;
        self.w.flush()?;
        Ok(self.w)
    }
}

/// Write a whole event list as a compact trace (tests, conversions).
pub fn write_all(
    w: impl Write,
    header: &Header,
    names: &Names,
    events: &[Event],
) -> std::io::Result<()> {
    let mut cw = CompactWriter::new(w, header)?;
    cw.names(names)?;
    for e in events {
        cw.event(e)?;
    }
    cw.finish()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Unit;

    fn sample() -> (Names, Vec<Event>) {
        let mut n = Names::default();
        let a = n.intern_class(b"A");
        let f = n.intern_method(b"A", b"f", b"!int^0!");
        n.threads.insert(1, "main".into());
        let mut ev = vec![Event::Create {
            tid: 1,
            class: a,
            oid: 7,
            size: Some(24),
            t: Some(100),
        }];
        for i in 0..20_000u64 {
            let tid = 1 + i % 2;
            ev.push(Event::Start {
                tid,
                method: f,
                oid: 7,
                size: 4,
                t: 1000 + i * 10,
            });
            ev.push(Event::End {
                tid,
                method: f,
                oid: 7,
                t: 1005 + i * 10,
                cpu: None,
            });
        }
        (n, ev)
    }

    fn read(bytes: &[u8]) -> (Vec<Event>, CompactReader<&[u8]>) {
        let mut r = CompactReader::new("x.rvt".into(), bytes).unwrap();
        let mut v = Vec::new();
        while let Some(e) = r.next_event().unwrap() {
            v.push(e);
        }
        (v, r)
    }

    #[test]
    fn round_trip() {
        let (names, ev) = sample();
        let h = Header {
            unit: Unit::Ns,
            ..Header::default()
        };
        let mut out = Vec::new();
        write_all(&mut out, &h, &names, &ev).unwrap();
        let (got, r) = read(&out);
        assert_eq!(r.header.unit, Unit::Ns);
        assert_eq!(r.status.clean_end, Some(ev.len() as u64));
        assert!(!r.status.cut_short);
        // Blocks regroup events per thread; compare per thread.
        for tid in [1, 2] {
            let of = |v: &[Event]| -> Vec<Event> {
                v.iter()
                    .filter(|e| matches!(e, Event::Start { tid: t, .. } | Event::End { tid: t, .. } | Event::Create { tid: t, .. } if *t == tid))
                    .copied()
                    .collect()
            };
            assert_eq!(of(&got), of(&ev));
        }
        assert_eq!(r.names.method(0).unwrap().signature, "!int^0!");
    }

    #[test]
    fn undefined_method_id_is_corruption() {
        let (mut names, ev) = sample();
        names.methods.clear();
        let mut out = Vec::new();
        write_all(&mut out, &Header::default(), &names, &ev).unwrap();
        let (got, r) = read(&out);
        assert_eq!(
            got.len(),
            1,
            "the creation decodes, the first message does not"
        );
        assert!(r.status.cut_short && r.status.warnings[0].contains("corrupt event"));
        // The creation before the bad event is kept, and the warning says so.
        assert!(
            r.status.warnings[0].ends_with("analysed up to the last event before it"),
            "{:?}",
            r.status.warnings
        );
    }

    #[test]
    fn cut_mid_block_warns_with_offset() {
        let (names, ev) = sample();
        let mut out = Vec::new();
        write_all(&mut out, &Header::default(), &names, &ev).unwrap();
        let cut = &out[..out.len() - 5000];
        let (got, r) = read(cut);
        assert!(r.status.cut_short);
        assert!(got.len() < ev.len() && !got.is_empty());
        assert!(
            r.status.warnings[0].contains("at byte"),
            "{:?}",
            r.status.warnings
        );
    }

    /// An end's on-CPU time (kind 5) reads back from both forms, in events and raw blocks, and
    /// an end without it stays without.
    #[test]
    fn end_with_cpu_time_round_trips() {
        let mut names = Names::default();
        let f = names.intern_method(b"A", b"f", b"!!");
        let (s, e) = (
            Event::Start {
                tid: 1,
                method: f,
                oid: 3,
                size: 8,
                t: 1_000,
            },
            |t, cpu| Event::End {
                tid: 1,
                method: f,
                oid: 3,
                t,
                cpu,
            },
        );
        let ev = [s, e(90_000, Some(61_234)), s, e(95_000, None)];
        let mut out = Vec::new();
        write_all(&mut out, &Header::default(), &names, &ev).unwrap();
        assert_eq!(out.iter().filter(|&&b| b == END_CPU).count(), 1);
        let [one, blocks] = both_ways(&out);
        assert_eq!(blocks, one);
        let raw: Vec<_> = one.0.iter().map(|r| (r.kind, r.cpu())).collect();
        let cpu = Some(61_234);
        assert_eq!(raw[1], (RawEvent::END, cpu));
        assert_eq!(raw[3], (RawEvent::END, None));
        assert_eq!(read(&out).0, ev);
        let mut text = Vec::new();
        {
            let mut w = crate::text::TextWriter::new(&mut text);
            for e in &ev {
                w.event(e, &names).unwrap();
            }
            w.flush().unwrap();
        }
        let text = String::from_utf8(text).unwrap();
        assert!(text.contains("t=90000 cpu=61234>\n"), "{text}");
        let mut r = crate::text::TextReader::new("x.dtf".into(), text.as_bytes()).unwrap();
        let mut back = Vec::new();
        while let Some(e) = r.next_event().unwrap() {
            back.push(e);
        }
        assert_eq!(back, ev);
    }

    /// A throttled method's estimate (`S`) reads back with its basis and spread, and goes
    /// through the text form's `estimate` line unchanged.
    #[test]
    fn estimate_records_read_in_both_forms() {
        let mut names = Names::default();
        let f = names.intern_method(b"A", b"f", b"!!");
        let mut out = Vec::new();
        write_all(&mut out, &Header::default(), &names, &[]).unwrap();
        assert_eq!(out.split_off(out.len() - 2), [b'E', 0]);
        for (t, per_call) in [(50u8, 49u8), (90, 120)] {
            out.extend([b'S', 1, f as u8, t, per_call, 40, 70, 32]);
        }
        out.extend([b'E', 0]);
        let (_, r) = read(&out);
        let e = &r.status.aggregates.estimates;
        assert_eq!(e.len(), 2, "{:?}", r.status.warnings);
        assert_eq!(
            (e[0].per_call, e[0].p10, e[0].p90, e[0].timed),
            (49, 40, 70, 32)
        );
        assert_eq!(e[1].per_call, 120);
        let lines = crate::agg::text_lines(&r.status.aggregates, &r.names);
        assert!(
            lines.contains("##### estimate tid=1 cls=A mth=f sgn=!! t="),
            "{lines}"
        );
        let text = format!("##### revy-trace 1 unit=ns\n{lines}");
        let mut tr = crate::text::TextReader::new("x.dtf".into(), text.as_bytes()).unwrap();
        while tr.next_event().unwrap().is_some() {}
        assert_eq!(tr.status.aggregates.estimates, *e);
        // naming an undefined method is an error, as for X
        let mut bad = out.clone();
        let at = bad.len() - 2;
        bad.splice(at..at, [b'S', 1, 9, 1, 1, 1, 1, 1]);
        assert!(CompactReader::new("x.rvt".into(), &bad[..])
            .and_then(|mut r| while_some(&mut r))
            .is_err());
    }

    fn while_some(r: &mut CompactReader<&[u8]>) -> crate::error::Result<()> {
        while r.next_event()?.is_some() {}
        Ok(())
    }

    /// Every kind of event, with sizes, ids and time steps of every varint length.
    fn every_kind() -> (Names, Vec<Event>) {
        let mut n = Names::default();
        let a = n.intern_class(b"A");
        let f = n.intern_method(b"A", b"f", b"!int^0!");
        let g = n.intern_method(b"A", b"g", b"!!");
        let mut ev = Vec::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut t = [1u64 << 20; 3];
        for i in 0..30_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let tid = 1 + x % 3;
            let tt = &mut t[(tid - 1) as usize];
            // Mostly forward, sometimes back (the deltas are zig-zag coded).
            *tt = (*tt + (x >> 8) % 5000).saturating_sub((x >> 30) % 3 * 100);
            let oid = 1 + (x >> 20) % [10, 300, 70_000, 1 << 40][(i % 4) as usize];
            let size = [0, 127, 128, 300_000, 1 << 45][(x >> 40) as usize % 5];
            let method = if x & 1 == 0 { f } else { g };
            ev.push(match (x >> 50) % 4 {
                0 => Event::Create {
                    tid,
                    class: a,
                    oid,
                    size: Some(size),
                    t: Some(*tt),
                },
                1 => Event::Destroy {
                    tid,
                    class: a,
                    oid,
                    t: Some(*tt),
                },
                2 => Event::Start {
                    tid,
                    method,
                    oid,
                    size,
                    t: *tt,
                },
                _ => Event::End {
                    tid,
                    method,
                    oid,
                    t: *tt,
                    // every other end carries its call's on-CPU time (kind 5)
                    cpu: ((x >> 52) & 1 == 0).then_some(size),
                },
            });
        }
        (n, ev)
    }

    /// What a reader read of `bytes` event by event and in blocks of 7: (events, cut
    /// short, warnings).
    fn both_ways(bytes: &[u8]) -> [(Vec<RawEvent>, bool, Vec<String>); 2] {
        let one = {
            let mut r = CompactReader::new("x.rvt".into(), bytes).unwrap();
            let mut v = Vec::new();
            while let Some(e) = r.next_event().unwrap() {
                v.push(RawEvent::of(&e));
            }
            (v, r.status.cut_short, r.status.warnings)
        };
        let blocks = {
            let mut r = CompactReader::new("x.rvt".into(), bytes).unwrap();
            let (mut v, mut part) = (Vec::new(), Vec::new());
            loop {
                part.clear();
                r.next_events(&mut part, 7).unwrap();
                if part.is_empty() {
                    break;
                }
                v.extend_from_slice(&part);
            }
            (v, r.status.cut_short, r.status.warnings)
        };
        [one, blocks]
    }

    /// The block decoder (no branch on the kind) reads what the event decoder reads, from
    /// whole traces and from traces with a byte changed or cut anywhere.
    #[test]
    fn blocks_decode_like_events() {
        let (names, ev) = every_kind();
        let mut out = Vec::new();
        write_all(&mut out, &Header::default(), &names, &ev).unwrap();
        let [one, blocks] = both_ways(&out);
        assert_eq!(one.0.len(), ev.len());
        assert!(!one.1);
        assert_eq!(
            one.0.iter().map(RawEvent::event).collect::<Vec<_>>().len(),
            ev.len()
        );
        assert_eq!(blocks, one);
        let mut kinds = [0; 5];
        for r in &one.0 {
            kinds[r.kind as usize] += 1;
            assert_eq!(RawEvent::of(&r.event()), *r);
        }
        assert!(kinds[1..].iter().all(|&k| k > 5000), "{kinds:?}");
        let cpu = one.0.iter().filter(|r| r.cpu().is_some()).count();
        assert!(cpu > 2000 && cpu < kinds[4] - 2000, "{cpu} of {kinds:?}");
        let mut x = 12345usize;
        let mut cut_short = 0;
        for _ in 0..300 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let at = 8 + (x >> 16) % (out.len() - 8);
            let mut bad = out.clone();
            bad[at] ^= 1 << ((x >> 8) % 8);
            let [one, blocks] = both_ways(&bad);
            assert_eq!(blocks, one, "byte {at} changed");
            cut_short += one.1 as usize;
            let [one, blocks] = both_ways(&out[..at]);
            assert_eq!(blocks, one, "cut at byte {at}");
        }
        assert!(
            cut_short > 30,
            "{cut_short} of the changed traces were found corrupt"
        );
        // A block whose last event, a start, stops after its size: no time delta.
        let mut out = Vec::new();
        write_all(&mut out, &Header::default(), &names, &[]).unwrap();
        assert_eq!(out.split_off(out.len() - 2), [b'E', 0]);
        let events = [RawEvent::END, 1, 5, 4, RawEvent::START, 1, 5, 8];
        out.extend([b'B', 1, 100, 2, events.len() as u8]);
        out.extend(events);
        out.extend([b'E', 2]);
        let [one, blocks] = both_ways(&out);
        assert_eq!(one.0.len(), 1);
        assert!(one.1 && one.2[0].contains("corrupt event"), "{:?}", one.2);
        assert_eq!(blocks, one);
    }

    /// Nested calls on three threads whose blocks interleave, with creations, keys, ends
    /// with on-CPU time and ends of no open start among them (what a Java run writes).
    fn nested_calls() -> (Names, Vec<Event>) {
        let mut n = Names::default();
        let a = n.intern_class(b"A");
        let ms: Vec<u32> = (0..5)
            .map(|i| n.intern_method(b"A", format!("m{i}").as_bytes(), b"!!"))
            .collect();
        let mut ev = Vec::new();
        let mut open: [Vec<(u32, u64)>; 3] = Default::default();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut t = 1u64 << 30;
        for _ in 0..60_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            t += (x >> 40) % 3000;
            let tid = 1 + (x >> 3) % 3;
            let st = &mut open[(tid - 1) as usize];
            let (method, oid) = (
                ms[(x >> 8) as usize % 5],
                [1, 200, 1 << 33][(x >> 12) as usize % 3],
            );
            ev.push(match (x >> 20) % 16 {
                0..=6 if st.len() < 40 => {
                    st.push((method, oid));
                    let size = (x >> 24) % 1000;
                    Event::Start {
                        tid,
                        method,
                        oid,
                        size,
                        t,
                    }
                }
                0..=12 if !st.is_empty() => {
                    let (method, oid) = st.pop().unwrap();
                    let cpu = (x >> 30).is_multiple_of(8).then_some((x >> 33) % 100_000);
                    Event::End {
                        tid,
                        method,
                        oid,
                        t,
                        cpu,
                    }
                }
                13 => Event::Create {
                    tid,
                    class: a,
                    oid: x >> 44,
                    size: Some(24),
                    t: Some(t),
                },
                14 => Event::Key {
                    tid,
                    method,
                    key: x,
                    t,
                },
                // an end of a call that is not open (the runtime writes it with its names)
                _ => Event::End {
                    tid,
                    method,
                    oid: 99,
                    t,
                    cpu: None,
                },
            });
        }
        (n, ev)
    }

    fn write_bare(names: &Names, ev: &[Event], bare: bool) -> Vec<u8> {
        let mut w = if bare {
            CompactWriter::with_bare_ends(Vec::new(), &Header::default()).unwrap()
        } else {
            CompactWriter::new(Vec::new(), &Header::default()).unwrap()
        };
        w.names(names).unwrap();
        for e in ev {
            w.event(e).unwrap();
        }
        w.finish().unwrap()
    }

    /// Ends carrying only their time (kind 7) read back as the ends they stand for, whole
    /// and in blocks, across blocks of interleaving threads: the same events as a trace of
    /// named ends (kind 4), and the older form still reads.
    #[test]
    fn bare_ends_decode_as_the_ends_they_stand_for() {
        let (names, ev) = nested_calls();
        let named = write_bare(&names, &ev, false);
        let bare = write_bare(&names, &ev, true);
        // ends are a third of the events; a bare one is 2 bytes where a named one took 4-12
        assert!(
            bare.len() * 10 < named.len() * 9,
            "{} {}",
            bare.len(),
            named.len()
        );
        let blocks = named.windows(1).filter(|w| w[0] == b'B').count();
        assert!(blocks > 3, "the threads' blocks interleave");
        let per_thread = |v: &[Event], tid: u64| -> Vec<Event> {
            v.iter()
                .filter(|e| RawEvent::of(e).tid == tid)
                .copied()
                .collect()
        };
        let (from_named, r) = read(&named);
        assert!(!r.status.cut_short);
        let (from_bare, r) = read(&bare);
        assert!(!r.status.cut_short, "{:?}", r.status.warnings);
        // blocks fill at other events in the two forms: the threads' blocks interleave
        // differently, each thread's events are the same
        for tid in 1..=3 {
            assert_eq!(per_thread(&from_bare, tid), per_thread(&ev, tid));
            assert_eq!(per_thread(&from_named, tid), per_thread(&ev, tid));
        }
        let [one, blocks] = both_ways(&bare);
        assert_eq!(blocks, one);
        let raw: Vec<Event> = one.0.iter().map(RawEvent::event).collect();
        assert_eq!(raw, from_bare);
    }

    /// A bare end with no open start on its thread, or cut after its kind, stops the
    /// reading with a warning naming it, in both decoders; changed bytes and cuts anywhere
    /// in a trace of bare ends read alike both ways and never panic.
    #[test]
    fn bare_ends_without_a_start_or_cut_are_corrupt() {
        let mut names = Names::default();
        let f = names.intern_method(b"A", b"f", b"!!");
        let trace = |h: &Header| {
            let mut out = Vec::new();
            write_all(&mut out, h, &names, &[]).unwrap();
            assert_eq!(out.split_off(out.len() - 2), [b'E', 0]);
            out
        };
        let start = [RawEvent::START, f as u8, 5, 8, 2];
        // a bare end in a trace whose header does not announce them
        let mut out = trace(&Header::default());
        out.extend([b'B', 1, 100, 2, start.len() as u8 + 2]);
        out.extend(start);
        out.extend([END_BARE, 4, b'E', 2]);
        let [one, blocks] = both_ways(&out);
        assert_eq!(blocks, one);
        assert_eq!(one.0.len(), 1);
        assert!(one.1 && one.2[0].contains("lacks ends=bare"), "{:?}", one.2);
        let mut h = Header::default();
        h.fields.push(("ends".into(), "bare".into()));
        let mut out = trace(&h);
        let head = out.clone();
        // thread 1: a start; thread 2: a bare end (its own stack is empty)
        out.extend([b'B', 1, 100, 1, start.len() as u8]);
        out.extend(start);
        out.extend([b'B', 2, 100, 1, 2, END_BARE, 4]);
        out.extend([b'E', 2]);
        let [one, blocks] = both_ways(&out);
        assert_eq!(blocks, one);
        assert_eq!(one.0.len(), 1);
        assert!(one.1 && one.2[0].contains("no open start"), "{:?}", one.2);
        // thread 1's bare end in a later block ends its start, after thread 2's block
        let mut ok = head.clone();
        ok.extend([b'B', 1, 100, 1, start.len() as u8]);
        ok.extend(start);
        ok.extend([b'B', 2, 100, 1, start.len() as u8]);
        ok.extend(start);
        ok.extend([b'B', 1, 100, 2, 4, END_BARE, 6, END_BARE, 2]);
        ok.extend([b'E', 4]);
        let [one, blocks] = both_ways(&ok);
        assert_eq!(blocks, one);
        assert_eq!(one.0.len(), 3, "{:?}", one.2);
        let end = one.0[2];
        assert_eq!(
            (end.tid, end.kind, end.id, end.oid, end.t),
            (1, RawEvent::END, f, 5, 103)
        );
        assert!(one.1 && one.2[0].contains("no open start"), "{:?}", one.2);
        // a bare end cut after its kind byte
        let mut cut = head.clone();
        cut.extend([b'B', 1, 100, 2, start.len() as u8 + 1]);
        cut.extend(start);
        cut.extend([END_BARE]);
        cut.extend([b'E', 2]);
        let [one, blocks] = both_ways(&cut);
        assert_eq!(blocks, one);
        assert_eq!(one.0.len(), 1);
        assert!(one.1 && one.2[0].contains("corrupt event"), "{:?}", one.2);
        let (names, ev) = nested_calls();
        let bare = write_bare(&names, &ev, true);
        let mut x = 987654321usize;
        let mut cut_short = 0;
        for _ in 0..200 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let at = 8 + (x >> 16) % (bare.len() - 8);
            let mut bad = bare.clone();
            bad[at] ^= 1 << ((x >> 8) % 8);
            let [one, blocks] = both_ways(&bad);
            assert_eq!(blocks, one, "byte {at} changed");
            cut_short += one.1 as usize;
            let [one, blocks] = both_ways(&bare[..at]);
            assert_eq!(blocks, one, "cut at byte {at}");
        }
        assert!(
            cut_short > 20,
            "{cut_short} of the changed traces were found corrupt"
        );
    }
}
