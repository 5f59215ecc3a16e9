//! The probe cost the analysis and the what-if subtract from every message: the trace
//! header's `probe_ns=` (or `--probe-ns`), but its inside part never more than the smallest
//! net time a recorded message shows, nor its outside part more than a sender's smallest
//! net time per message sent ([`Floor`]). Every recorded message paid one start+end pair,
//! so a calibration above the shortest message is wrong (the runtime measured it while
//! preempted: a header once read 28,522 ns where messages took 491 ns, and every method
//! became 0). A cap that changes nothing in whole trace units is none.

use std::path::Path;

use serde::Serialize;

use crate::analyse::trace::TraceReader;
use crate::analyse::trace::{Names, Unit};
use crate::analyse::walk::{Closed, Instance, Sink};
use crate::error::Result;

/// A probe pair's cost split by where it falls, in trace units: `inside` lies within the
/// message's own interval (the start's work after its clock read, the end's before its
/// own), `outside` in its sender's (once per message it sends). A message's net time pays
/// `inside` and `outside` per direct child; its aggregate `inside` per message of its
/// subtree and `outside` per nested one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Probe {
    pub inside: u64,
    pub outside: u64,
}

impl Probe {
    /// `pair` trace units of which `share` (see [`inside_share`]) falls inside.
    pub fn split(pair: u64, share: f64) -> Self {
        let inside = ((pair as f64 * share).round() as u64).min(pair);
        Probe {
            inside,
            outside: pair - inside,
        }
    }
    /// The whole pair.
    pub fn pair(self) -> u64 {
        self.inside + self.outside
    }
    pub fn is_zero(self) -> bool {
        self.pair() == 0
    }
    /// What the probes took of a net time with `children` direct children.
    #[inline]
    pub fn of_net(self, children: u64) -> u64 {
        self.inside
            .saturating_add(self.outside.saturating_mul(children))
    }
    /// What the probes took of an aggregate with `descendants` nested messages.
    #[inline]
    pub fn of_aggregate(self, descendants: u64) -> u64 {
        self.inside
            .saturating_mul(1 + descendants)
            .saturating_add(self.outside.saturating_mul(descendants))
    }
    /// The split within what the trace shows (`floor`): the inside at most the smallest
    /// net time (a leaf's net time shows its inside part), the outside at most the smallest
    /// net time per message sent of a sender (each paid it per child). A calibration over
    /// them was measured on a busy machine, or on a clock whose reads overlap (the TSC: an
    /// empty leaf's 1 ns against a calibrated 7 ns inside).
    pub fn capped(self, floor: Floor) -> Self {
        let at_most = |v: u64, f: u64| if f > 0 { v.min(f) } else { v };
        Probe {
            inside: at_most(self.inside, floor.net),
            outside: at_most(self.outside, floor.per_child),
        }
    }
}

/// What the recorded messages bound the probe split to, in trace units (0: nothing seen):
/// the smallest nonzero net time, and of the messages that sent some with a nonzero net
/// time, the smallest net time per message sent (at least 1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Floor {
    pub net: u64,
    pub per_child: u64,
}

/// The share of the probe pair inside a message's own interval: the header's
/// `probe_inside_ns=` over its `probe_ns=` when both are there and the part is within the
/// pair; else 1, the whole pair taken off the message's own time (traces of older
/// runtimes, as before the split).
pub fn inside_share(h: &crate::analyse::trace::Header) -> f64 {
    let num = |k: &str| h.get(k).and_then(|v| v.parse::<f64>().ok());
    match (num("probe_ns"), num("probe_inside_ns")) {
        (Some(pair), Some(inside)) if pair > 0.0 && inside > 0.0 && inside <= pair => inside / pair,
        _ => 1.0,
    }
}

/// The warning when the header's split of the pair cannot be used or trusted: a part
/// outside 0..`probe_ns=` (the whole pair is then taken off each message's own time), or
/// batches spread wide (the median batch's `probe_inside_p50=` over twice the figure).
pub(crate) fn split_warning(h: &crate::analyse::trace::Header) -> Option<String> {
    let num = |k: &str| h.get(k).and_then(|v| v.parse::<f64>().ok());
    let (pair, inside) = (num("probe_ns")?, num("probe_inside_ns")?);
    if pair > 0.0 && (inside <= 0.0 || inside > pair) {
        return Some(format!(
            "the trace header's part of the probe cost inside a call (probe_inside_ns={}) is not within its probe_ns={}: the whole pair is taken off each message's own time",
            short(inside),
            short(pair)
        ));
    }
    let p50 = num("probe_inside_p50")?;
    (inside > 0.0 && p50 > 2.0 * inside).then(|| {
        format!(
            "the trace header's part of the probe cost inside a call (probe_inside_ns={}) could not be trusted: its batches spread to {} ns at the median (measured while the machine was busy?)",
            short(inside),
            short(p50)
        )
    })
}

