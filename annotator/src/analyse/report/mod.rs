//! `revy report`: one self-contained HTML file. The page's HTML, CSS and JS are
//! static assets embedded at compile time; the analysis goes in as one JSON blob. Nothing is
//! fetched from the network: no CDN, fonts or images.
//!
//! Large traces stay usable: the analysis is streaming, and the page gets the most active
//! instances, the heaviest edges and messages up to fixed caps (the page says what it left out).

pub(crate) mod classes;
pub(crate) mod events;
pub(crate) mod layout;
pub(crate) mod ranking;
pub(crate) mod timeline;

use std::path::Path;
use std::time::Instant;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use crate::analyse::analysis::stats::MessageRecord;
use crate::analyse::analysis::{
    self, Analysis, Builder, ClassStats, EdgeStats, Hint, InstanceStats, MethodStats, Options,
    ThreadStats, Totals, TraceInfo,
};
use crate::analyse::trace::Names;
use crate::analyse::walk::{Closed, Frame, InstKind, Instance, Sink, Walker};
use crate::error::{Error, Result};

const TEMPLATE: &str = include_str!("template.html");
const CSS: &str = include_str!("report.css");
const JS: &str = include_str!("report.js");

/// How much of a big trace goes into the page.
#[derive(Debug, Clone, Serialize)]
pub struct Caps {
    /// Instances in the page (the most active; thread roots always).
    pub instances: usize,
    /// Sender→receiver edges among them (the most called).
    pub edges: usize,
    /// Sender→receiver→method links (the most called).
    pub links: usize,
    /// Messages with full detail (the analysis keeps the longest by aggregate time).
    pub messages: usize,
}

impl Default for Caps {
    fn default() -> Self {
        Caps {
            instances: 1000,
            edges: 3000,
            links: 8000,
            messages: 2000,
        }
    }
}

/// A sender→receiver→method aggregate: `[sender, receiver, method, calls, net, aggregate, bytes]`.
pub(crate) type Link = [u64; 7];

/// The JSON blob the page reads.
#[derive(Serialize)]
pub struct Data<'a> {
    pub schema: &'static str,
    pub version: &'static str,
    pub trace: &'a TraceInfo,
    pub options: &'a Options,
    pub totals: &'a Totals,
    pub threads: &'a [ThreadStats],
    /// The root drawn at the centre (the root of the busiest thread).
    pub main_root: Option<u32>,
    pub caps: &'a Caps,
    pub instances: Vec<InstanceStats>,
    pub classes: &'a [ClassStats],
    /// The whole run's class-level graph (class nodes take their figures from `classes`).
    pub class_graph: classes::ClassGraph,
    pub methods: &'a [MethodStats],
    /// Each method's signature as people read it, by method id (`trace::display`).
    pub signatures: Vec<String>,
    pub edges: Vec<EdgeStats>,
    pub links: Vec<Link>,
    /// Distinct (sender, receiver, method) links on the edges shown, before the links cap.
    pub links_total: usize,
    pub messages: Vec<&'a MessageRecord>,
    /// All messages of the trace.
    pub messages_total: u64,
    pub hints: &'a [Hint],
    /// The run's objects ranked once: the answer's first line and the tables' order.
    pub ranking: Vec<ranking::Ranked>,
    /// First message start and last message end (trace units).
    pub span: [u64; 2],
    /// `--baseline`: the older run to compare with.
    pub baseline: Option<Baseline>,
    /// Every thread's messages binned per depth row and zoom level (the timeline).
    pub timeline: &'a timeline::Timeline,
    /// Node positions of the instance and class graphs, computed here once.
    pub layout: layout::Layout,
    /// Per-event results with `[[events]]` (`events.js` draws them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<&'a crate::analyse::events::Events>,
}

/// What the page shows of the baseline run: its span and totals, per-class time and the
/// most active instances by label (labels are how objects match across runs).
#[derive(Serialize)]
pub struct Baseline {
    pub path: String,
    pub span: [u64; 2],
    pub total_time: u64,
    pub messages: u64,
    pub threads: usize,
    pub instances: usize,
    /// `(class, active time, instances, messages)`.
    pub classes: Vec<(String, u64, u64, u64)>,
    /// `(label, active time)` of its most active instances.
    pub top_instances: Vec<(String, u64)>,
}

