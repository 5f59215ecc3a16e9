//! The text form (DTF): a byte scanner over a large buffer (no per-line allocation, no
//! regex) and the writer used by `revy trace print` and the generator.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;

use super::attr::{method_names, value};
use super::{Event, Header, Names, Status, BUF_SIZE};
use crate::error::{Error, Result};

/// The longest line read (a name-heavy C++ entry is a few KiB): a longer one is not a
/// trace's (`/dev/zero` would otherwise grow one line until memory runs out).
pub const MAX_LINE: usize = 16 << 20;

pub struct TextReader<R: Read> {
    r: BufReader<R>,
    path: PathBuf,
    pub names: Names,
    pub header: Header,
    pub status: Status,
    /// Bytes of a line that straddles two buffer fills.
    carry: Vec<u8>,
    line: u64,
    offset: u64,
    /// Something trace-like (an entry or a header) was seen: later damage is a warning.
    good: bool,
    done: bool,
    /// The first event, read ahead so the header is known once the reader exists.
    peeked: Option<Event>,
}

enum Line {
    Event(Event),
    /// A `#####` header/footer line.
    Meta,
    Skip,
    Bad(&'static str),
    /// Readable but wrong (e.g. an unknown time unit): an error wherever it is.
    Invalid(String),
}

impl<R: Read> TextReader<R> {
    pub fn new(path: PathBuf, r: R) -> Result<Self> {
        let mut me = TextReader {
            r: BufReader::with_capacity(BUF_SIZE, r),
            path,
            names: Names::default(),
            header: Header::default(),
            status: Status::default(),
            carry: Vec::new(),
            line: 0,
            offset: 0,
            good: false,
            done: false,
            peeked: None,
        };
        me.peeked = me.read_event()?;
        if me.peeked.is_none() && !me.good {
            return Err(Error::input(format!(
                "{}: no header and no entries: not a Revy trace",
                me.path.display()
            )));
        }
        Ok(me)
    }

    pub fn bytes_read(&self) -> u64 {
        self.offset
    }

    #[inline]
    pub fn next_event(&mut self) -> Result<Option<Event>> {
        match self.peeked.take() {
            Some(e) => Ok(Some(e)),
            None => self.read_event(),
        }
    }

    fn read_event(&mut self) -> Result<Option<Event>> {
        while !self.done {
            let buf = self.r.fill_buf().map_err(|e| Error::io(&self.path, e))?;
            if buf.is_empty() {
                self.done = true;
                if self.carry.is_empty() {
                    break;
                }
                // A last line without newline: fine if complete, else the run was cut.
                let line = std::mem::take(&mut self.carry);
                self.line += 1;
                let parsed = parse_line(&line, &mut self.names, &mut self.header, &mut self.status);
                let r = self.handle(parsed, &line, true);
                self.offset += line.len() as u64;
                return r;
            }
            let Some(i) = memchr::memchr(b'\n', buf) else {
                // The line straddles buffer fills: keep its start, up to a bound.
                if self.carry.len() + buf.len() > MAX_LINE {
                    self.line += 1;
                    let start = std::mem::take(&mut self.carry);
                    self.done = true;
                    return self.handle(Line::Bad("a line longer than 16 MiB"), &start, false);
                }
                self.carry.extend_from_slice(buf);
                let n = buf.len();
                self.r.consume(n);
                continue;
            };
            self.line += 1;
            let (parsed, len, bad);
            if self.carry.is_empty() {
                parsed = parse_line(
                    &buf[..i],
                    &mut self.names,
                    &mut self.header,
                    &mut self.status,
                );
                len = i;
                bad = matches!(parsed, Line::Bad(_)).then(|| buf[..i].to_vec());
            } else {
                self.carry.extend_from_slice(&buf[..i]);
                parsed = parse_line(
                    &self.carry,
                    &mut self.names,
                    &mut self.header,
                    &mut self.status,
                );
                len = self.carry.len();
                bad = matches!(parsed, Line::Bad(_)).then(|| self.carry.clone());
                self.carry.clear();
            }
            self.r.consume(i + 1);
            match parsed {
                Line::Skip => self.offset += len as u64 + 1,
                Line::Meta => {
                    self.offset += len as u64 + 1;
                    self.good = true;
                }
                Line::Event(ev) => {
                    self.offset += len as u64 + 1;
                    self.good = true;
                    return Ok(Some(ev));
                }
                bad_line => return self.handle(bad_line, &bad.unwrap_or_default(), false),
            }
        }
        Ok(None)
    }