/// [`inside_share`] of the trace at `path`.
pub fn header_inside_share(path: &Path) -> Result<f64> {
    Ok(inside_share(TraceReader::open_header(path)?.header()))
}

/// Whether and what probe cost to subtract.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Compensation {
    /// Keep the probe cost in the times (`--no-compensate`).
    Off,
    /// The header's, capped at the smallest net time.
    Header,
    /// Given by the user (`--probe-ns`), in ns: used as it is.
    Given(f64),
    /// What a [`Calibration`] resolved to (a capped header's pair, each part bounded on its
    /// own): the pair in ns and its inside share, used as they are.
    Split { ns: f64, inside_share: f64 },
}

impl From<bool> for Compensation {
    fn from(on: bool) -> Self {
        if on {
            Compensation::Header
        } else {
            Compensation::Off
        }
    }
}

impl Compensation {
    pub fn on(self) -> bool {
        self != Compensation::Off
    }
}

/// The probe cost of a run: where it came from and what was subtracted.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Calibration {
    /// The header's `probe_ns=` (a trace set's smallest).
    pub header_ns: Option<f64>,
    /// `--probe-ns`, when given.
    pub given_ns: Option<f64>,
    /// The smallest nonzero net time of a recorded message, probe included, in ns.
    pub smallest_net_ns: Option<f64>,
    /// What was subtracted per message, in ns (0: nothing).
    pub used_ns: f64,
    /// The header's value exceeded the smallest net time, so that was used instead.
    pub capped: bool,
    /// Of `used_ns`, the share inside each message's own time ([`inside_share`]); the
    /// rest is taken off its sender's, once per message sent.
    pub inside_share: f64,
    /// The header's share (before a cap), for the warning.
    #[serde(skip)]
    header_share: f64,
    /// The smallest nonzero net time per message sent of a sender, in ns (the warning's).
    #[serde(skip)]
    per_child_ns: Option<f64>,
}

