//! Reading a compact trace: the header, definitions and blocks; events decoded from a block.

use super::*;

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
            .push(crate::agg::Throttled {
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
        self.status.aggregates.estimates.push(crate::agg::Estimate {
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
        use crate::agg::{MethodAgg, ThreadAgg};
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
    fn edge_aggregate(&mut self, tid: u64) -> std::result::Result<crate::agg::EdgeAgg, Fail> {
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
        Ok(crate::agg::EdgeAgg {
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
            let f = crate::agg::FaultAgg {
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
            let x = crate::agg::ClassAgg {
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
