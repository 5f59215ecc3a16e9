//! Reading and writing traces (FORMAT.md). Both forms decode into the same
//! [`Event`] stream with class and method names interned to small dense ids, so the
//! analysis never touches strings per event.

pub mod agg;
mod attr;
pub mod compact;
pub mod display;
pub mod error;
pub mod escape;
pub mod multi;
mod open;
pub mod spool;
#[cfg(any(test, feature = "synth"))]
pub mod synth;
pub mod text;

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;
use serde::Serialize;

pub use crate::error::{Error, Result};

/// Size of the read buffer: large so the per-read syscall cost vanishes next to parsing.
pub(crate) const BUF_SIZE: usize = 1 << 20;

/// Time unit of a trace's timestamps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    Ns,
    Us,
    Ms,
    S,
}

impl Unit {
    pub fn parse(s: &str) -> Option<Unit> {
        Some(match s {
            "ns" => Unit::Ns,
            "us" => Unit::Us,
            "ms" => Unit::Ms,
            "s" => Unit::S,
            _ => return None,
        })
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Ns => "ns",
            Unit::Us => "us",
            Unit::Ms => "ms",
            Unit::S => "s",
        }
    }
    /// Microseconds per unit (Chrome trace timestamps are in µs).
    pub fn micros(self) -> f64 {
        match self {
            Unit::Ns => 1e-3,
            Unit::Us => 1.0,
            Unit::Ms => 1e3,
            Unit::S => 1e6,
        }
    }
}

/// Which on-disk form a trace is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Form {
    Text,
    Compact,
}

/// One trace entry; names are ids into [`Names`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    Create {
        tid: u64,
        class: u32,
        oid: u64,
        size: Option<u64>,
        t: Option<u64>,
    },
    Destroy {
        tid: u64,
        class: u32,
        oid: u64,
        t: Option<u64>,
    },
    Start {
        tid: u64,
        method: u32,
        oid: u64,
        size: u64,
        t: u64,
    },
    End {
        tid: u64,
        method: u32,
        oid: u64,
        t: u64,
        /// The call's on-CPU time (its thread's CPU clock from start to end, callees
        /// included), in the trace's unit; recorded for long calls only.
        cpu: Option<u64>,
    },
    /// A remote call's key (its hash), logged on entry to a `[[remote]]` client or server
    /// method `method`: the same key in two processes' traces links the client's call to
    /// the server's handling.
    Key {
        tid: u64,
        method: u32,
        key: u64,
        t: u64,
    },
}

/// An event as a block of them holds it ([`TraceReader::next_events`]): a plain record
/// rather than the [`Event`] enum, so that decoding a block never branches on the kinds of
/// its events (starts and ends come in no pattern, so such a branch is mispredicted every
/// other event); the walk's own match on the kind is then the only one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RawEvent {
    pub tid: u64,
    pub oid: u64,
    /// The size of a creation or start (0 when absent); an end's on-CPU time when `known`
    /// has bit 2.
    pub size: u64,
    pub t: u64,
    /// The class (creation, destruction) or method (start, end).
    pub id: u32,
    /// [`RawEvent::CREATE`], [`RawEvent::DESTROY`], [`RawEvent::START`] or [`RawEvent::END`] (the compact
    /// form's own codes).
    pub kind: u8,
    /// Bit 0: a creation's size is known; bit 1: a creation's or destruction's time is;
    /// bit 2: an end's on-CPU time is (held in `size`).
    pub known: u8,
}

impl RawEvent {
    pub const CREATE: u8 = 1;
    pub const DESTROY: u8 = 2;
    pub const START: u8 = 3;
    pub const END: u8 = 4;
    /// A remote call's key ([`Event::Key`]; `oid` holds the key).
    pub const KEY: u8 = 6;
    /// [`RawEvent::known`]'s bit for an end's on-CPU time.
    pub const CPU_KNOWN: u8 = 4;

    /// An end's on-CPU time, when the runtime measured it.
    #[inline(always)]
    pub fn cpu(&self) -> Option<u64> {
        (self.kind == RawEvent::END && self.known & RawEvent::CPU_KNOWN != 0).then_some(self.size)
    }