impl Calibration {
    /// The cost to subtract given how, the header's value and what the recorded messages
    /// bound it to (trace units, [`Floor`]; 0 when no message was recorded).
    /// `share`: the header's [`inside_share`] (1 when it has none): a leaf's net time shows
    /// that share of the pair, so the cap applies to it.
    pub fn resolve(
        c: Compensation,
        header_ns: Option<f64>,
        share: f64,
        floor: Floor,
        unit: Unit,
    ) -> Self {
        let to_ns = |u: u64| u as f64 * unit.micros() / Unit::Ns.micros();
        let smallest_net_ns = (floor.net > 0).then(|| to_ns(floor.net));
        let mut cal = Calibration {
            header_ns,
            given_ns: None,
            smallest_net_ns,
            used_ns: 0.0,
            capped: false,
            inside_share: share,
            header_share: share,
            per_child_ns: (floor.per_child > 0).then(|| to_ns(floor.per_child)),
        };
        match c {
            Compensation::Off => {}
            Compensation::Given(ns) => {
                cal.given_ns = Some(ns);
                cal.used_ns = ns;
            }
            Compensation::Split { ns, inside_share } => {
                cal.used_ns = ns;
                cal.inside_share = inside_share;
            }
            Compensation::Header => {
                let h = header_ns.unwrap_or(0.0);
                let (inside, outside) = (h * share, h * (1.0 - share));
                let at_most = |v: f64, f: u64| if f > 0 { v.min(to_ns(f)) } else { v };
                let (i, o) = (
                    at_most(inside, floor.net),
                    at_most(outside, floor.per_child),
                );
                cal.used_ns = h;
                let share_of = |i: f64, pair: f64| if pair > 0.0 { i / pair } else { 1.0 };
                // A cap is one only if it changes what is subtracted in whole trace units.
                let in_units = |pair: f64, s: f64| Probe::split(probe_units(pair, unit), s);
                if (i < inside || o < outside)
                    && in_units(i + o, share_of(i, i + o)) != in_units(h, share)
                {
                    cal.used_ns = i + o;
                    cal.capped = true;
                    cal.inside_share = share_of(i, i + o);
                }
            }
        }
        cal
    }
    /// What is taken off per message, in trace units, split by where it falls.
    pub fn probe(&self, unit: Unit) -> Probe {
        Probe::split(probe_units(self.used_ns, unit), self.inside_share)
    }
    /// How [`Compensation`] the caller should replay with: what this resolved to.
    pub fn compensation(&self) -> Compensation {
        if self.used_ns > 0.0 {
            Compensation::Split {
                ns: self.used_ns,
                inside_share: self.inside_share,
            }
        } else {
            Compensation::Off
        }
    }
    /// The header's split as it is, not capped (a cap lost to rounding in trace units).
    pub(crate) fn uncap(&mut self) {
        self.capped = false;
        self.used_ns = self.header_ns.unwrap_or(0.0);
        self.inside_share = self.header_share;
    }
    /// The warning when the header's calibration looks wrong.
    pub fn warning(&self) -> Option<String> {
        if !self.capped {
            return None;
        }
        Some(format!(
            "the trace header's probe cost (probe_ns={}, {} ns of it inside a call's own time) exceeds what the recorded messages show (the shortest {} ns, its own probe included; {} ns per message sent at the least): the calibration looks wrong (measured while the machine was busy?); {} ns per message subtracted instead, {} ns of it inside (--probe-ns sets it, --no-compensate keeps it)",
            self.header_ns.map_or("?".into(), short),
            self.header_ns.map_or("?".into(), |h| short(h * self.header_share)),
            self.smallest_net_ns.map_or("?".into(), short),
            self.per_child_ns.map_or("?".into(), short),
            short(self.used_ns),
            short(self.used_ns * self.inside_share)
        ))
    }
    /// One line: what was subtracted and where it came from.
    pub fn describe(&self) -> String {
        let line = self.describe_pair();
        if self.used_ns > 0.0 && self.inside_share < 1.0 {
            let inside = self.used_ns * self.inside_share;
            return format!(
                "{line}: {} ns from its own time, {} ns from its sender's",
                short(inside),
                short(self.used_ns - inside)
            );
        }
        line
    }
    fn describe_pair(&self) -> String {
        match (self.used_ns > 0.0, self.given_ns, self.header_ns) {
            (false, _, Some(h)) => format!("probe cost {} ns per message not subtracted", short(h)),
            (false, _, None) => "no probe cost in the trace header: times not compensated".into(),
            (true, Some(g), _) => format!("probe cost {} ns per message subtracted (given)", short(g)),
            (true, None, h) if self.capped => format!(
                "probe cost {} ns per message subtracted (header's {} ns capped at the shortest message)",
                short(self.used_ns),
                h.map_or("?".into(), short)
            ),
            (true, None, _) => format!("probe cost {} ns per message subtracted", short(self.used_ns)),
        }
    }
}

/// A number of ns with at most one decimal.
fn short(ns: f64) -> String {
    let r = (ns * 10.0).round() / 10.0;
    if r.fract() == 0.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.1}")
    }
}

/// A sink that notes the smallest nonzero net time of a recorded message (trace units).
#[derive(Debug, Clone, Copy)]
pub struct SmallestNet(pub u64);

impl Default for SmallestNet {
    fn default() -> Self {
        SmallestNet(u64::MAX)
    }
}

impl SmallestNet {
    #[inline]
    pub fn see(&mut self, net: u64) {
        if net > 0 && net < self.0 {
            self.0 = net;
        }
    }
    /// The smallest seen, 0 when none.
    pub fn get(self) -> u64 {
        if self.0 == u64::MAX {
            0
        } else {
            self.0
        }
    }
}

impl Sink for SmallestNet {
    fn closed(&mut self, c: &Closed, _: &[Instance], _: &Names) {
        self.see(c.net);
    }
}

/// The header's `probe_ns=` (read before the walk: text headers are parsed lazily).
pub fn header_probe_ns(path: &Path) -> Result<Option<f64>> {
    header_ns(path, "probe_ns")
}

pub(crate) fn header_ns(path: &Path, key: &str) -> Result<Option<f64>> {
    let r = TraceReader::open_header(path)?;
    Ok(r.header()
        .fields
        .iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, v)| v.parse::<f64>().ok())
        .filter(|p| p.is_finite() && *p >= 0.0))
}

