use super::edge_sums::EdgeRow;
use super::sort::{sort_rows, LSD_MAX};
use super::sums::{CYCLIC, SENT};
use super::*;
use crate::analyse::trace::Names;
use crate::analyse::walk::{InstKind, Instance};

/// Both halves of `n` messages from `from` to `to`, as [`Edges::per_instance`] adds them.
fn messages(s: &mut InstSums, from: u32, to: u32, n: u64, net: u64, size: u64) {
    s.at(from.max(to));
    s.sent(from, n);
    s.received_from(from, to, n, net, size);
}

/// Sums past 2³² carry into the side map and read back exactly (times in ns pass 2³²
/// after 4.3 s; counts after 4.3 G messages, simulated by starting the cell near the top).
#[test]
fn sums_past_32_bits_are_exact() {
    let mut s = InstSums::default();
    let mut e = EdgeSums::default();
    let big = 3_000_000_000u64;
    for _ in 0..5 {
        messages(&mut s, 0, 1, 1, big, 7);
        e.message(0, 1, big + 1, big, u32::MAX as u64);
    }
    s.acc[1].received = u32::MAX - 1;
    messages(&mut s, 0, 1, 1, 1, 0);
    messages(&mut s, 0, 1, 1, 1, 0);
    s.add_active(1, big);
    assert_eq!(s.active(1), 6 * big + 2);
    assert_eq!(s.received(1), u32::MAX as u64 + 1);
    assert_eq!(s.get(0, SENT, |a| a.sent), 7);
    // A merged aggregate of many messages counts them all.
    e.messages(0, 1, 3 << 32, 1, 1, 0);
    messages(&mut s, 2, 2, 1 << 33, 0, 0);
    assert_eq!(
        (s.received(2), s.get(2, CYCLIC, |a| a.cyclic)),
        (1 << 33, 1 << 33)
    );
    let edges = Edges::new(e, 1);
    let row = edges.get(0).unwrap();
    assert_eq!(
        (row.calls, row.aggregate_time, row.net_time, row.bytes),
        (
            5 + (3 << 32),
            5 * (big + 1) + 1,
            5 * big + 1,
            5 * u32::MAX as u64
        )
    );
}

/// The streaming `rows()` gives what `row(id)` gives, with and without sums past 32 bits.
#[test]
fn streamed_rows_equal_single_rows() {
    let mut e = EdgeSums::default();
    for k in 0..300u32 {
        e.message(k % 17, (k * 7) % 29, 5, 3, 8);
    }
    for wide in [false, true] {
        let mut e = Edges::new(std::mem::take(&mut e), 1000);
        if wide {
            let mut w = EdgeSums::default();
            w.messages(3, 4, 1 << 33, 1 << 34, 1 << 35, 0);
            e = Edges::new(w, 1000);
        }
        let sums = e.per_instance(30);
        let core: Vec<Instance> = (0..30)
            .map(|i| Instance::new(InstKind::Object, i % 3, i as u64 + 1))
            .collect();
        let inst = Instances::new(
            core,
            sums,
            FxHashMap::default(),
            FxHashMap::default(),
            1000,
            &Names::default(),
            None,
        );
        let streamed: Vec<_> = inst.rows().map(|r| format!("{r:?}")).collect();
        let single: Vec<_> = (0..30)
            .map(|i| format!("{:?}", inst.row(i).unwrap()))
            .collect();
        assert_eq!(streamed, single, "wide={wide}");
        let r = inst.row(4).unwrap();
        if wide {
            assert_eq!((r.active_time, r.received), (1 << 35, 1 << 33));
        } else {
            assert!(inst.rows().all(|r| r.received < 300) && r.received > 5);
        }
    }
}

/// Every path of `sort_rows` — small buckets, radix-sorted buckets with receivers
/// past 22 bits, and a busy sender's bucket too large for the scratch — sorts like a
/// plain sort.
#[test]
fn sort_rows_matches_a_plain_sort() {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let row = |s: u32, r: u32| EdgeRow {
        sender: s,
        receiver: r,
        calls: s ^ r,
        agg: 0,
        net: 0,
        bytes: 0,
    };
    let mut rows = Vec::new();
    for k in 0..(LSD_MAX as u32 + 5000) {
        rows.push(row(7, k.wrapping_mul(2_654_435_761))); // one busy sender
    }
    for _ in 0..200_000 {
        let v = next();
        rows.push(row((v % 3_000_000) as u32, (v >> 32) as u32 >> (v % 20)));
    }
    let mut seen = rustc_hash::FxHashSet::default();
    rows.retain(|e| seen.insert((e.sender, e.receiver)));
    let mut want = rows.clone();
    want.sort_unstable_by_key(|e| (e.sender, e.receiver));
    let max = rows.iter().map(|e| e.sender).max().unwrap_or(0);
    sort_rows(&mut rows, max);
    let k = |v: &[EdgeRow]| {
        v.iter()
            .map(|e| (e.sender, e.receiver, e.calls))
            .collect::<Vec<_>>()
    };
    assert_eq!(k(&rows), k(&want));
}

