//! The C++ front end (tree-sitter-cpp).
//!
//! Walks the declaration level of the syntax tree only (namespaces, classes, members,
//! out-of-class definitions); function bodies are never descended into except for a cheap
//! text scan for preprocessor directives. When the first parse has errors, macro invocations
//! that cause them are blanked out with spaces (byte offsets unchanged) and the file is
//! parsed again; the better of the parses is kept. A file that still has errors and has
//! preprocessor conditionals is also read in one configuration ([`branches`]).
//!
//! By concern: [`macros`] (the blanking), [`branches`] (one configuration), [`declarators`]
//! (declarator unwrapping, names, type text), [`walk`] (the model-building walk); errors are
//! charged here.

mod branches;
mod declarators;
pub(crate) mod defines;
mod expand;
mod gaps;
mod kinds;
mod layout;
mod macros;
mod walk;

use tree_sitter::Node;

use super::kit::{self, ErrorSite, Nested};
use super::{Frontend, ProjectContext};
use crate::instrument::model::{Diagnostic, FileModel, Lang, Severity, Span};

pub struct CppFrontend;

/// Deepest nesting of declaration scopes we follow (guards the recursion).
const MAX_DEPTH: usize = 256;

impl Frontend for CppFrontend {
    fn lang(&self) -> Lang {
        Lang::Cpp
    }
    /// Sees through the project's macros `cx.defines`, the file's own over them.
    fn parse(&self, path: &str, src: &str, cx: &ProjectContext) -> FileModel {
        let mut model = kit::guarded(Lang::Cpp, path, || {
            let mut all = cx.defines.clone();
            all.overlay(&defines::Defines::of(src));
            parse_configured(path, src, &all)
        });
        model.layout_uses = layout::layout_uses(src);
        model
    }
}

/// Parses `src`; when that leaves syntax errors and the file has preprocessor conditionals,
/// parses one configuration of them too ([`branches`]) and keeps that if it has fewer errors
/// and can instrument every body the first parse could (pugixml's both-branch parse, say,
/// reaches code of optional modes that one configuration drops).
fn parse_configured(path: &str, src: &str, defs: &defines::Defines) -> FileModel {
    let (model, errors) = parse_expanded(path, src, defs);
    if errors == 0 {
        return model;
    }
    let own = defines::Defines::of(src);
    let elsewhere = |n: &str| defs.has(n) && !own.has(n);
    let Some((text, line)) = branches::one_configuration(src, elsewhere) else {
        return model;
    };
    let (mut alt, alt_errors) = parse_expanded(path, &text, defs);
    // Kept only when it spoils less and loses no body the first parse could instrument.
    let (was, now) = (open_bodies(&model), open_bodies(&alt));
    if alt_errors >= errors || was.iter().any(|b| now.binary_search(b).is_err()) {
        return model;
    }
    alt.diagnostics.push(Diagnostic {
        path: path.to_string(),
        line,
        col: 1,
        severity: Severity::Note,
        message: format!(
            "read with one branch of each preprocessor conditional (the one a plain g++ build \
             would compile, as far as Revy can tell): with both it has {errors} syntax \
             error(s), with one {alt_errors}; declarations only in the other branches are left out"
        ),
    });
    alt
}

/// Where the method bodies that nothing marks as not annotatable start, in order.
fn open_bodies(m: &FileModel) -> Vec<usize> {
    let class_methods = m.classes.iter().filter(|c| c.not_annotatable.is_none());
    let methods = class_methods.flat_map(|c| &c.methods);
    let all = methods.chain(m.out_of_class.iter().map(|(_, x)| x));
    let mut v: Vec<usize> = all
        .filter(|x| x.not_annotatable.is_none())
        .filter_map(|x| x.body.map(|b| b.start))
        .collect();
    v.sort_unstable();
    v
}