impl Baseline {
    /// Instances of the baseline kept in the page.
    const TOP: usize = 2000;

    pub fn of(input: &Input) -> Baseline {
        let a = &input.analysis;
        let top = top_by_label(&a.instances, Self::TOP);
        Baseline {
            path: a.trace.path.clone(),
            span: input.span,
            total_time: a.totals.total_time,
            messages: a.totals.messages,
            threads: a.totals.threads,
            instances: a.totals.instances,
            classes: a
                .classes
                .iter()
                .map(|c| (c.class.clone(), c.active_time, c.instances, c.messages))
                .collect(),
            top_instances: top,
        }
    }
}

/// The `n` most active non-root instances as `(label, active time)`, ties by label; labels
/// are built only for the rows that can make the cut.
fn top_by_label(insts: &analysis::Instances, n: usize) -> Vec<(String, u64)> {
    let non_root = |i: &analysis::InstRow| i.kind != InstKind::Root;
    let best = insts.top(n, non_root, |x, y| {
        y.active_time.cmp(&x.active_time).then(x.id.cmp(&y.id))
    });
    let Some(floor) = best.last().map(|i| i.active_time) else {
        return Vec::new();
    };
    let mut top: Vec<(String, u64)> = Vec::new();
    for r in insts
        .rows()
        .filter(|r| non_root(r) && r.active_time >= floor)
    {
        top.push((insts.label(r.id), r.active_time));
        if top.len() >= 2 * n.max(1024) {
            top.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
            top.truncate(n);
        }
    }
    top.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
    top.truncate(n);
    top
}

/// The analysis sink plus the span of the messages.
struct Tee {
    b: Builder,
    span: [u64; 2],
    slices: timeline::Collector,
}

impl Sink for Tee {
    fn started(&mut self, parent: Option<u32>, thread: usize, frame: &Frame) -> u32 {
        self.b.started(parent, thread, frame)
    }
    #[inline]
    fn closed(&mut self, c: &Closed, instances: &[Instance], names: &Names) {
        self.b.closed(c, instances, names);
        let f = &c.frame;
        self.span = [self.span[0].min(f.start), self.span[1].max(c.end)];
        self.slices.add(
            c.tid,
            c.outer.len(),
            timeline::Slice {
                start: f.start,
                end: c.end,
                method: f.method,
                wait: c.wait,
            },
        );
    }
    /// Aggregated calls count in the analysis (the timeline and message views show recorded
    /// calls only).
    fn aggregated(
        &mut self,
        aggs: &crate::analyse::trace::agg::Aggregates,
        edges: &[crate::analyse::walk::Resolved],
        instances: &[Instance],
    ) {
        self.b.aggregated(aggs, edges, instances);
    }
}

/// Per-(sender, receiver, method) totals for the page's filters, on the edges it shows only
/// (a second walk: over all edges they would outweigh the whole analysis).
struct Links {
    edges: FxHashSet<(u32, u32)>,
    links: FxHashMap<(u32, u32, u32), [u64; 4]>,
}

impl Sink for Links {
    #[inline]
    fn closed(&mut self, c: &Closed, _: &[Instance], _: &Names) {
        let f = &c.frame;
        if !self.edges.contains(&(f.sender, f.receiver)) {
            return;
        }
        let l = self
            .links
            .entry((f.sender, f.receiver, f.method))
            .or_default();
        l[0] += 1;
        l[1] += c.net;
        l[2] += c.aggregate;
        l[3] += f.size;
    }
    /// Aggregated calls count in the graph's links too, on the edges the page shows.
    fn aggregated(
        &mut self,
        _: &crate::analyse::trace::agg::Aggregates,
        edges: &[crate::analyse::walk::Resolved],
        _: &[Instance],
    ) {
        for e in edges
            .iter()
            .filter(|e| self.edges.contains(&(e.sender, e.receiver)))
        {
            let l = self
                .links
                .entry((e.sender, e.receiver, e.method))
                .or_default();
            l[0] += e.calls;
            l[1] = l[1].saturating_add_signed(e.net);
            l[2] += e.agg;
            l[3] += e.size;
        }
    }
}

