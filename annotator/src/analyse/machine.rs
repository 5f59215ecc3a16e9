//! The machine model a replay predicts for — cores, the handoff of a cross-thread message,
//! the sender's enqueue cost — resolved in one place for `analyze` (the proposals), `whatif`,
//! `report` and `profile`. Each fact comes from the first source that has it: given (the
//! command line), then the project's (measured once and kept in `.revy/machine.toml`, so
//! every trace of the project, recorded quietly or on a busy machine, is replayed with the
//! same handoff), then the trace header's (`handoff_ns=`, the runtime's at start-up: the
//! load of that moment moves it, 3.8 to 21.6 µs on one machine), then a measurement on this
//! machine, taken once per process. The header's figure stays as a cross-check: a note says
//! when it and the project's disagree.

use std::sync::OnceLock;

use crate::analyse::trace::Unit;
use crate::analyse::whatif::{self, Params};
use crate::error::{Error, Result};

/// What the command line gave (all optional).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Given {
    pub cores: Option<usize>,
    pub handoff_ns: Option<f64>,
    pub enqueue_ns: Option<f64>,
    pub wake_ns: Option<f64>,
    pub post_ns: Option<f64>,
    pub take_ns: Option<f64>,
}

/// What the profiled machine measured, besides the command line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Measured {
    /// The trace header's `handoff_ns=` (the runtime's, at start-up).
    pub handoff_ns: Option<f64>,
    /// The handoff kept for this project (none: no project, or given).
    pub handoff_kept: Option<crate::analyse::enqueue::Measured>,
    /// The sender's cost of a post to a queue its receiver has just emptied and is at,
    /// kept for this project (none: measured here).
    pub enqueue_ns: Option<f64>,
    /// ... of a post that wakes a receiver blocked on its queue.
    pub wake_ns: Option<f64>,
    /// The sender's cost of a post to a receiver busy anyway, kept for this project.
    pub post_ns: Option<f64>,
    /// The kept at-the-queue post's ends, when its windows saw two states.
    pub enqueue_range: Option<crate::analyse::enqueue::HandoffRange>,
}

/// The resolved model, in ns.
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    pub cores: usize,
    pub handoff_ns: f64,
    /// Where the handoff comes from (`whatif::HANDOFF_GIVEN`, the project's file,
    /// `whatif::HANDOFF_TRACE`, `whatif::HANDOFF_MEASURED`).
    pub handoff_source: String,
    /// The sender's CPU for a post to a queue its receiver has just emptied and is at.
    pub enqueue_ns: f64,
    /// ... for a post that wakes a receiver blocked on its queue.
    pub wake_ns: f64,
    /// ... for a post behind others, to a receiver busy anyway (at most `enqueue_ns`).
    pub post_ns: f64,
    /// The receiver's CPU for taking a message off a queue its sender is at: given, else
    /// `enqueue_ns` (each take meets one post at the queue's lock and memory).
    pub take_ns: f64,
    /// The project's handoff and the trace header's differ by more than 1.5×: says so.
    pub handoff_note: Option<String>,
    /// The project's handoff windows saw two states: both ends (none when given).
    pub handoff_range: Option<crate::analyse::enqueue::HandoffRange>,
    /// The project's wake-up against idle time, in ns (none: not kept, or `--handoff`
    /// given: the flat handoff).
    pub wake_curve: Option<whatif::WakeCurve>,
}

