//! Standard formats: Chrome Trace Event JSON, Perfetto protobuf, Graphviz DOT,
//! folded stacks. All requested outputs are produced in one streaming pass over the trace;
//! memory grows with instances, call paths and `--top`, never with events.

pub(crate) mod chrome;
pub(crate) mod dot;
pub(crate) mod events;
pub(crate) mod folded;
pub mod parquet;
pub(crate) mod perfetto;

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use crate::analyse::analysis::{self, Builder, Options};
use crate::analyse::trace::{Event, Names, TraceReader, Unit};
use crate::analyse::walk::{Closed, Frame, Instance, Sink, Walker};
use crate::error::{Error, Result};
use crate::instrument::events::EventDef;
use crate::instrument::remote::RemoteDef;
use events::Step;

#[derive(Debug, Default, Clone)]
pub struct Targets {
    pub chrome: Option<PathBuf>,
    pub perfetto: Option<PathBuf>,
    pub dot: Option<PathBuf>,
    pub folded: Option<PathBuf>,
    /// Folded frames as `Class#oid.method` instead of `Class.method`.
    pub by_instance: bool,
    /// What Chrome JSON, DOT and folded keep (Perfetto gets every message).
    pub filter: Filter,
    /// `[[events]]` of the manifest: Chrome JSON and Perfetto draw each event's flow.
    pub events: Vec<EventDef>,
    /// `[[remote]]` of the manifest: an event's flow continues into the server's process.
    pub remote: Vec<RemoteDef>,
}

/// Which messages the filtered formats keep; times are in the trace's unit.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    /// Drop messages whose aggregate time is below this.
    pub min_time: u64,
    /// Keep only messages that overlap `[from, to]`.
    pub from: Option<u64>,
    pub to: Option<u64>,
    /// Chrome: the N longest messages; DOT: the N edges with most net time; folded: the N
    /// heaviest stacks.
    pub top: Option<usize>,
}

impl Filter {
    fn is_active(&self) -> bool {
        self.min_time > 0 || self.from.is_some() || self.to.is_some()
    }

    /// `None` if kept, else why it was dropped.
    fn drops(&self, c: &Closed) -> Option<Dropped> {
        if c.aggregate < self.min_time {
            return Some(Dropped::Short);
        }
        let before = self.from.is_some_and(|f| c.end < f);
        let after = self.to.is_some_and(|t| c.frame.start > t);
        (before || after).then_some(Dropped::Window)
    }
}

enum Dropped {
    Short,
    Window,
}

