//! The walk over declaration scopes (namespaces, linkage blocks, templates, classes,
//! members, out-of-class definitions) that builds the C++ [`FileModel`].

use tree_sitter::Node;

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

    /// Analyses a declarator; `None` when it does not declare a function.
    fn fn_info<'t>(&self, decl: Node<'t>) -> Option<FnInfo<'t>> {
        let mut ret_decor = Decor::default();
        let inner = unwrap_decl(self.src, Some(decl), &mut ret_decor)?;
        let (name_node, fdecl) = match k(inner) {
            K::FunctionDeclarator => (field(inner, "declarator")?, Some(inner)),
            K::OperatorCast | K::QualifiedIdentifier => (inner, None),
            _ => return None,
        };
        let (name_node, scopes, global) = self.qualified(name_node)?;
        let (name, kind, fdecl, cast_type, cast_decl) = match k(name_node) {
            K::OperatorCast => self.conversion(name_node, fdecl),
            K::DestructorName => (
                name_of(self.src, name_node),
                MethodKind::Destructor,
                fdecl,
                None,
                None,
            ),
            K::OperatorName => (
                name_of(self.src, name_node),
                MethodKind::Operator,
                fdecl,
                None,
                None,
            ),
            K::Identifier
            | K::FieldIdentifier
            | K::TemplateFunction
            | K::TemplateMethod
            | K::TypeIdentifier => (
                name_of(self.src, name_node),
                MethodKind::Method,
                fdecl,
                None,
                None,
            ),
            _ => return None, // function pointers, etc.
        };
        fdecl?;
        Some(FnInfo {
            scopes,
            global,
            name,
            kind,
            fdecl,
            cast_type,
            cast_decl,
            ret_decor,
        })
    }

    /// The innermost name of `A::B::f` with its scopes (template arguments stripped), and
    /// whether it starts at the global scope (`::f`); at most 32 levels.
    fn qualified<'t>(&self, mut name_node: Node<'t>) -> Option<(Node<'t>, Vec<String>, bool)> {
        let mut scopes = Vec::new();
        let mut global = false;
        for _ in 0..32 {
            if k(name_node) != K::QualifiedIdentifier {
                break;
            }
            match field(name_node, "scope") {
                Some(s) => scopes.push(strip_targs(self.t(s))),
                None => global = true,
            }
            name_node = field(name_node, "name")?;
        }
        Some((name_node, scopes, global))
    }

    /// The name, kind and parts of a conversion function `operator T*()`.
    #[allow(clippy::type_complexity)]
    fn conversion<'t>(
        &self,
        name_node: Node<'t>,
        fdecl: Option<Node<'t>>,
    ) -> (
        String,
        MethodKind,
        Option<Node<'t>>,
        Option<Node<'t>>,
        Option<Node<'t>>,
    ) {
        let ty = field(name_node, "type");
        let cd = field(name_node, "declarator");
        let mut d = Decor::default();
        let af = unwrap_decl(self.src, cd, &mut d);
        let fd = af.filter(|a| k(*a) == K::AbstractFunctionDeclarator);
        let mut tyname = String::new();
        for q in children(name_node) {
            if k(q) == K::TypeQualifier && q.end_byte() <= ty.map_or(0, |t| t.start_byte()) {
                tyname.push_str(self.t(q));
                tyname.push(' ');
            }
        }
        tyname.push_str(&ty.map(|t| norm(self.t(t))).unwrap_or_default());
        let suffix = format!(
            "{}{}",
            "*".repeat(d.pointers as usize),
            d.reference.unwrap_or("")
        );
        (
            format!("operator {tyname}{suffix}"),
            MethodKind::Conversion,
            fd.or(fdecl),
            ty,
            cd,
        )
    }

    fn type_ref(&self, holder: Node, ty: Option<Node>, d: &Decor) -> TypeRef {
        let Some(ty) = ty else {
            return TypeRef::default();
        };
        let mut quals = Vec::new();
        for c in children(holder) {
            if k(c) == K::TypeQualifier {
                let q = self.t(c);
                if q == "const" || q == "volatile" {
                    quals.push(q);
                }
            }
        }
        let tk = k(ty);
        let tagged = tk.is_class_spec() || tk == K::EnumSpecifier;
        let name = match tk {
            _ if tagged => field(ty, "name")
                .map(|n| strip_targs(self.t(n)))
                .unwrap_or_else(|| "(anonymous)".into()),
            K::DependentType => strip_targs(self.t(ty).trim_start_matches("typename")),
            K::PlaceholderTypeSpecifier | K::Decltype => norm(self.t(ty)),
            _ => strip_targs(self.t(ty)),
        };
        let base = if tagged {
            name.clone()
        } else {
            norm(self.t(ty))
        };
        let mut text = String::new();
        for q in quals {
            text.push_str(q);
            text.push(' ');
        }
        text.push_str(&base);
        for _ in 0..d.pointers {
            text.push('*');
        }
        if let Some(r) = d.reference {
            text.push_str(r);
        }
        for dim in &d.dims {
            text.push_str(dim);
        }
        TypeRef {
            name,
            dims: d.dims.len() as u32,
            pointers: d.pointers,
            reference: d.reference.is_some(),
            text,
        }
    }

    fn params(&self, fdecl: Node) -> Vec<Param> {
        let Some(pl) = field(fdecl, "parameters") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for p in children(pl) {
            let pk = k(p);
            match pk {
                K::ParameterDeclaration
                | K::OptionalParameterDeclaration
                | K::VariadicParameterDeclaration => {
                    let mut d = Decor::default();
                    let mut inner = unwrap_decl(self.src, field(p, "declarator"), &mut d);
                    if let Some(f) = inner.filter(|n| k(*n) == K::FunctionDeclarator) {
                        // A function pointer parameter `void (*f)(int)`: its name is inside.
                        inner = unwrap_decl(self.src, field(f, "declarator"), &mut d);
                        d.pointers += 1;
                    }
                    let name = inner.map(|n| name_of(self.src, n)).unwrap_or_default();
                    let ty = self.type_ref(p, field(p, "type"), &d);
                    out.push(Param {
                        name,
                        ty,
                        varargs: d.variadic || pk == K::VariadicParameterDeclaration,
                    });
                }
                K::Ellipsis => out.push(Param {
                    name: String::new(),
                    ty: TypeRef {
                        name: "...".into(),
                        text: "...".into(),
                        ..Default::default()
                    },
                    varargs: true,
                }),
                _ => {}
            }
        }
        if out.len() == 1 && out[0].ty.text == "void" && out[0].name.is_empty() {
            out.clear();
        }
        out
    }

    /// Builds a method from a definition/declaration node `def` with declarator `decl`.
    #[allow(clippy::too_many_arguments)]
    fn method<'t>(
        &self,
        def: Node<'t>,
        decl: Node<'t>,
        info: FnInfo<'t>,
        class_name: Option<&str>,
        is_template: bool,
        span_node: Node<'t>,
        friend: bool,
    ) -> Option<MethodDecl> {
        let mut flags = MethodFlags {
            is_template,
            is_static: friend,
            ..Default::default()
        };
        let (body, mut not_annotatable, mut eq_zero) = self.definition_parts(def, &mut flags);
        let mut d = Decor::default();
        unwrap_decl(self.src, Some(decl), &mut d);
        match d.value.as_deref() {
            Some("default") => flags.is_defaulted = true,
            Some("delete") => flags.is_deleted = true,
            Some("0") => eq_zero = true,
            _ => {}
        }
        if eq_zero {
            flags.is_abstract = true;
            flags.is_virtual = true;
        }
        let trailing = info
            .fdecl
            .and_then(|fd| self.declarator_flags(fd, &mut flags));
        let mut kind = info.kind;
        if kind == MethodKind::Method && class_name == Some(info.name.as_str()) {
            kind = MethodKind::Constructor;
        }
        let ret = self.return_type(kind, &info, def, trailing);
        let params = info.fdecl.map(|fd| self.params(fd)).unwrap_or_default();
        let body_span = body.map(span_of);
        if not_annotatable.is_none() {
            not_annotatable = body
                .and_then(|b| body_problem(self.src, b))
                .map(String::from);
        }
        Some(MethodDecl {
            name: info.name,
            kind,
            ret,
            params,
            flags,
            file: self.path.to_string(),
            span: span_of(span_node),
            body: body_span,
            entry: body_span.map(|b| b.start + 1),
            not_annotatable,
            effects: body.and_then(|b| {
                crate::instrument::frontend::effects::of_body(
                    crate::instrument::model::Lang::Cpp,
                    b,
                    self.src,
                )
            }),
        })
    }

    /// From a definition's own children: the body, why it must be left alone (a
    /// function-try-block), whether it ends in `= 0`; sets the specifier flags.
    fn definition_parts<'t>(
        &self,
        def: Node<'t>,
        flags: &mut MethodFlags,
    ) -> (Option<Node<'t>>, Option<String>, bool) {
        let mut body = None;
        let mut not_annotatable = None;
        let mut eq_zero = false;
        let mut saw_eq = false;
        for c in children(def) {
            match k(c) {
                K::StorageClassSpecifier | K::TypeQualifier => match self.t(c) {
                    "static" => flags.is_static = true,
                    "constexpr" => flags.is_constexpr = true,
                    "consteval" => flags.is_consteval = true,
                    _ => {}
                },
                K::Virtual => flags.is_virtual = true,
                K::DefaultMethodClause => flags.is_defaulted = true,
                K::DeleteMethodClause => flags.is_deleted = true,
                K::Equals => saw_eq = true,
                K::NumberLiteral if saw_eq && self.t(c) == "0" => eq_zero = true,
                K::CompoundStatement => body = Some(c),
                K::TryStatement => {
                    body = field(c, "body");
                    not_annotatable = Some("function-try-block".to_string());
                }
                _ => {}
            }
        }
        (body, not_annotatable, eq_zero)
    }

    /// Sets the flags a function declarator carries (`const`, `&`/`&&`, `noexcept`,
    /// `override`, `final`); returns its trailing return type, if any.
    fn declarator_flags<'t>(&self, fd: Node<'t>, flags: &mut MethodFlags) -> Option<Node<'t>> {
        let mut trailing = None;
        for c in children(fd) {
            match k(c) {
                K::TypeQualifier if self.t(c) == "const" => flags.is_const = true,
                K::RefQualifier => {
                    flags.ref_qualifier = if self.t(c) == "&&" { "&&" } else { "&" };
                }
                K::Noexcept => {
                    let t: String = self.t(c).chars().filter(|c| !c.is_whitespace()).collect();
                    flags.is_noexcept = t != "noexcept(false)";
                }
                K::VirtualSpecifier => match self.t(c) {
                    "override" => flags.is_override = true,
                    "final" => {
                        flags.is_final = true;
                        flags.is_override = true;
                    }
                    _ => {}
                },
                K::TrailingReturnType => trailing = c.named_child(0),
                _ => {}
            }
        }
        trailing
    }

    /// The return type: none for constructors and destructors, the target of a conversion,
    /// the trailing return type, else the definition's type.
    fn return_type(
        &self,
        kind: MethodKind,
        info: &FnInfo,
        def: Node,
        trailing: Option<Node>,
    ) -> Option<TypeRef> {
        match kind {
            MethodKind::Constructor | MethodKind::Destructor => None,
            MethodKind::Conversion => {
                let mut cd = Decor::default();
                if let Some(x) = info.cast_decl {
                    unwrap_decl(self.src, Some(x), &mut cd);
                }
                let holder = info.cast_type.and_then(|t| t.parent()).unwrap_or(def);
                Some(self.type_ref(holder, info.cast_type, &cd))
            }
            _ => match trailing {
                Some(td) => {
                    let mut td_d = Decor::default();
                    unwrap_decl(self.src, field(td, "declarator"), &mut td_d);
                    Some(self.type_ref(td, field(td, "type"), &td_d))
                }
                None => Some(self.type_ref(def, field(def, "type"), &info.ret_decor)),
            },
        }
    }

    /// A class/struct/union specifier with a body. Returns the class index.
    #[allow(clippy::too_many_arguments)]
    fn class<'t>(
        &mut self,
        spec: Node<'t>,
        prefix: &str,
        outer: Option<&ClassCtx>,
        tmpl: &Tmpl<'t>,
        typedef_name: Option<&str>,
        depth: usize,
    ) -> Option<usize> {
        let body = field(spec, "body")?;
        let head = self.class_head(spec, prefix, outer.is_some(), typedef_name)?;
        let type_params = if tmpl.any {
            tmpl.params.clone()
        } else {
            Vec::new()
        };
        let in_template = !type_params.is_empty() || outer.is_some_and(|o| o.in_template);
        let (name, qname) = (head.name.clone(), head.qname.clone());
        let span_node = tmpl.outer.unwrap_or(spec);
        let idx = self.add_class(spec, body, span_node, head, type_params);
        let ctx = ClassCtx {
            idx,
            name,
            qname,
            in_template,
        };
        self.members(body, &ctx, depth + 1);
        let c = &mut self.model.classes[idx];
        c.is_abstract = c.methods.iter().any(|m| m.flags.is_abstract);
        Some(idx)
    }

    /// Kind and names of a class head; `None` for an unnamed class without a typedef name.
    fn class_head(
        &self,
        spec: Node,
        prefix: &str,
        nested: bool,
        typedef_name: Option<&str>,
    ) -> Option<ClassHead> {
        let kind = match k(spec) {
            K::StructSpecifier => ClassKind::Struct,
            K::UnionSpecifier => ClassKind::Union,
            _ => ClassKind::Class,
        };
        let (name, quals, specialization) = match field(spec, "name") {
            Some(n) => self.class_name(n),
            None => (typedef_name?.to_string(), Vec::new(), None),
        };
        let mut qparts: Vec<&str> = Vec::new();
        if !prefix.is_empty() {
            qparts.push(prefix);
        }
        for q in &quals {
            qparts.push(q);
        }
        let outer_q = if qparts.is_empty() {
            None
        } else {
            Some(qparts.join("::"))
        };
        qparts.push(&name);
        let qname = qparts.join("::");
        let outer = if nested || !quals.is_empty() {
            outer_q.filter(|_| nested || !quals.is_empty())
        } else {
            None
        };
        Some(ClassHead {
            kind,
            name,
            qname,
            outer,
            specialization,
        })
    }

    /// Adds the model entry of class `spec` (members come later); returns its index.
    fn add_class(
        &mut self,
        spec: Node,
        body: Node,
        span_node: Node,
        head: ClassHead,
        type_params: Vec<String>,
    ) -> usize {
        let supers = self.bases(spec);
        let bases_written = self.bases_written(spec);
        let crtp_self_casts = crtp_self_casts(&type_params, self.t(body));
        let idx = self.model.classes.len();
        self.model.classes.push(ClassDecl {
            name: head.name,
            qname: head.qname,
            kind: head.kind,
            lang: crate::instrument::model::Lang::Cpp,
            is_abstract: false,
            is_static: false,
            is_local: false,
            outer: head.outer,
            supers,
            interfaces: Vec::new(),
            type_params,
            specialization: head.specialization,
            fields: Vec::new(),
            methods: Vec::new(),
            file: self.path.to_string(),
            span: span_of(span_node),
            body: span_of(body),
            members_at: Some(body.start_byte() + 1),
            not_annotatable: None,
            access_labels: self.access_labels(body),
            data_access: Vec::new(),
            bases_written,
            crtp_self_casts,
        });
        idx
    }

    /// A class head's name: the simple name, the qualifiers written before it
    /// (`struct A::B {`) and a specialisation's arguments (`Buffer<bool>`).
    fn class_name(&self, mut n: Node) -> (String, Vec<String>, Option<String>) {
        let mut quals: Vec<String> = Vec::new();
        for _ in 0..32 {
            if k(n) != K::QualifiedIdentifier {
                break;
            }
            if let Some(s) = field(n, "scope") {
                quals.push(strip_targs(self.t(s)));
            }
            match field(n, "name") {
                Some(x) => n = x,
                None => break,
            }
        }
        if k(n) == K::TemplateType {
            let specialization = field(n, "arguments").map(|a| norm(self.t(a)));
            let name = field(n, "name")
                .map(|x| norm(self.t(x)))
                .unwrap_or_default();
            (name, quals, specialization)
        } else {
            (norm(self.t(n)), quals, None)
        }
    }

    /// The base classes of a class specifier, as written (template arguments stripped).
    fn bases(&self, spec: Node) -> Vec<String> {
        let mut supers = Vec::new();
        for c in children(spec) {
            if k(c) == K::BaseClassClause {
                for b in children(c) {
                    if matches!(
                        k(b),
                        K::TypeIdentifier | K::QualifiedIdentifier | K::TemplateType
                    ) {
                        supers.push(strip_targs(self.t(b)));
                    }
                }
            }
        }
        supers
    }

    /// The base clause as written: each base's type (template arguments kept), `virtual` and
    /// access, so the annotator can name the bases exactly as the class head does.
    fn bases_written(&self, spec: Node) -> Vec<BaseDecl> {
        let mut out = Vec::new();
        let Some(clause) = children(spec).find(|&c| k(c) == K::BaseClassClause) else {
            return out;
        };
        let mut cur = BaseDecl::default();
        for b in children(clause) {
            match (k(b), self.t(b)) {
                (K::Virtual, _) => cur.is_virtual = true,
                (K::AccessSpecifier, a) => cur.access = Some(a.trim().to_string()),
                (K::Ellipsis, _) => {
                    if let Some(last) = out.last_mut() {
                        last.name.push_str("...");
                    }
                }
                (K::TypeIdentifier | K::QualifiedIdentifier | K::TemplateType, t) => {
                    cur.name = t.split_whitespace().collect::<Vec<_>>().join(" ");
                    out.push(std::mem::take(&mut cur));
                }
                _ => {}
            }
        }
        out
    }

    /// The access labels of a class body (its own, not nested classes'), each once.
    fn access_labels(&self, body: Node) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for c in children(body).filter(|&c| k(c) == K::AccessSpecifier) {
            let label = self.t(c).trim_end_matches(':').trim().to_string();
            if !out.contains(&label) {
                out.push(label);
            }
        }
        out
    }

    /// A member function `c` (declarator `decl`) of `cls`; friends only when defined here.
    fn member_function<'t>(
        &mut self,
        c: Node<'t>,
        decl: Node<'t>,
        info: FnInfo<'t>,
        cls: &ClassCtx,
        tmpl: &Tmpl<'t>,
        friend: bool,
    ) {
        if !info.scopes.is_empty() {
            return; // qualified friend etc.
        }
        if friend && k(c) != K::FunctionDefinition {
            return; // friend declaration only
        }
        let span_node = tmpl.outer.unwrap_or(c);
        let span_node = if friend {
            span_node
                .parent()
                .filter(|p| k(*p) == K::FriendDeclaration)
                .unwrap_or(span_node)
        } else {
            span_node
        };
        let is_template = cls.in_template || tmpl.any;
        let class_name = Some(cls.name.as_str());
        if let Some(m) = self.method(c, decl, info, class_name, is_template, span_node, friend) {
            self.model.classes[cls.idx].methods.push(m);
        }
    }

    /// The fields a member declaration `c` of type `ty` declares (one per declarator).
    fn fields(&self, c: Node, ty: Option<Node>, decls: &[Node]) -> Vec<FieldDecl> {
        let mut out = Vec::new();
        let mut is_static = false;
        let mut is_const = false;
        for x in children(c) {
            match (k(x), self.t(x)) {
                (K::StorageClassSpecifier, "static") => is_static = true,
                (K::TypeQualifier, "const" | "constexpr") => is_const = true,
                _ => {}
            }
        }
        let inits = default_values(c);
        for &d in decls {
            let init = inits
                .iter()
                .find(|(at, _)| *at == d.start_byte())
                .and_then(|&(_, v)| initialiser_head(v));
            let mut dec = Decor::default();
            let inner = unwrap_decl(self.src, Some(d), &mut dec);
            let Some(inner) = inner else { continue };
            let (name, fptr) = match k(inner) {
                K::FieldIdentifier | K::Identifier => (norm(self.t(inner)), false),
                K::FunctionDeclarator => {
                    let nm = field(inner, "declarator")
                        .map(|x| name_of(self.src, x))
                        .unwrap_or_default();
                    (nm, true)
                }
                _ => continue,
            };
            if name.is_empty() {
                continue;
            }
            let mut tr = self.type_ref(c, ty, &dec);
            if fptr {
                tr.pointers = tr.pointers.max(1);
                tr.text =
                    norm(&self.src[ty.map_or(d.start_byte(), |t| t.start_byte())..d.end_byte()]);
            }
            out.push(FieldDecl {
                name,
                ty: tr,
                is_static,
                is_final: is_static && is_const,
                span: span_of(c),
                init,
            });
        }
        out
    }

    fn members(&mut self, list: Node, cls: &ClassCtx, depth: usize) {
        if self.too_deep(list, depth) {
            return;
        }
        for c in children(list) {
            self.member(c, cls, &Tmpl::default(), false, depth);
        }
    }

    fn member<'t>(
        &mut self,
        c: Node<'t>,
        cls: &ClassCtx,
        tmpl: &Tmpl<'t>,
        friend: bool,
        depth: usize,
    ) {
        if self.too_deep(c, depth) {
            return;
        }
        match decl_kind(c) {
            Decl::FunctionDefinition | Decl::FieldDeclaration | Decl::Declaration => {
                self.member_declaration(c, cls, tmpl, friend, depth);
            }
            Decl::Template => {
                let t2 = self.push_template(c, tmpl);
                for x in children(c) {
                    if k(x) != K::TemplateParameterList {
                        self.member(x, cls, &t2, friend, depth + 1);
                    }
                }
            }
            Decl::Friend => {
                for x in children(c) {
                    if k(x) == K::FunctionDefinition {
                        self.member(x, cls, tmpl, true, depth + 1);
                    }
                }
            }
            Decl::ClassSpec => {
                let q = cls.qname.clone();
                self.class(c, &q, Some(cls), tmpl, None, depth);
            }
            Decl::Transparent => {
                self.members(c, cls, depth + 1);
            }
            _ => {}
        }
    }

    /// A member function (definition or declaration), or fields (and a class defined in
    /// their type); a friend's or a definition's other forms add nothing.
    fn member_declaration<'t>(
        &mut self,
        c: Node<'t>,
        cls: &ClassCtx,
        tmpl: &Tmpl<'t>,
        friend: bool,
        depth: usize,
    ) {
        let decls: Vec<Node> = {
            let mut cur = c.walk();
            c.children_by_field_name("declarator", &mut cur).collect()
        };
        if decls.len() == 1 {
            if let Some(info) = self.fn_info(decls[0]) {
                self.member_function(c, decls[0], info, cls, tmpl, friend);
                return;
            }
        }
        if friend || k(c) == K::FunctionDefinition {
            return;
        }
        let ty = field(c, "type");
        if let Some(t) = ty {
            if is_class_spec(t) {
                let q = cls.qname.clone();
                self.class(t, &q, Some(cls), tmpl, None, depth);
            }
        }
        let fields = self.fields(c, ty, &decls);
        if fields.iter().any(|f| !f.is_static) {
            let class = &mut self.model.classes[cls.idx];
            let access = access_of(self.src, c, class.kind);
            if !class.data_access.contains(&access) {
                class.data_access.push(access);
            }
        }
        self.model.classes[cls.idx].fields.extend(fields);
    }
}

