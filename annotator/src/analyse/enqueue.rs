//! The machine's costs of a cross-thread message the what-if replays with — the sender's
//! enqueue and the receiver's wake-up (handoff) — measured once per project and kept in
//! `.revy/machine.toml` with when, where and how each was measured: every `analyze`,
//! `whatif` and `report` on the project then replays with the same figures, whatever load
//! the machine has at the time or had when each trace was recorded, and says where they
//! come from. Measured again on request (`--remeasure`), on another host, with another
//! method, or when the file is missing or unreadable. The measuring is in `calibrate.rs`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::analyse::calibrate::{self, idle, queue};
use crate::analyse::whatif::WakeCurve;
use crate::instrument::model::Lang;

/// A measured cost and where it comes from, for the output.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    pub ns: f64,
    /// E.g. `measured 2026-11-28 on this machine, .revy/machine.toml`.
    pub source: String,
    /// A handoff whose windows saw two states: both ends (`ns` is the windows' median).
    pub range: Option<HandoffRange>,
    /// The handoff's: the wake-up against idle time measured with it, in ns (none: another
    /// cost, or a file kept before it was measured: the flat handoff).
    pub curve: Option<crate::analyse::whatif::WakeCurve>,
    /// Its fast and slow ends, when its windows saw two states (some halted, some not).
    pub curve_ends: Option<(WakeCurve, WakeCurve)>,
}

/// The two ends of a handoff measured in windows that disagree beyond the noise
/// ([`calibrate::TWO_STATES`]): the 10th and 90th percentiles of the windows' figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HandoffRange {
    pub fast_ns: f64,
    pub slow_ns: f64,
    /// The share of the windows nearer the slow end.
    pub slow_share: f64,
}

/// The file, beside the project's other state.
pub const FILE: &str = ".revy/machine.toml";

/// Which cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cost {
    /// The sender's CPU per message posted to a queue its receiver is at, taking as fast
    /// as messages come (both threads at the queue), with the language's queue.
    Enqueue(Lang),
    /// The sender's CPU per message posted behind others (a receiver busy anyway).
    Post(Lang),
    /// The sender's CPU per message that wakes a receiver blocked on its queue.
    Wake(Lang),
    /// A thread's wake-up by a message (one way).
    Handoff,
}

