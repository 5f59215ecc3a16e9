//! The C++ front end (tree-sitter-cpp).
//!
//! Walks the declaration level of the syntax tree only (namespaces, classes, members,
//! out-of-class definitions); function bodies are never descended into except for a cheap
//! text scan for preprocessor directives. When the first parse has errors, macro invocations
//! that cause them are blanked out with spaces (byte offsets unchanged) and the file is
//! parsed again; the better of the parses is kept.
//!
//! By concern: [`macros`] (the blanking), [`declarators`] (declarator unwrapping, names,
//! type text), [`walk`] (the model-building walk); errors are charged here.

mod declarators;
pub mod defines;
mod expand;
mod kinds;
mod layout;
mod macros;
mod walk;

use tree_sitter::Node;

use super::kit::{self, ErrorSite, Nested};
use crate::model::{Diagnostic, FileModel, Frontend, Lang, Severity, Span};

pub struct CppFrontend;

/// Deepest nesting of declaration scopes we follow (guards the recursion).
const MAX_DEPTH: usize = 256;

impl Frontend for CppFrontend {
    fn lang(&self) -> Lang {
        Lang::Cpp
    }
    fn parse(&self, path: &str, src: &str) -> FileModel {
        let mut model = kit::guarded(Lang::Cpp, path, || parse_file(path, src));
        model.layout_uses = layout::layout_uses(src);
        model
    }
}

/// Parses one C++ file seeing through the project's macros `defs` (plus the file's own).
pub fn parse_with_defines(path: &str, src: &str, defs: &defines::Defines) -> FileModel {
    let mut model = kit::guarded(Lang::Cpp, path, || {
        let mut all = defs.clone();
        all.merge(&defines::Defines::of(src));
        parse_expanded(path, src, &all)
    });
    model.layout_uses = layout::layout_uses(src);
    model
}

fn parse_file(path: &str, src: &str) -> FileModel {
    parse_expanded(path, src, &defines::Defines::of(src))
}

/// Parses `src` with the usable macros of `defs` expanded, unless that parses worse; maps
/// the model back to `src`'s offsets.
fn parse_expanded(path: &str, src: &str, defs: &defines::Defines) -> FileModel {
    let Some(tree) = kit::parse(Lang::Cpp, src, None) else {
        return kit::no_parser(Lang::Cpp, path);
    };
    if let Some((text, segs)) = expand::expand(src, defs) {
        if let Some(t2) = kit::parse(Lang::Cpp, &text, None) {
            let count = |t: &tree_sitter::Tree| kit::count_errors(t.root_node(), Nested::Report);
            if count(&t2) <= count(&tree) {
                let mut model = parse_tree(path, &text, t2);
                expand::OffsetMap::new(src, &segs).apply(&mut model);
                return model;
            }
        }
    }
    parse_tree(path, src, tree)
}

fn parse_tree(path: &str, src: &str, tree: tree_sitter::Tree) -> FileModel {
    let (text, tree, macro_diags) = macros::blank_failing_macros(path, src, tree);
    let mut w = walk::Walker {
        src: &text,
        path,
        model: FileModel {
            path: path.to_string(),
            ..Default::default()
        },
        too_deep: None,
    };
    let mut ns = Vec::new();
    w.scope(tree.root_node(), &mut ns, 0);
    let mut model = w.model;
    if let Some((line, col)) = w.too_deep {
        model.diagnostics.push(Diagnostic {
            path: path.to_string(),
            line,
            col,
            severity: Severity::Error,
            message: format!(
                "declarations nested more than {MAX_DEPTH} deep are not listed (from here on)"
            ),
        });
    }
    model.diagnostics.extend(macro_diags);
    attribute_errors(&mut model, tree.root_node(), &text);
    model
}

/// Reports every ERROR and MISSING node (nested ones too) and charges each, by position, to
/// the smallest method enclosing it, else to the smallest class when it sits in the class
/// head or a field declaration.
fn attribute_errors(model: &mut FileModel, root: Node, src: &str) {
    let mut sites = Vec::new();
    kit::for_each_error(root, Nested::Report, |n| sites.push(ErrorSite::new(n, src)));
    for s in &sites {
        charge(model, s);
    }
    kit::push_error_diags(model, &sites);
}

fn charge(model: &mut FileModel, s: &ErrorSite) {
    let inside =
        |sp: &Span| s.pos >= sp.start && (s.pos < sp.end || (s.missing && s.pos == sp.end));
    // Smallest enclosing method: (len, class idx or out-of-class, method idx).
    let mut best: Option<(usize, Option<usize>, usize)> = None;
    let mut consider = |len: usize, ci: Option<usize>, mi: usize| {
        if best.is_none_or(|b| len < b.0) {
            best = Some((len, ci, mi));
        }
    };
    for (ci, c) in model.classes.iter().enumerate() {
        if !inside(&c.span) {
            continue;
        }
        for (mi, m) in c.methods.iter().enumerate() {
            if inside(&m.span) {
                consider(m.span.end - m.span.start, Some(ci), mi);
            }
        }
    }
    for (mi, (_, m)) in model.out_of_class.iter().enumerate() {
        if inside(&m.span) {
            consider(m.span.end - m.span.start, None, mi);
        }
    }
    if let Some((_, ci, mi)) = best {
        let m = match ci {
            Some(ci) => &mut model.classes[ci].methods[mi],
            None => &mut model.out_of_class[mi].1,
        };
        m.not_annotatable.get_or_insert_with(|| s.reason());
        return;
    }
    // Smallest enclosing class: only its head or a field declaration count.
    let best_c = (model.classes.iter().enumerate())
        .filter(|(_, c)| inside(&c.span))
        .min_by_key(|(_, c)| c.span.end - c.span.start)
        .map(|(ci, _)| ci);
    if let Some(ci) = best_c {
        let c = &mut model.classes[ci];
        let in_body = s.pos > c.body.start && s.pos < c.body.end;
        let in_field = c.fields.iter().any(|f| inside(&f.span));
        if !in_body || in_field {
            c.not_annotatable.get_or_insert_with(|| s.reason());
        }
    }
}

#[cfg(test)]
mod tests;
