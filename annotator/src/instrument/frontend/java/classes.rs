//! Class declarations, heritage, bodies, enum constants and fields.

use super::*;

impl<'a> Builder<'a> {
    pub(super) fn visit_class(
        &mut self,
        node: Node,
        kind: ClassKind,
        parent: Option<usize>,
        is_local: bool,
    ) {
        if self.enter() {
            self.visit_class_inner(node, kind, parent, is_local);
            self.depth -= 1;
        }
    }

    /// A class's `extends` (classes), `implements` (for interfaces: `extends`) and type
    /// parameters, as written.
    pub(super) fn heritage(
        &self,
        node: Node,
        kind: ClassKind,
    ) -> (Vec<String>, Vec<String>, Vec<String>) {
        let ids = self.ids;
        let mut supers = Vec::new();
        let mut interfaces = Vec::new();
        if let Some(sc) = node.child_by_field_id(ids.f_superclass) {
            let mut cur = sc.walk();
            for t in sc.named_children(&mut cur) {
                if !is_annotation(t) {
                    supers.push(self.base_name_of(t));
                }
            }
        }
        let list_holder = if kind == ClassKind::Interface {
            let mut cur = node.walk();
            let found = node
                .children(&mut cur)
                .find(|c| k(*c) == K::ExtendsInterfaces);
            found
        } else {
            node.child_by_field_id(ids.f_interfaces)
        };
        if let Some(h) = list_holder {
            let mut cur = h.walk();
            for list in h.named_children(&mut cur) {
                if k(list) == K::TypeList {
                    let mut cur2 = list.walk();
                    for t in list.named_children(&mut cur2) {
                        interfaces.push(self.base_name_of(t));
                    }
                }
            }
        }
        let mut type_params = Vec::new();
        if let Some(tps) = node.child_by_field_id(ids.f_type_parameters) {
            let mut cur = tps.walk();
            for tp in tps.named_children(&mut cur) {
                if k(tp) == K::TypeParameter {
                    type_params.push(collapse_ws(self.text(tp)));
                }
            }
        }
        (supers, interfaces, type_params)
    }

    /// A record's components: final fields of class `idx`, and the parameters its compact
    /// constructor gets (kept until the record's body is walked).
    pub(super) fn record_components(&mut self, node: Node, idx: usize) {
        let ids = self.ids;
        let mut comps = Vec::new();
        if let Some(ps) = node.child_by_field_id(ids.f_parameters) {
            let mut cur = ps.walk();
            for p in ps.named_children(&mut cur) {
                if let Some(param) = self.param(p) {
                    self.classes[idx].fields.push(FieldDecl {
                        name: param.name.clone(),
                        ty: param.ty.clone(),
                        is_static: false,
                        is_final: true,
                        span: span_of(p),
                        init: None,
                    });
                    comps.push(param);
                }
            }
        }
        self.record_params.push((idx, comps));
    }

    /// The members of class `idx` (enum constants and the declarations after them too).
    pub(super) fn class_body(&mut self, body: Node, idx: usize) {
        let mut cur = body.walk();
        for child in body.children(&mut cur) {
            match k(child) {
                K::EnumConstant => self.enum_constant(child, idx),
                K::EnumBodyDeclarations => {
                    let mut cur2 = child.walk();
                    for m in child.children(&mut cur2) {
                        self.member(m, idx);
                    }
                }
                _ => self.member(child, idx),
            }
        }
    }

    /// A class declaration: its model entry, then its record components and members.
    pub(super) fn visit_class_inner(
        &mut self,
        node: Node,
        kind: ClassKind,
        parent: Option<usize>,
        is_local: bool,
    ) {
        let ids = self.ids;
        let name = match node.child_by_field_id(ids.f_name) {
            Some(n) if !n.is_missing() && !self.text(n).is_empty() => self.text(n),
            _ => {
                // Unnamed (broken) declaration: still look for classes inside.
                if let Some(p) = parent {
                    self.walk_for_classes(node, p);
                }
                return;
            }
        };
        let body = node.child_by_field_id(ids.f_body);
        let idx = self.add_class(node, name, kind, parent, is_local, body);
        self.parents.push(parent);
        if is_local {
            self.locals.push(idx);
        }

        if kind == ClassKind::Record {
            self.record_components(node, idx);
        }

        if let Some(body) = body {
            self.class_body(body, idx);
        }

        if kind == ClassKind::Record {
            self.record_params.pop();
        }
    }