impl Cost {
    /// How the figure is measured: the language's queue, else (no JVM) C++'s.
    fn hows(self) -> &'static [&'static str] {
        match self {
            Cost::Post(Lang::Java) | Cost::Wake(Lang::Java) => &[queue::JAVA_HOW, JAVA_AS_CPP],
            Cost::Post(Lang::Cpp) | Cost::Wake(Lang::Cpp) => &[queue::CPP_HOW],
            Cost::Handoff => &[calibrate::HANDOFF_HOW],
            Cost::Enqueue(Lang::Cpp) => &[queue::CPP_ENQUEUE_HOW, queue::CPP_ENQUEUE_RUST_HOW],
            Cost::Enqueue(Lang::Java) => &[queue::JAVA_ENQUEUE_HOW, JAVA_ENQUEUE_AS_CPP],
        }
    }

    /// What the figure is, before its source (the posts' own words say it in the output).
    fn what(self) -> &'static str {
        match self {
            Cost::Enqueue(Lang::Cpp) => {
                "C++ std::mutex/condition_variable queue, both threads at it; "
            }
            Cost::Enqueue(Lang::Java) => "Java LinkedBlockingQueue, both threads at it; ",
            _ => "",
        }
    }
    /// A figure and how it was measured (with the handoff's windows), or `None` when the
    /// machine gave no plausible one (not kept then). Both posts of a language are
    /// measured together, once per process.
    fn measure(self) -> Option<(f64, &'static str, Option<calibrate::Windows>)> {
        if self == Cost::Handoff {
            let h = measured_handoff().0.clone()?;
            return Some((h.ns, calibrate::HANDOFF_HOW, Some(h)));
        }
        let (ns, how, ends) = self.measure_post()?;
        // An at-the-queue post's windows: their ends (the windows themselves stay in the
        // measuring code, or the JVM).
        let windows = ends.map(|(fast, slow)| calibrate::Windows {
            ns,
            fast,
            slow,
            slow_share: 0.0,
            windows: Vec::new(),
        });
        Some((ns, how, windows))
    }

    /// How many times the fast end the slow one must be for two states (never: one figure).
    fn two_states_by(self) -> f64 {
        match self {
            Cost::Handoff => calibrate::TWO_STATES,
            Cost::Enqueue(_) => queue::TWO_STATES,
            Cost::Post(_) | Cost::Wake(_) => f64::INFINITY,
        }
    }

    /// [`Cost::measure`] of a post's cost, with the at-the-queue windows' ends.
    #[allow(clippy::type_complexity)]
    fn measure_post(self) -> Option<(f64, &'static str, Option<(f64, f64)>)> {
        static JAVA: OnceLock<Option<(queue::PostCost, &'static str)>> = OnceLock::new();
        let java = || {
            *JAVA.get_or_init(|| match queue::java() {
                Some(c) => Some((c, queue::JAVA_HOW)),
                None => cpp().map(|c| (c, JAVA_AS_CPP)),
            })
        };
        // The JVM's at-the-queue figure, else (no JVM, or its consumer never ran beside
        // the sender within the window) C++'s.
        let java_enqueue = || match java() {
            Some((c, queue::JAVA_HOW)) if c.enqueue.is_some() => c
                .enqueue
                .map(|e| (e, queue::JAVA_ENQUEUE_HOW, c.enqueue_ends)),
            _ => {
                let c = cpp()?;
                c.enqueue.map(|e| (e, JAVA_ENQUEUE_AS_CPP, c.enqueue_ends))
            }
        };
        match self {
            Cost::Post(Lang::Cpp) => cpp().map(|c| (c.post, queue::CPP_HOW, None)),
            Cost::Wake(Lang::Cpp) => cpp().map(|c| (c.wake, queue::CPP_HOW, None)),
            Cost::Post(Lang::Java) => java().map(|(c, how)| (c.post, how, None)),
            Cost::Wake(Lang::Java) => java().map(|(c, how)| (c.wake, how, None)),
            Cost::Handoff => None,
            Cost::Enqueue(Lang::Cpp) => {
                let c = cpp()?;
                c.enqueue.map(|e| (e, c.enqueue_how, c.enqueue_ends))
            }
            Cost::Enqueue(Lang::Java) => java_enqueue(),
        }
    }
}

/// C++'s post costs, measured once per process.
fn cpp() -> Option<queue::PostCost> {
    static CPP: OnceLock<Option<queue::PostCost>> = OnceLock::new();
    *CPP.get_or_init(queue::cpp)
}

/// The cache line's one-way transfer probed beside an at-the-queue figure measured `how`
/// (C++'s pair; none for the others), before and after.
fn line_beside(how: &str) -> Option<(f64, f64)> {
    [queue::CPP_ENQUEUE_HOW, JAVA_ENQUEUE_AS_CPP]
        .contains(&how)
        .then(cpp)
        .flatten()
        .and_then(|c| c.line)
}

/// What the source adds for an at-the-queue figure measured beside a line probe: the
/// figure is the state's this VM was in (its two virtual CPUs move a cache line in ~20-60
/// ns in one state and ~150-220 ns in the other, for seconds or minutes).
fn line_note(line: Option<(f64, f64)>) -> String {
    let Some((before, after)) = line else {
        return String::new();
    };
    let state = |ns: f64| if ns >= LINE_SLOW_NS { "slow" } else { "fast" };
    let states = match (state(before), state(after)) {
        (a, b) if a == b => format!("the {a} state"),
        _ => "both states".to_string(),
    };
    format!(
        "; state-dependent: a cache line moved between the two cores in {before:.0} ns before and {after:.0} ns after it ({states} of this machine's two, ~20-60 and ~150-220 ns; a pair at the queue pays differently in the other)"
    )
}

