//! Several traces of one run (one per process) read as one event stream: events of all
//! processes merged in time order on the wall-clock anchors of their headers, names interned
//! into one table, and thread and object ids tagged with the process (so each process keeps
//! its own roots and objects). A trace set is spelled as a folder of traces or as a path
//! list (`a.rvt:b.rvt`, the platform's `PATH` separator).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::{Event, Header, Names, Status, TraceReader, Unit};

/// Bits of a thread or object id that belong to the process's own id; the bits above hold
/// the process's position in the set plus one.
pub const LOCAL_BITS: u32 = 48;
pub const LOCAL_MASK: u64 = (1 << LOCAL_BITS) - 1;

/// Traces of different runs (their headers' `run=` differ) are read as one only when this
/// is set (`--merge-runs`): a folder that gathered several runs' traces is otherwise
/// refused rather than read as the processes of one run.
static MERGE_RUNS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Read traces of different runs as one trace set (`--merge-runs`).
pub fn merge_runs(on: bool) {
    MERGE_RUNS.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// The process-local part of a tagged thread or object id.
pub fn local(id: u64) -> u64 {
    id & LOCAL_MASK
}

/// (process, thread) for views with process tracks: a trace set's pid and local thread id,
/// else `default_pid` and the id as it is.
pub fn split_tid(names: &crate::Names, tid: u64, default_pid: u64) -> (u64, u64) {
    match names.process_of(tid) {
        Some(pid) => (pid, local(tid)),
        None => (default_pid, tid),
    }
}

/// The files of a trace set, when `path` names one (a folder or a list of several paths).
pub fn set_members(path: &Path) -> Result<Option<Vec<PathBuf>>> {
    if path.is_dir() {
        let rd = std::fs::read_dir(path).map_err(|e| Error::io(path, e))?;
        let mut files: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && super::is_trace_file(p))
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(Error::input(format!(
                "{}: no trace (*.rvt, *.dtf) in this folder",
                path.display()
            )));
        }
        return Ok(Some(files));
    }
    if path.exists() {
        return Ok(None);
    }
    let list: Vec<PathBuf> = std::env::split_paths(path.as_os_str()).collect();
    Ok((list.len() > 1).then_some(list))
}

/// Spell several trace files as one path (a path list); one file stays itself.
pub fn join(paths: &[PathBuf]) -> Result<PathBuf> {
    match paths {
        [one] => Ok(one.clone()),
        _ => std::env::join_paths(paths)
            .map(PathBuf::from)
            .map_err(|e| Error::input(format!("cannot name these traces together: {e}"))),
    }
}

/// `path` for a message: itself, or for a set "34 traces in DIR" (all in one folder) or
/// "34 traces (FIRST … LAST)" — a run's whole path list would fill the screen.
pub fn describe(path: &Path) -> String {
    let Ok(Some(files)) = set_members(path) else {
        return path.display().to_string();
    };
    let dirs: std::collections::BTreeSet<_> = files.iter().map(|p| p.parent()).collect();
    match (dirs.len(), files.first(), files.last()) {
        (1, Some(f), _) => format!(
            "{} traces in {}",
            files.len(),
            f.parent()
                .filter(|d| !d.as_os_str().is_empty())
                .map_or(".".into(), |d| d.display().to_string())
        ),
        (_, Some(f), Some(l)) => {
            format!("{} traces ({} … {})", files.len(), f.display(), l.display())
        }
        _ => path.display().to_string(),
    }
}

/// Bytes of all files of `path` (a trace or a trace set), for progress.
pub fn total_size(path: &Path) -> u64 {
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    match set_members(path) {
        Ok(Some(files)) => files.iter().map(|p| size(p)).sum(),
        _ => size(path),
    }
}

struct Member {
    reader: TraceReader,
    path: PathBuf,
    pid: u64,
    /// Trace time to ns on the shared line: `t * scale + offset`.
    scale: i128,
    offset: i128,
    classes: Vec<u32>,
    methods: Vec<u32>,
    threads_seen: usize,
    next: Option<(u64, Event)>,
    last: u64,
    done: bool,
}