/// The access in effect at member `c`: the nearest label before it in its class body
/// (looking out of preprocessor blocks), else the class key's default.
fn access_of(src: &str, c: Node, kind: ClassKind) -> String {
    let mut at = Some(c);
    while let Some(n) = at.filter(|n| k(*n) != K::FieldDeclarationList) {
        let mut prev = n.prev_sibling();
        while let Some(p) = prev {
            if k(p) == K::AccessSpecifier {
                let label = src.get(p.start_byte()..p.end_byte()).unwrap_or("");
                return label.trim_end_matches(':').trim().to_string();
            }
            prev = p.prev_sibling();
        }
        at = n.parent();
    }
    let default = if kind == ClassKind::Class {
        "private"
    } else {
        "public"
    };
    default.to_string()
}

/// Each declarator's default member initialiser (`= e`, `= {…}` or `{…}`) in a member
/// declaration, by the declarator's start (`int a = f(), b{g()};` has two).
fn default_values(c: Node) -> Vec<(usize, Node)> {
    let mut out = Vec::new();
    let mut cur = c.walk();
    let mut last = None;
    if cur.goto_first_child() {
        loop {
            match cur.field_name() {
                Some("declarator") => last = Some(cur.node().start_byte()),
                Some("default_value") => {
                    if let Some(d) = last.take() {
                        out.push((d, cur.node()));
                    }
                }
                _ => {}
            }
            if !cur.goto_next_sibling() {
                break;
            }
        }
    }
    out
}