/// A line transfer at least this slow: the VM's slow state.
const LINE_SLOW_NS: f64 = 100.0;

/// The handoff's windows and the wake-up curve measured between them, once per process
/// (as the posts: `--remeasure` asks for the handoff twice in `analyze`).
fn measured_handoff() -> &'static (Option<calibrate::Windows>, Option<idle::Curves>) {
    static HANDOFF: OnceLock<(Option<calibrate::Windows>, Option<idle::Curves>)> = OnceLock::new();
    HANDOFF.get_or_init(calibrate::handoff)
}

/// How Java's posts are measured when no JVM could run the measurement.
const JAVA_AS_CPP: &str = "no JVM to run java QueueCost.java: C++'s pthread figure";

/// How Java's at-the-queue post is measured when the JVM gave none.
const JAVA_ENQUEUE_AS_CPP: &str = "no JVM figure (java QueueCost.java did not run, or its consumer never took beside the sender within 1.5 s): C++'s pthread figure, both threads at the queue";

#[derive(Default, Serialize, Deserialize)]
struct MachineFile {
    #[serde(skip_serializing_if = "Option::is_none")]
    enqueue_cpp: Option<Entry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    enqueue_java: Option<Entry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    handoff: Option<Entry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    post_cpp: Option<Entry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    wake_cpp: Option<Entry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    post_java: Option<Entry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    wake_java: Option<Entry>,
    /// Measured with the handoff (a file without it: the flat handoff).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    wake_after_idle: Option<CurveEntry>,
}

impl MachineFile {
    fn entry(&mut self, cost: Cost) -> &mut Option<Entry> {
        match cost {
            Cost::Handoff => &mut self.handoff,
            Cost::Enqueue(Lang::Cpp) => &mut self.enqueue_cpp,
            Cost::Enqueue(Lang::Java) => &mut self.enqueue_java,
            Cost::Post(Lang::Cpp) => &mut self.post_cpp,
            Cost::Wake(Lang::Cpp) => &mut self.wake_cpp,
            Cost::Post(Lang::Java) => &mut self.post_java,
            Cost::Wake(Lang::Java) => &mut self.wake_java,
        }
    }
}

#[derive(Clone, Serialize, Deserialize)]
struct Entry {
    ns: f64,
    /// UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    measured: String,
    host: String,
    how: String,
    /// The handoff's windows: their 10th and 90th percentiles, the share of windows nearer
    /// the slow end, and each window's figure (ns, in the order measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fast_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    slow_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    slow_share: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    windows: Option<Vec<f64>>,
    /// An at-the-queue figure's cache-line probe, before and after (ns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    line_ns: Option<Vec<f64>>,
}

/// The wake-up against idle time, as kept: idle times and wake-ups in ns, point by point.
#[derive(Clone, Serialize, Deserialize)]
struct CurveEntry {
    idle_ns: Vec<f64>,
    wake_ns: Vec<f64>,
    /// The windows' 10th and 90th percentiles, when they saw two states.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fast_wake_ns: Option<Vec<f64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    slow_wake_ns: Option<Vec<f64>>,
    measured: String,
    host: String,
    how: String,
}

impl CurveEntry {
    fn new(c: &idle::Curves, measured: &str, host: &str) -> Self {
        let round = |c: &WakeCurve| c.wake.iter().map(|x| x.round()).collect::<Vec<f64>>();
        CurveEntry {
            idle_ns: c.point.idle.iter().map(|x| x.round()).collect(),
            wake_ns: round(&c.point),
            fast_wake_ns: c.ends.as_ref().map(|e| round(&e.0)),
            slow_wake_ns: c.ends.as_ref().map(|e| round(&e.1)),
            measured: measured.to_string(),
            host: host.to_string(),
            how: calibrate::idle::IDLE_HOW.to_string(),
        }
    }