pub struct MultiReader {
    members: Vec<Member>,
    pub(crate) names: Names,
    pub(crate) header: Header,
    pub(crate) status: Status,
    /// The set's own warnings (anchors missing, ids too wide to tag).
    notes: Vec<String>,
    /// Wall-clock time (Unix ns) of time 0 on the shared line, when any trace is anchored.
    base: Option<i128>,
    /// Ns per unit of the shared line.
    unit_ns: i128,
}

/// `ev` with its thread and object ids tagged by `tag`, its times put through `conv` and its
/// durations through `len`.
fn retag(ev: Event, tag: u64, conv: impl Fn(u64) -> u64, len: impl Fn(u64) -> u64) -> Event {
    let tagged = |x: u64| tag | local(x);
    match ev {
        Event::Create {
            tid,
            class,
            oid,
            size,
            t,
        } => Event::Create {
            tid: tagged(tid),
            class,
            oid: tagged(oid),
            size,
            t: t.map(&conv),
        },
        Event::Destroy { tid, class, oid, t } => Event::Destroy {
            tid: tagged(tid),
            class,
            oid: tagged(oid),
            t: t.map(&conv),
        },
        Event::Start {
            tid,
            method,
            oid,
            size,
            t,
        } => Event::Start {
            tid: tagged(tid),
            method,
            oid: tagged(oid),
            size,
            t: conv(t),
        },
        Event::End {
            tid,
            method,
            oid,
            t,
            cpu,
        } => Event::End {
            tid: tagged(tid),
            method,
            oid: tagged(oid),
            t: conv(t),
            cpu: cpu.map(len),
        },
        Event::Key {
            tid,
            method,
            key,
            t,
        } => Event::Key {
            tid: tagged(tid),
            method,
            key,
            t: conv(t),
        },
    }
}

fn ns_of(u: Unit) -> i128 {
    match u {
        Unit::Ns => 1,
        Unit::Us => 1_000,
        Unit::Ms => 1_000_000,
        Unit::S => 1_000_000_000,
    }
}

impl Member {
    /// The `i`-th trace of the set, its first event read (text headers come with it); the
    /// process id is the header's, else the position + 1.
    fn open(p: &Path, i: usize) -> Result<Member> {
        if p.is_dir() {
            return Err(Error::input(format!(
                "{}: a folder inside a list of traces; name its files instead",
                p.display()
            )));
        }
        let mut reader = TraceReader::open(p)?;
        let first = reader.next_event()?;
        let pid = reader.header().pid().unwrap_or(i as u64 + 1);
        let scale = ns_of(reader.header().unit);
        Ok(Member {
            reader,
            path: p.to_path_buf(),
            pid,
            scale,
            offset: 0,
            classes: Vec::new(),
            methods: Vec::new(),
            threads_seen: 0,
            next: first.map(|e| (0, e)),
            last: 0,
            done: first.is_none(),
        })
    }
}

/// Refuses traces of more than one run (headers' `run=`; traces without one belong to any
/// run), naming each run's traces.
fn one_run(members: &[Member]) -> Result<()> {
    let mut runs: Vec<(&str, Vec<String>)> = Vec::new();
    for m in members {
        let Some(run) = m.reader.header().get("run") else {
            continue;
        };
        let name = m.path.file_name().map_or_else(
            || m.path.display().to_string(),
            |f| f.to_string_lossy().into_owned(),
        );
        match runs.iter_mut().find(|r| r.0 == run) {
            Some(r) => r.1.push(name),
            None => runs.push((run, vec![name])),
        }
    }
    if runs.len() < 2 {
        return Ok(());
    }
    let listed: Vec<String> = runs
        .iter()
        .map(|(run, files)| {
            let esc = |x: &str| crate::escape::escape_name(x.as_bytes());
            format!("run {}: {}", esc(run), esc(&files.join(", ")))
        })
        .collect();
    Err(Error::input(format!(
        "these traces are of {} different runs ({}); name one run's traces (a.rvt:b.rvt), or pass --merge-runs to read them as one run",
        runs.len(),
        listed.join("; ")
    )))
}

