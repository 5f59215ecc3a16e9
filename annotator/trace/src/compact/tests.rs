use super::*;
use crate::Unit;

fn sample() -> (Names, Vec<Event>) {
    let mut n = Names::default();
    let a = n.intern_class(b"A");
    let f = n.intern_method(b"A", b"f", b"!int^0!");
    n.threads.insert(1, "main".into());
    let mut ev = vec![Event::Create {
        tid: 1,
        class: a,
        oid: 7,
        size: Some(24),
        t: Some(100),
    }];
    for i in 0..20_000u64 {
        let tid = 1 + i % 2;
        ev.push(Event::Start {
            tid,
            method: f,
            oid: 7,
            size: 4,
            t: 1000 + i * 10,
        });
        ev.push(Event::End {
            tid,
            method: f,
            oid: 7,
            t: 1005 + i * 10,
            cpu: None,
        });
    }
    (n, ev)
}

fn read(bytes: &[u8]) -> (Vec<Event>, CompactReader<&[u8]>) {
    let mut r = CompactReader::new("x.rvt".into(), bytes).unwrap();
    let mut v = Vec::new();
    while let Some(e) = r.next_event().unwrap() {
        v.push(e);
    }
    (v, r)
}

#[test]
fn round_trip() {
    let (names, ev) = sample();
    let h = Header {
        unit: Unit::Ns,
        ..Header::default()
    };
    let mut out = Vec::new();
    write_all(&mut out, &h, &names, &ev).unwrap();
    let (got, r) = read(&out);
    assert_eq!(r.header.unit, Unit::Ns);
    assert_eq!(r.status.clean_end, Some(ev.len() as u64));
    assert!(!r.status.cut_short);
    // Blocks regroup events per thread; compare per thread.
    for tid in [1, 2] {
        let of = |v: &[Event]| -> Vec<Event> {
            v.iter()
                .filter(|e| matches!(e, Event::Start { tid: t, .. } | Event::End { tid: t, .. } | Event::Create { tid: t, .. } if *t == tid))
                .copied()
                .collect()
        };
        assert_eq!(of(&got), of(&ev));
    }
    assert_eq!(r.names.method(0).unwrap().signature, "!int^0!");
}

#[test]
fn undefined_method_id_is_corruption() {
    let (mut names, ev) = sample();
    names.methods.clear();
    let mut out = Vec::new();
    write_all(&mut out, &Header::default(), &names, &ev).unwrap();
    let (got, r) = read(&out);
    assert_eq!(
        got.len(),
        1,
        "the creation decodes, the first message does not"
    );
    assert!(r.status.cut_short && r.status.warnings[0].contains("corrupt event"));
    // The creation before the bad event is kept, and the warning says so.
    assert!(
        r.status.warnings[0].ends_with("analysed up to the last event before it"),
        "{:?}",
        r.status.warnings
    );
}

#[test]
fn cut_mid_block_warns_with_offset() {
    let (names, ev) = sample();
    let mut out = Vec::new();
    write_all(&mut out, &Header::default(), &names, &ev).unwrap();
    let cut = &out[..out.len() - 5000];
    let (got, r) = read(cut);
    assert!(r.status.cut_short);
    assert!(got.len() < ev.len() && !got.is_empty());
    assert!(
        r.status.warnings[0].contains("at byte"),
        "{:?}",
        r.status.warnings
    );
}