/// The warning when the trace header's handoff (`handoff_ns=`, the runtime's at start-up)
/// could not be trusted: the runtime found no figure in its window, or one resting on fewer
/// than 8 batches of round trips (a machine too busy), or its batches spread wide (the median batch's
/// `handoff_p50=` over twice the figure: most batches were slowed, so it may be too). `None`
/// for traces without the spread (older runtimes) and when it is narrow.
pub(crate) fn handoff_warning(h: &crate::analyse::trace::Header) -> Option<String> {
    let num = |k: &str| h.get(k).and_then(|v| v.parse::<f64>().ok());
    let (ns, p50, batches) = (
        num("handoff_ns")?,
        num("handoff_p50")?,
        num("handoff_batches")?,
    );
    if ns <= 0.0 {
        return Some(format!(
            "the runtime could not measure the handoff (handoff_ns=0 after {batches:.0} batches of round trips: the machine was too busy); the what-if uses this machine's (--handoff sets it)"
        ));
    }
    if batches < 8.0 {
        return Some(format!(
            "the trace header's handoff (handoff_ns={}) could not be trusted: it rests on {batches:.0} batches of round trips (the machine was too busy for more); --handoff sets it",
            short(ns)
        ));
    }
    if p50 > 2.0 * ns {
        return Some(format!(
            "the trace header's handoff (handoff_ns={}) could not be trusted: its {batches:.0} batches of round trips spread to {} ns at the median (measured while the machine was busy?); --handoff sets it",
            short(ns),
            short(p50)
        ));
    }
    None
}

