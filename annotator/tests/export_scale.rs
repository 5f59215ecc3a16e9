//! Exports at real sizes: Perfetto's protobuf decoded field by field and compared slice for
//! slice with the Chrome JSON; folded stacks by `Class.method` by default; `--min-time`,
//! `--from/--to` and `--top` keep exactly what they say and report what they dropped.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use common::revy;
use serde_json::Value;

/// A synthetic multi-thread trace in `dir`.
fn synth(dir: &Path, events: u64) -> PathBuf {
    let trace = dir.join("synth.rvt");
    let spec = revy::analyse::trace::synth::Spec {
        events,
        instances: 60,
        threads: 3,
        classes: 6,
        max_depth: 6,
        seed: 11,
        ..Default::default()
    };
    let f = std::io::BufWriter::new(std::fs::File::create(&trace).unwrap());
    revy::analyse::trace::synth::generate(&spec, revy::analyse::trace::Form::Compact, f).unwrap();
    trace
}

fn export(trace: &Path, args: &[&str]) -> String {
    let mut all = vec!["export", trace.to_str().unwrap()];
    all.extend_from_slice(args);
    let o = revy(&all);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "revy export {args:?}: {err}");
    err
}

// ---------- a minimal protobuf reader ----------

#[derive(Debug, Clone, Copy)]
enum V<'a> {
    Int(u64),
    Fixed(u64),
    Bytes(&'a [u8]),
}

fn varint(b: &[u8], at: &mut usize) -> u64 {
    let (mut v, mut shift) = (0u64, 0);
    loop {
        let byte = b[*at];
        *at += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return v;
        }
        shift += 7;
        assert!(shift < 64, "varint too long");
    }
}

/// All (field, value) pairs of one message; panics on anything malformed.
fn fields(b: &[u8]) -> Vec<(u32, V<'_>)> {
    let mut at = 0;
    let mut out = Vec::new();
    while at < b.len() {
        let key = varint(b, &mut at);
        let field = (key >> 3) as u32;
        let v = match key & 7 {
            0 => V::Int(varint(b, &mut at)),
            1 => {
                let v = u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
                at += 8;
                V::Fixed(v)
            }
            2 => {
                let n = varint(b, &mut at) as usize;
                let s = &b[at..at + n];
                at += n;
                V::Bytes(s)
            }
            t => panic!("wire type {t} not expected"),
        };
        out.push((field, v));
    }
    assert_eq!(at, b.len(), "message overruns");
    out
}

fn int(f: &[(u32, V)], n: u32) -> Option<u64> {
    f.iter().find_map(|(k, v)| match v {
        V::Int(x) if *k == n => Some(*x),
        _ => None,
    })
}
fn sub<'a>(f: &[(u32, V<'a>)], n: u32) -> Option<&'a [u8]> {
    f.iter().find_map(|(k, v)| match v {
        V::Bytes(x) if *k == n => Some(*x),
        _ => None,
    })
}

/// One decoded slice: (tid, start ns, end ns, name, receiver oid, flow ids at begin).
type Slice = (u64, u64, u64, String, u64);

struct Decoded {
    slices: Vec<Slice>,
    flows: usize,
    thread_names: BTreeMap<u64, String>,
}