/// An end's on-CPU time (kind 5) reads back from both forms, in events and raw blocks, and
/// an end without it stays without.
#[test]
fn end_with_cpu_time_round_trips() {
    let mut names = Names::default();
    let f = names.intern_method(b"A", b"f", b"!!");
    let (s, e) = (
        Event::Start {
            tid: 1,
            method: f,
            oid: 3,
            size: 8,
            t: 1_000,
        },
        |t, cpu| Event::End {
            tid: 1,
            method: f,
            oid: 3,
            t,
            cpu,
        },
    );
    let ev = [s, e(90_000, Some(61_234)), s, e(95_000, None)];
    let mut out = Vec::new();
    write_all(&mut out, &Header::default(), &names, &ev).unwrap();
    assert_eq!(out.iter().filter(|&&b| b == END_CPU).count(), 1);
    let [one, blocks] = both_ways(&out);
    assert_eq!(blocks, one);
    let raw: Vec<_> = one.0.iter().map(|r| (r.kind, r.cpu())).collect();
    let cpu = Some(61_234);
    assert_eq!(raw[1], (RawEvent::END, cpu));
    assert_eq!(raw[3], (RawEvent::END, None));
    assert_eq!(read(&out).0, ev);
    let mut text = Vec::new();
    {
        let mut w = crate::text::TextWriter::new(&mut text);
        for e in &ev {
            w.event(e, &names).unwrap();
        }
        w.flush().unwrap();
    }
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("t=90000 cpu=61234>\n"), "{text}");
    let mut r = crate::text::TextReader::new("x.dtf".into(), text.as_bytes()).unwrap();
    let mut back = Vec::new();
    while let Some(e) = r.next_event().unwrap() {
        back.push(e);
    }
    assert_eq!(back, ev);
}

/// A throttled method's estimate (`S`) reads back with its basis and spread, and goes
/// through the text form's `estimate` line unchanged.
#[test]
fn estimate_records_read_in_both_forms() {
    let mut names = Names::default();
    let f = names.intern_method(b"A", b"f", b"!!");
    let mut out = Vec::new();
    write_all(&mut out, &Header::default(), &names, &[]).unwrap();
    assert_eq!(out.split_off(out.len() - 2), [b'E', 0]);
    for (t, per_call) in [(50u8, 49u8), (90, 120)] {
        out.extend([b'S', 1, f as u8, t, per_call, 40, 70, 32]);
    }
    out.extend([b'E', 0]);
    let (_, r) = read(&out);
    let e = &r.status.aggregates.estimates;
    assert_eq!(e.len(), 2, "{:?}", r.status.warnings);
    assert_eq!(
        (e[0].per_call, e[0].p10, e[0].p90, e[0].timed),
        (49, 40, 70, 32)
    );
    assert_eq!(e[1].per_call, 120);
    let lines = crate::agg::text_lines(&r.status.aggregates, &r.names);
    assert!(
        lines.contains("##### estimate tid=1 cls=A mth=f sgn=!! t="),
        "{lines}"
    );
    let text = format!("##### revy-trace 1 unit=ns\n{lines}");
    let mut tr = crate::text::TextReader::new("x.dtf".into(), text.as_bytes()).unwrap();
    while tr.next_event().unwrap().is_some() {}
    assert_eq!(tr.status.aggregates.estimates, *e);
    // naming an undefined method is an error, as for X
    let mut bad = out.clone();
    let at = bad.len() - 2;
    bad.splice(at..at, [b'S', 1, 9, 1, 1, 1, 1, 1]);
    assert!(CompactReader::new("x.rvt".into(), &bad[..])
        .and_then(|mut r| while_some(&mut r))
        .is_err());
}

fn while_some(r: &mut CompactReader<&[u8]>) -> crate::error::Result<()> {
    while r.next_event()?.is_some() {}
    Ok(())
}

/// Every kind of event, with sizes, ids and time steps of every varint length.
fn every_kind() -> (Names, Vec<Event>) {
    let mut n = Names::default();
    let a = n.intern_class(b"A");
    let f = n.intern_method(b"A", b"f", b"!int^0!");
    let g = n.intern_method(b"A", b"g", b"!!");
    let mut ev = Vec::new();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut t = [1u64 << 20; 3];
    for i in 0..30_000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let tid = 1 + x % 3;
        let tt = &mut t[(tid - 1) as usize];
        // Mostly forward, sometimes back (the deltas are zig-zag coded).
        *tt = (*tt + (x >> 8) % 5000).saturating_sub((x >> 30) % 3 * 100);
        let oid = 1 + (x >> 20) % [10, 300, 70_000, 1 << 40][(i % 4) as usize];
        let size = [0, 127, 128, 300_000, 1 << 45][(x >> 40) as usize % 5];
        let method = if x & 1 == 0 { f } else { g };
        ev.push(match (x >> 50) % 4 {
            0 => Event::Create {
                tid,
                class: a,
                oid,
                size: Some(size),
                t: Some(*tt),
            },
            1 => Event::Destroy {
                tid,
                class: a,
                oid,
                t: Some(*tt),
            },
            2 => Event::Start {
                tid,
                method,
                oid,
                size,
                t: *tt,
            },
            _ => Event::End {
                tid,
                method,
                oid,
                t: *tt,
                // every other end carries its call's on-CPU time (kind 5)
                cpu: ((x >> 52) & 1 == 0).then_some(size),
            },
        });
    }
    (n, ev)
}

