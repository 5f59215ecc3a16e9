//! Declarators and names: unwrapping pointer/reference/array/init declarators, simple
//! names of declarator nodes, and whitespace/template-argument normalisation of type text.

use std::sync::OnceLock;

use tree_sitter::Node;

use crate::frontend::kit::{self, children};
use crate::lang::LangSpec;
use crate::model::Lang;

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

/// Ids of the node kinds the declarator and class code tests most often (cached once:
/// comparing ids instead of kind strings). A name may have several ids (aliases), so each
/// entry holds all of them.
pub(super) struct Kinds {
    pointer: Vec<u16>,
    reference: Vec<u16>,
    array: Vec<u16>,
    init_declarator: Vec<u16>,
    variadic_declarator: Vec<u16>,
    attributed_declarator: Vec<u16>,
    class_specs: Vec<u16>,
    destructor_name: Vec<u16>,
    operator_name: Vec<u16>,
    template_fn: Vec<u16>,
    parenthesized_declarator: Vec<u16>,
}

pub(super) fn kinds() -> &'static Kinds {
    static KINDS: OnceLock<Kinds> = OnceLock::new();
    KINDS.get_or_init(|| {
        let lang = (LangSpec::of(Lang::Cpp).grammar)();
        let k = |names: &[&str]| -> Vec<u16> {
            (0..lang.node_kind_count() as u16)
                .filter(|&id| lang.node_kind_is_named(id))
                .filter(|&id| {
                    lang.node_kind_for_id(id)
                        .is_some_and(|n| names.contains(&n))
                })
                .collect()
        };
        Kinds {
            pointer: k(&["pointer_declarator", "abstract_pointer_declarator"]),
            reference: k(&["reference_declarator", "abstract_reference_declarator"]),
            array: k(&["array_declarator", "abstract_array_declarator"]),
            init_declarator: k(&["init_declarator"]),
            variadic_declarator: k(&["variadic_declarator"]),
            attributed_declarator: k(&["attributed_declarator"]),
            class_specs: k(&["class_specifier", "struct_specifier", "union_specifier"]),
            destructor_name: k(&["destructor_name"]),
            operator_name: k(&["operator_name"]),
            template_fn: k(&["template_function", "template_method"]),
            parenthesized_declarator: k(&["parenthesized_declarator"]),
        }
    })
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
    kinds().class_specs.contains(&n.kind_id())
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
    let k = kinds();
    for _ in 0..64 {
        let node = n?;
        let id = node.kind_id();
        if k.pointer.contains(&id) {
            d.pointers += 1;
            n = field(node, "declarator");
            n?;
        } else if k.reference.contains(&id) {
            let mut refk = "&";
            let mut inner = None;
            for c in children(node) {
                if c.is_named() {
                    inner = Some(c);
                } else if c.kind() == "&&" {
                    refk = "&&"; // an anonymous token: not in the named-kind cache
                }
            }
            d.reference = Some(refk);
            n = inner;
            inner?;
        } else if k.array.contains(&id) {
            let size = field(node, "size").map(|s| txt(src, s)).unwrap_or("");
            d.dims.insert(0, format!("[{size}]"));
            n = field(node, "declarator");
            n?;
        } else if k.init_declarator.contains(&id) {
            d.value = field(node, "value").map(|v| norm(txt(src, v)));
            n = field(node, "declarator");
        } else if k.variadic_declarator.contains(&id) {
            d.variadic = true;
            n = node.named_child(0);
            n?;
        } else if k.attributed_declarator.contains(&id) {
            n = node.named_child(0);
        } else {
            return Some(node);
        }
    }
    None
}

pub(super) fn txt<'a>(src: &'a str, n: Node) -> &'a str {
    src.get(n.byte_range()).unwrap_or("")
}

/// The simple name of a declarator's name node.
pub(super) fn name_of(src: &str, n: Node) -> String {
    let (k, id) = (kinds(), n.kind_id());
    if k.destructor_name.contains(&id) {
        norm(txt(src, n)).replace(' ', "")
    } else if k.operator_name.contains(&id) {
        op_name(txt(src, n))
    } else if k.template_fn.contains(&id) {
        field(n, "name")
            .map(|x| norm(txt(src, x)))
            .unwrap_or_default()
    } else if k.parenthesized_declarator.contains(&id) {
        let mut d = Decor::default();
        let inner = kit::named_children(n).filter(|c| !c.is_error()).last();
        unwrap_decl(src, inner, &mut d)
            .map(|x| name_of(src, x))
            .unwrap_or_default()
    } else {
        norm(txt(src, n))
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
