//! Writing the compact form, buffered per thread in blocks as a runtime does.

use super::*;

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
