//! The walk over declaration scopes (namespaces, linkage blocks, templates, classes,
//! members, out-of-class definitions) that builds the C++ [`FileModel`]. This file walks the
//! scopes; `functions.rs` reads function declarators and methods, `classes.rs` class heads,
//! bodies and members.

use tree_sitter::Node;

mod classes;
mod functions;

use super::declarators::*;
use super::kinds::{k, K};
use super::MAX_DEPTH;
use crate::instrument::frontend::kit::children;
use crate::instrument::frontend::span_of;
use crate::instrument::model::{
    BaseDecl, ClassDecl, ClassKind, FieldDecl, FileModel, MethodDecl, MethodFlags, MethodKind,
    Param, TypeRef,
};

pub(super) struct Walker<'a> {
    pub(super) src: &'a str,
    pub(super) path: &'a str,
    pub(super) model: FileModel,
    /// Where nesting first went past MAX_DEPTH (reported, never silent).
    pub(super) too_deep: Option<(u32, u32)>,
}

/// Template prefix of a declaration.
#[derive(Default, Clone)]
pub(super) struct Tmpl<'t> {
    /// Parameters of the outermost `template<...>` list.
    params: Vec<String>,
    any: bool,
    /// The outermost template_declaration (span start).
    outer: Option<Node<'t>>,
}

/// What a class body's members need to know.
pub(super) struct ClassCtx {
    idx: usize,
    name: String,
    qname: String,
    in_template: bool,
}

/// A class head as written: kind, names and specialisation arguments.
struct ClassHead {
    kind: ClassKind,
    name: String,
    qname: String,
    /// The enclosing scope's qualified name, for nested or qualified classes.
    outer: Option<String>,
    specialization: Option<String>,
}

/// Information about a function declarator.
pub(super) struct FnInfo<'t> {
    scopes: Vec<String>,
    global: bool,
    name: String,
    kind: MethodKind,
    /// Node holding params and trailing qualifiers (function_declarator / abstract one).
    fdecl: Option<Node<'t>>,
    /// Conversion target type node.
    cast_type: Option<Node<'t>>,
    cast_decl: Option<Node<'t>>,
    ret_decor: Decor,
}

