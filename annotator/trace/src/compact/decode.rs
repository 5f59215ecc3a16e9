//! The per-event decoders, always inlined into the block loop.

use super::*;

impl<R: Read> CompactReader<R> {
    /// A bare end (kind byte, time delta) at `self.pos`: (method, oid, time) of the thread's
    /// innermost open start, which it ends; `None` (with the reason) when it has none.
    #[inline(always)]
    pub(super) fn decode_bare(&mut self) -> Option<(u32, u64, u64)> {
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
    pub(super) fn decode_raw(&mut self) -> Option<RawEvent> {
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