impl MultiReader {
    pub fn open(paths: &[PathBuf]) -> Result<MultiReader> {
        let mut members: Vec<Member> = Vec::new();
        for (i, p) in paths.iter().enumerate() {
            members.push(Member::open(p, i)?);
        }
        if !MERGE_RUNS.load(std::sync::atomic::Ordering::Relaxed) {
            one_run(&members)?;
        }
        for (i, member) in members.iter().enumerate() {
            if let Some(other) = members[..i].iter().find(|m| m.pid == member.pid) {
                return Err(Error::input(format!(
                    "{} and {}: both traces are of process {}; name the traces of one run only",
                    other.path.display(),
                    member.path.display(),
                    member.pid
                )));
            }
        }
        let unit = members
            .iter()
            .map(|m| m.reader.header().unit)
            .min_by_key(|u| ns_of(*u))
            .unwrap_or(Unit::Ns);
        let mut m = MultiReader {
            names: Names::default(),
            header: Header::default(),
            status: Status::default(),
            notes: Vec::new(),
            base: None,
            unit_ns: ns_of(unit),
            members,
        };
        m.align();
        m.header = m.merged_header(unit);
        for i in 0..m.members.len() {
            m.retime(i);
            if m.members[i].done {
                // A trace without events (a process started past the run's budget) still
                // has definitions its aggregates name.
                m.sync_names(i);
            }
        }
        m.update_status();
        Ok(m)
    }

    /// Offsets that put every trace's anchor at its wall-clock time, the earliest at 0.
    fn align(&mut self) {
        let starts: Vec<Option<i128>> = self
            .members
            .iter()
            .map(|m| {
                let a = m.reader.header().anchor()?;
                Some(a.wall_ns as i128 - a.t as i128 * m.scale)
            })
            .collect();
        self.base = starts.iter().flatten().min().copied();
        let base = self.base.unwrap_or(0);
        for (m, s) in self.members.iter_mut().zip(&starts) {
            m.offset = s.map_or(0, |s| s - base);
        }
        let missing: Vec<String> = self
            .members
            .iter()
            .zip(&starts)
            .filter(|(_, s)| s.is_none())
            .map(|(m, _)| m.path.display().to_string())
            .collect();
        if !missing.is_empty() && self.members.len() > 1 {
            self.notes.push(format!(
                "{}: no wall-clock anchor (anchor_wall_ns=) in the header; its times are taken as they are, not lined up with the other processes",
                missing.join(", ")
            ));
        }
    }