impl<'a> Walker<'a> {
    fn t(&self, n: Node) -> &'a str {
        txt(self.src, n)
    }

    /// Declaration scope: translation unit, namespace bodies, preprocessor blocks, ERROR.
    /// True (and remembered for the diagnostic) when `depth` is past MAX_DEPTH.
    fn too_deep(&mut self, n: Node, depth: usize) -> bool {
        if depth <= MAX_DEPTH {
            return false;
        }
        let p = n.start_position();
        self.too_deep
            .get_or_insert((p.row as u32 + 1, p.column as u32 + 1));
        true
    }

    pub(super) fn scope(&mut self, node: Node, ns: &mut Vec<String>, depth: usize) {
        if self.too_deep(node, depth) {
            return;
        }
        for c in children(node) {
            self.scope_item(c, ns, &Tmpl::default(), depth);
        }
    }

    fn ns_prefix(ns: &[String]) -> String {
        ns.join("::")
    }

    /// One declaration at namespace scope (or inside a linkage block or template).
    fn scope_item<'t>(&mut self, c: Node<'t>, ns: &mut Vec<String>, tmpl: &Tmpl<'t>, depth: usize) {
        if self.too_deep(c, depth) {
            return;
        }
        match decl_kind(c) {
            Decl::Namespace => self.namespace(c, ns, depth),
            Decl::Linkage => {
                if let Some(body) = field(c, "body") {
                    if k(body) == K::DeclarationList {
                        self.scope(body, ns, depth + 1);
                    } else {
                        self.scope_item(body, ns, tmpl, depth + 1);
                    }
                }
            }
            Decl::Template => {
                let t2 = self.push_template(c, tmpl);
                for x in children(c) {
                    if k(x) != K::TemplateParameterList {
                        self.scope_item(x, ns, &t2, depth + 1);
                    }
                }
            }
            Decl::ClassSpec => {
                let prefix = Self::ns_prefix(ns);
                self.class(c, &prefix, None, tmpl, None, depth);
            }
            Decl::Declaration | Decl::TypeDefinition => self.declaration(c, ns, tmpl, depth),
            Decl::FunctionDefinition => {
                if let Some(d) = field(c, "declarator") {
                    self.out_of_class(c, d, ns, tmpl);
                }
            }
            Decl::Transparent => {
                self.scope(c, ns, depth + 1);
            }
            _ => {}
        }
    }

    /// A namespace: its body is walked with the (non-inline) name's parts pushed onto `ns`.
    fn namespace(&mut self, c: Node, ns: &mut Vec<String>, depth: usize) {
        let mut pushed = 0;
        let is_inline = children(c).any(|x| k(x) == K::Inline);
        if let Some(name) = field(c, "name") {
            if !is_inline {
                for part in self.t(name).split("::") {
                    let p = part.trim().trim_start_matches("inline").trim();
                    if !p.is_empty() {
                        ns.push(p.to_string());
                        pushed += 1;
                    }
                }
            }
        }
        if let Some(body) = field(c, "body") {
            self.scope(body, ns, depth + 1);
        }
        ns.truncate(ns.len() - pushed);
    }

    /// A namespace-scope declaration or typedef: the class it defines, out-of-class `= default`s.
    fn declaration<'t>(&mut self, c: Node<'t>, ns: &[String], tmpl: &Tmpl<'t>, depth: usize) {
        if let Some(ty) = field(c, "type") {
            if is_class_spec(ty) {
                let tdname = if k(c) == K::TypeDefinition {
                    field(c, "declarator").map(|d| norm(self.t(d)))
                } else {
                    None
                };
                let prefix = Self::ns_prefix(ns);
                self.class(ty, &prefix, None, tmpl, tdname.as_deref(), depth);
            }
        }
        if k(c) == K::Declaration {
            // Out-of-class `= default` / `= delete` definitions.
            for d in children(c) {
                if k(d) == K::InitDeclarator {
                    self.out_of_class(c, d, ns, tmpl);
                }
            }
        }
    }

    fn push_template<'t>(&self, td: Node<'t>, outer: &Tmpl<'t>) -> Tmpl<'t> {
        let mut t = outer.clone();
        if !t.any {
            t.params = field(td, "parameters")
                .map(|pl| {
                    let mut cur = pl.walk();
                    pl.named_children(&mut cur)
                        .filter(|p| k(*p) != K::Comment)
                        .map(|p| norm(self.t(p)))
                        .collect()
                })
                .unwrap_or_default();
            t.outer = Some(td);
        }
        t.any = true;
        t
    }

    /// A (possibly) qualified function definition/declaration at namespace scope.
    fn out_of_class<'t>(&mut self, def: Node<'t>, decl: Node<'t>, ns: &[String], tmpl: &Tmpl<'t>) {
        let Some(info) = self.fn_info(decl) else {
            return;
        };
        if info.scopes.is_empty() {
            return; // free function
        }
        if k(def) == K::Declaration {
            let mut d = Decor::default();
            unwrap_decl(self.src, Some(decl), &mut d);
            if !matches!(d.value.as_deref(), Some("default" | "delete")) {
                return;
            }
        }
        let mut owner_parts: Vec<String> = Vec::new();
        if !info.global {
            let cut = ns
                .iter()
                .rposition(|n| *n == info.scopes[0])
                .unwrap_or(ns.len());
            owner_parts.extend(ns[..cut].iter().cloned());
        }
        owner_parts.extend(info.scopes.iter().cloned());
        let owner = owner_parts.join("::");
        let owner_last = info.scopes.last().cloned().unwrap_or_default();
        let span_node = tmpl.outer.unwrap_or(def);
        let m = self.method(
            def,
            decl,
            info,
            Some(&owner_last),
            tmpl.any,
            span_node,
            false,
        );
        if let Some(m) = m {
            self.model.out_of_class.push((owner, m));
        }
    }
}