/// Decodes a Perfetto trace the way trace processor reads it: interned names per sequence,
/// track descriptors, begin/end nesting per track in file order.
fn decode_perfetto(bytes: &[u8]) -> Decoded {
    let mut names: HashMap<u64, String> = HashMap::new();
    let mut arg_names: HashMap<u64, String> = HashMap::new();
    let mut track_tid: HashMap<u64, u64> = HashMap::new();
    let mut thread_names = BTreeMap::new();
    let mut open: HashMap<u64, Vec<(u64, String, u64)>> = HashMap::new();
    let mut last_ts: HashMap<u64, u64> = HashMap::new();
    let mut slices = Vec::new();
    let mut flows = 0;
    let mut cleared = false;
    for (field, v) in fields(bytes) {
        assert_eq!(field, 1, "Trace has only packets");
        let V::Bytes(p) = v else {
            panic!("packet is a message")
        };
        let p = fields(p);
        assert_eq!(int(&p, 10), Some(1), "trusted_packet_sequence_id");
        if int(&p, 13) == Some(1) {
            cleared = true;
        }
        if let Some(i) = sub(&p, 12) {
            assert!(cleared, "interned data before the state was cleared");
            for (k, e) in fields(i) {
                let V::Bytes(e) = e else { panic!() };
                let e = fields(e);
                let name = String::from_utf8(sub(&e, 2).unwrap().to_vec()).unwrap();
                let iid = int(&e, 1).unwrap();
                match k {
                    2 => assert!(names.insert(iid, name).is_none(), "event name iid reused"),
                    3 => assert!(arg_names.insert(iid, name).is_none()),
                    _ => panic!("unexpected interned field {k}"),
                }
            }
        }
        if let Some(td) = sub(&p, 60) {
            let td = fields(td);
            let uuid = int(&td, 1).unwrap();
            if let Some(th) = sub(&td, 4) {
                let th = fields(th);
                let tid = int(&th, 2).unwrap();
                track_tid.insert(uuid, tid);
                thread_names.insert(
                    tid,
                    String::from_utf8(sub(&th, 5).unwrap().to_vec()).unwrap(),
                );
            }
        }
        if let Some(te) = sub(&p, 11) {
            let ts = int(&p, 8).expect("track event has a timestamp");
            let te = fields(te);
            let track = int(&te, 11).unwrap();
            let tid = *track_tid
                .get(&track)
                .expect("track described before its first event");
            let prev = last_ts.insert(track, ts).unwrap_or(0);
            assert!(ts >= prev, "time goes back on track {track}");
            match int(&te, 9) {
                Some(1) => {
                    assert_eq!(int(&p, 13), Some(2), "begin uses interned state");
                    let name = names[&int(&te, 10).unwrap()].clone();
                    let mut oid = None;
                    for (k, a) in &te {
                        if let (4, V::Bytes(a)) = (k, a) {
                            let a = fields(a);
                            if arg_names[&int(&a, 1).unwrap()] == "receiver_oid" {
                                oid = int(&a, 3);
                            }
                        }
                        if let (47, V::Fixed(id)) = (k, a) {
                            assert!(*id > 0, "flow id 0");
                            flows += 1;
                        }
                    }
                    open.entry(track)
                        .or_default()
                        .push((ts, name, oid.unwrap()));
                }
                Some(2) => {
                    let (start, name, oid) = open.get_mut(&track).unwrap().pop().unwrap();
                    slices.push((tid, start, ts, name, oid));
                }
                t => panic!("unexpected track event type {t:?}"),
            }
        }
    }
    assert!(open.values().all(Vec::is_empty), "unclosed slices");
    Decoded {
        slices,
        flows,
        thread_names,
    }
}

