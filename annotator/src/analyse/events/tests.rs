//! The tracking rules on a hand-written trace whose threads come in the file out of time
//! order (as the runtimes' per-thread blocks do).

use std::path::Path;

use crate::analyse::analysis::Options;
use crate::instrument::manifest::Manifest;

/// Thread 2's block comes first in the file, then thread 3's, then thread 1's, which
/// started both events (accept) and created their objects earlier in time.
const TRACE: &str = "##### revy-trace 1 unit=ns
<Msg cls=R oid=2 mth=run sgn=!! size=0 tid=2 t=50>
<Msg cls=A oid=1 mth=accept sgn=!! size=0 tid=2 t=52>
</Msg cls=A oid=1 mth=accept sgn=!! tid=2 t=54>
</Msg cls=R oid=2 mth=run sgn=!! tid=2 t=60>
<Msg cls=Buf oid=5 mth=flush sgn=!! size=0 tid=2 t=61>
</Msg cls=Buf oid=5 mth=flush sgn=!! tid=2 t=71>
<Msg cls=X oid=9 mth=work sgn=!! size=0 tid=3 t=50>
</Msg cls=X oid=9 mth=work sgn=!! tid=3 t=100>
<Msg cls=A oid=1 mth=accept sgn=!! size=0 tid=1 t=10>
<Crt cls=R oid=2 size=16 tid=1 t=11>
<Msg cls=Buf oid=5 mth=reset sgn=!! size=0 tid=1 t=12>
</Msg cls=Buf oid=5 mth=reset sgn=!! tid=1 t=13>
</Msg cls=A oid=1 mth=accept sgn=!! tid=1 t=20>
<Msg cls=A oid=1 mth=accept sgn=!! size=0 tid=1 t=30>
<Crt cls=R oid=4 size=16 tid=1 t=31>
<Msg cls=Buf oid=5 mth=reset sgn=!! size=0 tid=1 t=32>
</Msg cls=Buf oid=5 mth=reset sgn=!! tid=1 t=33>
</Msg cls=A oid=1 mth=accept sgn=!! tid=1 t=40>
##### end events=18
";

/// (latency, work, segments) per event, and the background work.
fn run(events: &str) -> (Vec<(u64, u64, u32)>, u64) {
    let e = analyse(events);
    let rows = e.instances.iter().map(|r| (r.latency, r.work, r.segments));
    (rows.collect(), e.background.work)
}

/// The events' results of [`TRACE`] with the definitions `events`.
fn analyse(events: &str) -> super::Events {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.dtf");
    std::fs::write(&trace, TRACE).unwrap();
    let text = format!("[project]\nname=\"a\"\nsources=[\"*\"]\n{events}");
    let m = Manifest::from_str(Path::new("revy.toml"), &text).unwrap();
    let opts = Options {
        events: m.events,
        compensate: false,
        proposals: false,
        ..Default::default()
    };
    let a = crate::analyse::analysis::analyze_path(&trace, &opts).unwrap();
    a.events.unwrap()
}

/// The listed events are the tracker's own records, made rows only as the JSON is written:
/// each names its definition and type, numbered in start order (thread 1's block, which
/// started both, comes last in the file).
#[test]
fn listed_events_are_written_with_their_definition_in_start_order() {
    let e = analyse(&format!("{BASE}type=\"http\"\n"));
    let json = serde_json::to_value(&e.instances).unwrap();
    let rows: Vec<_> = (json.as_array().unwrap().iter())
        .map(|r| {
            (
                r["id"].clone(),
                r["name"].clone(),
                r["type"].clone(),
                r["start"].clone(),
            )
        })
        .collect();
    let want = [(0, 10), (1, 30)]
        .map(|(id, start)| (id.into(), "req".into(), "http".into(), start.into()));
    assert_eq!(rows, want);
    assert_eq!(e.instances.len(), 2);
}

