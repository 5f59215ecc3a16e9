//! The machine model's arguments, shared by `analyze`, `whatif` and `report`, and the
//! activity cut-off `analyze` and `report` share.

use std::path::Path;

use clap::Args;
use revy::error::{Error, Result};

/// The machine model the proposals (`analyze`) and `whatif` replay on.
#[derive(Args)]
pub(crate) struct ReplayArgs {
    /// Cores of the machine to predict for (default: this machine's).
    #[arg(long)]
    pub(crate) cores: Option<usize>,
    /// Wake-up delay of a cross-thread message, e.g. `5us` (default: measured once for the
    /// project and kept in .revy/machine.toml; without a project, the trace header's).
    #[arg(long)]
    pub(crate) handoff: Option<String>,
    /// CPU a sender spends posting an asynchronous message to a queue its receiver has just
    /// emptied and is at, e.g. `200ns` (default: measured once for the project and kept in
    /// .revy/machine.toml, at most the handoff).
    #[arg(long)]
    pub(crate) enqueue: Option<String>,
    /// CPU a sender spends on a post that wakes a receiver blocked on its queue (a system
    /// call), e.g. `2us` (default: measured once for the project with the trace language's
    /// queue and kept, at most the handoff).
    #[arg(long)]
    pub(crate) wake: Option<String>,
    /// CPU a sender spends posting behind other messages, to a receiver busy anyway (no
    /// system call), e.g. `20ns` (default: measured and kept as --wake is).
    #[arg(long)]
    pub(crate) post: Option<String>,
    /// CPU a receiver spends taking each fine-grained message off its queue, its sender at
    /// the queue too, e.g. `120ns` (default: the enqueue figure, given or kept: each take
    /// meets one post at the queue).
    #[arg(long)]
    pub(crate) take: Option<String>,
    /// Measure this machine's post costs and handoff again and keep them in
    /// .revy/machine.toml.
    #[arg(long, conflicts_with_all = ["enqueue", "wake", "post"])]
    pub(crate) remeasure: bool,
    /// Keep the probe cost in the times.
    #[arg(long)]
    pub(crate) no_compensate: bool,
    /// Subtract this probe cost per message, in ns (default: the trace header's, at most
    /// the shortest message's net time).
    #[arg(long, conflicts_with = "no_compensate")]
    pub(crate) probe_ns: Option<f64>,
}

impl ReplayArgs {
    /// Analysis options with this machine model (the rest default).
    /// The analysis options; `manifest`'s SAF is used when none is beside the trace.
    pub(crate) fn options(&self, manifest: &Path) -> Result<revy::analyse::analysis::Options> {
        let ns = |opt: &str, d: &Option<String>| {
            let parse = |d: &str| {
                revy::analyse::whatif::parse_duration_ns(d)
                    .map_err(|e| Error::input(format!("--{opt} {e}")))
            };
            d.as_deref().map(parse).transpose()
        };
        if self.probe_ns.is_some_and(|p| !p.is_finite() || p < 0.0) {
            return Err(Error::input("--probe-ns must be a number of ns, 0 or more"));
        }
        let opts = revy::analyse::analysis::Options {
            compensate: !self.no_compensate,
            probe_ns: self.probe_ns,
            cores: self.cores,
            handoff_ns: ns("handoff", &self.handoff)?,
            enqueue_ns: ns("enqueue", &self.enqueue)?,
            wake_ns: ns("wake", &self.wake)?,
            post_ns: ns("post", &self.post)?,
            take_ns: ns("take", &self.take)?,
            manifest: manifest.is_file().then(|| manifest.to_path_buf()),
            events: manifest_events(manifest)?,
            remote: manifest_remote(manifest)?,
            remeasure: self.remeasure,
            ..Default::default()
        };
        opts.machine().check()?;
        Ok(opts)
    }
}

/// From which activity hints name candidates (`analyze`, `report`).
#[derive(Args)]
pub(crate) struct Cutoff {
    /// Activity level (share of the total, 0..1) from which hints name candidates.
    #[arg(long, default_value_t = 0.10)]
    threshold: f64,
    /// Or an absolute active time, in the trace's unit, from which they do.
    #[arg(long)]
    min_time: Option<u64>,
}

impl Cutoff {
    /// `opts` with this cut-off, checked.
    pub(crate) fn apply(
        &self,
        opts: revy::analyse::analysis::Options,
    ) -> Result<revy::analyse::analysis::Options> {
        if !(0.0..=1.0).contains(&self.threshold) {
            return Err(Error::input(
                "--threshold is a share of the total between 0 and 1 (e.g. 0.1)",
            ));
        }
        Ok(revy::analyse::analysis::Options {
            threshold_level: self.threshold,
            threshold_time: self.min_time,
            ..opts
        })
    }
}

/// The `[[remote]]` calls of the manifest, when there is one.
pub(crate) fn manifest_remote(manifest: &Path) -> Result<Vec<revy::instrument::remote::RemoteDef>> {
    if !manifest.is_file() {
        return Ok(Vec::new());
    }
    Ok(revy::instrument::manifest::Manifest::load(manifest)?.remote)
}

/// The `[[events]]` of the manifest, when there is one (a trace analysed outside a project
/// has none).
pub(crate) fn manifest_events(manifest: &Path) -> Result<Vec<revy::instrument::events::EventDef>> {
    if !manifest.is_file() {
        return Ok(Vec::new());
    }
    Ok(revy::instrument::manifest::Manifest::load(manifest)?.events)
}
