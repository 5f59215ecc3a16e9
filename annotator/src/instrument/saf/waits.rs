//! What a method may block on, for the SAF: the body's blocking calls (`frontend::blocking`)
//! with its queue calls resolved. A Java `take()`/`put(x)` names `BlockingQueue.take`/`put`
//! only when its receiver's declared type (a local's, a parameter's or a field's of the class,
//! its bases or the classes around it) is a `java.util.concurrent` blocking queue or a
//! project class extending one; a project class's own `take` (a channel built on `wait()`)
//! must not be named a queue, or the analysis would say the wrong thing was waited on.

use super::resolve::Resolver;
use crate::instrument::frontend::blocking::{QUEUE_TYPES, SYNCHRONIZED, VIA};
use crate::instrument::model::{ClassDecl, MethodDecl};

/// The method's `blocks`: its body's, resolved, and its own monitor when it is `synchronized`.
pub(super) fn blocks(
    m: &MethodDecl,
    c: &ClassDecl,
    classes: &[ClassDecl],
    r: &Resolver,
) -> Vec<String> {
    let body = m.effects.as_ref().map_or(&[][..], |e| &e.blocks[..]);
    let mut b: Vec<String> = body
        .iter()
        .filter_map(|x| match x.split_once(VIA) {
            None => Some(x.clone()),
            Some((call, receiver)) => {
                queue_receiver(receiver, m, c, classes, r).then(|| call.to_string())
            }
        })
        .collect();
    if m.flags.is_synchronized {
        b.push(SYNCHRONIZED.to_string());
    }
    b.sort();
    b.dedup();
    b
}

/// Whether `receiver` (`name: Type` for a local, else a name) is declared as a queue.
fn queue_receiver(
    receiver: &str,
    m: &MethodDecl,
    c: &ClassDecl,
    classes: &[ClassDecl],
    r: &Resolver,
) -> bool {
    if let Some((_, ty)) = receiver.split_once(": ") {
        return !ty.contains('[') && is_queue(ty, c, classes, r, 0);
    }
    if let Some(p) = m.params.iter().find(|p| p.name == receiver) {
        return p.ty.dims == 0 && is_queue(&p.ty.name, c, classes, r, 0);
    }
    // Fields of the class, its bases, then the classes it is nested in.
    let mut seen = vec![];
    let mut todo = vec![c];
    while let Some(k) = todo.pop() {
        if let Some(f) = k.fields.iter().find(|f| f.name == receiver) {
            return f.ty.dims == 0 && is_queue(&f.ty.name, k, classes, r, 0);
        }
        let around = k.outer.iter();
        for s in k.supers.iter().chain(around) {
            if let Some(i) = r.resolve(s, k).filter(|i| !seen.contains(i)) {
                seen.push(i);
                todo.insert(0, &classes[i]);
            }
        }
    }
    false
}

/// Whether type `ty`, written in class `from`, is a blocking queue: a project class is one when
/// a base of it is.
fn is_queue(ty: &str, from: &ClassDecl, classes: &[ClassDecl], r: &Resolver, depth: u32) -> bool {
    let name = ty.split('<').next().unwrap_or("").trim();
    if depth > 16 || name.is_empty() {
        return false;
    }
    if let Some(i) = r.resolve(name, from) {
        let k = &classes[i];
        return k
            .supers
            .iter()
            .chain(&k.interfaces)
            .any(|s| is_queue(s, k, classes, r, depth + 1));
    }
    let (package, simple) = name.rsplit_once('.').unwrap_or(("", name));
    matches!(package, "" | "java.util.concurrent") && QUEUE_TYPES.contains(&simple)
}