    fn handle(&mut self, parsed: Line, line: &[u8], last: bool) -> Result<Option<Event>> {
        match parsed {
            Line::Event(ev) => {
                self.good = true;
                Ok(Some(ev))
            }
            Line::Skip | Line::Meta => Ok(None),
            Line::Invalid(why) => Err(Error::input(format!(
                "{}:{}: {why}",
                self.path.display(),
                self.line
            ))),
            Line::Bad(why) => {
                let shown: String = String::from_utf8_lossy(&line[..line.len().min(60)])
                    .chars()
                    .filter(|c| !c.is_control())
                    .collect();
                if !self.good {
                    return Err(Error::input(format!(
                        "{}:{} (byte {}): not a Revy trace ({why}): `{shown}`",
                        self.path.display(),
                        self.line,
                        self.offset
                    )));
                }
                let what = if last { "trace ends mid-entry" } else { why };
                self.status.cut_short = true;
                self.status.warnings.push(format!(
                    "{}:{} (byte {}): {what}; analysed up to the previous line",
                    self.path.display(),
                    self.line,
                    self.offset
                ));
                self.done = true;
                Ok(None)
            }
        }
    }
}

fn parse_u64(v: &[u8]) -> Option<u64> {
    if v.is_empty() || v.len() > 20 {
        return None;
    }
    let mut n: u64 = 0;
    for &b in v {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(d as u64)?;
    }
    Some(n)
}

/// Parse one line (without its `\n`) into an event, a header/footer, or why it is bad.
fn parse_line(line: &[u8], names: &mut Names, header: &mut Header, status: &mut Status) -> Line {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.starts_with(b"##### revy-trace ") && status.headers_seen {
        return Line::Bad(
            "a second trace begins here (traces joined end to end: pass them as separate files)",
        );
    }
    if line.starts_with(b"#####") {
        return match comment(&line[5..], names, header, status) {
            Ok(()) => Line::Meta,
            Err(why) => Line::Invalid(why),
        };
    }
    let line = trim_start(line);
    if line.is_empty() {
        return Line::Skip;
    }
    let Some((kind, rest)) = entry_kind(line) else {
        return Line::Bad("unknown entry");
    };
    // The last `>` closes the entry: C++ names such as `Box<int>` may hold one.
    let Some(close) = memchr::memrchr(b'>', rest) else {
        return Line::Bad("entry without closing `>`");
    };
    match Attrs::parse(&rest[..close]) {
        Ok(a) => a.into_line(kind, names),
        Err(why) => Line::Bad(why),
    }
}

/// What an entry records, from its opening tag.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Create,
    Destroy,
    Start,
    End,
    Key,
}

/// The entry's kind and the text after its tag; `None` for an unknown entry.
#[inline]
fn entry_kind(line: &[u8]) -> Option<(Kind, &[u8])> {
    if let Some(r) = line.strip_prefix(b"</Msg") {
        Some((Kind::End, r))
    } else if let Some(r) = line.strip_prefix(b"<Msg") {
        Some((Kind::Start, r))
    } else if let Some(r) = line.strip_prefix(b"<Crt") {
        Some((Kind::Create, r))
    } else if let Some(r) = line.strip_prefix(b"<Dst") {
        Some((Kind::Destroy, r))
    } else if let Some(r) = line.strip_prefix(b"<Key") {
        Some((Kind::Key, r))
    } else {
        None
    }
}

/// An entry's attributes as written: borrowed from the line, checked by `into_line`.
#[derive(Default)]
struct Attrs<'a> {
    /// `None` when absent (`cls=` with nothing after it is present and empty).
    cls: Option<&'a [u8]>,
    mth: Option<&'a [u8]>,
    sgn: &'a [u8],
    oid: Option<u64>,
    size: Option<u64>,
    tid: Option<u64>,
    t: Option<u64>,
    cpu: Option<u64>,
    key: Option<u64>,
}

