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

mod decode;
mod read;
#[cfg(test)]
mod tests;
mod write;

pub use write::{write_all, CompactWriter};

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