fn chrome_slices(path: &Path) -> Vec<Slice> {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let ns = |v: &Value| (v.as_f64().unwrap() * 1000.0).round() as u64;
    v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| {
            let s = ns(&e["ts"]);
            (
                e["tid"].as_u64().unwrap(),
                s,
                s + ns(&e["dur"]),
                e["name"].as_str().unwrap().to_string(),
                e["args"]["oid"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// `trace` exported to Perfetto and Chrome JSON in `dir`: the two files.
fn perfetto_and_chrome(trace: &Path, dir: &Path) -> (PathBuf, PathBuf) {
    let (pf, cj) = (dir.join("t.pftrace"), dir.join("t.json"));
    let args = [
        "--perfetto",
        pf.to_str().unwrap(),
        "--chrome",
        cj.to_str().unwrap(),
    ];
    export(trace, &args);
    (pf, cj)
}

#[test]
fn perfetto_protobuf_has_every_message_on_its_thread() {
    let dir = tempfile::tempdir().unwrap();
    for trace in [
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/traces/appendix-f.dtf"),
        synth(dir.path(), 20_000),
    ] {
        let (pf, cj) = perfetto_and_chrome(&trace, dir.path());
        let d = decode_perfetto(&std::fs::read(&pf).unwrap());
        let mut got = d.slices.clone();
        let mut want = chrome_slices(&cj);
        assert!(!want.is_empty());
        got.sort();
        want.sort();
        assert_eq!(got, want, "{}: Perfetto and Chrome slices", trace.display());
        // Every message has its own flow id; all but thread-level ones link to their sender.
        assert!(d.flows > got.len(), "{} flow ids", d.flows);
        let tids: std::collections::BTreeSet<u64> = got.iter().map(|s| s.0).collect();
        assert_eq!(
            tids,
            d.thread_names.keys().copied().collect(),
            "one track per thread"
        );
    }
}

/// The same exports read by Perfetto's own trace protos (the Python `perfetto` package,
/// tests/perfetto_check.py): the file parses as `perfetto.protos.Trace` with no field
/// Perfetto does not define, and its slices are the Chrome export's.
#[test]
fn perfetto_export_reads_with_perfettos_own_protos() {
    if !common::gate::needs(&[common::gate::Tool::Perfetto]) {
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/perfetto_check.py");
    let dir = tempfile::tempdir().unwrap();
    for trace in [
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/traces/account-cpp.rvt"),
        synth(dir.path(), 20_000),
    ] {
        let (pf, cj) = perfetto_and_chrome(&trace, dir.path());
        let o = std::process::Command::new("python3")
            .arg(&script)
            .arg(&pf)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        let mut got: Vec<Slice> = serde_json::from_value(v["slices"].clone()).unwrap();
        let mut want = chrome_slices(&cj);
        assert!(!want.is_empty());
        got.sort();
        want.sort();
        assert_eq!(got, want, "{}: Perfetto and Chrome slices", trace.display());
        assert!(v["flows"].as_u64().unwrap() > got.len() as u64);
        let tids: std::collections::BTreeSet<String> =
            got.iter().map(|s| s.0.to_string()).collect();
        let named = v["threads"].as_object().unwrap().keys().cloned().collect();
        assert_eq!(tids, named, "one track per thread");
    }
}

/// Stacks of a folded file: frames and weight.
fn folded(path: &Path) -> Vec<(Vec<String>, u64)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let (s, w) = l.rsplit_once(' ').unwrap();
            (
                s.split(';').map(str::to_string).collect(),
                w.parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn folded_stacks_are_by_class_unless_asked_by_instance() {
    let dir = tempfile::tempdir().unwrap();
    let trace = synth(dir.path(), 20_000);
    let (by_class, by_inst) = (dir.path().join("c.txt"), dir.path().join("i.txt"));
    export(&trace, &["--folded", by_class.to_str().unwrap()]);
    export(
        &trace,
        &["--folded", by_inst.to_str().unwrap(), "--by-instance"],
    );
    let (c, i) = (folded(&by_class), folded(&by_inst));
    let frames = |v: &[(Vec<String>, u64)]| -> Vec<String> {
        v.iter().flat_map(|(s, _)| s[1..].to_vec()).collect()
    };
    assert!(frames(&c).iter().all(|f| !f.contains('#')), "no object IDs");
    assert!(frames(&i).iter().all(|f| f.contains('#')), "object IDs");
    // The same time, in fewer stacks: instance frames folded into their class.
    let total = |v: &[(Vec<String>, u64)]| v.iter().map(|x| x.1).sum::<u64>();
    assert_eq!(total(&c), total(&i));
    assert!(c.len() < i.len(), "{} vs {} stacks", c.len(), i.len());
    let strip = |f: &str| -> String {
        match f.split_once('#') {
            Some((class, rest)) => format!("{class}{}", &rest[rest.find('.').unwrap()..]),
            None => f.to_string(),
        }
    };
    let mut merged: BTreeMap<Vec<String>, u64> = BTreeMap::new();
    for (s, w) in &i {
        *merged
            .entry(s.iter().map(|f| strip(f)).collect())
            .or_default() += w;
    }
    let c: BTreeMap<Vec<String>, u64> = c.into_iter().collect();
    assert_eq!(c, merged, "by class = by instance with IDs removed");
}

#[test]
fn filters_keep_what_they_say_and_report_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let trace = synth(dir.path(), 20_000);
    let all = dir.path().join("all.json");
    export(&trace, &["--chrome", all.to_str().unwrap()]);
    let every = chrome_slices(&all);
    let n = every.len() as u64;

    // --min-time: exactly the messages at least that long.
    let mut durs: Vec<u64> = every.iter().map(|s| s.2 - s.1).collect();
    durs.sort_unstable();
    let min = durs[durs.len() / 2];
    let out = dir.path().join("min.json");
    let err = export(
        &trace,
        &[
            "--chrome",
            out.to_str().unwrap(),
            "--min-time",
            &min.to_string(),
        ],
    );
    let mut want: Vec<Slice> = every.iter().filter(|s| s.2 - s.1 >= min).cloned().collect();
    let mut got = chrome_slices(&out);
    want.sort();
    got.sort();
    assert_eq!(got, want);
    let short = n - want.len() as u64;
    assert!(short > 0);
    let fmt = |x: u64| {
        let s = x.to_string();
        let mut o = String::new();
        for (k, c) in s.chars().enumerate() {
            if k > 0 && (s.len() - k).is_multiple_of(3) {
                o.push(',');
            }
            o.push(c);
        }
        o
    };
    assert!(
        err.contains(&format!("dropped {} shorter than --min-time", fmt(short))),
        "{err}"
    );

    // --from/--to: the messages overlapping the window.
    let (lo, hi) = (
        every.iter().map(|s| s.1).min().unwrap(),
        every.iter().map(|s| s.2).max().unwrap(),
    );
    let (from, to) = (lo + (hi - lo) / 3, lo + (hi - lo) / 2);
    let out = dir.path().join("win.json");
    let err = export(
        &trace,
        &[
            "--chrome",
            out.to_str().unwrap(),
            "--from",
            &from.to_string(),
            "--to",
            &to.to_string(),
        ],
    );
    let mut want: Vec<Slice> = every
        .iter()
        .filter(|s| s.2 >= from && s.1 <= to)
        .cloned()
        .collect();
    let mut got = chrome_slices(&out);
    want.sort();
    got.sort();
    assert_eq!(got, want);
    assert!(err.contains("outside --from/--to"), "{err}");

    // --top: the N longest (ties: earliest), still nesting per thread.
    let out = dir.path().join("top.json");
    let (dot, fold) = (dir.path().join("top.dot"), dir.path().join("top.txt"));
    let err = export(
        &trace,
        &[
            "--chrome",
            out.to_str().unwrap(),
            "--dot",
            dot.to_str().unwrap(),
            "--folded",
            fold.to_str().unwrap(),
            "--top",
            "50",
        ],
    );
    let got = chrome_slices(&out);
    assert_eq!(got.len(), 50);
    let mut longest: Vec<u64> = every.iter().map(|s| s.2 - s.1).collect();
    longest.sort_unstable_by(|a, b| b.cmp(a));
    let mut kept: Vec<u64> = got.iter().map(|s| s.2 - s.1).collect();
    kept.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(kept, longest[..50]);
    assert!(err.contains("--top kept the 50 longest"), "{err}");
    let edges = std::fs::read_to_string(&dot)
        .unwrap()
        .lines()
        .filter(|l| l.contains(" -> "))
        .count();
    assert_eq!(edges, 50);
    assert!(err.contains("--top kept the 50 edges"), "{err}");
    assert_eq!(folded(&fold).len(), 50);
    assert!(err.contains("--top kept the 50 heaviest"), "{err}");
}

/// Issue 37 item 3: folded stacks grew with the square of the call depth (a trace 20,000
/// calls deep wrote 2.2 GB). Frames past the depth cap count in one `[deeper]` frame, the
/// weights still sum to the run's total, and the command says so.
#[test]
fn folded_stacks_of_a_deep_recursion_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("deep.dtf");
    let depth = 5_000u64;
    let mut t = String::from("##### revy-trace 1 unit=ns lang=java pid=1\n");
    for i in 0..depth {
        t += &format!("<Msg cls=A oid=1 mth=f sgn=!! size=0 tid=1 t={i}>\n");
    }
    for i in (0..depth).rev() {
        t += &format!(
            "</Msg cls=A oid=1 mth=f sgn=!! tid=1 t={}>\n",
            2 * depth - i
        );
    }
    t += &format!("##### end events={}\n", 2 * depth);
    std::fs::write(&trace, t).unwrap();
    let out = dir.path().join("f.txt");
    let err = export(&trace, &["--folded", out.to_str().unwrap()]);
    let stacks = folded(&out);
    let longest = stacks.iter().map(|(s, _)| s.len()).max().unwrap();
    // The thread's root, 1,024 frames, one [deeper].
    assert_eq!(longest, 1 + 1024 + 1, "frames in the longest stack");
    assert!(std::fs::metadata(&out).unwrap().len() < 8 << 20);
    assert!(stacks.iter().any(|(s, _)| s.last().unwrap() == "[deeper]"));
    assert_eq!(
        stacks.iter().map(|x| x.1).sum::<u64>(),
        2 * depth,
        "net times sum to the total"
    );
    assert!(err.contains("[deeper] frames"), "{err}");
}