    pub fn of(ev: &Event) -> RawEvent {
        let (kind, tid, id, oid, size, t) = match *ev {
            Event::Create {
                tid,
                class,
                oid,
                size,
                t,
            } => (RawEvent::CREATE, tid, class, oid, size, t),
            Event::Destroy { tid, class, oid, t } => (RawEvent::DESTROY, tid, class, oid, None, t),
            Event::Key {
                tid,
                method,
                key,
                t,
            } => (RawEvent::KEY, tid, method, key, None, Some(t)),
            Event::Start {
                tid,
                method,
                oid,
                size,
                t,
            } => (RawEvent::START, tid, method, oid, Some(size), Some(t)),
            Event::End {
                tid,
                method,
                oid,
                t,
                cpu,
            } => {
                return RawEvent {
                    tid,
                    oid,
                    size: cpu.unwrap_or(0),
                    t,
                    id: method,
                    kind: RawEvent::END,
                    known: 2 | (cpu.is_some() as u8) << 2,
                }
            }
        };
        RawEvent {
            tid,
            oid,
            size: size.unwrap_or(0),
            t: t.unwrap_or(0),
            id,
            kind,
            known: size.is_some() as u8 | (t.is_some() as u8) << 1,
        }
    }

    /// The event this record holds.
    #[inline(always)]
    pub fn event(&self) -> Event {
        let (tid, oid, id) = (self.tid, self.oid, self.id);
        let size = (self.known & 1 != 0).then_some(self.size);
        let t = (self.known & 2 != 0).then_some(self.t);
        match self.kind {
            RawEvent::CREATE => Event::Create {
                tid,
                class: id,
                oid,
                size,
                t,
            },
            RawEvent::DESTROY => Event::Destroy {
                tid,
                class: id,
                oid,
                t,
            },
            RawEvent::START => Event::Start {
                tid,
                method: id,
                oid,
                size: self.size,
                t: self.t,
            },
            RawEvent::KEY => Event::Key {
                tid,
                method: id,
                key: oid,
                t: self.t,
            },
            _ => Event::End {
                tid,
                method: id,
                oid,
                t: self.t,
                cpu: self.cpu(),
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodDef {
    pub class: u32,
    pub name: String,
    pub signature: String,
}

impl MethodDef {
    /// `Class.method(params)` as people read it (the exports' slice names).
    pub fn shown(&self, names: &Names) -> String {
        let sig = display::signature(&self.signature);
        format!("{}.{}{sig}", names.class(self.class), self.name)
    }
}

/// Interned names of one trace, grown while reading.
#[derive(Debug, Default, Clone)]
pub struct Names {
    pub classes: Vec<String>,
    pub methods: Vec<MethodDef>,
    pub threads: FxHashMap<u64, String>,
    /// Process ids of a trace set, by position: thread and object ids carry position + 1
    /// above [`multi::LOCAL_BITS`]. Empty for a single trace.
    pub processes: Vec<u64>,
    class_ids: FxHashMap<Box<[u8]>, u32>,
    method_ids: FxHashMap<Box<[u8]>, u32>,
    scratch: Vec<u8>,
}

impl Names {
    pub fn class(&self, id: u32) -> &str {
        self.classes.get(id as usize).map_or("?", |s| s.as_str())
    }
    pub fn method(&self, id: u32) -> Option<&MethodDef> {
        self.methods.get(id as usize)
    }
    pub fn thread_name(&self, tid: u64) -> Option<&str> {
        self.threads.get(&tid).map(|s| s.as_str())
    }
    /// The process of a thread or object id of a trace set (`None` for a single trace).
    pub fn process_of(&self, id: u64) -> Option<u64> {
        let pos = (id >> multi::LOCAL_BITS).checked_sub(1)?;
        self.processes.get(pos as usize).copied()
    }

    /// Id of a class name, defining it when new.
    pub fn intern_class(&mut self, name: &[u8]) -> u32 {
        if let Some(&id) = self.class_ids.get(name) {
            return id;
        }
        let id = self.classes.len() as u32;
        self.classes.push(escape_name(name));
        self.class_ids.insert(name.into(), id);
        id
    }

    /// Id of a (class, method, signature) triple, defining it when new.
    pub fn intern_method(&mut self, class: &[u8], name: &[u8], sgn: &[u8]) -> u32 {
        // One flat byte key so the lookup needs no allocation.
        self.scratch.clear();
        self.scratch.extend_from_slice(class);
        self.scratch.push(0);
        self.scratch.extend_from_slice(name);
        self.scratch.push(0);
        self.scratch.extend_from_slice(sgn);
        if let Some(&id) = self.method_ids.get(&self.scratch[..]) {
            return id;
        }
        let class = self.intern_class(class);
        let id = self.methods.len() as u32;
        self.methods.push(MethodDef {
            class,
            name: escape_name(name),
            signature: escape_name(sgn),
        });
        self.method_ids
            .insert(self.scratch.clone().into_boxed_slice(), id);
        id
    }

    /// Append a class definition (the compact form maps its file ids onto these).
    pub(crate) fn push_class(&mut self, name: String) -> u32 {
        self.classes.push(name);
        (self.classes.len() - 1) as u32
    }

    pub(crate) fn push_method(&mut self, def: MethodDef) -> u32 {
        self.methods.push(def);
        (self.methods.len() - 1) as u32
    }
}

/// Whether `path` names a trace by its extension: `.rvt` (compact) or `.dtf` (text). A trace
/// folder also holds the runtimes' budget counters and whatever else the user puts there.
pub fn is_trace_file(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("rvt" | "dtf")
    )
}

pub use crate::escape::escape_name;

/// Header facts common to both forms.
#[derive(Debug, Clone, Serialize)]
pub struct Header {
    pub unit: Unit,
    /// The header's `key=value` pairs other than `unit` (lang, pid, start, ...).
    pub fields: Vec<(String, String)>,
    /// The raw first header line of a text trace without `revy-trace` (e.g. the thesis's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
}

impl Default for Header {
    fn default() -> Self {
        Header {
            unit: Unit::Ms,
            fields: Vec::new(),
            raw: None,
        }
    }
}

/// The wall-clock anchor of a trace: `t` (in the trace's unit and clock) was taken at the
/// same instant as `wall_ns` (Unix epoch nanoseconds), so traces of several processes can be
/// put on one time line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Anchor {
    pub wall_ns: u64,
    pub t: u64,
}

impl Header {
    /// Parse `key=value` pairs separated by spaces (unit defaults to ms when absent). An
    /// unknown unit is an error (its message says which units exist).
    pub fn from_pairs(text: &str) -> Result<Header, String> {
        let mut h = Header::default();
        for pair in text.split_ascii_whitespace() {
            if let Some((k, v)) = pair.split_once('=') {
                if k == "unit" {
                    h.unit = Unit::parse(v).ok_or_else(|| {
                        format!(
                            "unknown time unit `unit={}` in the trace header (use ns, us, ms or s)",
                            escape_name(v.as_bytes())
                        )
                    })?;
                } else {
                    h.fields
                        .push((escape_name(k.as_bytes()), escape_name(v.as_bytes())));
                }
            }
        }
        Ok(h)
    }

    /// The value of header key `key`, if present.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The traced process's id (`pid=`).
    pub fn pid(&self) -> Option<u64> {
        self.get("pid")?.parse().ok()
    }

    /// The wall-clock anchor (`anchor_wall_ns=` and `anchor_t=`), when both are present.
    pub fn anchor(&self) -> Option<Anchor> {
        Some(Anchor {
            wall_ns: self.get("anchor_wall_ns")?.parse().ok()?,
            t: self.get("anchor_t")?.parse().ok()?,
        })
    }
}

/// Trailer facts: whether the runtime finished cleanly or stopped at its size limit.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Status {
    /// `end` footer seen, with its event count.
    pub clean_end: Option<u64>,
    /// `truncated max_size=` seen.
    pub truncated_at_size: Option<u64>,
    /// The file itself ended early or held a corrupt entry: reading stopped there.
    pub cut_short: bool,
    pub warnings: Vec<String>,
    /// A text trace's `revy-trace` header was read (a second one is a joined trace).
    #[serde(skip)]
    pub headers_seen: bool,
    /// What the runtime counted instead of recording (past `max_size`, throttled methods).
    #[serde(skip)]
    pub aggregates: agg::Aggregates,
}

/// A reader that hands out events from either form.
pub enum TraceReader {
    Text(text::TextReader<Box<dyn Read>>),
    Compact(compact::CompactReader<Box<dyn Read>>),
    /// The traces of several processes of one run, merged ([`multi`]).
    Multi(Box<multi::MultiReader>),
}

impl TraceReader {
    /// Open a file, telling the forms apart by the compact magic.
    pub fn open(path: &Path) -> Result<TraceReader> {
        if let Some(files) = multi::set_members(path)? {
            let mut m = multi::MultiReader::open(&files)?;
            m.names.processes = m.pids();
            return Ok(TraceReader::Multi(Box::new(m)));
        }
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let mut r = BufReader::with_capacity(BUF_SIZE, file);
        let mut head = [0u8; 8];
        let n = read_up_to(&mut r, &mut head).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            return Err(Error::input(format!(
                "{}: empty file, not a trace (did the run record anything?)",
                path.display()
            )));
        }
        if n >= 8 && head[..7] == compact::MAGIC[..7] && head[7] != compact::MAGIC[7] {
            return Err(Error::input(format!(
                "{}: trace format version {}; this revy reads {}",
                path.display(),
                head[7],
                compact::MAGIC[7]
            )));
        }
        let rest: Box<dyn Read> = Box::new(std::io::Cursor::new(head[..n].to_vec()).chain(r));
        Self::from_reader(path.to_path_buf(), rest, n >= 8 && head == compact::MAGIC)
    }