    /// The curve and its ends, when this host's, measured the current way and well formed
    /// (ends that are not: none).
    fn curves(&self, host: &str) -> Option<idle::Curves> {
        let at = |wake: &Vec<f64>| {
            let c = WakeCurve {
                idle: self.idle_ns.clone(),
                wake: wake.clone(),
            };
            c.valid().then_some(c)
        };
        let point = at(&self.wake_ns)?;
        let ends = match (&self.fast_wake_ns, &self.slow_wake_ns) {
            (Some(f), Some(s)) => at(f).zip(at(s)),
            _ => None,
        };
        (self.host == host && self.how == idle::IDLE_HOW).then_some(idle::Curves { point, ends })
    }
}

impl Entry {
    /// Both ends, when the windows saw two states (the slow end `by` times the fast one).
    fn range(&self, by: f64) -> Option<HandoffRange> {
        let (fast_ns, slow_ns) = (self.fast_ns?, self.slow_ns?);
        (fast_ns > 0.0 && slow_ns >= by * fast_ns).then_some(HandoffRange {
            fast_ns,
            slow_ns,
            slow_share: self.slow_share.unwrap_or(0.0),
        })
    }
}

/// `cost` for the project whose manifest is `project` (its `.revy/machine.toml`),
/// measuring and keeping it when there is none yet, it is another host's or another
/// method's, or `remeasure`. Without a project it is measured once per process and kept
/// nowhere. `None`: the machine gave no plausible figure (a handoff on a machine too busy).
pub(crate) fn kept(cost: Cost, project: Option<&Path>, remeasure: bool) -> Option<Measured> {
    let Some(path) = project.and_then(machine_file) else {
        let (ns, how, windows) = cost.measure()?;
        let what = cost.what();
        let line = line_note(line_beside(how));
        let source =
            format!("{what}measured now on this machine: {how} (no project to keep it in){line}");
        let range = windows
            .as_ref()
            .and_then(|w| range_of(w, cost.two_states_by()));
        let curves = (cost == Cost::Handoff)
            .then(|| measured_handoff().1.clone())
            .flatten();
        return Some(Measured {
            ns,
            source,
            range,
            curve: curves.as_ref().map(|c| c.point.clone()),
            curve_ends: curves.and_then(|c| c.ends),
        });
    };
    let host = hostname();
    let mut file = read(&path).unwrap_or_default();
    if !remeasure {
        let kept_curves = match (cost, &file.wake_after_idle) {
            (Cost::Handoff, Some(c)) => c.curves(&host),
            _ => None,
        };
        let found = file.entry(cost).as_ref().filter(|e| {
            e.host == host
                && cost.hows().contains(&e.how.as_str())
                && e.ns.is_finite()
                && e.ns > 0.0
        });
        if let Some(e) = found {
            let day = e.measured.get(..10).unwrap_or(&e.measured);
            let line = e.line_ns.as_deref().and_then(|l| match l {
                [a, b] => Some((*a, *b)),
                _ => None,
            });
            let source = format!(
                "{}measured {day} on this machine, {FILE}{}",
                cost.what(),
                line_note(line)
            );
            let range = e.range(cost.two_states_by());
            return Some(Measured {
                ns: e.ns,
                source,
                range,
                curve: kept_curves.as_ref().map(|c| c.point.clone()),
                curve_ends: kept_curves.and_then(|c| c.ends),
            });
        }
    }
    let (ns, how, windows) = cost.measure()?;
    let round = |x: f64| x.round();
    let entry = Entry {
        ns,
        measured: utc_now(),
        host,
        how: how.to_string(),
        fast_ns: windows.as_ref().map(|h| round(h.fast)),
        slow_ns: windows.as_ref().map(|h| round(h.slow)),
        slow_share: windows
            .as_ref()
            .filter(|h| !h.windows.is_empty())
            .map(|h| (h.slow_share * 100.0).round() / 100.0),
        windows: windows
            .as_ref()
            .filter(|h| !h.windows.is_empty())
            .map(|h| h.windows.iter().copied().map(round).collect()),
        line_ns: line_beside(how).map(|(a, b)| vec![round(a), round(b)]),
    };
    let line = line_note(line_beside(how));
    let range = entry.range(cost.two_states_by());
    let day = entry.measured[..10].to_string();
    // The curve measured with the handoff replaces the kept one (none now: none kept).
    let curves = (cost == Cost::Handoff)
        .then(|| measured_handoff().1.clone())
        .flatten();
    if cost == Cost::Handoff {
        file.wake_after_idle = curves
            .as_ref()
            .map(|c| CurveEntry::new(c, &entry.measured, &entry.host));
    }
    *file.entry(cost) = Some(entry);
    let source = match write(&path, &file) {
        Ok(()) => format!(
            "{}measured now ({day}) on this machine, kept in {FILE}{line}",
            cost.what()
        ),
        Err(e) => format!(
            "{}measured now on this machine (not kept: {e})",
            cost.what()
        ),
    };
    Some(Measured {
        ns,
        source,
        range,
        curve: curves.as_ref().map(|c| c.point.clone()),
        curve_ends: curves.and_then(|c| c.ends),
    })
}

