//! Declarators and names: unwrapping pointer/reference/array/init declarators, simple
//! names of declarator nodes, and whitespace/template-argument normalisation of type text.

use tree_sitter::Node;

use crate::frontend::kit::{self, children};
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

pub(super) fn is_class_spec(k: &str) -> bool {
    matches!(
        k,
        "class_specifier" | "struct_specifier" | "union_specifier"
    )
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
        match node.kind() {
            "pointer_declarator" | "abstract_pointer_declarator" => {
                d.pointers += 1;
                n = field(node, "declarator");
                n?;
            }
            "reference_declarator" | "abstract_reference_declarator" => {
                let mut refk = "&";
                let mut inner = None;
                for c in children(node) {
                    match c.kind() {
                        "&&" => refk = "&&",
                        "&" => {}
                        _ if c.is_named() => inner = Some(c),
                        _ => {}
                    }
                }
                d.reference = Some(refk);
                n = inner;
                inner?;
            }
            "array_declarator" | "abstract_array_declarator" => {
                let size = field(node, "size").map(|s| txt(src, s)).unwrap_or("");
                d.dims.insert(0, format!("[{size}]"));
                n = field(node, "declarator");
                n?;
            }
            "init_declarator" => {
                d.value = field(node, "value").map(|v| norm(txt(src, v)));
                n = field(node, "declarator");
            }
            "variadic_declarator" => {
                d.variadic = true;
                n = node.named_child(0);
                n?;
            }
            "attributed_declarator" => n = node.named_child(0),
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
    match n.kind() {
        "destructor_name" => norm(txt(src, n)).replace(' ', ""),
        "operator_name" => op_name(txt(src, n)),
        "template_function" | "template_method" => field(n, "name")
            .map(|x| norm(txt(src, x)))
            .unwrap_or_default(),
        "parenthesized_declarator" => {
            let mut d = Decor::default();
            let mut cur = n.walk();
            let inner = n.named_children(&mut cur).filter(|c| !c.is_error()).last();
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
