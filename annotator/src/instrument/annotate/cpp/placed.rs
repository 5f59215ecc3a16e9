//! Classes whose objects the project constructs with placement new (`new (where) T(…)`) into
//! memory it manages itself: arenas, pages, fixed buffers, allocators with budgets (pugixml's
//! documents and XPath nodes). Their size is part of that memory's accounting — how many fit in
//! a page, when a budget runs out — so an ID member would change the program's behaviour.
//! The same holds for the bases and by-value members of such a class: they are part of it.

use crate::instrument::model::{Lang, LayoutKind, LayoutUse};
use crate::instrument::saf::{Saf, SafClass};

use super::user_class;

/// Why `sc` must keep its size because the project places it (or a class containing it) with
/// placement new, if it does: from the placement-new uses the front end recorded per file.
pub(super) fn placed_reason(saf: &Saf, sc: &SafClass) -> Option<String> {
    let placements = saf
        .files
        .iter()
        .filter(|f| f.lang == Lang::Cpp)
        .flat_map(|f| {
            f.layout_uses
                .iter()
                .filter_map(|u| LayoutUse::from_saf(u))
                .filter(|u| u.kind == LayoutKind::PlacementNew)
                .map(move |u| (f.path.as_str(), u.name))
        });
    for (path, name) in placements {
        let last = name.rsplit("::").next().unwrap_or(&name);
        let placed = saf
            .classes
            .iter()
            .filter(|c| c.lang == Lang::Cpp && c.name.split('<').next().unwrap_or(&c.name) == last);
        for c in placed {
            if c.id == sc.id {
                return Some(format!(
                    "placed with placement new in {path}: its size is part of memory the project manages"
                ));
            }
            if contains(saf, c, sc, 0) {
                return Some(format!(
                    "part of {}, which is placed with placement new in {path}",
                    c.name
                ));
            }
        }
    }
    None
}

/// Whether `inner` is a base or a by-value member of `outer`, at any depth.
fn contains(saf: &Saf, outer: &SafClass, inner: &SafClass, depth: u32) -> bool {
    if depth > 16 {
        return false;
    }
    let parts = outer.supers.iter().map(String::as_str).chain(
        outer
            .fields
            .iter()
            .filter(|f| !f.is_static && f.pointers == 0)
            .map(|f| f.ty.as_str()),
    );
    parts
        .filter_map(|ty| user_class(saf, &outer.qname, ty))
        .filter(|c| c.id != outer.id)
        .any(|c| c.id == inner.id || contains(saf, c, inner, depth + 1))
}