/// Both ends of a handoff measured now, when its windows saw two states.
fn range_of(h: &calibrate::Windows, by: f64) -> Option<HandoffRange> {
    h.two_states(by).then_some(HandoffRange {
        fast_ns: h.fast,
        slow_ns: h.slow,
        slow_share: h.slow_share,
    })
}

/// The sender's three costs of a post (`None`: given, or not measurable), each with the
/// trace's language's queue (C++ when it is not known): behind others, waking a blocked
/// receiver, and to a queue its receiver is at (both threads at the queue).
#[derive(Debug, Clone, PartialEq)]
pub struct Posts {
    pub post: Option<Measured>,
    pub wake: Option<Measured>,
    pub enqueue: Option<Measured>,
}

/// The project's kept post costs for an analysis's options (`manifest`, `remeasure`) and
/// the trace's language; what the command line gives is not measured.
pub fn kept_for(o: &crate::analyse::analysis::options::Options, lang: Option<Lang>) -> Posts {
    let project = o.manifest.as_deref();
    let lang = lang.unwrap_or(Lang::Cpp);
    let wake = o
        .wake_ns
        .is_none()
        .then(|| kept(Cost::Wake(lang), project, o.remeasure))
        .flatten();
    let enqueue = o
        .enqueue_ns
        .is_none()
        .then(|| kept(Cost::Enqueue(lang), project, o.remeasure))
        .flatten();
    let post = o
        .post_ns
        .is_none()
        .then(|| kept(Cost::Post(lang), project, o.remeasure))
        .flatten();
    Posts {
        post,
        wake,
        enqueue,
    }
}

/// The project's kept handoff for an analysis's options, or `None` when `--handoff` gave
/// one, there is no project (the trace header's is used then) or none could be measured.
pub fn kept_handoff_for(o: &crate::analyse::analysis::options::Options) -> Option<Measured> {
    let project = o.manifest.as_deref()?;
    o.handoff_ns.is_none().then_some(())?;
    kept(Cost::Handoff, Some(project), o.remeasure)
}

/// `.revy/machine.toml` beside the manifest, if the manifest exists.
fn machine_file(manifest: &Path) -> Option<PathBuf> {
    if !manifest.is_file() {
        return None;
    }
    let dir = manifest.parent().unwrap_or(Path::new("."));
    Some(dir.join(FILE))
}

fn read(path: &Path) -> Option<MachineFile> {
    let text = std::fs::read_to_string(path).ok()?;
    toml::from_str::<MachineFile>(&text).ok()
}

