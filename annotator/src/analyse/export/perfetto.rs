//! Perfetto's native protobuf trace (`Trace { repeated TracePacket packet = 1 }`): one track
//! per thread, a TYPE_SLICE_BEGIN packet when a message starts and a TYPE_SLICE_END when it
//! ends, so packets are in time order per thread and memory stays constant. Event names and
//! argument names are interned once per sequence; receiver and sender object IDs are debug
//! annotations. Flows: a message's begin carries its sender's flow id, so Perfetto draws an
//! arrow from the sender's slice to its first message and on to each next one it sends.
//! Events (`[[events]]`): an instant at each of an event's calls carries the event's own
//! flow id, so an arrow follows the event across threads.
//!
//! Field numbers are those of Perfetto's `protos/perfetto/trace/**.proto` (stable by contract).

use std::io::Write;

use rustc_hash::FxHashMap;

use crate::analyse::trace::multi::split_tid;
use crate::analyse::trace::{Names, Unit};
use crate::analyse::walk::{Closed, Frame, Instance, Sink};

/// Protobuf wire encoding of the few fields we write.
pub mod wire {
    pub fn varint(out: &mut Vec<u8>, mut v: u64) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    pub fn key(out: &mut Vec<u8>, field: u32, wire_type: u8) {
        varint(out, (u64::from(field) << 3) | u64::from(wire_type));
    }
    pub fn uint(out: &mut Vec<u8>, field: u32, v: u64) {
        key(out, field, 0);
        varint(out, v);
    }
    pub fn fixed64(out: &mut Vec<u8>, field: u32, v: u64) {
        key(out, field, 1);
        out.extend_from_slice(&v.to_le_bytes());
    }
    pub fn bytes(out: &mut Vec<u8>, field: u32, b: &[u8]) {
        key(out, field, 2);
        varint(out, b.len() as u64);
        out.extend_from_slice(b);
    }
}

// TracePacket
const TIMESTAMP: u32 = 8;
const SEQUENCE_ID: u32 = 10;
const TRACK_EVENT: u32 = 11;
const INTERNED_DATA: u32 = 12;
const SEQUENCE_FLAGS: u32 = 13;
const TRACK_DESCRIPTOR: u32 = 60;
const INCREMENTAL_STATE_CLEARED: u64 = 1;
const NEEDS_INCREMENTAL_STATE: u64 = 2;
// TrackEvent
const DEBUG_ANNOTATIONS: u32 = 4;
const TYPE: u32 = 9;
const NAME_IID: u32 = 10;
const TRACK_UUID: u32 = 11;
const FLOW_IDS: u32 = 47;
const TERMINATING_FLOW_IDS: u32 = 48;
const NAME: u32 = 23;
const INSTANT: u64 = 3;
const SLICE_BEGIN: u64 = 1;
const SLICE_END: u64 = 2;
// InternedData: event_names = 2, debug_annotation_names = 3; both {iid = 1, name = 2}.
const EVENT_NAMES: u32 = 2;
const ANNOTATION_NAMES: u32 = 3;
// DebugAnnotation: name_iid = 1, uint_value = 3.
const ANNOTATION_NAME_IID: u32 = 1;
const UINT_VALUE: u32 = 3;

const SEQ: u64 = 1;
const PID: u64 = 1;
const PROCESS_UUID: u64 = 1;
/// Track uuids of the processes of a trace set: this bit plus the pid.
const PROCESS_SET_UUID: u64 = 1 << 62;
/// Annotation names, interned as iids 1, 2, 3.
const ARGS: [&str; 3] = ["receiver_oid", "sender_oid", "message_bytes"];

/// The names a start event needs, resolved before the walker sees it (`prepare`).
struct Pending {
    tid: u64,
    name_iid: u64,
    new_name: Option<String>,
    new_track: Option<NewTrack>,
}

/// A thread track to describe: (uuid, name, pid, tid, parent process uuid, process is new).
type NewTrack = (u64, String, u64, u64, u64, bool);

pub struct PerfettoSink<W: Write> {
    w: W,
    err: Option<std::io::Error>,
    nanos_per_unit: u64,
    /// Event name iid per method id (0 = not interned yet).
    name_iids: Vec<u64>,
    next_iid: u64,
    /// Track uuid per thread id.
    tracks: FxHashMap<u64, u64>,
    /// Per thread id: the flow ids of its open messages.
    stacks: FxHashMap<u64, Vec<u64>>,
    pending: Option<Pending>,
    /// Oid per walker instance, for the sender annotation (roots: 0).
    oids: FxHashMap<u32, u64>,
    /// Processes of a trace set already described.
    processes: Vec<u64>,
    buf: Vec<u8>,
    pkt: Vec<u8>,
    pub slices: u64,
}