    /// Adds the model entry of class `name` (members come later); returns its index.
    pub(super) fn add_class(
        &mut self,
        node: Node,
        name: &str,
        kind: ClassKind,
        parent: Option<usize>,
        is_local: bool,
        body: Option<Node>,
    ) -> usize {
        let mods = self.mods(node);
        let outer = parent.map(|p| self.classes[p].qname.clone());
        let qname = match (&outer, &self.package) {
            (Some(o), _) => format!("{o}.{name}"),
            (None, Some(pkg)) => format!("{pkg}.{name}"),
            (None, None) => name.to_string(),
        };
        let parent_kind = parent.map(|p| self.classes[p].kind);
        let is_static = parent.is_none()
            || mods.is_static
            || !matches!(kind, ClassKind::Class)
            || (!is_local
                && matches!(
                    parent_kind,
                    Some(ClassKind::Interface | ClassKind::Annotation)
                ));
        let is_abstract =
            mods.is_abstract || matches!(kind, ClassKind::Interface | ClassKind::Annotation);
        let (supers, interfaces, type_params) = self.heritage(node, kind);
        let idx = self.classes.len();
        self.classes.push(ClassDecl {
            name: name.to_string(),
            qname,
            kind,
            lang: Lang::Java,
            is_abstract,
            is_static,
            is_local,
            outer,
            supers,
            interfaces,
            type_params,
            specialization: None,
            fields: Vec::new(),
            methods: Vec::new(),
            file: self.path.to_string(),
            span: span_of(node),
            body: body.map(span_of).unwrap_or_default(),
            members_at: members_at(kind, body),
            not_annotatable: None,
            access_labels: Vec::new(),
            data_access: Vec::new(),
            bases_written: Vec::new(),
            crtp_self_casts: Vec::new(),
        });
        idx
    }

    pub(super) fn enum_constant(&mut self, node: Node, idx: usize) {
        let Some(name) = node.child_by_field_id(self.ids.f_name) else {
            return;
        };
        let name = self.text(name).to_string();
        let enum_name = self.classes[idx].name.clone();
        self.classes[idx].fields.push(FieldDecl {
            name,
            ty: TypeRef {
                name: enum_name.clone(),
                text: enum_name,
                ..Default::default()
            },
            is_static: true,
            is_final: true,
            span: span_of(node),
            init: None,
        });
        // Constant bodies are anonymous subclasses: their methods count as the enum's
        // (`PLUS { int apply(…) {…} }`), other members may hold local classes.
        let mut cur = node.walk();
        let body = node.children(&mut cur).find(|c| k(*c) == K::ClassBody);
        match body {
            Some(b) => {
                let mut cur = b.walk();
                for m in b.children(&mut cur) {
                    if k(m) == K::MethodDeclaration {
                        self.method(m, idx, MethodKind::Method);
                    } else {
                        self.walk_for_classes(m, idx);
                    }
                }
            }
            None => self.walk_for_classes(node, idx),
        }
    }

    /// One child of a class body.
    pub(super) fn member(&mut self, node: Node, idx: usize) {
        if let Some(kind) = self.ids.class_kind(node.kind_id()) {
            self.visit_class(node, kind, Some(idx), false);
            return;
        }
        match k(node) {
            K::FieldDeclaration | K::ConstantDeclaration => self.field_decl(node, idx),
            K::MethodDeclaration => self.method(node, idx, MethodKind::Method),
            K::ConstructorDeclaration | K::CompactConstructorDeclaration => {
                self.method(node, idx, MethodKind::Constructor)
            }
            K::Block | K::StaticInitializer => self.walk_for_classes(node, idx),
            // Error recovery may wrap well-formed members: keep them.
            // `enter` bounds the recursion (and counts the level on success).
            K::Error if self.enter() => {
                let mut cur = node.walk();
                for c in node.children(&mut cur) {
                    self.member(c, idx);
                }
                self.depth -= 1;
            }
            _ => {}
        }
    }

    pub(super) fn field_decl(&mut self, node: Node, idx: usize) {
        let ids = self.ids;
        let Some(ty) = node.child_by_field_id(ids.f_type) else {
            return;
        };
        let mods = self.mods(node);
        let implicit = k(node) == K::ConstantDeclaration
            || matches!(
                self.classes[idx].kind,
                ClassKind::Interface | ClassKind::Annotation
            );
        let base = self.type_ref(ty, 0);
        let Some(f_declarator) = ids.f_declarator else {
            return;
        };
        let mut cur = node.walk();
        for d in node.children_by_field_id(f_declarator, &mut cur) {
            let Some(name) = d.child_by_field_id(ids.f_name) else {
                continue;
            };
            if name.is_missing() || name.start_byte() == name.end_byte() {
                continue;
            }
            let extra = d.child_by_field_id(ids.f_dimensions).map_or(0, count_dims);
            let mut t = base.clone();
            t.dims += extra;
            let name = self.text(name).to_string();
            self.classes[idx].fields.push(FieldDecl {
                name,
                ty: t,
                is_static: mods.is_static || implicit,
                is_final: mods.is_final || implicit,
                span: span_of(node),
                init: None,
            });
            if let Some(v) = d.child_by_field_id(ids.f_value) {
                self.walk_for_classes(v, idx);
            }
        }
    }
}