/// What a reader read of `bytes` event by event and in blocks of 7: (events, cut
/// short, warnings).
fn both_ways(bytes: &[u8]) -> [(Vec<RawEvent>, bool, Vec<String>); 2] {
    let one = {
        let mut r = CompactReader::new("x.rvt".into(), bytes).unwrap();
        let mut v = Vec::new();
        while let Some(e) = r.next_event().unwrap() {
            v.push(RawEvent::of(&e));
        }
        (v, r.status.cut_short, r.status.warnings)
    };
    let blocks = {
        let mut r = CompactReader::new("x.rvt".into(), bytes).unwrap();
        let (mut v, mut part) = (Vec::new(), Vec::new());
        loop {
            part.clear();
            r.next_events(&mut part, 7).unwrap();
            if part.is_empty() {
                break;
            }
            v.extend_from_slice(&part);
        }
        (v, r.status.cut_short, r.status.warnings)
    };
    [one, blocks]
}

/// The block decoder (no branch on the kind) reads what the event decoder reads, from
/// whole traces and from traces with a byte changed or cut anywhere.
#[test]
fn blocks_decode_like_events() {
    let (names, ev) = every_kind();
    let mut out = Vec::new();
    write_all(&mut out, &Header::default(), &names, &ev).unwrap();
    let [one, blocks] = both_ways(&out);
    assert_eq!(one.0.len(), ev.len());
    assert!(!one.1);
    assert_eq!(
        one.0.iter().map(RawEvent::event).collect::<Vec<_>>().len(),
        ev.len()
    );
    assert_eq!(blocks, one);
    let mut kinds = [0; 5];
    for r in &one.0 {
        kinds[r.kind as usize] += 1;
        assert_eq!(RawEvent::of(&r.event()), *r);
    }
    assert!(kinds[1..].iter().all(|&k| k > 5000), "{kinds:?}");
    let cpu = one.0.iter().filter(|r| r.cpu().is_some()).count();
    assert!(cpu > 2000 && cpu < kinds[4] - 2000, "{cpu} of {kinds:?}");
    let mut x = 12345usize;
    let mut cut_short = 0;
    for _ in 0..300 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let at = 8 + (x >> 16) % (out.len() - 8);
        let mut bad = out.clone();
        bad[at] ^= 1 << ((x >> 8) % 8);
        let [one, blocks] = both_ways(&bad);
        assert_eq!(blocks, one, "byte {at} changed");
        cut_short += one.1 as usize;
        let [one, blocks] = both_ways(&out[..at]);
        assert_eq!(blocks, one, "cut at byte {at}");
    }
    assert!(
        cut_short > 30,
        "{cut_short} of the changed traces were found corrupt"
    );
    // A block whose last event, a start, stops after its size: no time delta.
    let mut out = Vec::new();
    write_all(&mut out, &Header::default(), &names, &[]).unwrap();
    assert_eq!(out.split_off(out.len() - 2), [b'E', 0]);
    let events = [RawEvent::END, 1, 5, 4, RawEvent::START, 1, 5, 8];
    out.extend([b'B', 1, 100, 2, events.len() as u8]);
    out.extend(events);
    out.extend([b'E', 2]);
    let [one, blocks] = both_ways(&out);
    assert_eq!(one.0.len(), 1);
    assert!(one.1 && one.2[0].contains("corrupt event"), "{:?}", one.2);
    assert_eq!(blocks, one);
}