/// Parses `src` with the usable macros of `defs` expanded, unless that parses worse; maps
/// the model back to `src`'s offsets. Also gives the syntax errors left.
fn parse_expanded(path: &str, src: &str, defs: &defines::Defines) -> (FileModel, usize) {
    // Same length: every offset is still `src`'s.
    let repaired = gaps::repair(src);
    let src: &str = &repaired;
    let Some(tree) = kit::parse(Lang::Cpp, src, None) else {
        return (kit::no_parser(Lang::Cpp, path), 0);
    };
    let commas = comma_repair(src, &tree);
    let (src, tree) = match &commas {
        Some((text, t)) => (text.as_str(), t.clone()),
        None => (src, tree),
    };
    // Each error reaches over the blanks after it: `"%" PRId32` errs on the `"%"`.
    let mut errors = Vec::new();
    let blank_after = |e: usize| e + src[e..].bytes().take_while(u8::is_ascii_whitespace).count();
    kit::for_each_error(tree.root_node(), Nested::Report, |n| {
        errors.push((n.start_byte(), blank_after(n.end_byte())))
    });
    errors.sort_unstable();
    if let Some((text, segs)) = expand::expand(src, defs, expand::Errors::At(&errors)) {
        if let Some(t2) = kit::parse(Lang::Cpp, &text, None) {
            let count = |t: &tree_sitter::Tree| kit::count_errors(t.root_node(), Nested::Report);
            if count(&t2) <= count(&tree) {
                let (mut model, errors) = parse_tree(path, &text, t2);
                expand::OffsetMap::new(src, &segs).apply(&mut model);
                return (model, errors);
            }
        }
    }
    parse_tree(path, src, tree)
}

/// `src` with the comma expressions at its parse errors rewritten ([`gaps::repair_commas`])
/// and its tree, when that parses with fewer errors.
fn comma_repair(src: &str, tree: &tree_sitter::Tree) -> Option<(String, tree_sitter::Tree)> {
    let mut at = Vec::new();
    kit::for_each_error(tree.root_node(), Nested::Report, |n| {
        at.push(n.start_byte())
    });
    if at.is_empty() {
        return None;
    }
    let text = gaps::repair_commas(src, &at)?;
    let t2 = kit::parse(Lang::Cpp, &text, None)?;
    let count = |t: &tree_sitter::Tree| kit::count_errors(t.root_node(), Nested::Report);
    (count(&t2) < count(tree)).then_some((text, t2))
}

fn parse_tree(path: &str, src: &str, tree: tree_sitter::Tree) -> (FileModel, usize) {
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
    let errors = attribute_errors(&mut model, tree.root_node(), &text);
    (model, errors)
}

/// Reports every ERROR and MISSING node (nested ones too) and charges each, by position, to
/// the smallest method enclosing it, else to the smallest class when it sits in the class
/// head or a field declaration. Gives how many there are.
fn attribute_errors(model: &mut FileModel, root: Node, src: &str) -> usize {
    let mut sites = Vec::new();
    kit::for_each_error(root, Nested::Report, |n| sites.push(ErrorSite::new(n, src)));
    for s in &sites {
        charge(model, s);
    }
    kit::push_error_diags(model, &sites);
    sites.len()
}

fn charge(model: &mut FileModel, s: &ErrorSite) {
    let inside =
        |sp: &Span| s.pos >= sp.start && (s.pos < sp.end || (s.missing && s.pos == sp.end));
    // A `}` the parser had to invent inside a class means its braces did not balance: where
    // the class ends is a guess, and an ID member inserted there would land in the wrong
    // scope while probes use it. The class is withdrawn whole (members and methods).
    if s.missing && s.message == "missing '}'" {
        let smallest = (model.classes.iter_mut())
            .filter(|c| inside(&c.span))
            .min_by_key(|c| c.span.end - c.span.start);
        if let Some(c) = smallest {
            c.not_annotatable.get_or_insert_with(|| {
                format!(
                    "its body cannot be read (missing '}}' at {}:{}); the class is left alone",
                    s.line, s.col
                )
            });
        }
    }
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
