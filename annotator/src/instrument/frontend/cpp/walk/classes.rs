//! Class heads, bases, bodies, fields and members.

use super::*;

impl<'a> Walker<'a> {
    /// A class/struct/union specifier with a body. Returns the class index.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn class<'t>(
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
    pub(super) fn class_head(
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
    pub(super) fn add_class(
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
    pub(super) fn class_name(&self, mut n: Node) -> (String, Vec<String>, Option<String>) {
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
    pub(super) fn bases(&self, spec: Node) -> Vec<String> {
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
    pub(super) fn bases_written(&self, spec: Node) -> Vec<BaseDecl> {
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
    pub(super) fn access_labels(&self, body: Node) -> Vec<String> {
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
    pub(super) fn member_function<'t>(
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
    pub(super) fn fields(&self, c: Node, ty: Option<Node>, decls: &[Node]) -> Vec<FieldDecl> {
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

    pub(super) fn members(&mut self, list: Node, cls: &ClassCtx, depth: usize) {
        if self.too_deep(list, depth) {
            return;
        }
        for c in children(list) {
            self.member(c, cls, &Tmpl::default(), false, depth);
        }
    }

    pub(super) fn member<'t>(
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
    pub(super) fn member_declaration<'t>(
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
