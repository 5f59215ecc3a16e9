//! What a change's cross-thread messages cost against the work they move, and which cost
//! dominates: the senders' enqueue per asynchronous message, the receivers' take of the
//! fine-grained ones (when a receiver bounds the run), the handoffs of callers that wait,
//! or the waiting for results itself. The verdict names it with its numbers.

use serde::Serialize;

use super::count;
use super::sim::{Outcome, Params};
use super::tree::Tree;
use crate::analyse::trace::Unit;

#[derive(Debug, Clone, Serialize)]
pub struct Cost {
    /// `enqueue`, `take`, `handoff` or `waiting for results`.
    pub dominant: &'static str,
    /// Messages the dominant cost is paid on, and what one costs (0 for waiting).
    pub messages: u64,
    pub per_message: f64,
    /// The dominant cost in all (in the prediction's unit).
    pub total: f64,
    /// What the receivers spent taking fine-grained messages off their queues (in all).
    pub take_time: f64,
    /// Work the messages carry to their new threads.
    pub work: f64,
    /// Of the messages, counted calls of throttled methods (replayed as batches).
    pub counted_messages: u64,
    /// E.g. "10.0 M messages (1 waking a blocked receiver × 4.2 µs, the rest × 250 ns to a
    /// queue just emptied or 21 ns behind others) = 2.50 s enqueue against 500 ms of work".
    pub text: String,
}

/// The cost of the replay `o`'s messages; `None` when it sent none.
pub fn of(o: &Outcome, p: &Params, unit: Unit) -> Option<Cost> {
    let h = |x: f64| super::human(x, unit);
    let (sync, sent) = (o.sync_sends, o.async_sends);
    if sync + sent == 0 {
        return None;
    }
    let waited: f64 = o.waits.iter().map(|w| w.time).sum();
    // With a wake-up curve, what the replay charged the round trips' wake-ups.
    let (woken_r, woken_c) = (o.woken_receivers, o.woken_callers);
    let handoffs = match p.wake_curve {
        Some(_) => woken_r.delay + woken_c.delay,
        None => 2.0 * sync as f64 * p.handoff,
    };
    let against = format!("against {} of work", h(o.moved_work));
    // A receiver is the busiest thread: what it pays per message bounds the run.
    let receiver_bound = o
        .execs
        .iter()
        .max_by(|a, b| a.busy.total_cmp(&b.busy))
        .is_some_and(|e| e.messages > 0);
    let taken = if p.take > 0.0 {
        (o.take_time / p.take).round() as u64
    } else {
        0
    };
    // The receivers' take dominates when one of them bounds the run (the senders' enqueue
    // is hidden behind it) and the messages are mostly fine ones, each taken at the queue
    // (the take at least half the enqueue: not a few among coarse posts and wake-ups).
    let (dominant, messages, per_message, total, text) = if sent > 0
        && taken > 0
        && receiver_bound
        && 2.0 * o.take_time >= o.enqueue_time
        && o.take_time >= waited
    {
        let text = format!(
            "{} taken off a queue their sender is at × {} = {} take on the receiving thread(s), on top of {} of work (their senders paid {} enqueue)",
            plural(taken, "message"),
            h(p.take),
            h(o.take_time),
            h(o.moved_work),
            h(o.enqueue_time)
        );
        ("take", taken, p.take, o.take_time, text)
    } else if sent > 0 && o.enqueue_time >= waited {
        let wakes = o.wakes.round() as u64;
        let text = format!(
            "{} ({} waking a blocked receiver × {}, the rest × {} to a queue just emptied or {} behind others) = {} enqueue {against}",
            plural(sent, "message"),
            count(wakes),
            h(p.wake),
            h(p.enqueue),
            h(p.post),
            h(o.enqueue_time)
        );
        let text = match taken {
            0 => text,
            _ => format!(
                "{text}; their receivers took {} of them off the queue × {} = {}",
                count(taken),
                h(p.take),
                h(o.take_time)
            ),
        };
        let per = o.enqueue_time / sent as f64;
        ("enqueue", sent, per, o.enqueue_time, text)
    } else if p.wake_curve.is_some()
        && (handoffs >= 0.5 * waited
            || (handoffs >= 0.25 * waited && handoffs >= 0.5 * (waited - o.moved_work)))
    {
        // Dear wake-ups after idling: a good share of the waiting, and most of what the
        // callers waited beyond the work they wait for.
        let text = format!(
            "{}: {} = {} handoff {against}",
            plural(sync, "round trip"),
            super::wake::describe(&woken_r, &woken_c, unit),
            h(handoffs)
        );
        let per = handoffs / sync.max(1) as f64;
        ("handoff", sync, per, handoffs, text)
    } else if p.wake_curve.is_none() && handoffs >= 0.5 * waited {
        let text = format!(
            "{} × 2 × {} handoff = {} {against}",
            plural(sync, "round trip"),
            h(p.handoff),
            h(handoffs)
        );
        ("handoff", sync, p.handoff, handoffs, text)
    } else {
        let text = format!(
            "callers waited {} for the results of {} {against}",
            h(waited),
            plural(sync, "message")
        );
        ("waiting for results", sync, 0.0, waited, text)
    };
    Some(Cost {
        dominant,
        messages,
        per_message,
        total,
        take_time: o.take_time,
        work: o.moved_work,
        counted_messages: o.counted_sends,
        text,
    })
}

/// `1 message`, `10.0 M messages`.
fn plural(n: u64, what: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{} {what}{s}", count(n))
}

/// What the replay holds of the run's calls, when the runtime counted some instead of
/// recording them: the throttled methods' counted calls are replayed as batches.
pub fn coverage(t: &Tree) -> Vec<String> {
    let mut out = Vec::new();
    if t.aggregated_calls == 0 {
        return out;
    }
    let p = &t.placed;
    if p.calls > 0 {
        out.push(format!(
            "{} counted calls of throttled methods are replayed as {} batches, at their estimated time per call; a change that moves them pays a message (enqueue or round trip) per call",
            count(p.calls),
            p.nodes
        ));
    }
    let recorded = t.messages() as u64;
    let all = recorded + t.aggregated_calls;
    let held = recorded + p.calls;
    if held < all {
        out.push(format!(
            "the replay holds {} of the run's {} calls ({:.0} %): the recorded ones{}; the rest, which the runtime counted (past max_size, or made inside counted calls), run as part of their callers' time and are never moved",
            count(held),
            count(all),
            100.0 * held as f64 / all as f64,
            if p.calls > 0 { " and the throttled methods' counted calls" } else { "" }
        ));
    }
    out
}