/// The analysis and the links of one trace.
pub struct Input {
    pub analysis: Analysis,
    pub links: Vec<Link>,
    pub span: [u64; 2],
    pub timeline: timeline::Timeline,
}

/// Analyse `trace` for the report (messages capped at `caps.messages`).
pub fn analyze(trace: &Path, opts: &Options, caps: &Caps) -> Result<Input> {
    let mut opts = opts.clone();
    opts.detail_cap = opts.detail_cap.min(caps.messages);
    let mut tee = Tee {
        b: Builder::for_trace(trace, &opts)?,
        span: [u64::MAX, 0],
        slices: timeline::Collector::default(),
    };
    let probe = tee.b.probe();
    let (mut reader, mut walker, mut evs) = events::walk(trace, &opts, probe, &mut tee, None)?;
    if let Some(b) = tee.b.capped(&opts) {
        // The header's probe cost exceeds a message's net time: walk again at the cap.
        let probe = b.probe();
        tee = Tee {
            b,
            span: [u64::MAX, 0],
            slices: timeline::Collector::default(),
        };
        (reader, walker, evs) = events::walk(trace, &opts, probe, &mut tee, evs.as_ref())?;
    }
    let evs = events::of(evs, &reader, &opts);
    let slices = std::mem::take(&mut tee.slices);
    let mut analysis = analysis::finish_with_advice(trace, &opts, tee.b, &reader, &mut walker)?;
    analysis.events = evs;
    drop((reader, walker));
    let mut ls = Links {
        edges: select(&analysis, caps)
            .1
            .iter()
            .map(|e| (e.sender, e.receiver))
            .collect(),
        links: FxHashMap::default(),
    };
    // Ids only: the analysis holds the instances (at 10⁶ a second copy was 40 MB).
    crate::analyse::walk::walk_trace_by(trace, Walker::numbering(), &mut ls, &mut |_, _| {})?;
    let links = ls
        .links
        .into_iter()
        .map(|((s, r, m), v)| [s as u64, r as u64, m as u64, v[0], v[1], v[2], v[3]])
        .collect();
    let span = if tee.span[0] > tee.span[1] {
        [0, 0]
    } else {
        tee.span
    };
    let timeline = timeline::summarise(slices, span[0], span[1]);
    Ok(Input {
        analysis,
        links,
        span,
        timeline,
    })
}

/// The instances the page shows (roots, then the most active; ties: most messages, lowest
/// id) and the edges between them (the most called when over the cap), both in id order.
fn select(a: &Analysis, caps: &Caps) -> (Vec<InstanceStats>, Vec<EdgeStats>) {
    let mut order = a.instances.top(
        caps.instances,
        |_| true,
        |x, y| {
            (y.kind == InstKind::Root)
                .cmp(&(x.kind == InstKind::Root))
                .then(y.active_time.cmp(&x.active_time))
                .then((y.received + y.sent).cmp(&(x.received + x.sent)))
                .then(x.id.cmp(&y.id))
        },
    );
    order.sort_by_key(|i| i.id);
    let kept: FxHashSet<u32> = order.iter().map(|i| i.id).collect();
    let keep = |id: u32| kept.contains(&id);
    let mut edges: Vec<EdgeStats> = a
        .edges
        .iter()
        .filter(|e| keep(e.sender) && keep(e.receiver))
        .collect();
    if edges.len() > caps.edges {
        edges.sort_by(|x, y| {
            y.calls
                .cmp(&x.calls)
                .then(y.net_time.cmp(&x.net_time))
                .then((x.sender, x.receiver).cmp(&(y.sender, y.receiver)))
        });
        edges.truncate(caps.edges);
        edges.sort_by_key(|e| (e.sender, e.receiver));
    }
    (order, edges)
}

