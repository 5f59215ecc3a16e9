//! `revy export --parquet DIR`: the trace as four Parquet tables (`messages`, `instances`,
//! `methods`, `threads`; with `[[events]]` a fifth, `events`) for engines that scale past one process's memory (DuckDB, Spark,
//! Trino); docs/parquet.md has the queries. Messages stream out in row groups of
//! [`ROW_GROUP`] rows, so memory stays bounded whatever the trace's length. Each file is
//! written beside its final name and renamed when complete: no partial tables.
//! Times are in the trace's unit (file metadata `revy.unit`).

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parquet::basic::{Compression, Encoding, Repetition, Type as Physical};
use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::Type;

use crate::analyse::events::{Tracked, Tracker};
use crate::analyse::trace::{Names, TraceReader};
use crate::analyse::walk::{instance_label, walk_trace};
use crate::analyse::walk::{Closed, InstKind, Instance, Sink, Walker};
use crate::error::{Error, Result};
use crate::instrument::events::EventDef;
use crate::instrument::remote::RemoteDef;

/// Rows per row group of `messages`: about 12 columns × 8 bytes × this in memory.
pub(crate) const ROW_GROUP: usize = 1 << 18;

const MESSAGES: &str = "message messages {
  REQUIRED INT64 id; REQUIRED INT64 process; REQUIRED INT64 thread;
  REQUIRED INT64 sender; REQUIRED INT64 receiver; REQUIRED INT64 method;
  REQUIRED INT64 start; REQUIRED INT64 end; REQUIRED INT64 aggregate; REQUIRED INT64 net;
  REQUIRED INT64 size; REQUIRED INT64 depth; }";
const INSTANCES: &str = "message instances {
  REQUIRED INT64 process; REQUIRED INT64 id; REQUIRED BYTE_ARRAY kind (UTF8);
  REQUIRED BYTE_ARRAY label (UTF8); OPTIONAL BYTE_ARRAY class (UTF8); REQUIRED INT64 oid;
  OPTIONAL INT64 thread; OPTIONAL INT64 size; OPTIONAL INT64 created;
  OPTIONAL INT64 destroyed; }";
const METHODS: &str = "message methods {
  REQUIRED INT64 process; REQUIRED INT64 id; REQUIRED BYTE_ARRAY class (UTF8);
  REQUIRED BYTE_ARRAY method (UTF8); REQUIRED BYTE_ARRAY signature (UTF8);
  REQUIRED INT64 calls; REQUIRED INT64 aggregate; REQUIRED INT64 net; REQUIRED INT64 size; }";
const THREADS: &str = "message threads {
  REQUIRED INT64 process; REQUIRED INT64 thread; OPTIONAL BYTE_ARRAY name (UTF8);
  REQUIRED INT64 root; REQUIRED INT64 messages; REQUIRED INT64 total_time; }";

const EVENTS: &str = "message events {
  REQUIRED INT64 process; REQUIRED INT64 id; REQUIRED BYTE_ARRAY type (UTF8);
  REQUIRED BYTE_ARRAY name (UTF8); REQUIRED INT64 start; REQUIRED INT64 end;
  REQUIRED INT64 latency; REQUIRED INT64 work; REQUIRED INT64 waiting;
  REQUIRED INT64 objects; REQUIRED INT64 bytes; REQUIRED INT64 threads;
  REQUIRED INT64 segments; }";

/// One column's buffered values; `None` entries of optional columns become nulls.
enum Col {
    Int(Vec<i64>),
    OptInt(Vec<Option<i64>>),
    Str(Vec<ByteArray>),
    OptStr(Vec<Option<ByteArray>>),
}

impl Col {
    fn clear(&mut self) {
        match self {
            Col::Int(v) => v.clear(),
            Col::OptInt(v) => v.clear(),
            Col::Str(v) => v.clear(),
            Col::OptStr(v) => v.clear(),
        }
    }
}

fn defs<T>(v: &[Option<T>]) -> Vec<i16> {
    v.iter().map(|x| x.is_some() as i16).collect()
}

/// A table being written: its columns' buffers and the file, flushed a row group at a time.
struct Table {
    tmp: PathBuf,
    path: PathBuf,
    writer: SerializedFileWriter<BufWriter<File>>,
    cols: Vec<Col>,
    rows: usize,
}

fn perr(path: &Path, e: parquet::errors::ParquetError) -> Error {
    Error::io(path, std::io::Error::other(e))
}

impl Table {
    /// The table `name` with `schema` (INT64 and UTF8 columns, required or optional).
    fn create(dir: &Path, name: &str, schema: &str, unit: &str) -> Result<Table> {
        let path = dir.join(format!("{name}.parquet"));
        let tmp = dir.join(format!(".{name}.parquet.tmp"));
        let schema = Arc::new(parse_message_type(schema).map_err(|e| perr(&path, e))?);
        let cols = columns(&schema);
        let mut props = WriterProperties::builder().set_compression(Compression::SNAPPY);
        if name == "messages" {
            // All INT64, mostly increasing or small: delta encoding beats dictionaries.
            props = props
                .set_dictionary_enabled(false)
                .set_encoding(Encoding::DELTA_BINARY_PACKED);
        }
        let props = props
            .set_key_value_metadata(Some(vec![KeyValue::new(
                "revy.unit".into(),
                unit.to_string(),
            )]))
            .build();
        let file = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
        let writer = SerializedFileWriter::new(BufWriter::new(file), schema, Arc::new(props))
            .map_err(|e| perr(&path, e))?;
        Ok(Table {
            tmp,
            path,
            writer,
            cols,
            rows: 0,
        })
    }

