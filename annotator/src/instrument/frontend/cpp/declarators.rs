//! Declarators and names: unwrapping pointer/reference/array/init declarators, simple
//! names of declarator nodes, and whitespace/template-argument normalisation of type text.

use std::sync::OnceLock;

use tree_sitter::Node;

use super::kinds::{k, K};
use crate::instrument::frontend::kit::{self, children};
use crate::instrument::lang::LangSpec;
use crate::instrument::model::Lang;

/// Collapses whitespace and drops it around `::`.
pub(super) fn norm(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    for ch in s.chars() {
        if ch.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space
            && !out.ends_with("::")
            && ch != ':'
            && !out.ends_with('<')
            && ch != '>'
            && ch != ','
        {
            out.push(' ');
        }
        pending_space = false;
        out.push(ch);
    }
    out
}

/// Removes template argument lists (`std::vector<int>` -> `std::vector`), normalised.
pub(super) fn strip_targs(s: &str) -> String {
    if !s.contains('<') {
        return norm(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut depth = 0usize;
    for ch in s.chars() {
        match ch {
            '<' => depth += 1,
            '>' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(ch),
            _ => {}
        }
    }
    norm(&out)
}

/// `n`'s child in field `name` (field ids cached per grammar).
pub(super) fn field<'t>(n: Node<'t>, name: &str) -> Option<Node<'t>> {
    kit::grammar(Lang::Cpp).child(n, name)
}

/// The declaration-level node kinds the walk dispatches on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Decl {
    Namespace,
    Linkage,
    Template,
    ClassSpec,
    Declaration,
    TypeDefinition,
    FunctionDefinition,
    FieldDeclaration,
    Friend,
    /// `#if`/`#ifdef`/`#else`/`#elif`/`#elifdef` blocks and ERROR nodes: scopes to descend.
    Transparent,
    Other,
}

/// `n`'s [`Decl`] kind, by a table indexed by kind id (built once).
pub(super) fn decl_kind(n: Node) -> Decl {
    static TABLE: OnceLock<Vec<Decl>> = OnceLock::new();
    if n.is_error() {
        return Decl::Transparent;
    }
    let table = TABLE.get_or_init(|| {
        let lang = (LangSpec::of(Lang::Cpp).grammar)();
        (0..lang.node_kind_count() as u16)
            .map(|id| match lang.node_kind_for_id(id) {
                Some(_) if !lang.node_kind_is_named(id) => Decl::Other,
                Some("namespace_definition") => Decl::Namespace,
                Some("linkage_specification") => Decl::Linkage,
                Some("template_declaration") => Decl::Template,
                Some("class_specifier" | "struct_specifier" | "union_specifier") => Decl::ClassSpec,
                Some("declaration") => Decl::Declaration,
                Some("type_definition") => Decl::TypeDefinition,
                Some("function_definition") => Decl::FunctionDefinition,
                Some("field_declaration") => Decl::FieldDeclaration,
                Some("friend_declaration") => Decl::Friend,
                Some(
                    "preproc_if" | "preproc_ifdef" | "preproc_else" | "preproc_elif"
                    | "preproc_elifdef",
                ) => Decl::Transparent,
                _ => Decl::Other,
            })
            .collect()
    });
    table
        .get(n.kind_id() as usize)
        .copied()
        .unwrap_or(Decl::Other)
}

/// Whether `n` is a class, struct or union specifier.
pub(super) fn is_class_spec(n: Node) -> bool {
    k(n).is_class_spec()
}

#[derive(Default)]
pub(super) struct Decor {
    pub(super) pointers: u32,
    pub(super) reference: Option<&'static str>,
    pub(super) dims: Vec<String>,
    /// `= value` of an init declarator.
    pub(super) value: Option<String>,
    pub(super) variadic: bool,
}

/// Unwraps pointer/reference/array/init declarators down to the named part (or a function
/// declarator), collecting the decorations.
pub(super) fn unwrap_decl<'t>(
    src: &str,
    mut n: Option<Node<'t>>,
    d: &mut Decor,
) -> Option<Node<'t>> {
    for _ in 0..64 {
        let node = n?;
        match k(node) {
            K::PointerDeclarator => {
                d.pointers += 1;
                n = field(node, "declarator");
                n?;
            }
            K::ReferenceDeclarator => {
                let mut refk = "&";
                let mut inner = None;
                for c in children(node) {
                    if c.is_named() {
                        inner = Some(c);
                    } else if k(c) == K::AmpAmp {
                        refk = "&&";
                    }
                }
                d.reference = Some(refk);
                n = inner;
                inner?;
            }
            K::ArrayDeclarator => {
                let size = field(node, "size").map(|s| txt(src, s)).unwrap_or("");
                d.dims.insert(0, format!("[{size}]"));
                n = field(node, "declarator");
                n?;
            }
            K::InitDeclarator => {
                d.value = field(node, "value").map(|v| norm(txt(src, v)));
                n = field(node, "declarator");
            }
            K::VariadicDeclarator => {
                d.variadic = true;
                n = node.named_child(0);
                n?;
            }
            K::AttributedDeclarator => n = node.named_child(0),
            _ => return Some(node),
        }
    }
    None
}

pub(super) fn txt<'a>(src: &'a str, n: Node) -> &'a str {
    src.get(n.byte_range()).unwrap_or("")
}

/// The simple name of a declarator's name node.
pub(super) fn name_of(src: &str, n: Node) -> String {
    match k(n) {
        K::DestructorName => norm(txt(src, n)).replace(' ', ""),
        K::OperatorName => op_name(txt(src, n)),
        K::TemplateFunction | K::TemplateMethod => field(n, "name")
            .map(|x| norm(txt(src, x)))
            .unwrap_or_default(),
        K::ParenthesizedDeclarator => {
            let mut d = Decor::default();
            let inner = kit::named_children(n).filter(|c| !c.is_error()).last();
            unwrap_decl(src, inner, &mut d)
                .map(|x| name_of(src, x))
                .unwrap_or_default()
        }
        _ => norm(txt(src, n)),
    }
}

pub(super) fn op_name(s: &str) -> String {
    let rest = norm(s.trim_start_matches("operator"));
    if rest.starts_with(|c: char| c.is_alphabetic()) {
        format!("operator {rest}")
    } else {
        format!("operator{}", rest.replace(' ', ""))
    }
}