/// Choose what goes into the page.
pub fn data<'a>(input: &'a Input, caps: &'a Caps) -> Data<'a> {
    let (a, links) = (&input.analysis, &input.links[..]);
    let main_root = a
        .threads
        .iter()
        .max_by_key(|t| (t.total_time, t.messages, std::cmp::Reverse(t.tid)))
        .map(|t| t.root);
    let (order, edges) = select(a, caps);
    let edge_set: FxHashSet<(u32, u32)> = edges.iter().map(|e| (e.sender, e.receiver)).collect();
    let kept: FxHashSet<u32> = order.iter().map(|i| i.id).collect();
    let keep = |id: u32| kept.contains(&id);
    let mut ls: Vec<Link> = links
        .iter()
        .filter(|l| edge_set.contains(&(l[0] as u32, l[1] as u32)))
        .copied()
        .collect();
    let links_total = links.len();
    if ls.len() > caps.links {
        ls.sort_by(|x, y| y[3].cmp(&x[3]).then(x.cmp(y)));
        ls.truncate(caps.links);
    }
    ls.sort();
    let messages = a
        .messages
        .list
        .iter()
        .filter(|m| keep(m.sender) && keep(m.receiver))
        .collect();
    let class_graph = classes::graph(a, &order);
    let layout = layout::compute(
        &order.iter().collect::<Vec<_>>(),
        &edges.iter().collect::<Vec<_>>(),
        main_root,
        &layout::ClassInput {
            classes: &a.classes,
            graph: &class_graph,
            total: a.totals.total_time,
        },
    );
    Data {
        schema: "revy-report/1",
        version: env!("CARGO_PKG_VERSION"),
        trace: &a.trace,
        options: &a.options,
        totals: &a.totals,
        threads: &a.threads,
        main_root,
        caps,
        instances: order,
        classes: &a.classes,
        class_graph,
        methods: &a.methods,
        signatures: (a.methods.iter())
            .map(|m| crate::analyse::trace::display::signature(&m.signature))
            .collect(),
        edges,
        links: ls,
        links_total,
        messages,
        messages_total: a.messages.total,
        hints: &a.hints,
        ranking: ranking::rank(a),
        span: input.span,
        baseline: None,
        timeline: &input.timeline,
        layout,
        events: a.events.as_ref(),
    }
}