/// The probe cost per message in trace units, rounded.
pub fn probe_units(ns: f64, unit: Unit) -> u64 {
    (ns * Unit::Ns.micros() / unit.micros()).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_above_the_shortest_message_is_capped() {
        let at = |net| Floor { net, per_child: 0 };
        let c = Calibration::resolve(Compensation::Header, Some(28522.1), 1.0, at(491), Unit::Ns);
        assert_eq!(c.used_ns, 491.0);
        assert!(c.capped);
        assert!(c.warning().unwrap().contains("probe_ns=28522.1"));
        let ok = Calibration::resolve(Compensation::Header, Some(60.0), 1.0, at(491), Unit::Ns);
        assert_eq!((ok.used_ns, ok.capped, ok.warning()), (60.0, false, None));
        let given = Calibration::resolve(
            Compensation::Given(700.0),
            Some(60.0),
            1.0,
            at(491),
            Unit::Ns,
        );
        assert_eq!((given.used_ns, given.capped), (700.0, false));
        let off = Calibration::resolve(Compensation::Off, Some(60.0), 1.0, at(491), Unit::Ns);
        assert_eq!(off.used_ns, 0.0);
    }

    #[test]
    fn the_pair_splits_by_the_headers_inside_share() {
        let h = |fields: &str| {
            let mut h = crate::analyse::trace::Header::default();
            for f in fields.split_whitespace() {
                let (k, v) = f.split_once('=').unwrap();
                h.fields.push((k.into(), v.into()));
            }
            h
        };
        assert_eq!(inside_share(&h("probe_ns=30 probe_inside_ns=9")), 0.3);
        // Older traces, and a part that cannot be the pair's: all of it inside.
        assert_eq!(inside_share(&h("probe_ns=30")), 1.0);
        assert_eq!(inside_share(&h("probe_ns=30 probe_inside_ns=31")), 1.0);
        let w = |f: &str| split_warning(&h(f)).unwrap_or_default();
        assert!(w("probe_ns=30 probe_inside_ns=31").contains("whole pair"));
        assert!(w("probe_ns=30 probe_inside_ns=9 probe_inside_p50=19").contains("spread to 19"));
        assert_eq!(w("probe_ns=30 probe_inside_ns=9 probe_inside_p50=12"), "");
        let p = Probe::split(30, 0.3);
        assert_eq!((p.inside, p.outside), (9, 21));
        // A parent with 4 children, 10 nested: 9 + 4 × 21 of its net, 9 × 11 + 21 × 10 of
        // its aggregate.
        assert_eq!((p.of_net(4), p.of_aggregate(10)), (93, 309));
        // Capped at a leaf's 4: the inside only; the outside at most a sender's 14 per
        // message sent.
        let floor = |net, per_child| Floor { net, per_child };
        let capped = |inside, outside| Probe { inside, outside };
        assert_eq!(p.capped(floor(4, 0)), capped(4, 21));
        assert_eq!(p.capped(floor(4, 14)), capped(4, 14));
        assert_eq!(p.capped(floor(12, 30)), p);
        let c = Calibration::resolve(Compensation::Header, Some(30.0), 0.3, floor(4, 0), Unit::Ns);
        assert!(c.capped);
        assert!((c.used_ns - 25.0).abs() < 1e-9, "{c:?}");
        assert!(c.warning().unwrap().contains("9 ns of it inside"));
        assert_eq!(c.probe(Unit::Ns), capped(4, 21));
        let ok = Calibration::resolve(
            Compensation::Header,
            Some(30.0),
            0.3,
            floor(15, 0),
            Unit::Ns,
        );
        assert!(!ok.capped);
        assert!(ok
            .describe()
            .ends_with("9 ns from its own time, 21 ns from its sender's"));
    }

    /// A header over the floor by less than a trace unit is subtracted as it is: no cap,
    /// no warning (30.4 ns, 9.12 inside, against a 9 ns leaf: 30 / 9 either way).
    #[test]
    fn a_cap_under_a_trace_unit_is_none() {
        let floor = Floor {
            net: 9,
            per_child: 0,
        };
        let c = Calibration::resolve(Compensation::Header, Some(30.4), 0.3, floor, Unit::Ns);
        assert_eq!((c.capped, c.used_ns, c.warning()), (false, 30.4, None));
        let c = Calibration::resolve(Compensation::Header, Some(30.4), 0.33, floor, Unit::Ns);
        assert!(c.capped, "{c:?}");
    }

    /// Fails before: the outside was scaled with the inside whenever a leaf was under it.
    /// Java, 2026-11-29: a header's 65.4 / 30.0 ns against leaves of 20 ns on a 10 ns clock
    /// step became 43 / 19.7 (outside 35.4 -> 23.3), and a parent of 50 empty children
    /// kept 12 ns per child; C++ on the TSC: 16.8 / 6.7 ns against a leaf's 1 ns (the two
    /// reads overlap) became 2.0 / 1.0, the parent keeping 8.2 ns per child of its 9.2.
    #[test]
    fn the_outside_part_is_capped_by_what_senders_show_not_with_the_inside() {
        let floor = |net, per_child| Floor { net, per_child };
        let java = Probe::split(65, 30.0 / 65.0);
        assert_eq!((java.inside, java.outside), (30, 35));
        assert_eq!(
            java.capped(floor(20, 0)),
            Probe {
                inside: 20,
                outside: 35
            }
        );
        assert_eq!(
            java.capped(floor(20, 33)),
            Probe {
                inside: 20,
                outside: 33
            }
        );
        let c = Calibration::resolve(
            Compensation::Header,
            Some(65.0),
            30.0 / 65.0,
            floor(20, 36),
            Unit::Ns,
        );
        assert!(c.capped);
        assert_eq!(
            c.probe(Unit::Ns),
            Probe {
                inside: 20,
                outside: 35
            }
        );
        assert!(c.warning().unwrap().contains("30 ns of it inside"));
        let cpp = Calibration::resolve(
            Compensation::Header,
            Some(16.8),
            6.7 / 16.8,
            floor(1, 9),
            Unit::Ns,
        );
        assert_eq!(
            cpp.probe(Unit::Ns),
            Probe {
                inside: 1,
                outside: 9
            }
        );
        // Without a split (older traces) the cap is the whole pair, as before.
        let old = Calibration::resolve(
            Compensation::Header,
            Some(65.0),
            1.0,
            floor(20, 9),
            Unit::Ns,
        );
        assert_eq!((old.used_ns, old.inside_share), (20.0, 1.0));
    }

    #[test]
    fn a_handoff_whose_batches_spread_wide_is_not_trusted() {
        let header = |fields: &str| {
            let mut h = crate::analyse::trace::Header::default();
            for f in fields.split_whitespace() {
                let (k, v) = f.split_once('=').unwrap();
                h.fields.push((k.into(), v.into()));
            }
            h
        };
        let wide = handoff_warning(&header(
            "handoff_ns=4000 handoff_batches=40 handoff_p50=9000",
        ));
        assert!(wide
            .unwrap()
            .contains("handoff_ns=4000) could not be trusted"));
        let none = handoff_warning(&header("handoff_ns=0 handoff_batches=0 handoff_p50=0"));
        assert!(none.unwrap().contains("could not measure the handoff"));
        let few = handoff_warning(&header(
            "handoff_ns=4000 handoff_batches=3 handoff_p50=4000",
        ));
        assert!(few.unwrap().contains("rests on 3 batches"));
        let narrow = handoff_warning(&header(
            "handoff_ns=4000 handoff_batches=60 handoff_p50=5000",
        ));
        assert_eq!(narrow, None);
        // An older runtime's header states no spread: nothing to say.
        assert_eq!(handoff_warning(&header("handoff_ns=4000")), None);
    }
}
