//! Selection: resolves `[annotate] include/exclude` patterns into `selected` flags.
//!
//! A pattern matches a class by its qualified or simple name (`bank.Account`, `Account`,
//! `ns::Account`), and a method by `Class.method` / `Class::method` with either name form.
//! Globs: `*` matches any run of characters, so `*.get*` matches every getter.
//! A class is selected when an include matches it or one of its methods and no exclude
//! matches it; a method when an include matches it or its class and no exclude matches
//! it or its class. Methods that cannot be instrumented keep `selected` but are skipped.

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::instrument::manifest::Pattern;
use crate::instrument::names::method_names;
use crate::instrument::saf::SafClass;

/// One set for all patterns: literal names are hash lookups and wildcards share one
/// automaton, so 200k patterns cost neither 200k regexes nor 200k tests per name.
fn compile(p: &[Pattern]) -> GlobSet {
    let mut b = GlobSetBuilder::new();
    for g in p.iter().filter_map(|p| Glob::new(&p.text).ok()) {
        b.add(g);
    }
    b.build().unwrap_or_else(|_| GlobSet::empty())
}

fn class_names(c: &SafClass) -> [String; 2] {
    [c.qname.clone(), c.name.clone()]
}

fn any(set: &GlobSet, names: &[String]) -> bool {
    names.iter().any(|n| set.is_match(n))
}

pub fn apply(classes: &mut [SafClass], include: &[Pattern], exclude: &[Pattern]) {
    let inc = compile(include);
    let exc = compile(exclude);
    for c in classes.iter_mut() {
        let cn = class_names(c);
        let class_in = any(&inc, &cn);
        let class_out = any(&exc, &cn);
        let mut any_method = false;
        for m in c.methods.iter_mut() {
            let mn = method_names(&cn, &m.name);
            m.selected = !class_out && (class_in || any(&inc, &mn)) && !any(&exc, &mn);
            any_method |= m.selected;
        }
        c.selected = !class_out && (class_in || any_method);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instrument::model::{ClassKind, Lang, MethodKind};
    use crate::instrument::saf::SafMethod;

    fn pat(s: &str) -> Pattern {
        Pattern {
            text: s.into(),
            at: String::new(),
        }
    }

    fn class(q: &str, methods: &[&str]) -> SafClass {
        SafClass {
            id: 1,
            qname: q.into(),
            name: q.rsplit(['.', ':']).next().unwrap().into(),
            lang: Lang::Java,
            kind: ClassKind::Class,
            is_abstract: false,
            outer: None,
            local: false,
            is_inner: false,
            supers: vec![],
            interfaces: vec![],
            type_params: vec![],
            specialization: None,
            access: vec![],
            data_access: vec![],
            bases_written: vec![],
            crtp_self_casts: vec![],
            file: "A.java".into(),
            lines: [1, 1],
            static_size: 0,
            selected: false,
            annotatable: true,
            reason: None,
            fields: vec![],
            methods: methods
                .iter()
                .map(|m| SafMethod {
                    id: 1,
                    name: m.to_string(),
                    kind: MethodKind::Method,
                    sgn: "!!".into(),
                    ret: None,
                    ret_dim: 0,
                    params: vec![],
                    is_static: false,
                    is_abstract: false,
                    modifiers: vec![],
                    file: "A.java".into(),
                    lines: [1, 1],
                    has_body: true,
                    stateless: false,
                    blocks: vec![],
                    selected: false,
                    annotatable: true,
                    reason: None,
                })
                .collect(),
        }
    }

    fn sel(c: &SafClass) -> Vec<&str> {
        c.methods
            .iter()
            .filter(|m| m.selected)
            .map(|m| m.name.as_str())
            .collect()
    }

    #[test]
    fn patterns_select_classes_and_methods() {
        let mut cs = vec![
            class("bank.Account", &["getBalance", "deposit", "transfer"]),
            class("bank.Main", &["main"]),
            class("ns::Person", &["setName", "name"]),
        ];
        apply(&mut cs, &[pat("*")], &[pat("*.get*"), pat("bank.Main")]);
        assert_eq!(sel(&cs[0]), ["deposit", "transfer"]);
        assert!(!cs[1].selected && sel(&cs[1]).is_empty());
        assert!(cs[2].selected);

        apply(
            &mut cs,
            &[pat("Account.transfer"), pat("ns::Person")],
            &[pat("Person::set*")],
        );
        assert!(cs[0].selected);
        assert_eq!(sel(&cs[0]), ["transfer"]);
        assert!(!cs[1].selected);
        assert_eq!(sel(&cs[2]), ["name"]);
    }
}