    fn merged_header(&self, unit: Unit) -> Header {
        let mut h = Header {
            unit,
            ..Header::default()
        };
        let get = |k: &str| -> Vec<String> {
            self.members
                .iter()
                .filter_map(|m| m.reader.header().get(k).map(str::to_string))
                .collect()
        };
        let langs = get("lang");
        if let Some(l) = langs.first() {
            let same = langs.iter().all(|x| x == l);
            h.fields
                .push(("lang".into(), if same { l.clone() } else { "mixed".into() }));
        }
        // One probe cost for all: the smallest, so no process is over-compensated.
        let probes: Vec<f64> = get("probe_ns")
            .iter()
            .filter_map(|v| v.parse().ok())
            .collect();
        if probes.len() == self.members.len() {
            let p = probes.iter().copied().fold(f64::INFINITY, f64::min);
            h.fields.push(("probe_ns".into(), format!("{p}")));
        }
        let numbers =
            |k: &str| -> Vec<f64> { get(k).iter().filter_map(|v| v.parse().ok()).collect() };
        // One handoff for all: the slowest process's wake-up, so no gain is overstated; its
        // spread the widest, its batches the fewest (so a doubtful member is said to be).
        let handoffs = numbers("handoff_ns");
        if handoffs.len() == self.members.len() {
            let slowest = handoffs.iter().copied().fold(0.0, f64::max);
            h.fields.push(("handoff_ns".into(), format!("{slowest}")));
            let p50s = numbers("handoff_p50");
            if p50s.len() == self.members.len() {
                let widest = p50s.iter().copied().fold(0.0, f64::max);
                h.fields.push(("handoff_p50".into(), format!("{widest}")));
            }
            let batches = numbers("handoff_batches");
            if batches.len() == self.members.len() {
                let fewest = batches.iter().copied().fold(f64::INFINITY, f64::min);
                h.fields
                    .push(("handoff_batches".into(), format!("{fewest}")));
            }
        }
        // One counted-call cost for all (and one address lookup): the smallest, so no
        // sender loses more than it paid.
        for key in ["counted_ns", "nid_ns"] {
            let costs = numbers(key);
            if costs.len() == self.members.len() {
                let c = costs.iter().copied().fold(f64::INFINITY, f64::min);
                h.fields.push((key.into(), format!("{c}")));
            }
        }
        // The run's identity, when every trace names the same one.
        let runs = get("run");
        if runs.len() == self.members.len() && runs.iter().all(|r| *r == runs[0]) {
            h.fields.push(("run".into(), runs[0].clone()));
        }
        if get("budget").iter().any(|b| b == "run") {
            h.fields.push(("budget".into(), "run".into()));
        }
        let pids: Vec<String> = self.members.iter().map(|m| m.pid.to_string()).collect();
        h.fields.push(("processes".into(), pids.join(",")));
        // The set is anchored too: time 0 of the shared line is `base` on the wall clock.
        if let Some(base) = self.base.filter(|b| *b >= 0) {
            h.fields.push(("anchor_wall_ns".into(), base.to_string()));
            h.fields.push(("anchor_t".into(), "0".into()));
        }
        h
    }

    /// Put member `i`'s pending event on the shared line and tag its ids.
    fn retime(&mut self, i: usize) {
        let tag = (i as u64 + 1) << LOCAL_BITS;
        let unit_ns = self.unit_ns;
        let m = &mut self.members[i];
        let Some((_, ev)) = m.next.take() else {
            return;
        };
        let conv = |t: u64| -> u64 {
            ((t as i128 * m.scale + m.offset) / unit_ns).clamp(0, u64::MAX as i128) as u64
        };
        let wide = match ev {
            Event::Create { tid, oid, .. }
            | Event::Destroy { tid, oid, .. }
            | Event::Start { tid, oid, .. }
            | Event::End { tid, oid, .. } => (tid | oid) > LOCAL_MASK,
            // The key is the same in every process: it is not tagged.
            Event::Key { tid, .. } => tid > LOCAL_MASK,
        };
        let len =
            |d: u64| -> u64 { (d as i128 * m.scale / unit_ns).clamp(0, u64::MAX as i128) as u64 };
        let ev = retag(ev, tag, conv, len);
        let key = match ev {
            Event::Start { t, .. } | Event::End { t, .. } | Event::Key { t, .. } => t,
            Event::Create { t, .. } | Event::Destroy { t, .. } => t.unwrap_or(m.last),
        };
        m.last = key;
        m.next = Some((key, ev));
        if wide {
            self.note_wide_ids(i);
        }
    }

    /// Warns once per member that its ids are too wide to tag without clashes.
    fn note_wide_ids(&mut self, i: usize) {
        let note = format!(
            "{}: thread or object ids above 2^48; in a set they are cut to 48 bits and may be taken for others",
            self.members[i].path.display()
        );
        if !self.notes.contains(&note) {
            self.notes.push(note);
            self.update_status();
        }
    }

