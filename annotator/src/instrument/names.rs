//! How a pattern names a class or a method, the one reading that selection
//! (`[annotate] include/exclude`) and event definitions (`[[events]]`) share: a class by its
//! qualified or simple name (`bank.Account`, `Account`, `ns::Account`), a method as
//! `Class.method` or `Class::method` with either form of the class's name.

/// A class's simple name: the last part of `pkg.Outer.Inner` or `ns::Class`.
pub(crate) fn simple_name(qname: &str) -> &str {
    qname.rsplit(['.', ':']).next().unwrap_or(qname)
}

/// Whether one pattern names class `qname` as the selection does (qualified or simple name).
pub(crate) fn names_class(g: &globset::GlobMatcher, qname: &str) -> bool {
    g.is_match(qname) || g.is_match(simple_name(qname))
}

/// Whether one pattern names method `method` of class `qname` as the selection does:
/// `Class.method` or `Class::method`, with either form of the class's name.
pub(crate) fn names_method(g: &globset::GlobMatcher, qname: &str, method: &str) -> bool {
    let cn = [qname.to_string(), simple_name(qname).to_string()];
    method_names(&cn, method).iter().any(|n| g.is_match(n))
}

/// The names a pattern may give method `method` of a class named `class` (qualified,
/// simple).
pub(crate) fn method_names(class: &[String; 2], method: &str) -> Vec<String> {
    let mut v = Vec::with_capacity(4);
    for n in class {
        v.push(format!("{n}.{method}"));
        v.push(format!("{n}::{method}"));
    }
    v
}