/// The expression an initialiser evaluates first: itself, or a braced list's first element
/// (none for `{}`).
fn initialiser_head(v: Node) -> Option<crate::instrument::model::Span> {
    // By name: the kind table maps it to `Reject` (macro blanking).
    if v.kind() == "initializer_list" {
        let mut cur = v.walk();
        let first = v.named_children(&mut cur).find(|x| !x.is_extra());
        return first.map(span_of);
    }
    Some(span_of(v))
}

/// The type parameters `body` casts `this` to (`static_cast<const D *>(this)`,
/// `static_cast<D&>(*this)`): a CRTP base's methods then report the derived object's ID.
fn crtp_self_casts(type_params: &[String], body: &str) -> Vec<String> {
    let compact: String = body.chars().filter(|c| !c.is_whitespace()).collect();
    let name = |p: &str| -> Option<String> {
        let n = p.split('=').next()?.split_whitespace().last()?;
        Some(n.trim_start_matches("...").to_string())
    };
    type_params
        .iter()
        .filter_map(|p| name(p))
        .filter(|n| {
            [
                format!("static_cast<{n}*>(this)"),
                format!("static_cast<const{n}*>(this)"),
                format!("static_cast<{n}&>(*this)"),
                format!("static_cast<const{n}&>(*this)"),
            ]
            .iter()
            .any(|c| compact.contains(c.as_str()))
        })
        .collect()
}