impl<W: Write> PerfettoSink<W> {
    pub fn new(w: W, unit: Unit) -> Self {
        let nanos_per_unit = match unit {
            Unit::Ns => 1,
            Unit::Us => 1_000,
            Unit::Ms => 1_000_000,
            Unit::S => 1_000_000_000,
        };
        let mut s = PerfettoSink {
            w,
            err: None,
            nanos_per_unit,
            name_iids: Vec::new(),
            next_iid: 1,
            tracks: FxHashMap::default(),
            stacks: FxHashMap::default(),
            pending: None,
            oids: FxHashMap::default(),
            processes: Vec::new(),
            buf: Vec::with_capacity(256),
            pkt: Vec::with_capacity(256),
            slices: 0,
        };
        s.first_packets();
        s
    }

    /// Clears incremental state, interns the argument names and describes the process.
    fn first_packets(&mut self) {
        let mut interned = Vec::new();
        for (k, name) in ARGS.iter().enumerate() {
            let mut e = Vec::new();
            wire::uint(&mut e, 1, k as u64 + 1);
            wire::bytes(&mut e, 2, name.as_bytes());
            wire::bytes(&mut interned, ANNOTATION_NAMES, &e);
        }
        let mut p = Vec::new();
        wire::uint(&mut p, SEQUENCE_ID, SEQ);
        wire::uint(&mut p, SEQUENCE_FLAGS, INCREMENTAL_STATE_CLEARED);
        wire::bytes(&mut p, INTERNED_DATA, &interned);
        self.packet(&p);
        self.process_descriptor(PROCESS_UUID, PID, "revy trace");
    }

    fn process_descriptor(&mut self, uuid: u64, pid: u64, name: &str) {
        let mut proc_ = Vec::new();
        wire::uint(&mut proc_, 1, pid);
        wire::bytes(&mut proc_, 6, name.as_bytes());
        let mut td = Vec::new();
        wire::uint(&mut td, 1, uuid);
        wire::bytes(&mut td, 3, &proc_);
        let mut p = Vec::new();
        wire::uint(&mut p, SEQUENCE_ID, SEQ);
        wire::bytes(&mut p, TRACK_DESCRIPTOR, &td);
        self.packet(&p);
    }

    /// One `Trace.packet` (field 1).
    fn packet(&mut self, p: &[u8]) {
        if self.err.is_some() {
            return;
        }
        self.pkt.clear();
        wire::bytes(&mut self.pkt, 1, p);
        if let Err(e) = self.w.write_all(&self.pkt) {
            self.err = Some(e);
        }
    }

    /// Called with each start event before the walker: resolves its thread and name.
    pub fn prepare(&mut self, tid: u64, method: u32, names: &Names) {
        let m = method as usize;
        if self.name_iids.len() <= m {
            self.name_iids.resize(m + 1, 0);
        }
        let mut new_name = None;
        if self.name_iids[m] == 0 {
            self.name_iids[m] = self.next_iid;
            self.next_iid += 1;
            new_name = Some(
                names
                    .method(method)
                    .map_or("?".to_string(), |d| d.shown(names)),
            );
        }
        let mut new_track = None;
        if !self.tracks.contains_key(&tid) {
            let uuid = PROCESS_UUID + 1 + self.tracks.len() as u64;
            self.tracks.insert(tid, uuid);
            let name = names
                .thread_name(tid)
                .map_or_else(|| format!("thread {tid}"), str::to_string);
            let (pid, ltid) = split_tid(names, tid, PID);
            let (parent, new_proc) = if names.processes.is_empty() {
                (PROCESS_UUID, false)
            } else {
                let new = !self.processes.contains(&pid);
                if new {
                    self.processes.push(pid);
                }
                (PROCESS_SET_UUID | pid, new)
            };
            new_track = Some((uuid, name, pid, ltid, parent, new_proc));
        }
        self.pending = Some(Pending {
            tid,
            name_iid: self.name_iids[m],
            new_name,
            new_track,
        });
    }

    fn track_descriptor(&mut self, t: &NewTrack) {
        let (uuid, ref name, pid, tid, parent, new_proc) = *t;
        if new_proc {
            self.process_descriptor(parent, pid, &format!("revy trace, process {pid}"));
        }
        let mut th = Vec::new();
        wire::uint(&mut th, 1, pid);
        wire::uint(&mut th, 2, tid);
        wire::bytes(&mut th, 5, name.as_bytes());
        let mut td = Vec::new();
        wire::uint(&mut td, 1, uuid);
        wire::uint(&mut td, 5, parent);
        wire::bytes(&mut td, 4, &th);
        let mut p = Vec::new();
        wire::uint(&mut p, SEQUENCE_ID, SEQ);
        wire::bytes(&mut p, TRACK_DESCRIPTOR, &td);
        self.packet(&p);
    }