/// Nested calls on three threads whose blocks interleave, with creations, keys, ends
/// with on-CPU time and ends of no open start among them (what a Java run writes).
fn nested_calls() -> (Names, Vec<Event>) {
    let mut n = Names::default();
    let a = n.intern_class(b"A");
    let ms: Vec<u32> = (0..5)
        .map(|i| n.intern_method(b"A", format!("m{i}").as_bytes(), b"!!"))
        .collect();
    let mut ev = Vec::new();
    let mut open: [Vec<(u32, u64)>; 3] = Default::default();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut t = 1u64 << 30;
    for _ in 0..60_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        t += (x >> 40) % 3000;
        let tid = 1 + (x >> 3) % 3;
        let st = &mut open[(tid - 1) as usize];
        let (method, oid) = (
            ms[(x >> 8) as usize % 5],
            [1, 200, 1 << 33][(x >> 12) as usize % 3],
        );
        ev.push(match (x >> 20) % 16 {
            0..=6 if st.len() < 40 => {
                st.push((method, oid));
                let size = (x >> 24) % 1000;
                Event::Start {
                    tid,
                    method,
                    oid,
                    size,
                    t,
                }
            }
            0..=12 if !st.is_empty() => {
                let (method, oid) = st.pop().unwrap();
                let cpu = (x >> 30).is_multiple_of(8).then_some((x >> 33) % 100_000);
                Event::End {
                    tid,
                    method,
                    oid,
                    t,
                    cpu,
                }
            }
            13 => Event::Create {
                tid,
                class: a,
                oid: x >> 44,
                size: Some(24),
                t: Some(t),
            },
            14 => Event::Key {
                tid,
                method,
                key: x,
                t,
            },
            // an end of a call that is not open (the runtime writes it with its names)
            _ => Event::End {
                tid,
                method,
                oid: 99,
                t,
                cpu: None,
            },
        });
    }
    (n, ev)
}

fn write_bare(names: &Names, ev: &[Event], bare: bool) -> Vec<u8> {
    let mut w = if bare {
        CompactWriter::with_bare_ends(Vec::new(), &Header::default()).unwrap()
    } else {
        CompactWriter::new(Vec::new(), &Header::default()).unwrap()
    };
    w.names(names).unwrap();
    for e in ev {
        w.event(e).unwrap();
    }
    w.finish().unwrap()
}

/// Ends carrying only their time (kind 7) read back as the ends they stand for, whole
/// and in blocks, across blocks of interleaving threads: the same events as a trace of
/// named ends (kind 4), and the older form still reads.
#[test]
fn bare_ends_decode_as_the_ends_they_stand_for() {
    let (names, ev) = nested_calls();
    let named = write_bare(&names, &ev, false);
    let bare = write_bare(&names, &ev, true);
    // ends are a third of the events; a bare one is 2 bytes where a named one took 4-12
    assert!(
        bare.len() * 10 < named.len() * 9,
        "{} {}",
        bare.len(),
        named.len()
    );
    let blocks = named.windows(1).filter(|w| w[0] == b'B').count();
    assert!(blocks > 3, "the threads' blocks interleave");
    let per_thread = |v: &[Event], tid: u64| -> Vec<Event> {
        v.iter()
            .filter(|e| RawEvent::of(e).tid == tid)
            .copied()
            .collect()
    };
    let (from_named, r) = read(&named);
    assert!(!r.status.cut_short);
    let (from_bare, r) = read(&bare);
    assert!(!r.status.cut_short, "{:?}", r.status.warnings);
    // blocks fill at other events in the two forms: the threads' blocks interleave
    // differently, each thread's events are the same
    for tid in 1..=3 {
        assert_eq!(per_thread(&from_bare, tid), per_thread(&ev, tid));
        assert_eq!(per_thread(&from_named, tid), per_thread(&ev, tid));
    }
    let [one, blocks] = both_ways(&bare);
    assert_eq!(blocks, one);
    let raw: Vec<Event> = one.0.iter().map(RawEvent::event).collect();
    assert_eq!(raw, from_bare);
}