/// Why a body must be left alone, if it must (the annotator reads it off the model):
/// written by a macro, holding preprocessor conditionals that break its parse, or a
/// coroutine.
pub(super) fn body_problem(src: &str, body: Node) -> Option<&'static str> {
    let (start, text) = (body.start_byte(), txt(src, body));
    // Inside a macro definition: its first line is continued, or its logical line begins
    // with `#`. (A `#define` inside the body continues lines of its own.)
    let first = text.split('\n').next().unwrap_or("");
    if text.contains('\n') && first.trim_end_matches('\r').ends_with('\\') {
        return Some("defined in a macro");
    }
    let mut ls = src[..start].rfind('\n').map_or(0, |i| i + 1);
    while ls > 1 && src[..ls - 1].trim_end_matches('\r').ends_with('\\') {
        ls = src[..ls - 1].rfind('\n').map_or(0, |i| i + 1);
    }
    if src[ls..start].trim_start().starts_with('#') {
        return Some("defined in a macro");
    }
    // Directives in a body are harmless to the one edit (a scope object just after the
    // `{`, before any of them) unless the branches disagree on the braces: then the parser
    // cannot say where the body or its statements end.
    if body.has_error() && has_preproc(text) {
        return Some("preprocessor conditional whose branches the parser cannot follow");
    }
    let coroutine = ["co_await", "co_return", "co_yield"];
    if coroutine.iter().any(|k| has_word(text, k)) {
        return Some("coroutine");
    }
    None
}

/// Whether `w` occurs in `text` as a whole identifier.
fn has_word(text: &str, w: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(w).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(ident)
            && !text[i + w.len()..].chars().next().is_some_and(ident)
    })
}

/// Whether a compound statement's text has a preprocessor directive on one of its lines.
fn has_preproc(body: &str) -> bool {
    let b = body.as_bytes();
    let mut i = 0;
    while let Some(p) = b[i..].iter().position(|&c| c == b'\n') {
        let mut k = i + p + 1;
        while k < b.len() && (b[k] == b' ' || b[k] == b'\t') {
            k += 1;
        }
        if k < b.len() && b[k] == b'#' {
            return true;
        }
        i = k;
    }
    false
}