    /// Intern member `i`'s names defined so far into the shared table.
    fn sync_names(&mut self, i: usize) {
        let m = &mut self.members[i];
        let names = m.reader.names();
        while m.classes.len() < names.classes.len() {
            let c = &names.classes[m.classes.len()];
            m.classes.push(self.names.intern_class(c.as_bytes()));
        }
        while m.methods.len() < names.methods.len() {
            let d = &names.methods[m.methods.len()];
            let id = self.names.intern_method(
                names.class(d.class).as_bytes(),
                d.name.as_bytes(),
                d.signature.as_bytes(),
            );
            m.methods.push(id);
        }
        if names.threads.len() != m.threads_seen {
            let tag = (i as u64 + 1) << LOCAL_BITS;
            for (tid, name) in &names.threads {
                self.names
                    .threads
                    .insert(tag | local(*tid), format!("{name}@{}", m.pid));
            }
            m.threads_seen = names.threads.len();
        }
    }

    pub fn next_event(&mut self) -> Result<Option<Event>> {
        let Some(i) = (0..self.members.len())
            .filter(|&i| self.members[i].next.is_some())
            .min_by_key(|&i| self.members[i].next.map(|(k, _)| k))
        else {
            return Ok(None);
        };
        self.sync_names(i);
        let (_, mut ev) = self.members[i]
            .next
            .take()
            .expect("chosen member has an event");
        // The member's own class and method ids become the merged set's.
        let m = &self.members[i];
        match &mut ev {
            Event::Create { class, .. } | Event::Destroy { class, .. } => {
                *class = m.classes[*class as usize]
            }
            Event::Start { method, .. } | Event::End { method, .. } | Event::Key { method, .. } => {
                *method = m.methods[*method as usize]
            }
        }
        let m = &mut self.members[i];
        match m.reader.next_event()? {
            Some(e) => {
                m.next = Some((0, e));
                self.retime(i);
            }
            None => {
                m.done = true;
                self.sync_names(i);
                self.update_status();
            }
        }
        Ok(Some(ev))
    }

    fn update_status(&mut self) {
        let mut s = Status {
            clean_end: Some(0),
            ..Status::default()
        };
        s.warnings = self.notes.clone();
        let unit_ns = self.unit_ns;
        for (i, m) in self.members.iter().enumerate() {
            let st = m.reader.status();
            if m.done {
                let tag = (i as u64 + 1) << LOCAL_BITS;
                let time = |t: u64| -> u64 {
                    ((t as i128 * m.scale + m.offset) / unit_ns).clamp(0, u64::MAX as i128) as u64
                };
                s.aggregates.extend_mapped(
                    &st.aggregates,
                    &|x| m.methods.get(x as usize).copied().unwrap_or(x),
                    &|x| m.classes.get(x as usize).copied().unwrap_or(x),
                    &|x| tag | local(x),
                    &time,
                );
            }
            s.clean_end = match (s.clean_end, st.clean_end) {
                (Some(a), Some(b)) if m.done => Some(a + b),
                _ => None,
            };
            s.truncated_at_size = s.truncated_at_size.or(st.truncated_at_size);
            s.cut_short |= st.cut_short;
            s.warnings.extend(
                st.warnings
                    .iter()
                    .map(|w| format!("{} (process {}): {w}", m.path.display(), m.pid)),
            );
        }
        self.status = s;
    }

    pub fn bytes_read(&self) -> u64 {
        self.members.iter().map(|m| m.reader.bytes_read()).sum()
    }

    /// The pid of each process, by position (tag − 1).
    pub fn pids(&self) -> Vec<u64> {
        self.members.iter().map(|m| m.pid).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_is_described_by_count_and_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        let files: Vec<PathBuf> = ["a.rvt", "b.rvt", "c.rvt"]
            .iter()
            .map(|n| d.join(n))
            .collect();
        for f in &files {
            std::fs::write(f, b"").unwrap();
        }
        let set = join(&files).unwrap();
        assert_eq!(describe(&set), format!("3 traces in {}", d.display()));
        assert_eq!(describe(&files[0]), files[0].display().to_string());
        std::fs::create_dir(d.join("sub")).unwrap();
        let other = d.join("sub/z.rvt");
        std::fs::write(&other, b"").unwrap();
        let mixed = join(&[files[0].clone(), other.clone()]).unwrap();
        assert_eq!(
            describe(&mixed),
            format!("2 traces ({} … {})", files[0].display(), other.display())
        );
    }
}