/// Writes the file atomically (a temp file renamed into place).
fn write(path: &Path, file: &MachineFile) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let body = toml::to_string(file).map_err(std::io::Error::other)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    writeln!(
        tmp,
        "# This machine's costs as revy measured them (the what-if's machine model).\n\
         # Delete this file or pass --remeasure to measure again.\n"
    )?;
    tmp.write_all(body.as_bytes())?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    match ok {
        true => String::from_utf8_lossy(&buf[..end]).into_owned(),
        false => String::new(),
    }
}

/// Now as `YYYY-MM-DDTHH:MM:SSZ`.
fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil(days as i64);
    let (hh, mm, ss) = (rem / 3600, rem % 3600 / 60, rem % 60);
    format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z")
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (H. Hinnant's
/// `civil_from_days`).
fn civil(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_civil() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(20_785), (2026, 11, 28));
        assert_eq!(civil(11_016), (2000, 2, 29));
    }

    /// The at-the-queue figure is each language's own, measured with both threads at the
    /// queue, and kept under its language with how it was measured (before: one Rust
    /// condition variable's push-and-notify for every language, `[enqueue]`).
    #[test]
    fn the_at_queue_post_is_kept_per_language_with_how_it_was_measured() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("revy.toml");
        std::fs::write(&manifest, "").unwrap();
        let Some(cpp) = kept(Cost::Enqueue(Lang::Cpp), Some(&manifest), false) else {
            return; // the two threads never ran side by side within the window
        };
        assert!(
            cpp.source.starts_with(
                "C++ std::mutex/condition_variable queue, both threads at it; measured now"
            ),
            "{cpp:?}"
        );
        let java = kept(Cost::Enqueue(Lang::Java), Some(&manifest), false).unwrap();
        assert!(
            java.source.starts_with("Java LinkedBlockingQueue"),
            "{java:?}"
        );
        let text = std::fs::read_to_string(dir.path().join(FILE)).unwrap();
        assert!(
            text.contains("[enqueue_cpp]") && text.contains("[enqueue_java]"),
            "{text}"
        );
        assert!(text.contains(queue::CPP_ENQUEUE_HOW), "{text}");
        let java_how = [queue::JAVA_ENQUEUE_HOW, JAVA_ENQUEUE_AS_CPP];
        assert!(java_how.iter().any(|h| text.contains(h)), "{text}");
        let again = kept(Cost::Enqueue(Lang::Cpp), Some(&manifest), false).unwrap();
        assert_eq!(again.ns, cpp.ns);
    }

    /// C++'s at-the-queue figure is kept with the cache-line probe run beside it, and its
    /// source says which of this VM's two states it was measured in (before: no probe, one
    /// figure whatever the state, 88-122 ns in one and 132-282 ns in the other).
    #[test]
    fn the_at_queue_figure_says_which_line_state_it_was_measured_in() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("revy.toml");
        std::fs::write(&manifest, "").unwrap();
        std::fs::create_dir_all(dir.path().join(".revy")).unwrap();
        let source = |line: Option<Vec<f64>>| {
            let file = MachineFile {
                enqueue_cpp: Some(Entry {
                    ns: 118.0,
                    measured: "2026-11-29T12:00:00Z".into(),
                    host: hostname(),
                    how: queue::CPP_ENQUEUE_HOW.into(),
                    fast_ns: None,
                    slow_ns: None,
                    slow_share: None,
                    windows: None,
                    line_ns: line,
                }),
                ..Default::default()
            };
            write(&dir.path().join(FILE), &file).unwrap();
            let m = kept(Cost::Enqueue(Lang::Cpp), Some(&manifest), false).unwrap();
            assert_eq!(m.ns, 118.0, "read back, not measured again");
            m.source
        };
        let slow = source(Some(vec![205.0, 198.0]));
        assert!(slow.contains("state-dependent"), "{slow}");
        assert!(slow.contains("205 ns before and 198 ns after"), "{slow}");
        assert!(slow.contains("the slow state"), "{slow}");
        assert!(source(Some(vec![41.0, 44.0])).contains("the fast state"));
        assert!(source(Some(vec![41.0, 190.0])).contains("both states"));
        let old = source(None);
        assert!(!old.contains("state-dependent"), "{old}");
    }

    /// A file kept before the wake-up curve was measured still loads, with the flat
    /// handoff (not measured again); a kept curve comes with the handoff when this host's,
    /// measured the current way and well formed.
    #[test]
    fn the_wake_up_curve_is_read_with_the_handoff_and_old_files_stay_flat() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("revy.toml");
        std::fs::write(&manifest, "").unwrap();
        std::fs::create_dir_all(dir.path().join(".revy")).unwrap();
        let host = hostname();
        let handoff = format!(
            "[handoff]\nns = 1938.0\nmeasured = \"2026-11-29T07:44:18Z\"\nhost = {host:?}\nhow = {:?}\n",
            calibrate::HANDOFF_HOW
        );
        let curve = |host: &str, idle: &str| {
            format!(
                "[wake_after_idle]\nidle_ns = {idle}\nwake_ns = [4000.0, 28000.0, 30000.0]\nmeasured = \"2026-11-29T07:44:18Z\"\nhost = {host:?}\nhow = {:?}\n",
                calibrate::idle::IDLE_HOW
            )
        };
        let at = |text: String| {
            std::fs::write(dir.path().join(FILE), text).unwrap();
            kept(Cost::Handoff, Some(&manifest), false).unwrap()
        };
        let old = at(handoff.clone());
        assert_eq!((old.ns, &old.curve), (1938.0, &None));
        assert!(old.source.starts_with("measured 2026-11-29"), "{old:?}");
        let rising = "[0.0, 20000.0, 50000.0]";
        let new = at(format!("{handoff}\n{}", curve(&host, rising)));
        let c = new.curve.expect("kept with the handoff");
        assert_eq!(
            (new.ns, c.at(20_000.0), c.at(1e6)),
            (1938.0, 28_000.0, 30_000.0)
        );
        let elsewhere = at(format!("{handoff}\n{}", curve("elsewhere", rising)));
        assert_eq!(elsewhere.curve, None, "another host's curve");
        let two = format!(
            "{handoff}\n{}fast_wake_ns = [4000.0, 4000.0, 4000.0]\nslow_wake_ns = [4000.0, 30000.0, 32000.0]\n",
            curve(&host, rising)
        );
        let (fast, slow) = at(two).curve_ends.expect("both ends kept");
        assert_eq!((fast.at(50_000.0), slow.at(50_000.0)), (4_000.0, 32_000.0));
        let bad = at(format!(
            "{handoff}\n{}",
            curve(&host, "[0.0, 50000.0, 20000.0]")
        ));
        assert_eq!(
            (bad.ns, &bad.curve),
            (1938.0, &None),
            "idle times must rise"
        );
    }

    #[test]
    fn measured_once_then_read_back_until_asked_again() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("revy.toml");
        std::fs::write(&manifest, "").unwrap();
        let cost = |re| kept(Cost::Post(Lang::Cpp), Some(&manifest), re).unwrap();
        let first = cost(false);
        assert!(
            first.source.contains("kept in .revy/machine.toml"),
            "{first:?}"
        );
        let text = std::fs::read_to_string(dir.path().join(FILE)).unwrap();
        assert!(
            text.contains("how = ") && text.contains("measured = "),
            "{text}"
        );
        // The same figure on every later call, with when it was measured.
        for _ in 0..3 {
            let again = cost(false);
            assert_eq!(again.ns, first.ns);
            assert!(again.source.starts_with("measured 20"), "{again:?}");
            assert!(again
                .source
                .ends_with("on this machine, .revy/machine.toml"));
        }
        let re = cost(true);
        assert!(re.source.contains("measured now"), "{re:?}");
        assert_eq!(cost(false).ns, re.ns);
        // Another host's figure is not this machine's.
        let other = text.replace(&format!("host = {:?}", hostname()), "host = \"elsewhere\"");
        std::fs::write(dir.path().join(FILE), other).unwrap();
        assert!(cost(false).source.contains("measured now"));
    }
}