/// The cores to predict for: the given count (at least 1), else this machine's.
pub fn cores(given: Option<usize>) -> Result<usize> {
    match given {
        Some(0) => Err(Error::input("--cores must be at least 1")),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

impl Given {
    /// Checks what was given before any trace is read.
    pub fn check(&self) -> Result<()> {
        cores(self.cores)?;
        Ok(())
    }
}

/// The model from `given`, then `measured`, then this machine. A post's cost that is not
/// given is never more than the handoff (`--handoff 0` means free messages), nor a post
/// nobody waits for more than one that wakes.
pub fn resolve(given: &Given, measured: &Measured) -> Result<Machine> {
    let cores = cores(given.cores)?;
    let kept = measured.handoff_kept.as_ref();
    let (handoff_ns, handoff_source) = match (given.handoff_ns, kept, measured.handoff_ns) {
        (Some(h), _, _) => (h, whatif::HANDOFF_GIVEN.to_string()),
        (None, Some(k), _) => (k.ns, k.source.clone()),
        (None, None, Some(h)) => (h, whatif::HANDOFF_TRACE.to_string()),
        (None, None, None) => (here_handoff_ns(), whatif::HANDOFF_MEASURED.to_string()),
    };
    let handoff_note = match (given.handoff_ns, kept, measured.handoff_ns) {
        (None, Some(k), Some(h)) => disagreement(k.ns, h),
        _ => None,
    };
    let enqueue_ns = match given.enqueue_ns {
        Some(e) => e,
        None => measured
            .enqueue_ns
            .unwrap_or_else(|| here_posts().2)
            .min(handoff_ns),
    };
    let wake_ns = match given.wake_ns {
        Some(w) => w,
        None => measured
            .wake_ns
            .unwrap_or_else(|| here_posts().1)
            .min(handoff_ns),
    };
    let post_ns = match given.post_ns {
        Some(p) => p,
        None => measured
            .post_ns
            .unwrap_or_else(|| here_posts().0)
            .min(enqueue_ns),
    };
    // A fine-grained receiver takes one message per post it meets at the queue: it pays
    // the transfer of the lock's and the queue's lines the post paid (docs/runtime-fidelity.md,
    // "The enqueue cost": a receiver with nothing else to do takes several per post, faster).
    let take_ns = given.take_ns.unwrap_or(enqueue_ns);
    Ok(Machine {
        cores,
        handoff_ns,
        handoff_source,
        enqueue_ns,
        wake_ns,
        post_ns,
        take_ns,
        handoff_note,
        handoff_range: kept
            .and_then(|k| k.range)
            .filter(|_| given.handoff_ns.is_none()),
        wake_curve: kept
            .and_then(|k| k.curve.clone())
            .filter(|_| given.handoff_ns.is_none()),
    })
}

/// The model at each end of the machine's two states, fast then slow, when the project's
/// handoff windows, its at-the-queue post's or its wake-up curve's saw two states (and
/// neither was given): each resolved as [`resolve`] does with that end's handoff, enqueue
/// and curve (a cost in one state stays the point's; the posts capped by the end's
/// handoff), for a prediction at both ends.
pub fn resolve_ends(given: &Given, measured: &Measured) -> Result<Option<(Machine, Machine)>> {
    let handoff = match (given.handoff_ns, &measured.handoff_kept) {
        (None, Some(k)) => k.range,
        _ => None,
    };
    let enqueue = measured
        .enqueue_range
        .filter(|_| given.enqueue_ns.is_none());
    let kept = measured
        .handoff_kept
        .as_ref()
        .filter(|_| given.handoff_ns.is_none());
    let curve_ends = kept.and_then(|k| k.curve_ends.clone());
    if handoff.is_none() && enqueue.is_none() && curve_ends.is_none() {
        return Ok(None);
    }
    let kept_curve = kept.and_then(|k| k.curve.clone());
    let at = |h: Option<f64>, e: Option<f64>, end: &str| -> Result<Machine> {
        let g = Given {
            handoff_ns: h.or(given.handoff_ns),
            ..*given
        };
        let mut m = measured.clone();
        m.enqueue_ns = e.or(m.enqueue_ns);
        let mut out = resolve(&g, &m)?;
        // The end's handoff is passed as given, which drops the kept curve: the end's own
        // when the curve saw two states, else the point's.
        out.wake_curve = match (&curve_ends, end) {
            (Some((fast, _)), "fast") => Some(fast.clone()),
            (Some((_, slow)), _) => Some(slow.clone()),
            (None, _) => kept_curve.clone(),
        };
        if h.is_some() {
            out.handoff_source = format!(
                "the {end} end of the project's windows, {}",
                crate::analyse::enqueue::FILE
            );
        }
        Ok(out)
    };
    let fast = at(
        handoff.map(|r| r.fast_ns),
        enqueue.map(|r| r.fast_ns),
        "fast",
    )?;
    let slow = at(
        handoff.map(|r| r.slow_ns),
        enqueue.map(|r| r.slow_ns),
        "slow",
    )?;
    Ok(Some((fast, slow)))
}

/// Where the take comes from: `--take`, else the enqueue figure.
pub fn take_source(given: bool) -> &'static str {
    match given {
        true => "given",
        false => "the enqueue figure: one post met per message taken",
    }
}

/// The note when the project's handoff (`kept`) and the trace header's differ by more than
/// 1.5× either way: the runtime measured under another load (or another thread library).
/// Inside a project only the project's figure is replayed, so this is the one test of the
/// header's figure there (`analyze`, `report` and `whatif` print it).
pub(crate) fn disagreement(kept: f64, header: f64) -> Option<String> {
    let ratio = header / kept;
    if (1.0 / 1.5..=1.5).contains(&ratio) || header <= 0.0 {
        return None;
    }
    Some(format!(
        "the trace header's handoff (handoff_ns={header:.0}) could not be trusted: the runtime measured {} µs at start-up, {ratio:.1}× the project's {} µs ({}): the prediction uses the project's, the same for every trace of it; --handoff sets another",
        round1(header / 1e3),
        round1(kept / 1e3),
        crate::analyse::enqueue::FILE
    ))
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

impl Machine {
    /// The replay's parameters in the trace's `unit`, with a remote placement's `latency_ns`
    /// and `bandwidth` (bytes per second) when asked for.
    pub fn params(&self, unit: Unit, latency_ns: f64, bandwidth: Option<f64>) -> Params {
        Params {
            cores: self.cores,
            handoff: whatif::ns_to(unit, self.handoff_ns),
            enqueue: whatif::ns_to(unit, self.enqueue_ns),
            wake: whatif::ns_to(unit, self.wake_ns),
            post: whatif::ns_to(unit, self.post_ns),
            take: whatif::ns_to(unit, self.take_ns),
            latency: whatif::ns_to(unit, latency_ns),
            // Bytes per second to bytes per trace unit.
            bandwidth: bandwidth.map(|b| b * unit.micros() * 1e-6),
            wake_curve: self
                .wake_curve
                .as_ref()
                .map(|c| c.scaled(whatif::ns_to(unit, 1.0))),
        }
    }
}

/// This machine's handoff, measured once per process (two commands in one process, or the
/// proposals' many replays, agree).
fn here_handoff_ns() -> f64 {
    static MEASURED: OnceLock<f64> = OnceLock::new();
    *MEASURED.get_or_init(whatif::measure_handoff_ns)
}

/// This machine's post costs (nobody waiting, waking, both threads at the queue), as C++'s
/// queue pays them, measured once per process; 0 when they could not be, and the post
/// nobody waits for when the two threads never ran side by side (its lower bound).
fn here_posts() -> (f64, f64, f64) {
    static MEASURED: OnceLock<(f64, f64, f64)> = OnceLock::new();
    *MEASURED.get_or_init(|| {
        crate::analyse::calibrate::queue::cpp().map_or((0.0, 0.0, 0.0), |c| {
            (c.post, c.wake, c.enqueue.unwrap_or(c.post))
        })
    })
}

impl crate::analyse::analysis::options::Options {
    /// The machine model the command line gave (see [`crate::analyse::machine`]).
    pub fn machine(&self) -> Given {
        Given {
            cores: self.cores,
            handoff_ns: self.handoff_ns,
            enqueue_ns: self.enqueue_ns,
            wake_ns: self.wake_ns,
            post_ns: self.post_ns,
            take_ns: self.take_ns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_comes_first_then_the_trace_and_enqueue_stays_below_the_handoff() {
        assert!(cores(Some(0)).is_err());
        assert_eq!(cores(Some(3)).unwrap(), 3);
        assert!(cores(None).unwrap() >= 1);
        let given = Given {
            cores: Some(2),
            handoff_ns: Some(5_000.0),
            enqueue_ns: None,
            wake_ns: None,
            post_ns: None,
            take_ns: None,
        };
        let measured = Measured {
            handoff_ns: Some(9_000.0),
            enqueue_ns: Some(7_000.0),
            wake_ns: Some(6_000.0),
            post_ns: Some(8_000.0),
            handoff_kept: None,
            enqueue_range: None,
        };
        let m = resolve(&given, &measured).unwrap();
        assert_eq!((m.cores, m.handoff_ns), (2, 5_000.0));
        assert_eq!(m.handoff_source, whatif::HANDOFF_GIVEN);
        assert_eq!(
            m.enqueue_ns, 5_000.0,
            "a kept enqueue cost is capped by the handoff"
        );
        assert_eq!(m.post_ns, 5_000.0, "a post nobody waits for costs no more");
        assert_eq!(m.take_ns, 5_000.0, "the take is the (capped) enqueue");
        let m = resolve(&Given::default(), &measured).unwrap();
        assert_eq!((m.handoff_ns, m.enqueue_ns), (9_000.0, 7_000.0));
        assert_eq!(m.take_ns, 7_000.0, "the take is the enqueue");
        assert_eq!(m.handoff_source, whatif::HANDOFF_TRACE);
        let given = Given {
            enqueue_ns: Some(20_000.0),
            ..Given::default()
        };
        let m = resolve(&given, &measured).unwrap();
        assert_eq!(
            m.enqueue_ns, 20_000.0,
            "a given enqueue cost is used as it is"
        );
        assert_eq!(m.take_ns, 20_000.0, "and the receiver keeps its pace");
        let given = Given {
            enqueue_ns: Some(20_000.0),
            take_ns: Some(300.0),
            ..Given::default()
        };
        assert_eq!(resolve(&given, &measured).unwrap().take_ns, 300.0);
    }

    #[test]
    fn the_projects_handoff_comes_before_the_headers_which_is_checked_against_it() {
        let kept = |ns: f64| crate::analyse::enqueue::Measured {
            ns,
            source: "measured 2026-11-28 on this machine, .revy/machine.toml".into(),
            range: None,
            curve: None,
            curve_ends: None,
        };
        // A quiet recording's header (21.6 µs) and a loaded one's (3.8 µs): one figure.
        for header in [21_600.0, 3_800.0] {
            let measured = Measured {
                handoff_ns: Some(header),
                enqueue_ns: Some(150.0),
                wake_ns: Some(3_000.0),
                post_ns: Some(15.0),
                handoff_kept: Some(kept(10_000.0)),
                enqueue_range: None,
            };
            let m = resolve(&Given::default(), &measured).unwrap();
            assert_eq!(m.handoff_ns, 10_000.0);
            assert!(m.handoff_source.ends_with(".revy/machine.toml"));
            let note = m
                .handoff_note
                .expect("21.6 and 3.8 µs are over 1.5× off 10 µs");
            assert!(note.contains("the project's 10 µs"), "{note}");
        }
        let close = Measured {
            handoff_ns: Some(5_000.0),
            enqueue_ns: None,
            wake_ns: None,
            post_ns: None,
            handoff_kept: Some(kept(4_000.0)),
            enqueue_range: None,
        };
        assert_eq!(
            resolve(&Given::default(), &close).unwrap().handoff_note,
            None
        );
        let given = Given {
            handoff_ns: Some(1_000.0),
            ..Given::default()
        };
        let m = resolve(&given, &close).unwrap();
        assert_eq!((m.handoff_ns, m.handoff_note), (1_000.0, None));
    }

    #[test]
    fn the_kept_wake_up_curve_is_replayed_in_the_traces_unit_unless_the_handoff_is_given() {
        let curve = whatif::WakeCurve {
            idle: vec![0.0, 50_000.0],
            wake: vec![3_000.0, 30_000.0],
        };
        let measured = Measured {
            handoff_kept: Some(crate::analyse::enqueue::Measured {
                ns: 2_000.0,
                source: "measured now".into(),
                range: None,
                curve: Some(curve.clone()),
                curve_ends: None,
            }),
            ..Measured::default()
        };
        let m = resolve(&Given::default(), &measured).unwrap();
        assert_eq!(m.wake_curve.as_ref(), Some(&curve));
        let p = m.params(Unit::Us, 0.0, None);
        assert_eq!(p.wake_curve.unwrap().at(50.0), 30.0, "µs");
        // A handoff in two states: the curve at both ends.
        let mut two = measured.clone();
        two.handoff_kept.as_mut().unwrap().range = Some(crate::analyse::enqueue::HandoffRange {
            fast_ns: 2_000.0,
            slow_ns: 14_000.0,
            slow_share: 0.3,
        });
        let (fast, slow) = resolve_ends(&Given::default(), &two).unwrap().unwrap();
        assert_eq!(fast.wake_curve.as_ref(), Some(&curve));
        assert_eq!(slow.wake_curve.as_ref(), Some(&curve));
        // The curve in two states (the handoff in one): its ends, the handoff the point's.
        let halted = whatif::WakeCurve {
            idle: vec![0.0, 50_000.0],
            wake: vec![3_000.0, 30_000.0],
        };
        let busy = whatif::WakeCurve {
            idle: vec![0.0, 50_000.0],
            wake: vec![3_000.0, 4_000.0],
        };
        let mut curves = measured.clone();
        curves.handoff_kept.as_mut().unwrap().curve_ends = Some((busy.clone(), halted.clone()));
        let (fast, slow) = resolve_ends(&Given::default(), &curves)
            .unwrap()
            .expect("the curve's two states: both ends");
        assert_eq!(
            (fast.wake_curve, slow.wake_curve),
            (Some(busy), Some(halted))
        );
        assert_eq!((fast.handoff_ns, slow.handoff_ns), (2_000.0, 2_000.0));
        let given = Given {
            handoff_ns: Some(2_000.0),
            ..Given::default()
        };
        let m = resolve(&given, &measured).unwrap();
        assert_eq!(m.wake_curve, None, "--handoff is flat");
        assert_eq!(resolve_ends(&given, &curves).unwrap(), None, "at both ends");
    }

    #[test]
    fn a_handoff_in_two_states_resolves_at_both_ends_unless_given() {
        use crate::analyse::enqueue::HandoffRange;
        let range = HandoffRange {
            fast_ns: 2_400.0,
            slow_ns: 14_000.0,
            slow_share: 0.3,
        };
        let measured = Measured {
            handoff_ns: None,
            enqueue_ns: Some(150.0),
            wake_ns: Some(5_000.0),
            post_ns: Some(15.0),
            handoff_kept: Some(crate::analyse::enqueue::Measured {
                ns: 2_400.0,
                source: "measured now".into(),
                range: Some(range),
                curve: None,
                curve_ends: None,
            }),
            enqueue_range: None,
        };
        let m = resolve(&Given::default(), &measured).unwrap();
        assert_eq!((m.handoff_ns, m.handoff_range), (2_400.0, Some(range)));
        let (fast, slow) = resolve_ends(&Given::default(), &measured)
            .unwrap()
            .expect("two states: both ends");
        assert_eq!((fast.handoff_ns, slow.handoff_ns), (2_400.0, 14_000.0));
        assert_eq!(
            (fast.wake_ns, slow.wake_ns),
            (2_400.0, 5_000.0),
            "each end caps the posts by its own handoff"
        );
        assert!(slow.handoff_source.contains("slow end"), "{slow:?}");
        let given = Given {
            handoff_ns: Some(3_000.0),
            ..Given::default()
        };
        assert_eq!(resolve_ends(&given, &measured).unwrap(), None);
        assert_eq!(resolve(&given, &measured).unwrap().handoff_range, None);
        let mut one = measured.clone();
        one.handoff_kept.as_mut().unwrap().range = None;
        assert_eq!(resolve_ends(&Given::default(), &one).unwrap(), None);
        // The at-the-queue post in two states, the handoff in one: its ends, the point's
        // handoff at both.
        one.enqueue_range = Some(HandoffRange {
            fast_ns: 100.0,
            slow_ns: 220.0,
            slow_share: 0.0,
        });
        let (fast, slow) = resolve_ends(&Given::default(), &one).unwrap().unwrap();
        assert_eq!((fast.enqueue_ns, slow.enqueue_ns), (100.0, 220.0));
        assert_eq!((fast.take_ns, slow.take_ns), (100.0, 220.0));
        assert_eq!((fast.handoff_ns, slow.handoff_ns), (2_400.0, 2_400.0));
        let given = Given {
            enqueue_ns: Some(150.0),
            ..Given::default()
        };
        assert_eq!(resolve_ends(&given, &one).unwrap(), None);
    }
}
