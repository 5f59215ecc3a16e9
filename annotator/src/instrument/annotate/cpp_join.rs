//! The identity member of a class whose object is assembled from several tagged parts (two or
//! more tagged bases, or a virtual one): its generated `_rv_join` names each base exactly as
//! the class head does (`this->Counter<T>::_rv_tag`; the front end records the base clause as
//! written), so the runtime's `JoinTag` can give the whole object one ID (see
//! `runtime-cpp/README.md`).

/// A base's unqualified name without template arguments: `Counter` for `lib::Counter<W>`.
pub fn base_simple(written: &str) -> &str {
    let bare = written.split('<').next().unwrap_or("").trim();
    bare.rsplit("::").next().unwrap_or(bare).trim()
}

/// A base listed by a joining class's `_rv_join`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinBase {
    /// As written in the class head.
    pub name: String,
    /// The tag member seen through it.
    pub member: String,
    /// It joins parts of its own (has an `_rv_join`): those are listed first, so that when
    /// this object takes another part's ID they take it too.
    pub nested: bool,
}

/// The generated member function listing the tags of the bases.
pub fn join_fn(bases: &[JoinBase]) -> String {
    let calls: Vec<String> = bases
        .iter()
        .map(|b| {
            let nested = if b.nested {
                format!("this->{}::_rv_join(j); ", b.name)
            } else {
                String::new()
            };
            format!("{nested}j(this->{}::{});", b.name, b.member)
        })
        .collect();
    format!(
        " public: void _rv_join(::_revy_rt::Joiner& j) {{ {} }}",
        calls.join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_base_names() {
        assert_eq!(base_simple("lib::Counter<W>"), "Counter");
        assert_eq!(base_simple("a::b::Base<T, x::Y<2>>"), "Base");
        assert_eq!(base_simple("Node"), "Node");
    }
}
