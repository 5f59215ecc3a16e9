//! What a method that waited off the CPU was waiting on: the blocking calls its body makes,
//! as the front ends found them (`SafMethod::blocks` in the SAF beside the trace or the
//! manifest), named in the `waits` observation ("in Object.wait (Channel.take)").

use std::path::Path;

use rustc_hash::FxHashMap;

use super::{Analysis, Options};
use crate::analyse::whatif::plan::find_saf;
use crate::instrument::saf::Saf;

/// Fills each method's `blocks` from the SAF, when some instance waited and a SAF is found.
/// A SAF that cannot be read leaves them empty: the proposals, which need it, report why.
pub(super) fn fill(a: &mut Analysis, path: &Path, opts: &Options) {
    if a.instances.waiters().next().is_none() {
        return;
    }
    let Some(saf) = find_saf(path, opts.manifest.as_deref()).and_then(|p| Saf::load(&p).ok())
    else {
        return;
    };
    let mut by: FxHashMap<(&str, &str, &str), &[String]> = FxHashMap::default();
    for c in &saf.classes {
        for m in c.methods.iter().filter(|m| !m.blocks.is_empty()) {
            by.insert((&c.qname, &m.name, &m.sgn), &m.blocks);
        }
    }
    for m in &mut a.methods {
        if let Some(b) = by.get(&(m.class.as_str(), m.method.as_str(), m.signature.as_str())) {
            m.blocks = b.to_vec();
        }
    }
}

/// How a `waits` observation names where an instance waited: `channels.Channel.take`, or
/// with what its body blocks on, `Object.wait (channels.Channel.take)`. A monitor's wait,
/// a join, a queue or a future comes before `synchronized`: a method that calls `wait()`
/// holds the monitor anyway, and spends its blocked time in the wait.
pub(super) fn describe(class: &str, method: &str, blocks: &[String]) -> String {
    let named = blocks
        .iter()
        .find(|b| b.as_str() != crate::instrument::frontend::blocking::SYNCHRONIZED)
        .or(blocks.first());
    match named {
        Some(b) => format!("{b} ({class}.{method})"),
        None => format!("{class}.{method}"),
    }
}