/// One definition, "r", started by `A.accept` (the tracker's own tests' definition).
pub(crate) fn accept_defs() -> Vec<crate::instrument::events::EventDef> {
    let text = "[project]\nname=\"a\"\nsources=[\"*\"]\n\
                [[events]]\nname=\"r\"\nmethod=\"A.accept\"\n";
    Manifest::from_str(Path::new("revy.toml"), text)
        .unwrap()
        .events
}

/// `text` as a trace file `t.dtf` in a fresh folder (kept while the folder is).
pub(crate) fn trace_file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.dtf");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

const BASE: &str = "[[events]]\nname=\"req\"\nmethod=\"A.accept\"\n";

#[test]
fn objects_carry_events_to_other_threads_in_time_order() {
    // R#2 (created in event 0) carries it to thread 2's run(); the accept nested in run()
    // is part of event 0, not a third event; Buf#5, first used in event 0, carries its
    // flush() there too. X's work is background.
    let (ev, bg) = run(BASE);
    assert_eq!(ev, vec![(61, 30, 3), (10, 10, 1)]);
    assert_eq!(bg, 50);
}

#[test]
fn reassociate_moves_a_reused_object_and_classes_restrict_carriers() {
    let (ev, bg) = run(&format!("{BASE}reassociate=\"Buf.reset\"\n"));
    assert_eq!(ev, vec![(50, 20, 2), (41, 20, 2)]);
    assert_eq!(bg, 50);
    // Only R carries: Buf's flush is background.
    let (ev, bg) = run(&format!(
        "{BASE}classes=[\"R\"]\nreassociate=\"Buf.reset\"\n"
    ));
    assert_eq!(ev, vec![(50, 20, 2), (10, 10, 1)]);
    assert_eq!(bg, 60);
    // Only run() continues.
    let (ev, _) = run(&format!("{BASE}continue=\"*.run\"\n"));
    assert_eq!(ev, vec![(50, 20, 2), (10, 10, 1)]);
}

/// The most records that waited at once, and the records applied late, analysing a
/// synthetic compact trace of `events` events on 2 threads (named before their first
/// block, as the runtimes do).
fn waiting(events: u64) -> (usize, u64) {
    use crate::analyse::trace::synth::{generate, Spec};
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.rvt");
    let spec = Spec {
        events,
        instances: 1_000,
        threads: 2,
        ..Spec::default()
    };
    let f = std::fs::File::create(&trace).unwrap();
    let w = std::io::BufWriter::new(f);
    generate(&spec, crate::analyse::trace::Form::Compact, w).unwrap();
    let text =
        "[project]\nname=\"a\"\nsources=[\"*\"]\n[[events]]\nname=\"r\"\nmethod=\"Class1.m0\"\n";
    let m = Manifest::from_str(Path::new("revy.toml"), text).unwrap();
    let opts = Options {
        events: m.events,
        proposals: false,
        ..Default::default()
    };
    let a = crate::analyse::analysis::analyze_path(&trace, &opts).unwrap();
    let e = a.events.unwrap();
    assert!(e.types[0].count > 100, "{}", e.types[0].count);
    (e.peak_waiting, e.late_records)
}

/// Only what another thread may still change waits: in the synthetic trace every object is
/// created before its first call, so no record is queued at all (before, every record
/// waited for the other threads' blocks: tens of thousands at once). The results do not
/// move: see the rules' tests above, whose threads' blocks come out of time order.
#[test]
fn calls_on_objects_met_before_are_applied_at_once() {
    assert_eq!(waiting(60_000), (0, 0));
}

/// A client process's trace: 3 requests, each a `Stub.call(id)` logging its key.
fn client_trace() -> String {
    let mut s = String::from(
        "##### revy-trace 1 unit=ns lang=java pid=1 anchor_wall_ns=1000000000 anchor_t=0\n\
         ##### thread tid=1 name=main\n",
    );
    for k in 0..3u64 {
        let t = 100_000_000 + k * 10_000_000;
        s += &format!(
            "<Msg cls=Client oid=0 mth=request sgn=!! size=0 tid=1 t={t}>\n\
             <Msg cls=Stub oid=0 mth=call sgn=!int^0! size=0 tid=1 t={}>\n\
             <Key cls=Stub mth=call sgn=!int^0! key={k} tid=1 t={}>\n\
             </Msg cls=Stub oid=0 mth=call sgn=!int^0! tid=1 t={}>\n\
             </Msg cls=Client oid=0 mth=request sgn=!! tid=1 t={}>\n",
            t + 100,
            t + 200,
            t + 1_000_000,
            t + 1_100_000
        );
    }
    s + "##### end events=15\n"
}

