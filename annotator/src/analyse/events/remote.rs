//! `[[remote]]` calls across processes: a client's call and the server's handling of it,
//! in two traces of one run read as a set, carry the same key (`Key` events). The tracker
//! applies the keys in time order: a client's key opens a call (with the event its thread is
//! processing), the server's key with the same value links its handling to it, and the
//! event continues into the server for that call's duration. The client's call then splits
//! into server work, server waiting (its wall time less its work) and transport (the rest).

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::Dist;
use crate::instrument::remote::RemoteDef;

/// One remote call (times in trace units; `u64::MAX` event: none).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Call {
    pub def: u8,
    pub key: u64,
    pub event: u32,
    pub client_tid: u64,
    pub client_start: u64,
    pub client_end: u64,
    /// Whether a server's handling was linked to it.
    pub linked: bool,
    pub server_tid: u64,
    pub server_start: u64,
    pub server_end: u64,
    pub server_work: u64,
}

impl Call {
    fn client_wall(&self) -> u64 {
        self.client_end.saturating_sub(self.client_start)
    }
    fn server_wall(&self) -> u64 {
        self.server_end.saturating_sub(self.server_start)
    }
}

/// The links found so far.
#[derive(Default)]
pub(crate) struct Links {
    pub defs: Vec<RemoteDef>,
    pub calls: Vec<Call>,
    /// (definition, key) → the client call waiting for its server.
    pending: FxHashMap<(u8, u64), u32>,
    /// (tracker thread slot, message order) → (call, server side) until the message ends.
    open: FxHashMap<(usize, u64), (u32, bool)>,
    /// Server keys no client call had opened (its client is not in the set, or came late).
    pub unmatched_server: u64,
    /// The server processes' clocks against their clients' ([`super::align`]).
    pub skews: Vec<super::align::ClockSkew>,
}

impl Links {
    /// How long a server key of process `process` is held back past its time.
    pub(crate) fn hold(&self, process: Option<u64>) -> u32 {
        let Some(p) = process else { return 0 };
        (self.skews.iter().find(|s| s.process == p))
            .map_or(0, |s| s.hold.min(u32::MAX as u64) as u32)
    }

    /// A client's key inside its call (`order`, started at `start` on slot `th`).
    pub(crate) fn client(&mut self, def: u8, key: u64, th: usize, order: u64, call: Call) {
        let id = self.calls.len() as u32;
        self.calls.push(Call { def, key, ..call });
        self.pending.insert((def, key), id);
        self.open.insert((th, order), (id, false));
    }

    /// A server's key inside its handling call: the linked client call, if any.
    pub(crate) fn server(
        &mut self,
        def: u8,
        key: u64,
        th: usize,
        order: u64,
        tid: u64,
        start: u64,
    ) -> Option<&Call> {
        let Some(id) = self.pending.remove(&(def, key)) else {
            self.unmatched_server += 1;
            return None;
        };
        let c = &mut self.calls[id as usize];
        c.linked = true;
        c.server_tid = tid;
        c.server_start = start;
        self.open.insert((th, order), (id, true));
        Some(c)
    }

    /// The events were numbered again (`new_id[old]`).
    pub(crate) fn renumber(&mut self, new_id: &[u32]) {
        for c in &mut self.calls {
            if let Some(&n) = new_id.get(c.event as usize) {
                c.event = n;
            }
        }
    }

    /// No remote call is open (a message's end has nothing to close).
    #[inline]
    pub(crate) fn is_idle(&self) -> bool {
        self.open.is_empty()
    }

    /// A message ended: closes the client or server side it carried.
    #[inline]
    pub(crate) fn closed(&mut self, th: usize, order: u64, end: u64, work: u64) {
        if self.open.is_empty() {
            return;
        }
        if let Some((id, server)) = self.open.remove(&(th, order)) {
            let c = &mut self.calls[id as usize];
            if server {
                c.server_end = end;
                c.server_work = work;
            } else {
                c.client_end = end;
            }
        }
    }
}

/// One remote call as the JSON lists it.
#[derive(Debug, Clone, Serialize)]
pub struct CallRow {
    pub remote: String,
    pub key: u64,
    /// The event it belongs to (its number), when its client was processing one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<u32>,
    pub client_tid: u64,
    pub client_wall: u64,
    pub linked: bool,
    pub server_tid: u64,
    pub server_wall: u64,
    pub server_work: u64,
    pub server_waiting: u64,
    /// The client's wall time less the server's: the network, the queues and the
    /// (de)serialising in between.
    pub transport: u64,
}

/// Per `[[remote]]`: its calls and how their time splits.
#[derive(Debug, Clone, Serialize)]
pub struct RemoteStats {
    pub name: String,
    pub client: String,
    pub server: String,
    pub calls: u64,
    pub linked: u64,
    pub client_wall: Dist,
    pub server_wall: Dist,
    pub server_work: Dist,
    pub server_waiting: Dist,
    pub transport: Dist,
}

/// The per-definition results and the first `cap` calls.
pub(crate) fn results(l: &Links, cap: usize) -> (Vec<RemoteStats>, Vec<CallRow>) {
    let stats = (l.defs.iter().enumerate())
        .map(|(i, d)| {
            let mine = || l.calls.iter().filter(move |c| c.def as usize == i);
            let linked = || mine().filter(|c| c.linked);
            let of = |f: &dyn Fn(&Call) -> u64| Dist::of(linked().map(f).collect());
            RemoteStats {
                name: d.name.clone(),
                client: d.client.text.clone(),
                server: d.server.text.clone(),
                calls: mine().count() as u64,
                linked: linked().count() as u64,
                client_wall: Dist::of(mine().map(Call::client_wall).collect()),
                server_wall: of(&Call::server_wall),
                server_work: of(&|c| c.server_work),
                server_waiting: of(&|c| c.server_wall().saturating_sub(c.server_work)),
                transport: of(&|c| c.client_wall().saturating_sub(c.server_wall())),
            }
        })
        .collect();
    let rows = (l.calls.iter().take(cap))
        .map(|c| CallRow {
            remote: l.defs[c.def as usize].name.clone(),
            key: c.key,
            event: (c.event != u32::MAX).then_some(c.event),
            client_tid: c.client_tid,
            client_wall: c.client_wall(),
            linked: c.linked,
            server_tid: c.server_tid,
            server_wall: c.server_wall(),
            server_work: c.server_work,
            server_waiting: c.server_wall().saturating_sub(c.server_work),
            transport: c.client_wall().saturating_sub(c.server_wall()),
        })
        .collect();
    (stats, rows)
}