    fn int(&mut self, c: usize, v: i64) {
        if let Col::Int(x) = &mut self.cols[c] {
            x.push(v);
        }
    }
    fn opt_int(&mut self, c: usize, v: Option<u64>) {
        if let Col::OptInt(x) = &mut self.cols[c] {
            x.push(v.map(|v| v as i64));
        }
    }
    fn str(&mut self, c: usize, v: &str) {
        if let Col::Str(x) = &mut self.cols[c] {
            x.push(ByteArray::from(v));
        }
    }
    fn opt_str(&mut self, c: usize, v: Option<&str>) {
        if let Col::OptStr(x) = &mut self.cols[c] {
            x.push(v.map(ByteArray::from));
        }
    }

    /// One row is complete; writes a row group when the buffers are full.
    fn row(&mut self) -> Result<()> {
        self.rows += 1;
        if self.rows >= ROW_GROUP {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let path = self.path.clone();
        let e = |e| perr(&path, e);
        let mut rg = self.writer.next_row_group().map_err(e)?;
        for col in &mut self.cols {
            let mut w = rg.next_column().map_err(e)?.ok_or_else(|| {
                Error::input(format!("{}: schema and columns disagree", path.display()))
            })?;
            match col {
                Col::Int(v) => w.typed::<Int64Type>().write_batch(v, None, None),
                Col::OptInt(v) => {
                    let vals: Vec<i64> = v.iter().flatten().copied().collect();
                    w.typed::<Int64Type>()
                        .write_batch(&vals, Some(&defs(v)), None)
                }
                Col::Str(v) => w.typed::<ByteArrayType>().write_batch(v, None, None),
                Col::OptStr(v) => {
                    let vals: Vec<ByteArray> = v.iter().flatten().cloned().collect();
                    w.typed::<ByteArrayType>()
                        .write_batch(&vals, Some(&defs(v)), None)
                }
            }
            .map_err(e)?;
            w.close().map_err(e)?;
            col.clear();
        }
        rg.close().map_err(e)?;
        self.rows = 0;
        Ok(())
    }

    fn finish(mut self) -> Result<PathBuf> {
        self.flush()?;
        let path = self.path.clone();
        let mut w = self.writer.into_inner().map_err(|e| perr(&path, e))?;
        std::io::Write::flush(&mut w).map_err(|e| Error::io(&self.tmp, e))?;
        std::fs::rename(&self.tmp, &path).map_err(|e| Error::io(&path, e))?;
        Ok(path)
    }
}

/// One empty buffer per column of `schema`, typed as the schema says.
fn columns(schema: &Type) -> Vec<Col> {
    let optional = |f: &Type| f.get_basic_info().repetition() == Repetition::OPTIONAL;
    schema
        .get_fields()
        .iter()
        .map(|f| match (f.get_physical_type(), optional(f)) {
            (Physical::INT64, false) => Col::Int(Vec::new()),
            (Physical::INT64, true) => Col::OptInt(Vec::new()),
            (_, false) => Col::Str(Vec::new()),
            (_, true) => Col::OptStr(Vec::new()),
        })
        .collect()
}

/// Per-method totals, kept while messages stream by.
#[derive(Default, Clone, Copy)]
struct MethodAcc {
    calls: u64,
    aggregate: u64,
    net: u64,
    size: u64,
}

struct ParquetSink {
    process: i64,
    messages: Table,
    methods: Vec<MethodAcc>,
    error: Option<Error>,
}

impl Sink for ParquetSink {
    fn closed(&mut self, c: &Closed, _instances: &[Instance], _names: &Names) {
        if self.error.is_some() {
            return;
        }
        let f = &c.frame;
        let m = &mut self.messages;
        let vals = [
            f.order as i64,
            self.process,
            c.tid as i64,
            f.sender as i64,
            f.receiver as i64,
            f.method as i64,
            f.start as i64,
            c.end as i64,
            c.aggregate as i64,
            c.net as i64,
            f.size as i64,
            c.outer.len() as i64,
        ];
        for (i, v) in vals.into_iter().enumerate() {
            m.int(i, v);
        }
        if let Err(e) = m.row() {
            self.error = Some(e);
        }
        let i = f.method as usize;
        if self.methods.len() <= i {
            self.methods.resize(i + 1, MethodAcc::default());
        }
        let a = &mut self.methods[i];
        a.calls += 1;
        a.aggregate += c.aggregate;
        a.net += c.net;
        a.size += f.size;
    }
    /// The methods table covers the whole run: calls the runtime aggregated count too (the
    /// messages table holds the recorded ones).
    fn aggregated(
        &mut self,
        aggs: &crate::analyse::trace::agg::Aggregates,
        _edges: &[crate::analyse::walk::Resolved],
        _instances: &[Instance],
    ) {
        for m in &aggs.methods {
            let i = m.method as usize;
            if self.methods.len() <= i {
                self.methods.resize(i + 1, MethodAcc::default());
            }
            let a = &mut self.methods[i];
            a.calls += m.calls;
            a.aggregate += m.agg;
            a.net = a.net.saturating_add_signed(m.net);
            a.size += m.size;
        }
    }
}

/// The process id of a trace: its header's `pid`, else 0.
fn process_of(r: &TraceReader) -> i64 {
    r.header()
        .fields
        .iter()
        .find(|(k, _)| k == "pid")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0)
}