    fn from_reader(path: PathBuf, r: Box<dyn Read>, compact: bool) -> Result<TraceReader> {
        Ok(if compact {
            TraceReader::Compact(compact::CompactReader::new(path, r)?)
        } else {
            TraceReader::Text(text::TextReader::new(path, r)?)
        })
    }

    /// [`open`](Self::open) with the header read: a text trace's comes with its first
    /// event, which is then skipped (for a look at the header only).
    pub fn open_header(path: &Path) -> Result<TraceReader> {
        let mut r = TraceReader::open(path)?;
        let _ = r.next_event()?;
        Ok(r)
    }

    pub fn form(&self) -> Form {
        match self {
            TraceReader::Text(_) => Form::Text,
            TraceReader::Compact(_) | TraceReader::Multi(_) => Form::Compact,
        }
    }

    /// The next event; `Ok(None)` at the end (or where a cut/corrupt tail starts, with a
    /// warning in [`status`](Self::status)); `Err` only when the input is not a trace at all.
    #[inline]
    pub fn next_event(&mut self) -> Result<Option<Event>> {
        match self {
            TraceReader::Text(r) => r.next_event(),
            TraceReader::Compact(r) => r.next_event(),
            TraceReader::Multi(r) => r.next_event(),
        }
    }

    /// Appends events to `out` until it holds `n`; fewer only at the end of the trace.
    pub fn next_events(&mut self, out: &mut Vec<RawEvent>, n: usize) -> Result<()> {
        if let TraceReader::Compact(r) = self {
            return r.next_events(out, n);
        }
        while out.len() < n {
            match self.next_event()? {
                Some(ev) => out.push(RawEvent::of(&ev)),
                None => break,
            }
        }
        Ok(())
    }

