//! Standard formats (SPEC §10): Chrome Trace Event JSON, Graphviz DOT, folded stacks.
//! All requested outputs are produced in one streaming pass over the trace.

pub mod chrome;
pub mod dot;
pub mod folded;
pub mod parquet;

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use crate::analysis::walk::{Closed, Frame, Instance, Sink};
use crate::analysis::{self, Builder, Options};
use crate::error::{Error, Result};
use crate::trace::Names;

#[derive(Debug, Default, Clone)]
pub struct Targets {
    pub chrome: Option<PathBuf>,
    pub dot: Option<PathBuf>,
    pub folded: Option<PathBuf>,
}

#[derive(Debug, Default)]
pub struct Done {
    pub warnings: Vec<String>,
    /// (format, file) pairs written.
    pub written: Vec<(&'static str, PathBuf)>,
}

struct Both {
    builder: Option<Builder>,
    chrome: Option<chrome::ChromeSink<BufWriter<File>>>,
    folded: Option<folded::FoldedSink>,
}

impl Sink for Both {
    fn started(&mut self, parent: Option<u32>, thread: usize, frame: &Frame) -> u32 {
        match &mut self.folded {
            Some(f) => f.started(parent, thread, frame),
            None => 0,
        }
    }
    fn closed(&mut self, c: &Closed, instances: &[Instance], names: &Names) {
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

fn create(path: &Path) -> Result<BufWriter<File>> {
    let f = File::create(path).map_err(|e| Error::io(path, e))?;
    Ok(BufWriter::with_capacity(1 << 16, f))
}

/// Write every requested export of the trace at `trace`.
pub fn export(trace: &Path, t: &Targets) -> Result<Done> {
    // Open the trace first so a bad trace leaves no half-written outputs behind.
    let mut probe = crate::trace::TraceReader::open(trace)?;
    probe.next_event()?;
    let unit = probe.header().unit;
    drop(probe);
    let chrome = match &t.chrome {
        Some(p) => {
            let mut c = chrome::ChromeSink::new(create(p)?, p.clone());
            c.set_unit(unit);
            Some(c)
        }
        None => None,
    };
    let mut sink = Both {
        builder: t.dot.as_ref().map(|_| Builder::new(&Options::default())),
        chrome,
        folded: t.folded.as_ref().map(|_| folded::FoldedSink::default()),
    };
    let (reader, walker) = analysis::walk_trace(trace, &mut sink)?;
    let mut done = Done {
        warnings: reader.status().warnings.clone(),
        ..Done::default()
    };
    if let (Some(c), Some(p)) = (sink.chrome.take(), &t.chrome) {
        c.finish(&walker, reader.names(), reader.header().unit)?;
        done.written.push(("Chrome trace JSON", p.clone()));
    }
    if let (Some(f), Some(p)) = (sink.folded.take(), &t.folded) {
        let mut w = create(p)?;
        f.write(&mut w, &walker, reader.names())
            .and_then(|_| std::io::Write::flush(&mut w))
            .map_err(|e| Error::io(p, e))?;
        done.written.push(("folded stacks", p.clone()));
    }
    if let (Some(b), Some(p)) = (sink.builder.take(), &t.dot) {
        let a = analysis::finish(trace, &Options::default(), b, &reader, &walker);
        let mut w = create(p)?;
        dot::write(&a, &mut w)
            .and_then(|_| std::io::Write::flush(&mut w))
            .map_err(|e| Error::io(p, e))?;
        done.written.push(("Graphviz DOT", p.clone()));
    }
    Ok(done)
}
