//! The analysis's tunables: what the command line and the manifest give `revy analyze`,
//! `report` and `whatif`. A leaf: the machine model and the enqueue cost read it.

use serde::Serialize;

use crate::analyse::probe;

/// Tunables of the analysis.
#[derive(Debug, Clone, Serialize)]
pub struct Options {
    /// How many messages keep full detail (top by aggregate time).
    pub detail_cap: usize,
    /// Activity level (0..1) from which instances and messages become candidates.
    pub threshold_level: f64,
    /// Or an absolute active time (trace units) from which they do.
    pub threshold_time: Option<u64>,
    /// At most this many hints of each kind.
    pub max_hints_per_kind: usize,
    /// Subtract the probe cost the trace header states (`probe_ns=`), at most the smallest
    /// net time a recorded message shows.
    pub compensate: bool,
    /// Subtract this probe cost (ns per message) instead of the header's (`--probe-ns`).
    pub probe_ns: Option<f64>,
    /// Cores the proposals are predicted for (`None`: this machine's).
    pub cores: Option<usize>,
    /// Handoff per cross-thread message in ns for the proposals (`None`: measured).
    pub handoff_ns: Option<f64>,
    /// Sender's CPU per asynchronous message to a queue its receiver has just emptied and
    /// is at, in ns (`None`: measured, at most the handoff).
    pub enqueue_ns: Option<f64>,
    /// ... that wakes a receiver blocked on its queue (`None`: measured, at most the handoff).
    pub wake_ns: Option<f64>,
    /// ... posted behind others, to a receiver busy anyway (`None`: measured).
    pub post_ns: Option<f64>,
    /// Receiver's CPU per message it takes off a queue its sender is at, in ns (`None`:
    /// the enqueue figure, given or measured).
    pub take_ns: Option<f64>,
    /// Replaying holds every message in memory and runs once per candidate: beyond this
    /// many recorded messages the replays hold only the candidates' messages, those they
    /// are sent from and the rest merged (`whatif::focus`), up to twice as many nodes;
    /// past that no proposal is evaluated (`revy whatif` replays one change).
    pub max_replay_messages: u64,
    /// Evaluate proposals with the what-if replay (needs a second pass over the trace).
    pub proposals: bool,
    /// The project manifest: its `.revy/saf.toml` (return types, which methods write state)
    /// is used when none is beside the trace (a trace written outside the project). Not
    /// in the JSON: a path of this machine.
    #[serde(skip)]
    pub manifest: Option<std::path::PathBuf>,
    /// The manifest's `[[events]]`: followed when not empty (`analyse::events`).
    #[serde(skip)]
    pub events: Vec<crate::instrument::events::EventDef>,
    /// The manifest's `[[remote]]`: client calls linked to their servers' handling.
    #[serde(skip)]
    pub remote: Vec<crate::instrument::remote::RemoteDef>,
    /// Measure the enqueue cost again instead of reading `.revy/machine.toml` (`--remeasure`).
    #[serde(skip)]
    pub remeasure: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            detail_cap: 100_000,
            threshold_level: 0.10,
            threshold_time: None,
            max_hints_per_kind: 20,
            compensate: true,
            probe_ns: None,
            cores: None,
            handoff_ns: None,
            enqueue_ns: None,
            wake_ns: None,
            post_ns: None,
            take_ns: None,
            max_replay_messages: 1_000_000,
            proposals: true,
            manifest: None,
            events: Vec::new(),
            remote: Vec::new(),
            remeasure: false,
        }
    }
}

impl Options {
    /// How the probe cost is subtracted: not at all, the given one, or the header's.
    pub fn compensation(&self) -> probe::Compensation {
        match (self.compensate, self.probe_ns) {
            (false, _) => probe::Compensation::Off,
            (true, Some(ns)) => probe::Compensation::Given(ns),
            (true, None) => probe::Compensation::Header,
        }
    }
}
