//! Lines up the processes' clocks for `[[remote]]` links. A trace set puts its processes
//! on one time line by clock anchors each read once at start-up, and a loaded machine can
//! skew them by more than a localhost call's transport: a server's key could then come
//! before the key of the client call it answers, and the link would be missed.
//!
//! Before the walk, the keys alone are read and paired (a client's key and a server's
//! with the same value, the n-th with the n-th). A server cannot receive a call before
//! its client sent it, so for a server process the least (server key − client key) over
//! its pairs bounds its clock's offset from its clients' from above (as NTP's least-delay
//! sample does); the tracker then holds that process's keys back just enough that every
//! client key is applied first. A spurious pair (two requests sharing a key) can only
//! lower the bound: its keys wait longer, within the tracker's bounded window.

use std::path::Path;

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::analyse::trace::multi::set_members;
use crate::analyse::trace::{Event, Names, TraceReader};
use crate::error::Result;
use crate::instrument::remote::RemoteDef;

/// One server process's clock against its clients', from the pairs of keys.
#[derive(Debug, Clone, Serialize)]
pub struct ClockSkew {
    /// The process (its pid in the set).
    pub process: u64,
    /// Pairs of a client key in another process and this process's key.
    pub pairs: u64,
    /// The least server key time less client key time (trace units; negative: the
    /// process's clock is behind its clients' by at least that much).
    pub lead: i64,
    /// How long its keys are held back past their time (trace units).
    pub hold: u64,
}

/// A key: (definition, key, time, process).
type Key = (u8, u64, u64, u64);

/// The skews of `trace`'s server processes (none for a single trace: one clock).
pub(crate) fn estimate(trace: &Path, defs: &[RemoteDef]) -> Result<Vec<ClockSkew>> {
    if defs.is_empty() || set_members(trace)?.is_none() {
        return Ok(Vec::new());
    }
    let mut reader = TraceReader::open(trace)?;
    let mut side: FxHashMap<u32, Option<(u8, bool)>> = FxHashMap::default();
    let (mut clients, mut servers): (Vec<Key>, Vec<Key>) = (Vec::new(), Vec::new());
    while let Some(ev) = reader.next_event()? {
        let Event::Key {
            tid,
            method,
            key,
            t,
            ..
        } = ev
        else {
            continue;
        };
        let names = reader.names();
        let s = *side
            .entry(method)
            .or_insert_with(|| side_of(names, method, defs));
        let Some((def, server)) = s else { continue };
        let k = (def, key, t, names.process_of(tid).unwrap_or(0));
        if server {
            servers.push(k);
        } else {
            clients.push(k);
        }
    }
    Ok(skews(clients, servers))
}

/// The `[[remote]]` (index) `method` is the client or server (true) of.
fn side_of(names: &Names, method: u32, defs: &[RemoteDef]) -> Option<(u8, bool)> {
    let m = names.method(method)?;
    let class = names.class(m.class);
    (defs.iter().take(255).enumerate()).find_map(|(i, d)| {
        d.key_of(class, &m.name, &m.signature)
            .map(|(server, _)| (i as u8, server))
    })
}

/// Pairs each (definition, key)'s client keys with its server keys in time order, and per
/// server process the least lead over pairs across processes.
fn skews(mut clients: Vec<Key>, mut servers: Vec<Key>) -> Vec<ClockSkew> {
    clients.sort_unstable();
    servers.sort_unstable();
    let mut by_process: FxHashMap<u64, (u64, i64)> = FxHashMap::default();
    let mut c = 0;
    let mut prev: Option<(u8, u64)> = None;
    let mut nth = 0usize;
    for s in &servers {
        let group = (s.0, s.1);
        nth = if prev == Some(group) { nth + 1 } else { 0 };
        prev = Some(group);
        while c < clients.len() && (clients[c].0, clients[c].1) < group {
            c += 1;
        }
        let Some(cl) = clients.get(c + nth).filter(|k| (k.0, k.1) == group) else {
            continue;
        };
        if cl.3 == s.3 {
            continue; // one process, one clock
        }
        let lead = s.2 as i64 - cl.2 as i64;
        let e = by_process.entry(s.3).or_insert((0, i64::MAX));
        *e = (e.0 + 1, e.1.min(lead));
    }
    let mut out: Vec<ClockSkew> = (by_process.into_iter())
        .map(|(process, (pairs, lead))| ClockSkew {
            process,
            pairs,
            lead,
            // Strictly after the client's key: equal times would be applied in file order.
            hold: (1i64.saturating_sub(lead)).max(0) as u64,
        })
        .collect();
    out.sort_by_key(|s| s.process);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_lead_bounds_each_server_process() {
        // Process 2 serves keys 1..3 of process 1 with leads -80, -70, -75 (its clock is
        // behind); key 9 of process 3 with lead 5; a key served in its own process counts
        // nothing; key 4's second request pairs with its second client key.
        let clients = vec![
            (0, 1, 100, 1),
            (0, 2, 200, 1),
            (0, 3, 300, 1),
            (0, 9, 50, 1),
        ];
        let clients = [clients, vec![(0, 4, 400, 1), (0, 4, 500, 1), (0, 5, 10, 2)]].concat();
        let servers = vec![
            (0, 1, 20, 2),
            (0, 2, 130, 2),
            (0, 3, 225, 2),
            (0, 9, 55, 3),
            (0, 4, 330, 2),
            (0, 4, 490, 2),
            (0, 5, 11, 2),
        ];
        let s = skews(clients, servers);
        let got: Vec<_> = s
            .iter()
            .map(|s| (s.process, s.pairs, s.lead, s.hold))
            .collect();
        assert_eq!(got, vec![(2, 5, -80, 81), (3, 1, 5, 0)]);
    }
}