    fn annotation(ev: &mut Vec<u8>, name_iid: u64, v: u64) {
        let mut a = Vec::with_capacity(12);
        wire::uint(&mut a, ANNOTATION_NAME_IID, name_iid);
        wire::uint(&mut a, UINT_VALUE, v);
        wire::bytes(ev, DEBUG_ANNOTATIONS, &a);
    }

    /// Each event's flow (`[[events]]`): an instant named after its type at the start of
    /// each of its calls, on that call's thread, carrying the event's flow id, so Perfetto
    /// draws an arrow from one of its calls to the next across threads.
    pub fn event_flows(&mut self, steps: &[super::events::Step]) {
        for s in steps {
            let Some(&track) = self.tracks.get(&s.tid) else {
                continue;
            };
            let mut ev = Vec::with_capacity(48);
            wire::uint(&mut ev, TYPE, INSTANT);
            wire::uint(&mut ev, TRACK_UUID, track);
            wire::bytes(&mut ev, NAME, s.kind.as_bytes());
            let id = super::events::PERFETTO_FLOW_BASE | u64::from(s.event);
            let field = if s.last {
                TERMINATING_FLOW_IDS
            } else {
                FLOW_IDS
            };
            wire::fixed64(&mut ev, field, id);
            let mut pk = Vec::with_capacity(ev.len() + 24);
            wire::uint(&mut pk, TIMESTAMP, s.t * self.nanos_per_unit);
            wire::uint(&mut pk, SEQUENCE_ID, SEQ);
            wire::uint(&mut pk, SEQUENCE_FLAGS, NEEDS_INCREMENTAL_STATE);
            wire::bytes(&mut pk, TRACK_EVENT, &ev);
            self.packet(&pk);
        }
    }

    /// Flush and hand back the writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        if let Some(e) = self.err.take() {
            return Err(e);
        }
        self.w.flush()?;
        Ok(self.w)
    }
}

impl<W: Write> Sink for PerfettoSink<W> {
    fn started(&mut self, _parent: Option<u32>, _thread: usize, frame: &Frame) -> u32 {
        let Some(p) = self.pending.take() else {
            return 0;
        };
        if let Some(t) = &p.new_track {
            self.track_descriptor(t);
        }
        let track = self.tracks[&p.tid];
        self.oids.entry(frame.receiver).or_insert(frame.oid);
        let mut ev = std::mem::take(&mut self.buf);
        ev.clear();
        wire::uint(&mut ev, TYPE, SLICE_BEGIN);
        wire::uint(&mut ev, TRACK_UUID, track);
        wire::uint(&mut ev, NAME_IID, p.name_iid);
        Self::annotation(&mut ev, 1, frame.oid);
        Self::annotation(
            &mut ev,
            2,
            self.oids.get(&frame.sender).copied().unwrap_or(0),
        );
        if frame.size > 0 {
            Self::annotation(&mut ev, 3, frame.size);
        }
        // Flow ids are message order + 1 (0 is not a valid id).
        let own = frame.order + 1;
        let stack = self.stacks.entry(p.tid).or_default();
        if let Some(&parent) = stack.last() {
            wire::fixed64(&mut ev, FLOW_IDS, parent);
        }
        stack.push(own);
        wire::fixed64(&mut ev, FLOW_IDS, own);
        let mut pk = Vec::with_capacity(ev.len() + 32);
        wire::uint(&mut pk, TIMESTAMP, frame.start * self.nanos_per_unit);
        wire::uint(&mut pk, SEQUENCE_ID, SEQ);
        wire::uint(&mut pk, SEQUENCE_FLAGS, NEEDS_INCREMENTAL_STATE);
        if let Some(name) = &p.new_name {
            let mut e = Vec::new();
            wire::uint(&mut e, 1, p.name_iid);
            wire::bytes(&mut e, 2, name.as_bytes());
            let mut interned = Vec::new();
            wire::bytes(&mut interned, EVENT_NAMES, &e);
            wire::bytes(&mut pk, INTERNED_DATA, &interned);
        }
        wire::bytes(&mut pk, TRACK_EVENT, &ev);
        self.packet(&pk);
        self.buf = ev;
        self.slices += 1;
        0
    }

    fn closed(&mut self, c: &Closed, _instances: &[Instance], _names: &Names) {
        let Some(&track) = self.tracks.get(&c.tid) else {
            return;
        };
        if let Some(s) = self.stacks.get_mut(&c.tid) {
            s.pop();
        }
        let mut ev = std::mem::take(&mut self.buf);
        ev.clear();
        wire::uint(&mut ev, TYPE, SLICE_END);
        wire::uint(&mut ev, TRACK_UUID, track);
        let mut pk = Vec::with_capacity(32);
        wire::uint(&mut pk, TIMESTAMP, c.end * self.nanos_per_unit);
        wire::uint(&mut pk, SEQUENCE_ID, SEQ);
        wire::bytes(&mut pk, TRACK_EVENT, &ev);
        self.packet(&pk);
        self.buf = ev;
    }
}