/// Write the four tables of `trace` into `dir` (created if missing), and the `events` table
/// when `events` defines some (followed across processes through `remote`'s calls);
/// returns their paths.
pub fn export(
    trace: &Path,
    dir: &Path,
    events: &[EventDef],
    remote: &[RemoteDef],
) -> Result<(Vec<PathBuf>, Vec<String>)> {
    let mut probe = TraceReader::open(trace)?;
    probe.next_event()?;
    let process = process_of(&probe);
    let unit = probe.header().unit.as_str();
    drop(probe);
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let messages = Table::create(dir, "messages", MESSAGES, unit)?;
    let mut sink = ParquetSink {
        process,
        messages,
        methods: Vec::new(),
        error: None,
    };
    let mut tracker = match events.is_empty() {
        true => None,
        false => Some(Tracker::new(events, Default::default()).with_remote(remote, trace)?),
    };
    let (reader, walker) = match &mut tracker {
        Some(t) => walk_trace(trace, &mut Tracked::new(&mut sink, t))?,
        None => walk_trace(trace, &mut sink)?,
    };
    if let Some(e) = sink.error {
        return Err(e);
    }
    let names = reader.names();
    let mut out = vec![sink.messages.finish()?];
    out.push(instances(dir, unit, process, &walker, names)?);
    out.push(methods(dir, unit, process, &sink.methods, names)?);
    out.push(threads(dir, unit, process, &walker, names)?);
    if let Some(t) = &mut tracker {
        t.finish(names);
        out.push(events_table(dir, unit, process, t)?);
    }
    Ok((out, reader.status().warnings.clone()))
}

fn events_table(dir: &Path, unit: &str, p: i64, tracker: &Tracker) -> Result<PathBuf> {
    let mut t = Table::create(dir, "events", EVENTS, unit)?;
    for r in super::events::rows(tracker) {
        t.int(0, p);
        t.int(1, r.id as i64);
        t.str(2, r.kind);
        t.str(3, r.name);
        for (i, v) in r.ints.into_iter().enumerate() {
            t.int(4 + i, v as i64);
        }
        t.row()?;
    }
    t.finish()
}

fn instances(dir: &Path, unit: &str, p: i64, w: &Walker, names: &Names) -> Result<PathBuf> {
    let mut t = Table::create(dir, "instances", INSTANCES, unit)?;
    for (id, i) in w.instances.iter().enumerate() {
        let root = i.kind == InstKind::Root;
        t.int(0, p);
        t.int(1, id as i64);
        t.str(
            2,
            match i.kind {
                InstKind::Object => "object",
                InstKind::Class => "class",
                InstKind::Root => "root",
            },
        );
        t.str(3, &instance_label(i, names));
        t.opt_str(4, (!root).then(|| names.class(i.class)));
        t.int(5, i.oid() as i64);
        t.opt_int(6, root.then_some(i.tid()));
        t.opt_int(7, i.size());
        t.opt_int(8, i.created());
        t.opt_int(9, i.destroyed());
        t.row()?;
    }
    t.finish()
}

fn methods(dir: &Path, unit: &str, p: i64, acc: &[MethodAcc], names: &Names) -> Result<PathBuf> {
    let mut t = Table::create(dir, "methods", METHODS, unit)?;
    for (id, a) in acc.iter().enumerate().filter(|(_, a)| a.calls > 0) {
        let (class, name, sig) = match names.method(id as u32) {
            Some(m) => (names.class(m.class), m.name.as_str(), m.signature.as_str()),
            None => ("?", "?", ""),
        };
        t.int(0, p);
        t.int(1, id as i64);
        t.str(2, class);
        t.str(3, name);
        t.str(4, sig);
        let vals = [a.calls, a.aggregate, a.net, a.size];
        for (i, v) in vals.into_iter().enumerate() {
            t.int(5 + i, v as i64);
        }
        t.row()?;
    }
    t.finish()
}

fn threads(dir: &Path, unit: &str, p: i64, w: &Walker, names: &Names) -> Result<PathBuf> {
    let mut t = Table::create(dir, "threads", THREADS, unit)?;
    for th in &w.threads {
        t.int(0, p);
        t.int(1, th.tid as i64);
        t.opt_str(2, names.thread_name(th.tid));
        t.int(3, th.root as i64);
        t.int(4, th.messages as i64);
        t.int(5, th.total as i64);
        t.row()?;
    }
    t.finish()
}