/// The server's trace: each request handled 100 µs after the client sent it, its clock
/// anchored `skew_ms` off the client's (negative: its times come out earlier).
fn server_trace(skew_ms: i64) -> String {
    let wall = 1_000_000_000 + skew_ms * 1_000_000;
    let mut s = format!(
        "##### revy-trace 1 unit=ns lang=java pid=2 anchor_wall_ns={wall} anchor_t=0\n\
         ##### thread tid=5 name=worker\n"
    );
    for k in 0..3u64 {
        let t = 100_100_000 + k * 10_000_000;
        s += &format!(
            "<Msg cls=Handler oid=0 mth=handle sgn=!int^0! size=0 tid=5 t={t}>\n\
             <Key cls=Handler mth=handle sgn=!int^0! key={k} tid=5 t={}>\n\
             </Msg cls=Handler oid=0 mth=handle sgn=!int^0! tid=5 t={}>\n",
            t + 100,
            t + 500_000
        );
    }
    s + "##### end events=9\n"
}

/// A server whose clock anchor came out 80 ms behind the client's (a loaded machine's
/// start-up skew; a fixed 50 ms hold linked none of these): its keys are held back by the
/// lead the pairs show, so every request is linked and its event continues into the
/// server; the server's clock is reported 80 ms behind (less the 100 µs transport).
#[test]
fn remote_keys_are_linked_across_a_skewed_clock() {
    for skew in [-80, 0, 80] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.dtf"), client_trace()).unwrap();
        std::fs::write(dir.path().join("b.dtf"), server_trace(skew)).unwrap();
        let text = "[project]\nname=\"a\"\nsources=[\"*\"]\n\
            [[events]]\nname=\"req\"\nmethod=\"Client.request\"\n\
            [[remote]]\nname=\"rpc\"\nclient=\"Stub.call\"\nserver=\"Handler.handle\"\nkey=\"id\"\n";
        let m = Manifest::from_str(Path::new("revy.toml"), text).unwrap();
        let opts = Options {
            events: m.events,
            remote: m.remote,
            compensate: false,
            proposals: false,
            ..Default::default()
        };
        let a = crate::analyse::analysis::analyze_path(dir.path(), &opts).unwrap();
        let e = a.events.unwrap();
        assert_eq!(
            (e.remote[0].calls, e.remote[0].linked),
            (3, 3),
            "skew {skew}"
        );
        assert_eq!(e.remote_unmatched, 0);
        let segs: Vec<u32> = e.instances.iter().map(|r| r.segments).collect();
        assert_eq!(segs, vec![2, 2, 2], "skew {skew}");
        let c = &e.remote_clocks[0];
        assert_eq!((c.process, c.pairs), (2, 3));
        assert_eq!(c.lead, skew * 1_000_000 + 99_900, "skew {skew}");
    }
}

/// The percentiles by selection are the nearest-rank ones of the sorted values.
#[test]
fn dist_selects_the_nearest_rank_percentiles() {
    let mut x = 12345u64;
    for n in [1usize, 2, 3, 10, 99, 100, 101, 1000, 4097] {
        let v: Vec<u64> = (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 33) % 500
            })
            .collect();
        let mut s = v.clone();
        s.sort_unstable();
        let at = |p: f64| s[((p * n as f64).ceil() as usize).clamp(1, n) - 1];
        let d = super::Dist::of(v);
        let want = (at(0.5), at(0.9), at(0.99), s[n - 1], s.iter().sum::<u64>());
        assert_eq!((d.p50, d.p90, d.p99, d.max, d.total), want, "n={n}");
    }
}