/// A bare end with no open start on its thread, or cut after its kind, stops the
/// reading with a warning naming it, in both decoders; changed bytes and cuts anywhere
/// in a trace of bare ends read alike both ways and never panic.
#[test]
fn bare_ends_without_a_start_or_cut_are_corrupt() {
    let mut names = Names::default();
    let f = names.intern_method(b"A", b"f", b"!!");
    let trace = |h: &Header| {
        let mut out = Vec::new();
        write_all(&mut out, h, &names, &[]).unwrap();
        assert_eq!(out.split_off(out.len() - 2), [b'E', 0]);
        out
    };
    let start = [RawEvent::START, f as u8, 5, 8, 2];
    // a bare end in a trace whose header does not announce them
    let mut out = trace(&Header::default());
    out.extend([b'B', 1, 100, 2, start.len() as u8 + 2]);
    out.extend(start);
    out.extend([END_BARE, 4, b'E', 2]);
    let [one, blocks] = both_ways(&out);
    assert_eq!(blocks, one);
    assert_eq!(one.0.len(), 1);
    assert!(one.1 && one.2[0].contains("lacks ends=bare"), "{:?}", one.2);
    let mut h = Header::default();
    h.fields.push(("ends".into(), "bare".into()));
    let mut out = trace(&h);
    let head = out.clone();
    // thread 1: a start; thread 2: a bare end (its own stack is empty)
    out.extend([b'B', 1, 100, 1, start.len() as u8]);
    out.extend(start);
    out.extend([b'B', 2, 100, 1, 2, END_BARE, 4]);
    out.extend([b'E', 2]);
    let [one, blocks] = both_ways(&out);
    assert_eq!(blocks, one);
    assert_eq!(one.0.len(), 1);
    assert!(one.1 && one.2[0].contains("no open start"), "{:?}", one.2);
    // thread 1's bare end in a later block ends its start, after thread 2's block
    let mut ok = head.clone();
    ok.extend([b'B', 1, 100, 1, start.len() as u8]);
    ok.extend(start);
    ok.extend([b'B', 2, 100, 1, start.len() as u8]);
    ok.extend(start);
    ok.extend([b'B', 1, 100, 2, 4, END_BARE, 6, END_BARE, 2]);
    ok.extend([b'E', 4]);
    let [one, blocks] = both_ways(&ok);
    assert_eq!(blocks, one);
    assert_eq!(one.0.len(), 3, "{:?}", one.2);
    let end = one.0[2];
    assert_eq!(
        (end.tid, end.kind, end.id, end.oid, end.t),
        (1, RawEvent::END, f, 5, 103)
    );
    assert!(one.1 && one.2[0].contains("no open start"), "{:?}", one.2);
    // a bare end cut after its kind byte
    let mut cut = head.clone();
    cut.extend([b'B', 1, 100, 2, start.len() as u8 + 1]);
    cut.extend(start);
    cut.extend([END_BARE]);
    cut.extend([b'E', 2]);
    let [one, blocks] = both_ways(&cut);
    assert_eq!(blocks, one);
    assert_eq!(one.0.len(), 1);
    assert!(one.1 && one.2[0].contains("corrupt event"), "{:?}", one.2);
    let (names, ev) = nested_calls();
    let bare = write_bare(&names, &ev, true);
    let mut x = 987654321usize;
    let mut cut_short = 0;
    for _ in 0..200 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let at = 8 + (x >> 16) % (bare.len() - 8);
        let mut bad = bare.clone();
        bad[at] ^= 1 << ((x >> 8) % 8);
        let [one, blocks] = both_ways(&bad);
        assert_eq!(blocks, one, "byte {at} changed");
        cut_short += one.1 as usize;
        let [one, blocks] = both_ways(&bare[..at]);
        assert_eq!(blocks, one, "cut at byte {at}");
    }
    assert!(
        cut_short > 20,
        "{cut_short} of the changed traces were found corrupt"
    );
}