    pub fn names(&self) -> &Names {
        match self {
            TraceReader::Text(r) => &r.names,
            TraceReader::Compact(r) => &r.names,
            TraceReader::Multi(r) => &r.names,
        }
    }
    pub fn header(&self) -> &Header {
        match self {
            TraceReader::Text(r) => &r.header,
            TraceReader::Compact(r) => &r.header,
            TraceReader::Multi(r) => &r.header,
        }
    }
    pub fn status(&self) -> &Status {
        match self {
            TraceReader::Text(r) => &r.status,
            TraceReader::Compact(r) => &r.status,
            TraceReader::Multi(r) => &r.status,
        }
    }
    /// Bytes consumed so far.
    pub fn bytes_read(&self) -> u64 {
        match self {
            TraceReader::Text(r) => r.bytes_read(),
            TraceReader::Compact(r) => r.bytes_read(),
            TraceReader::Multi(r) => r.bytes_read(),
        }
    }
}

fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// Print any trace as text DTF to `out` (`revy trace print`).
pub fn print_as_text(path: &Path, out: &mut impl std::io::Write) -> Result<Status> {
    let mut r = TraceReader::open(path)?;
    let io = |e| Error::io("<stdout>", e);
    let mut w = text::TextWriter::new(out);
    w.header(r.header()).map_err(io)?;
    let mut events = 0u64;
    let mut printed = rustc_hash::FxHashSet::default();
    while let Some(ev) = r.next_event()? {
        // Thread names may arrive at any time; print each once it is known.
        if r.names().threads.len() != printed.len() {
            let mut fresh: Vec<_> = r
                .names()
                .threads
                .iter()
                .filter(|(t, _)| !printed.contains(*t))
                .collect();
            fresh.sort();
            for (tid, name) in fresh {
                w.thread(*tid, name).map_err(io)?;
                printed.insert(*tid);
            }
        }
        w.event(&ev, r.names()).map_err(io)?;
        events += 1;
    }
    let status = r.status().clone();
    w.raw(&agg::text_lines(&status.aggregates, r.names()))
        .map_err(io)?;
    if let Some(max) = status.truncated_at_size {
        w.truncated(max).map_err(io)?;
    }
    if status.clean_end.is_some() && !status.cut_short {
        w.end(events).map_err(io)?;
    }
    w.flush().map_err(io)?;
    Ok(status)
}
