//! Classes whose objects the project constructs with placement new (`new (where) T(…)`) into
//! memory it manages itself: arenas, pages, fixed buffers, allocators with budgets (pugixml's
//! documents and XPath nodes). Their size is part of that memory's accounting — how many fit in
//! a page, when a budget runs out — so an ID member would change the program's behaviour.
//! The same holds for the bases and by-value members of such a class: they are part of it.

use crate::model::Lang;
use crate::saf::{Saf, SafClass};

use super::user_class;

/// Why `sc` must keep its size because the project places it (or a class containing it) with
/// placement new, if it does.
pub(super) fn placed_reason(
    saf: &Saf,
    sc: &SafClass,
    files: &[(String, String)],
) -> Option<String> {
    for (path, name) in files
        .iter()
        .flat_map(|(p, t)| placed_names(t).map(move |n| (p, n)))
    {
        let last = name.rsplit("::").next().unwrap_or(name);
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

/// The type names written right after a placement new in `text` (`ns::T` of
/// `new (memory) ns::T(…)`): `new` as a word, a parenthesised place, then a type name.
fn placed_names(text: &str) -> impl Iterator<Item = &str> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices("new").filter_map(move |(i, _)| {
        if text[..i].chars().next_back().is_some_and(ident) {
            return None;
        }
        let rest = text[i + 3..].trim_start_matches([' ', '\t']);
        if !rest.starts_with('(') {
            return None;
        }
        let mut depth = 0usize;
        let close = rest.char_indices().find_map(|(j, c)| {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '\n' | ';' | '{' => return Some(None),
                _ => {}
            }
            (depth == 0).then_some(Some(j))
        })??;
        let place = rest[1..close].trim();
        if place == "std::nothrow" || place == "nothrow" {
            return None; // an ordinary heap allocation that returns null instead of throwing
        }
        let ty = rest[close + 1..].trim_start().trim_start_matches("::");
        let end = ty.find(|c: char| !ident(c) && c != ':').unwrap_or(ty.len());
        let ty = ty[..end].trim_end_matches(':');
        (!ty.is_empty()).then_some(ty)
    })
}

#[cfg(test)]
mod tests {
    use super::placed_names;

    #[test]
    fn placement_new_names() {
        let t = "a = new (memory) xml_node_struct(page, type);\n\
                 new(other) impl::xml_document_struct(p);\n\
                 return memory ? new (memory) xpath_ast_node(t, r, v) : 0;\n\
                 T* x = new (f(a, (b))) ::ns::T;\n\
                 p = new Foo(1); renew (x) y; q = new int[3];\n\
                 r = new (std::nothrow) Bar(2);\n";
        let got: Vec<&str> = placed_names(t).collect();
        assert_eq!(
            got,
            [
                "xml_node_struct",
                "impl::xml_document_struct",
                "xpath_ast_node",
                "ns::T"
            ]
        );
    }
}