/// The heap keeps exactly the first `n` rows of a plain sort, for every `n`, whatever
/// the order the rows come in (ties on the key are broken by id, as every caller does).
#[test]
fn top_rows_are_the_first_of_a_sort() {
    let row = |id: u32, t: u64| InstRow {
        id,
        kind: InstKind::Object,
        class: 0,
        active_time: t,
        level: 0.0,
        received: 0,
        sent: 0,
        cyclic: 0,
        neighbours: 0,
    };
    let mut x = 7u64;
    let mut rows: Vec<InstRow> = (0..2000u32)
        .map(|id| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            row(id, (x >> 33) % 300)
        })
        .collect();
    let before = |a: &InstRow, b: &InstRow| b.active_time.cmp(&a.active_time).then(a.id.cmp(&b.id));
    for order in 0..3 {
        match order {
            1 => rows.sort_by(before),
            2 => rows.sort_by(|a, b| before(b, a)),
            _ => {}
        }
        let mut want = rows.clone();
        want.sort_by(before);
        for n in [0, 1, 2, 7, 100, 1999, 2000, 5000] {
            let mut t = TopRows::new(n, before);
            rows.iter().for_each(|r| t.offer(r));
            let got: Vec<_> = t.into_sorted().iter().map(|r| r.id).collect();
            let w: Vec<_> = want.iter().take(n).map(|r| r.id).collect();
            assert_eq!(got, w, "n={n} order={order}");
        }
    }
}

#[test]
fn edges_are_found_again_and_sorted() {
    let mut e = EdgeSums::default();
    for k in 0..10_000u32 {
        e.message(k % 97, k % 89, 1, 1, 0);
    }
    assert_eq!(e.len(), 8633);
    let edges = Edges::new(e, 1);
    let rows: Vec<_> = edges.iter().map(|r| (r.sender, r.receiver)).collect();
    assert!(rows.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(edges.iter().map(|r| r.calls).sum::<u64>(), 10_000);
}

/// Many edges from senders across a wide id range take the bucket rounds of
/// `sort_rows`; the order and every sum must match a plain sort, and the per-instance
/// sums and neighbour counts a direct count, from the rows in the walk's order and sorted.
#[test]
fn large_edge_sets_sort_and_sum_like_a_direct_count() {
    let mut e = EdgeSums::default();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let n = 300_000u32;
    let mut direct: FxHashMap<(u32, u32), (u64, u64, u64)> = FxHashMap::default();
    for _ in 0..120_000 {
        let v = next();
        // A few busy senders, many with one or two receivers, some pairs both ways.
        let s = if v % 10 == 0 {
            (v >> 8) as u32 % 4
        } else {
            (v >> 8) as u32 % n
        };
        let r = if v % 7 == 0 { s } else { (v >> 32) as u32 % n };
        let (s, r) = if v % 5 == 0 { (r, s) } else { (s, r) };
        let (net, size) = (v % 1000, v % 64);
        // Every third pair is also sent the other way (counted once as neighbours).
        let pairs: &[(u32, u32)] = if v % 3 == 0 {
            &[(s, r), (r, s)]
        } else {
            &[(s, r)]
        };
        for &(s, r) in pairs {
            e.message(s, r, 2 * net, net, size);
            let d = direct.entry((s, r)).or_default();
            *d = (d.0 + 1, d.1 + net, d.2 + size);
        }
    }
    let edges = Edges::new(e, 1);
    // Sums from the walk's order first, then the sorted rows, then sums again from those.
    let sums = edges.per_instance(n as usize);
    let rows: Vec<_> = edges.iter().map(|r| (r.sender, r.receiver)).collect();
    let mut want: Vec<_> = direct.keys().copied().collect();
    want.sort_unstable();
    assert_eq!(rows, want);
    let sorted = edges.per_instance(n as usize);
    let mut received = vec![0u64; n as usize];
    let mut active = vec![0u64; n as usize];
    let mut sent = vec![0u64; n as usize];
    let mut pairs = rustc_hash::FxHashSet::default();
    for (&(s, r), &(calls, net, _)) in &direct {
        received[r as usize] += calls;
        active[r as usize] += net;
        sent[s as usize] += calls;
        if s != r {
            pairs.insert((s.min(r), s.max(r)));
        }
    }
    let mut neigh = vec![0u32; n as usize];
    for (a, b) in pairs {
        neigh[a as usize] += 1;
        neigh[b as usize] += 1;
    }
    for i in 0..n {
        assert_eq!(sums.received(i), received[i as usize], "received {i}");
        assert_eq!(sums.active(i), active[i as usize], "active {i}");
        assert_eq!(sums.get(i, SENT, |a| a.sent), sent[i as usize], "sent {i}");
    }
    let neighbours: Vec<u32> = (0..n).map(|i| sums.neighbours(i)).collect();
    assert_eq!(neighbours, neigh);
    for i in 0..n {
        assert_eq!(
            sorted.neighbours(i),
            neigh[i as usize],
            "sorted: neighbours {i}"
        );
        assert_eq!(
            sorted.received(i),
            received[i as usize],
            "sorted: received {i}"
        );
    }
}
