//! Function declarators, parameters, return types and methods.

use super::*;

impl<'a> Walker<'a> {
    /// Analyses a declarator; `None` when it does not declare a function.
    pub(super) fn fn_info<'t>(&self, decl: Node<'t>) -> Option<FnInfo<'t>> {
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
    pub(super) fn qualified<'t>(
        &self,
        mut name_node: Node<'t>,
    ) -> Option<(Node<'t>, Vec<String>, bool)> {
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
    pub(super) fn conversion<'t>(
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

    pub(super) fn type_ref(&self, holder: Node, ty: Option<Node>, d: &Decor) -> TypeRef {
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

    pub(super) fn params(&self, fdecl: Node) -> Vec<Param> {
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
    pub(super) fn method<'t>(
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
    pub(super) fn definition_parts<'t>(
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
    pub(super) fn declarator_flags<'t>(
        &self,
        fd: Node<'t>,
        flags: &mut MethodFlags,
    ) -> Option<Node<'t>> {
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
    pub(super) fn return_type(
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
