//! Name lookups over a project's classes: which user class a type name written inside a
//! class refers to. Used by the SAF's builder and by the waits naming.

use std::collections::HashMap;

use crate::instrument::model::ClassDecl;

/// Name lookups over all classes of the project.
pub(crate) struct Resolver<'a> {
    classes: &'a [ClassDecl],
    by_qname: HashMap<&'a str, usize>,
    by_simple: HashMap<&'a str, Vec<usize>>,
}

impl<'a> Resolver<'a> {
    pub(crate) fn new(classes: &'a [ClassDecl]) -> Self {
        let mut by_qname = HashMap::new();
        let mut by_simple: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, c) in classes.iter().enumerate() {
            // Primary templates win over specialisations of the same name.
            if c.specialization.is_none() || !by_qname.contains_key(c.qname.as_str()) {
                by_qname.insert(c.qname.as_str(), i);
            }
            by_simple.entry(c.name.as_str()).or_default().push(i);
        }
        Resolver {
            classes,
            by_qname,
            by_simple,
        }
    }

    /// The class a type name written inside class `from` refers to, if it is a user class.
    pub(crate) fn resolve(&self, name: &str, from: &ClassDecl) -> Option<usize> {
        let lang = from.lang;
        let name = name.trim_start_matches("::");
        let sep = lang.spec().scope_sep;
        // Enclosing scopes, innermost first: `a.b.C` tries `a.b.C.name`, `a.b.name`, `a.name`.
        let found = super::in_scopes(sep, &from.qname, name, |q| self.by_qname.get(q).copied());
        if found.is_some() {
            return found;
        }
        let simple = name.rsplit(sep).next().unwrap_or(name);
        let ids = self.by_simple.get(simple)?;
        // Only trust a bare simple-name match when the written name was unqualified.
        if simple != name {
            return ids
                .iter()
                .copied()
                .find(|&i| self.classes[i].qname.ends_with(name));
        }
        ids.iter().copied().find(|&i| self.classes[i].lang == lang)
    }
}