#[derive(Debug, Default)]
pub struct Done {
    pub warnings: Vec<String>,
    /// (format, file) pairs written.
    pub written: Vec<(&'static str, PathBuf)>,
    /// What the filters and `--top` left out, one line per format.
    pub dropped: Vec<String>,
}

struct All {
    filter: Filter,
    short: u64,
    window: u64,
    messages: u64,
    builder: Option<Builder>,
    chrome: Option<chrome::ChromeSink<BufWriter<File>>>,
    perfetto: Option<perfetto::PerfettoSink<BufWriter<File>>>,
    folded: Option<folded::FoldedSink>,
    /// Follows the events when the manifest defines some (Chrome or Perfetto asked for).
    tracker: Option<crate::analyse::events::Tracker>,
}

impl Sink for All {
    fn entered(
        &mut self,
        parent: Option<u32>,
        thread: usize,
        tid: u64,
        frame: &Frame,
        names: &Names,
    ) -> u32 {
        if let Some(t) = &mut self.tracker {
            t.record_enter(thread, tid, frame, names);
        }
        self.started(parent, thread, frame)
    }
    fn created(&mut self, tid: u64, instance: u32, class: u32, size: Option<u64>, names: &Names) {
        if let Some(t) = &mut self.tracker {
            t.record_create(tid, instance, class, size, names);
        }
    }
    fn destroyed(&mut self, tid: u64, instance: u32, t: u64) {
        if let Some(tr) = &mut self.tracker {
            tr.record_destroy(tid, instance, t);
        }
    }
    fn started(&mut self, parent: Option<u32>, thread: usize, frame: &Frame) -> u32 {
        if let Some(p) = &mut self.perfetto {
            p.started(parent, thread, frame);
        }
        match &mut self.folded {
            Some(f) => f.started(parent, thread, frame),
            None => 0,
        }
    }
    fn keyed(&mut self, tid: u64, method: u32, key: u64, t: u64, names: &Names) {
        if let Some(tr) = &mut self.tracker {
            tr.record_key(tid, method, key, t, names);
        }
    }
    fn closed(&mut self, c: &Closed, instances: &[Instance], names: &Names) {
        if let Some(t) = &mut self.tracker {
            t.record_close(c, names);
        }
        self.messages += 1;
        if let Some(p) = &mut self.perfetto {
            p.closed(c, instances, names);
        }
        match self.filter.drops(c) {
            Some(why) => {
                match why {
                    Dropped::Short => self.short += 1,
                    Dropped::Window => self.window += 1,
                }
                if let Some(x) = &mut self.chrome {
                    x.skipped(c);
                }
            }
            None => {
                if let Some(b) = &mut self.builder {
                    b.closed(c, instances, names);
                }
                if let Some(x) = &mut self.chrome {
                    x.closed(c, instances, names);
                }
                if let Some(f) = &mut self.folded {
                    f.closed(c, instances, names);
                }
            }
        }
    }
    fn aggregated(
        &mut self,
        aggs: &crate::analyse::trace::agg::Aggregates,
        edges: &[crate::analyse::walk::Resolved],
        instances: &[Instance],
    ) {
        // The DOT graph covers the whole run: aggregated calls have no time, so the time
        // filters do not apply to them.
        if let Some(b) = &mut self.builder {
            b.aggregated(aggs, edges, instances);
        }
    }
}

fn create(path: &Path) -> Result<BufWriter<File>> {
    let f = File::create(path).map_err(|e| Error::io(path, e))?;
    Ok(BufWriter::with_capacity(1 << 16, f))
}

/// The walk of [`crate::analyse::walk::walk_trace`], telling the Perfetto sink each start's thread and
/// name before the walker opens the message.
fn walk(trace: &Path, sink: &mut All) -> Result<(TraceReader, Walker)> {
    let mut reader = TraceReader::open(trace)?;
    let mut walker = Walker::new();
    while let Some(ev) = reader.next_event()? {
        if let (Some(p), Event::Start { tid, method, .. }) = (&mut sink.perfetto, &ev) {
            p.prepare(*tid, *method, reader.names());
        }
        walker.event(&ev, reader.names(), sink);
    }
    walker.finish(reader.names(), sink);
    Ok((reader, walker))
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (k, c) in s.chars().enumerate() {
        if k > 0 && (s.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Write every requested export of the trace at `trace`.
pub fn export(trace: &Path, t: &Targets) -> Result<Done> {
    // Open the trace first so a bad trace leaves no half-written outputs behind.
    let mut probe = TraceReader::open(trace)?;
    probe.next_event()?;
    let unit = probe.header().unit;
    drop(probe);
    let mut sink = open_sinks(trace, t, unit)?;
    let (reader, mut walker) = walk(trace, &mut sink)?;
    let mut done = Done {
        warnings: reader.status().warnings.clone(),
        ..Done::default()
    };
    let base = kept_messages(&sink, &t.filter);
    let steps = flow_steps(&mut sink, reader.names());
    if let (Some(mut p), Some(path)) = (sink.perfetto.take(), &t.perfetto) {
        p.event_flows(&steps);
        p.finish().map_err(|e| Error::io(path, e))?;
        done.written.push(("Perfetto protobuf trace", path.clone()));
    }
    if let (Some(mut c), Some(p)) = (sink.chrome.take(), &t.chrome) {
        c.event_flows(&steps, reader.names());
        let written = c.finish(&walker, reader.names(), unit)?;
        done.written.push(("Chrome trace JSON", p.clone()));
        let filtered = sink.messages - sink.short - sink.window;
        let top = if written < filtered {
            format!("; --top kept the {} longest", thousands(written))
        } else {
            String::new()
        };
        done.dropped.push(format!("Chrome JSON: {base}{top}"));
    }
    if let (Some(f), Some(p)) = (sink.folded.take(), &t.folded) {
        let top = write_folded(&f, p, &walker, &reader, t.filter.top)?;
        done.written.push(("folded stacks", p.clone()));
        done.dropped.push(format!("folded: {base}{top}"));
    }
    if let (Some(b), Some(p)) = (sink.builder.take(), &t.dot) {
        let a = analysis::finish(trace, &Options::default(), b, &reader, &mut walker);
        let top = write_dot(&a, p, t.filter.top)?;
        done.written.push(("Graphviz DOT", p.clone()));
        done.dropped.push(format!("DOT: {base}{top}"));
    }
    Ok(done)
}

/// The events' flow steps, once the tracker applied its rules to the whole walk.
fn flow_steps(sink: &mut All, names: &Names) -> Vec<Step> {
    match &mut sink.tracker {
        Some(t) => {
            t.finish(names);
            events::steps(t)
        }
        None => Vec::new(),
    }
}

/// One sink per requested format, its file created (before the walk: a path that cannot be
/// written fails before any work).
fn open_sinks(trace: &Path, t: &Targets, unit: Unit) -> Result<All> {
    let chrome = match &t.chrome {
        Some(p) => {
            let mut c = chrome::ChromeSink::new(create(p)?, p.clone());
            c.set_unit(unit);
            c.set_top(t.filter.top);
            Some(c)
        }
        None => None,
    };
    let perfetto = match &t.perfetto {
        Some(p) => Some(perfetto::PerfettoSink::new(create(p)?, unit)),
        None => None,
    };
    Ok(All {
        filter: t.filter.clone(),
        short: 0,
        window: 0,
        messages: 0,
        builder: t.dot.as_ref().map(|_| Builder::new(&Options::default())),
        chrome,
        perfetto,
        folded: t
            .folded
            .as_ref()
            .map(|_| folded::FoldedSink::new(t.by_instance)),
        tracker: match !t.events.is_empty() && (t.chrome.is_some() || t.perfetto.is_some()) {
            true => Some(
                crate::analyse::events::Tracker::new(&t.events, Default::default())
                    .with_remote(&t.remote, trace)?,
            ),
            false => None,
        },
    })
}

/// What the filters kept, the start of each format's summary line.
fn kept_messages(sink: &All, filter: &Filter) -> String {
    if filter.is_active() {
        format!(
            "kept {} of {} messages (dropped {} shorter than --min-time, {} outside --from/--to)",
            thousands(sink.messages - sink.short - sink.window),
            thousands(sink.messages),
            thousands(sink.short),
            thousands(sink.window)
        )
    } else {
        format!("all {} messages", thousands(sink.messages))
    }
}

/// Writes the folded stacks to `p`; returns what `--top` and the path cap left out.
fn write_folded(
    f: &folded::FoldedSink,
    p: &Path,
    walker: &Walker,
    reader: &TraceReader,
    top: Option<usize>,
) -> Result<String> {
    let mut w = create(p)?;
    let (lines, stacks) = f
        .write(&mut w, walker, reader.names(), top)
        .and_then(|r| std::io::Write::flush(&mut w).map(|_| r))
        .map_err(|e| Error::io(p, e))?;
    let mut left = if lines < stacks {
        format!("; --top kept the {lines} heaviest of {stacks} stacks")
    } else {
        format!("; {stacks} stacks")
    };
    if f.folded_calls > 0 {
        left.push_str(&format!(
            "; over {} distinct call paths: {} calls on further paths counted in {} [other] frames",
            thousands(folded::MAX_STACKS as u64),
            thousands(f.folded_calls),
            thousands(f.other_frames() as u64)
        ));
    }
    if f.deeper_calls > 0 {
        left.push_str(&format!(
            "; stacks deeper than {} frames: {} calls counted in {} [deeper] frames",
            folded::MAX_DEPTH,
            thousands(f.deeper_calls),
            thousands(f.deeper_frames() as u64)
        ));
    }
    Ok(left)
}

/// Writes the DOT graph to `p`; returns what `--top` left out.
fn write_dot(a: &analysis::Analysis, p: &Path, top: Option<usize>) -> Result<String> {
    let mut w = create(p)?;
    let (kept, all) = dot::write(a, &mut w, top)
        .and_then(|r| std::io::Write::flush(&mut w).map(|_| r))
        .map_err(|e| Error::io(p, e))?;
    Ok(if kept < all {
        format!("; --top kept the {kept} edges with most net time of {all}")
    } else {
        format!("; {all} edges")
    })
}