impl<'a> Attrs<'a> {
    /// Read the space-separated `key=value` pairs; the first bad one says why.
    #[inline]
    fn parse(mut attrs: &'a [u8]) -> Result<Self, &'static str> {
        let mut a = Attrs::default();
        loop {
            attrs = trim_start(attrs);
            if attrs.is_empty() {
                return Ok(a);
            }
            let end = memchr::memchr(b' ', attrs).unwrap_or(attrs.len());
            let pair = &attrs[..end];
            attrs = &attrs[end..];
            let Some(eq) = memchr::memchr(b'=', pair) else {
                return Err("attribute without `=`");
            };
            a.set(&pair[..eq], &pair[eq + 1..])?;
        }
    }

    /// Record one attribute; numbers must parse, unknown keys are ignored.
    #[inline]
    fn set(&mut self, k: &[u8], v: &'a [u8]) -> Result<(), &'static str> {
        let num = || parse_u64(v).ok_or("bad number");
        match k {
            b"cls" => self.cls = Some(v),
            b"mth" => self.mth = Some(v),
            b"sgn" => self.sgn = v,
            b"oid" => self.oid = Some(num()?),
            b"size" => self.size = Some(num()?),
            b"tid" => self.tid = Some(num()?),
            b"t" => self.t = Some(num()?),
            b"cpu" => self.cpu = Some(num()?),
            b"key" => self.key = Some(num()?),
            _ => {} // unknown attributes are ignored
        }
        Ok(())
    }

    /// The event of a `kind` entry, or which required attribute is missing.
    #[inline]
    fn into_line(self, kind: Kind, names: &mut Names) -> Line {
        let Some(cls) = self.cls else {
            return Line::Bad("entry without cls=");
        };
        let oid = match (self.oid, kind) {
            (Some(oid), _) => oid,
            (None, Kind::Key) => 0,
            (None, _) => return Line::Bad("entry without oid="),
        };
        let tid = self.tid.unwrap_or(0);
        let t = self.t;
        Line::Event(match kind {
            Kind::Create => Event::Create {
                tid,
                class: names.intern_class(cls),
                oid,
                size: self.size,
                t,
            },
            Kind::Destroy => Event::Destroy {
                tid,
                class: names.intern_class(cls),
                oid,
                t,
            },
            Kind::Key => return self.key_line(cls, names),
            Kind::Start | Kind::End => {
                let Some(mth) = self.mth else {
                    return Line::Bad("message without mth=");
                };
                let Some(t) = t else {
                    return Line::Bad("message without t=");
                };
                let method = names.intern_method(cls, mth, self.sgn);
                if kind == Kind::Start {
                    let size = self.size.unwrap_or(0);
                    Event::Start {
                        tid,
                        method,
                        oid,
                        size,
                        t,
                    }
                } else {
                    Event::End {
                        tid,
                        method,
                        oid,
                        t,
                        cpu: self.cpu,
                    }
                }
            }
        })
    }
}

impl Attrs<'_> {
    /// A `<Key cls= mth= sgn= key= tid= t=>` entry.
    fn key_line(self, cls: &[u8], names: &mut Names) -> Line {
        let (Some(mth), Some(key), Some(t)) = (self.mth, self.key, self.t) else {
            return Line::Bad("key entry without mth=, key= or t=");
        };
        Line::Event(Event::Key {
            tid: self.tid.unwrap_or(0),
            method: names.intern_method(cls, mth, self.sgn),
            key,
            t,
        })
    }
}

fn trim_start(mut s: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = s {
        s = rest;
    }
    s
}

/// Header and footer lines; anything unrecognised is a comment. `Err` for a header that is
/// wrong rather than unknown (an unknown time unit).
fn comment(
    body: &[u8],
    names: &mut Names,
    header: &mut Header,
    status: &mut Status,
) -> Result<(), String> {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    let mut words = text.split_ascii_whitespace();
    let first = words.next().unwrap_or("");
    let value = |key: &str| {
        text.split_ascii_whitespace()
            .find_map(|w| w.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
            .map(str::to_string)
    };
    if super::agg::parse_text(first, text, names, &mut status.aggregates)? {
        return Ok(());
    }
    match first {
        "revy-trace" => {
            let rest = text.split_once(' ').map_or("", |x| x.1);
            let version = rest.split_ascii_whitespace().next().unwrap_or("");
            if version != "1" {
                return Err(format!(
                    "trace format version {}; this revy reads 1",
                    super::escape_name(version.as_bytes())
                ));
            }
            let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
            *header = Header::from_pairs(rest)?;
            status.headers_seen = true;
        }
        "thread" => {
            if let (Some(tid), Some(name)) = (value("tid"), value("name")) {
                if let Ok(tid) = tid.parse() {
                    names
                        .threads
                        .insert(tid, super::escape_name(name.as_bytes()));
                }
            }
        }
        "truncated" => {
            status.truncated_at_size =
                Some(value("max_size").and_then(|v| v.parse().ok()).unwrap_or(0));
        }
        "end" => {
            status.clean_end = Some(value("events").and_then(|v| v.parse().ok()).unwrap_or(0));
        }
        // The thesis's logger writes `starts @ …` and `done @ …`.
        "Revy-Logger:" if text.contains(" done") => status.clean_end = Some(0),
        _ => {
            if header.raw.is_none() && header.fields.is_empty() {
                header.raw = Some(super::escape_name(text.as_bytes()));
            }
        }
    }
    Ok(())
}

/// Writes text DTF with the fixed attribute order of FORMAT.md.
pub struct TextWriter<W: Write> {
    w: W,
}

impl<W: Write> TextWriter<W> {
    pub fn new(w: W) -> Self {
        TextWriter { w }
    }
    pub fn header(&mut self, h: &Header) -> std::io::Result<()> {
        write!(self.w, "##### revy-trace 1 unit={}", h.unit.as_str())?;
        for (k, v) in &h.fields {
            write!(self.w, " {k}={}", v.replace(' ', "_"))?;
        }
        writeln!(self.w)
    }
    pub fn thread(&mut self, tid: u64, name: &str) -> std::io::Result<()> {
        writeln!(
            self.w,
            "##### thread tid={tid} name={}",
            name.replace(' ', "_")
        )
    }
    /// Lines written as they are (`agg::text_lines`).
    pub fn raw(&mut self, lines: &str) -> std::io::Result<()> {
        self.w.write_all(lines.as_bytes())
    }
    pub fn truncated(&mut self, max: u64) -> std::io::Result<()> {
        writeln!(self.w, "##### truncated max_size={max}")
    }
    pub fn end(&mut self, events: u64) -> std::io::Result<()> {
        writeln!(self.w, "##### end events={events}")
    }
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }
    pub fn event(&mut self, ev: &Event, names: &Names) -> std::io::Result<()> {
        let w = &mut self.w;
        match *ev {
            Event::Create {
                tid,
                class,
                oid,
                size,
                t,
            } => {
                write!(w, "<Crt cls={} oid={oid}", value(names.class(class)))?;
                if let Some(s) = size {
                    write!(w, " size={s}")?;
                }
                write!(w, " tid={tid}")?;
                if let Some(t) = t {
                    write!(w, " t={t}")?;
                }
                writeln!(w, ">")
            }
            Event::Destroy { tid, class, oid, t } => {
                write!(
                    w,
                    "<Dst cls={} oid={oid} tid={tid}",
                    value(names.class(class))
                )?;
                if let Some(t) = t {
                    write!(w, " t={t}")?;
                }
                writeln!(w, ">")
            }
            Event::Start {
                tid,
                method,
                oid,
                size,
                t,
            } => {
                let (c, m, s) = method_names(names, method);
                writeln!(
                    w,
                    "<Msg cls={c} oid={oid} mth={m} sgn={s} size={size} tid={tid} t={t}>"
                )
            }
            Event::End {
                tid,
                method,
                oid,
                t,
                cpu,
            } => {
                let (c, m, s) = method_names(names, method);
                write!(w, "</Msg cls={c} oid={oid} mth={m} sgn={s} tid={tid} t={t}")?;
                match cpu {
                    Some(cpu) => writeln!(w, " cpu={cpu}>"),
                    None => writeln!(w, ">"),
                }
            }
            Event::Key {
                tid,
                method,
                key,
                t,
            } => {
                let (c, m, s) = method_names(names, method);
                writeln!(w, "<Key cls={c} mth={m} sgn={s} key={key} tid={tid} t={t}>")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(text: &str) -> (Vec<Event>, TextReader<&[u8]>) {
        let mut r = TextReader::new("t.dtf".into(), text.as_bytes()).unwrap();
        assert!(r.header.unit == crate::Unit::Ms || text.contains("unit="));
        let mut v = Vec::new();
        while let Some(e) = r.next_event().unwrap() {
            v.push(e);
        }
        (v, r)
    }

    #[test]
    fn reads_thesis_variations_and_unit() {
        let (ev, r) = read_all(
            "##### Revy-Logger: starts @ x\n<Crt cls=A oid=1 tid=0 t=5>\n<Crt cls=A oid=2 size=16 tid=0>\n\
             <Msg cls=A oid=1 mth=f sgn=!! size=0 tid=0 t=7>\n</Msg cls=A oid=1 mth=f sgn=!! tid=0 t=9>\n",
        );
        assert_eq!(ev.len(), 4);
        assert_eq!(r.header.unit, crate::Unit::Ms);
        assert!(matches!(
            ev[1],
            Event::Create {
                size: Some(16),
                t: None,
                ..
            }
        ));
        assert!(matches!(ev[3], Event::End { t: 9, .. }));
    }

    #[test]
    fn header_unit_and_cut_line() {
        let (ev, r) = read_all(
            "##### revy-trace 1 unit=ns lang=java\n<Msg cls=A oid=1 mth=f sgn=!! size=0 tid=3 t=7>\n</Msg cls=A oid=1 mth",
        );
        assert_eq!(ev.len(), 1);
        assert_eq!(r.header.unit, crate::Unit::Ns);
        assert!(r.status.cut_short);
        assert!(
            r.status.warnings[0].contains("t.dtf:3"),
            "{:?}",
            r.status.warnings
        );
    }

    #[test]
    fn garbage_is_an_error_with_line() {
        let e = TextReader::new("g.bin".into(), &b"\x7fELF garbage\n"[..])
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("g.bin:1 (byte 0): not a Revy trace"), "{e}");
    }
}
