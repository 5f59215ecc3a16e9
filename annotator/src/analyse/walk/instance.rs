//! The instances of the object graph (objects, classes' static receivers, thread roots),
//! their compact fields, the object-id index and their labels.

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::folded_label;

/// What an instance of the object graph stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InstKind {
    /// An object with an ID.
    Object,
    /// A class as receiver of static methods (`oid=0`).
    Class,
    /// A thread's root: the sender of the thread's outermost messages.
    Root,
}

/// One instance of the object graph in 40 bytes (a run can have millions): a root keeps its
/// thread id in the `oid` slot, absent size/creation/destruction are flag bits.
#[derive(Debug, Clone, Copy)]
pub struct Instance {
    id: u64,
    size: u64,
    created: u64,
    destroyed: u64,
    pub class: u32,
    pub kind: InstKind,
    /// Which of size, created, destroyed are known (bits 0, 1, 2); bit 3: a creation entry
    /// was read (with or without a time).
    has: u8,
}

impl Instance {
    pub(crate) fn new(kind: InstKind, class: u32, id: u64) -> Self {
        Instance {
            id,
            size: 0,
            created: 0,
            destroyed: 0,
            class,
            kind,
            has: 0,
        }
    }
    fn opt(&self, bit: u8, v: u64) -> Option<u64> {
        (self.has & bit != 0).then_some(v)
    }
    /// Object id (0 for a class or a root).
    pub fn oid(&self) -> u64 {
        if self.kind == InstKind::Root {
            0
        } else {
            self.id
        }
    }
    /// Thread of a root instance (0 otherwise).
    pub fn tid(&self) -> u64 {
        if self.kind == InstKind::Root {
            self.id
        } else {
            0
        }
    }
    pub fn size(&self) -> Option<u64> {
        self.opt(1, self.size)
    }
    pub fn created(&self) -> Option<u64> {
        self.opt(2, self.created)
    }
    pub fn destroyed(&self) -> Option<u64> {
        self.opt(4, self.destroyed)
    }
    /// The largest size logged: a derived part or a later runtime size.
    pub(super) fn log_size(&mut self, size: Option<u64>) {
        if let Some(s) = size.max(self.size()) {
            self.size = s;
            self.has |= 1;
        }
    }
    /// A creation entry was read for it (`created()` needs its time too).
    pub fn logged_created(&self) -> bool {
        self.has & 8 != 0
    }
    pub(super) fn set_created(&mut self, t: Option<u64>) {
        self.has |= 8;
        if let Some(t) = t {
            self.created = t;
            self.has |= 2;
        }
    }
    pub(super) fn set_destroyed(&mut self, t: u64) {
        self.destroyed = t;
        self.has |= 4;
    }
}

/// Object id → instance: runtimes count object ids up from 1, so ids up to a few times the
/// instance count index a dense table (4 bytes per id, no hashing); others go to a map.
#[derive(Default)]
pub(super) struct OidIndex {
    pub(super) dense: Vec<u32>,
    sparse: FxHashMap<u64, u32>,
}

impl OidIndex {
    const NONE: u32 = u32::MAX;
    /// Past this many cells (1 MiB) the table leaves the core's cache and lookups ahead pay.
    pub(super) const PREFETCH_FROM: usize = 1 << 18;
    #[inline]
    pub(super) fn get_or_insert(&mut self, oid: u64, next: u32) -> (u32, bool) {
        if let Some(&i) = self.dense.get(oid as usize) {
            if i != Self::NONE {
                return (i, false);
            }
        }
        if !self.sparse.is_empty() {
            if let Some(&i) = self.sparse.get(&oid) {
                return (i, false);
            }
        }
        // Dense while the table stays within 4 ids per instance (plus a start).
        let bound = 4 * next as u64 + (1 << 16);
        if oid < bound {
            let o = oid as usize;
            if o >= self.dense.len() {
                self.dense
                    .resize((o + 1).max(self.dense.len() * 5 / 4), Self::NONE);
            }
            self.dense[o] = next;
        } else {
            self.sparse.insert(oid, next);
        }
        (next, true)
    }
}

/// `Class#oid`, `Class (static)` or `root@tid`; in a trace set `Class#oid@pid`,
/// `Class (static)@pid` and `root@pid/tid`.
pub fn instance_label(i: &Instance, names: &crate::analyse::trace::Names) -> String {
    use crate::analyse::trace::multi::local;
    if let Some(l) = folded_label(i, names) {
        return l;
    }
    let pid = names.process_of(if i.kind == InstKind::Root {
        i.tid()
    } else {
        i.oid()
    });
    if let Some(pid) = pid {
        return match i.kind {
            InstKind::Object => format!("{}#{}@{pid}", names.class(i.class), local(i.oid())),
            InstKind::Class => format!("{} (static)@{pid}", names.class(i.class)),
            InstKind::Root => format!("root@{pid}/{}", local(i.tid())),
        };
    }
    match i.kind {
        InstKind::Object => format!("{}#{}", names.class(i.class), i.oid()),
        InstKind::Class => format!("{} (static)", names.class(i.class)),
        InstKind::Root => format!("root@{}", i.tid()),
    }
}