/// JSON made safe inside `<script>`: `<` only occurs in strings, where `\u003c` means the same.
pub(crate) fn script_json(value: &impl Serialize) -> String {
    let json = serde_json::to_string(value).expect("report data serialises");
    json.replace('<', "\\u003c")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The whole page.
pub fn render(d: &Data) -> String {
    let title = format!(
        "Revy report: {}",
        Path::new(&d.trace.path)
            .file_name()
            .map_or_else(|| d.trace.path.clone(), |f| f.to_string_lossy().into())
    );
    let json = script_json(d);
    // Replace the data last so nothing in it is taken for a placeholder.
    let (head, tail) = TEMPLATE
        .split_once("__REVY_DATA__")
        .expect("template has a data slot");
    let fill = |s: &str| {
        s.replace("__REVY_TITLE__", &html_escape(&title))
            .replace("/*__REVY_CSS__*/", CSS)
            .replace("/*__REVY_JS__*/", JS)
            .replace("/*__REVY_EVENTS_JS__*/", events::JS)
    };
    let mut out = String::with_capacity(TEMPLATE.len() + CSS.len() + JS.len() + json.len());
    out.push_str(&fill(head));
    out.push_str(&json);
    out.push_str(&fill(tail));
    out
}

/// What `write` did.
#[derive(Debug)]
pub struct Written {
    pub instances: usize,
    pub messages: u64,
    pub bytes: usize,
    pub seconds: f64,
    pub warnings: Vec<String>,
    pub top_hint: Option<String>,
}

/// Analyse `trace` and write the report to `out`.
pub fn write(trace: &Path, out: &Path, opts: &Options) -> Result<Written> {
    write_compared(trace, None, out, opts)
}

/// [`write`] with the run at `baseline` side by side (`revy report NEW --baseline OLD`).
pub fn write_compared(
    trace: &Path,
    baseline: Option<&Path>,
    out: &Path,
    opts: &Options,
) -> Result<Written> {
    let t0 = Instant::now();
    let caps = Caps::default();
    let old = match baseline {
        Some(b) => Some(Baseline::of(&analyze(b, opts, &caps)?)),
        None => None,
    };
    let input = analyze(trace, opts, &caps)?;
    let a = &input.analysis;
    let mut d = data(&input, &caps);
    d.baseline = old;
    let html = render(&d);
    if let Some(dir) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    std::fs::write(out, html.as_bytes()).map_err(|e| Error::io(out, e))?;
    Ok(Written {
        instances: a.totals.instances,
        messages: a.totals.messages,
        bytes: html.len(),
        seconds: t0.elapsed().as_secs_f64(),
        warnings: a.trace.warnings.clone(),
        top_hint: a.hints.first().map(|h| match h.kind {
            crate::analyse::analysis::hints::HintKind::Proposal => {
                format!("top proposal: {}", h.text)
            }
            _ => format!("top hint: {}", h.text),
        }),
    })
}

/// The JSON blob embedded in a report page (for tests and tools).
pub fn embedded_data(html: &str) -> Option<serde_json::Value> {
    let start = html.find("<script id=\"revy-data\" type=\"application/json\">")?;
    let rest = &html[start..];
    let open = rest.find('>')? + 1;
    let close = rest.find("</script>")?;
    serde_json::from_str(&rest[open..close]).ok()
}

/// Tests of the report's parts: the analysis of a synthetic compact trace made from `spec`.
#[cfg(test)]
pub(crate) fn synth_input(spec: &crate::analyse::trace::synth::Spec, caps: &Caps) -> Input {
    use crate::analyse::trace::{synth, Form};
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.rvt");
    let f = std::io::BufWriter::new(std::fs::File::create(&trace).unwrap());
    synth::generate(spec, Form::Compact, f).unwrap();
    analyze(&trace, &Options::default(), caps).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_assets_are_small() {
        assert!(TEMPLATE.len() + CSS.len() + JS.len() < 2 << 20);
        assert!(TEMPLATE.contains("__REVY_DATA__"));
    }

    #[test]
    fn script_json_cannot_close_the_script() {
        let v = serde_json::json!({"s": "</script><!-- \u{2028}"});
        let j = script_json(&v);
        assert!(!j.contains('<'));
        let back: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn appendix_f_report_embeds_the_levels() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/traces/appendix-f.dtf");
        let caps = Caps::default();
        let input = analyze(&path, &Options::default(), &caps).unwrap();
        let html = render(&data(&input, &caps));
        // No fetches: the only URL-like text is the SVG namespace name.
        let bare = html.replace("'http://www.w3.org/2000/svg'", "");
        assert!(!bare.contains("http://") && !bare.contains("https://"));
        assert!(!bare.contains("src=") && !bare.contains("@import") && !bare.contains("url(h"));
        let d = embedded_data(&html).expect("data blob");
        let accounts: Vec<_> = d["instances"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["class"] == "Account")
            .collect();
        assert_eq!(accounts.len(), 3);
        // transfer (aggregate 5, net 3) + withdraw 1 on #4 and #6; two deposits of 1 on #2.
        let level = |oid: u64| {
            accounts.iter().find(|i| i["oid"] == oid).unwrap()["level"]
                .as_f64()
                .unwrap()
        };
        // Shares of the run (24 ms, of which 10 inside messages: the thesis's 0.2/0.4/0.4).
        assert_eq!(
            (level(2), level(4), level(6)),
            (2.0 / 24.0, 4.0 / 24.0, 4.0 / 24.0)
        );
        for i in &accounts {
            let a = input
                .analysis
                .instances
                .get(i["id"].as_u64().unwrap() as u32)
                .unwrap();
            assert_eq!(i["level"].as_f64().unwrap(), a.level);
            assert_eq!(i["active_time"].as_u64().unwrap(), a.active_time);
        }
        // transfer and deposit per pair: root→4, root→6, 4→4, 4→2, 6→6, 6→2.
        assert_eq!(d["edges"].as_array().unwrap().len(), 6);
        assert_eq!(d["links"].as_array().unwrap().len(), 6);
    }
}
