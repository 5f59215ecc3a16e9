//! Methods and constructors, their parameters and types.

use super::*;

impl<'a> Builder<'a> {
    /// A method or constructor of class `idx`; local classes in its body are walked too.
    pub(super) fn method(&mut self, node: Node, idx: usize, kind: MethodKind) {
        let ids = self.ids;
        let mods = self.mods(node);
        let class_kind = self.classes[idx].kind;
        let body = node.child_by_field_id(ids.f_body);
        let Some((name, ret)) = self.method_name_ret(node, idx, kind) else {
            return;
        };
        let params = self.method_params(node, idx);
        let in_interface = matches!(class_kind, ClassKind::Interface | ClassKind::Annotation);
        let flags = MethodFlags {
            is_static: mods.is_static,
            is_abstract: mods.is_abstract
                || (in_interface
                    && body.is_none()
                    && !mods.is_static
                    && !mods.is_default
                    && !mods.is_private),
            is_final: mods.is_final,
            is_synchronized: mods.is_synchronized,
            is_native: mods.is_native,
            is_default: mods.is_default,
            ..Default::default()
        };
        self.classes[idx].methods.push(MethodDecl {
            name,
            kind,
            ret,
            params,
            flags,
            file: self.path.to_string(),
            span: span_of(node),
            body: body.map(span_of),
            entry: body.map(|b| entry_of(kind, b)),
            not_annotatable: None,
            effects: body.and_then(|b| {
                crate::instrument::frontend::effects::of_body(Lang::Java, b, self.src)
            }),
        });
        if let Some(b) = body {
            self.walk_for_classes(b, idx);
        }
    }

    /// A method's name and return type (constructors: class name, none); `None` if unnamed.
    pub(super) fn method_name_ret(
        &self,
        node: Node,
        idx: usize,
        kind: MethodKind,
    ) -> Option<(String, Option<TypeRef>)> {
        let ids = self.ids;
        if kind == MethodKind::Constructor {
            return Some((self.classes[idx].name.clone(), None));
        }
        let name = node.child_by_field_id(ids.f_name)?;
        if name.is_missing() || name.start_byte() == name.end_byte() {
            return None;
        }
        let ret = node.child_by_field_id(ids.f_type).map(|t| {
            let extra = node
                .child_by_field_id(ids.f_dimensions)
                .map_or(0, count_dims);
            self.type_ref(t, extra)
        });
        Some((self.text(name).to_string(), ret))
    }

    /// A method's parameters; a compact constructor gets its record's components.
    pub(super) fn method_params(&self, node: Node, idx: usize) -> Vec<Param> {
        if k(node) == K::CompactConstructorDeclaration {
            return self
                .record_params
                .iter()
                .rev()
                .find(|(i, _)| *i == idx)
                .map(|(_, p)| p.clone())
                .unwrap_or_default();
        }
        let mut out = Vec::new();
        if let Some(ps) = node.child_by_field_id(self.ids.f_parameters) {
            let mut cur = ps.walk();
            for p in ps.named_children(&mut cur) {
                if let Some(param) = self.param(p) {
                    out.push(param);
                }
            }
        }
        out
    }

    /// A formal, spread (varargs) parameter; `None` for receiver parameters and junk.
    pub(super) fn param(&self, p: Node) -> Option<Param> {
        let ids = self.ids;
        match k(p) {
            K::FormalParameter => {
                let ty = p.child_by_field_id(ids.f_type)?;
                let name = p.child_by_field_id(ids.f_name)?;
                if self.text(name) == "this" {
                    return None; // receiver parameter
                }
                let extra = p.child_by_field_id(ids.f_dimensions).map_or(0, count_dims);
                Some(Param {
                    name: self.text(name).to_string(),
                    ty: self.type_ref(ty, extra),
                    varargs: false,
                })
            }
            K::SpreadParameter => {
                let mut cur = p.walk();
                let mut ty = None;
                let mut decl = None;
                for c in p.named_children(&mut cur) {
                    match k(c) {
                        K::Modifiers | K::Annotation => {}
                        K::VariableDeclarator => decl = Some(c),
                        _ => {
                            if ty.is_none() {
                                ty = Some(c);
                            }
                        }
                    }
                }
                let (ty, decl) = (ty?, decl?);
                let name = decl.child_by_field_id(ids.f_name)?;
                let extra = decl
                    .child_by_field_id(ids.f_dimensions)
                    .map_or(0, count_dims);
                Some(Param {
                    name: self.text(name).to_string(),
                    ty: self.type_ref(ty, extra + 1),
                    varargs: true,
                })
            }
            _ => None,
        }
    }

    pub(super) fn type_ref(&self, ty: Node, extra_dims: u32) -> TypeRef {
        let mut name = String::new();
        let dims = self.base_name(ty, &mut name, 0);
        TypeRef {
            name,
            dims: dims + extra_dims,
            pointers: 0,
            reference: false,
            text: self.text(ty).to_string(),
        }
    }

    pub(super) fn base_name_of(&self, ty: Node) -> String {
        let mut name = String::new();
        self.base_name(ty, &mut name, 0);
        name
    }

    /// Appends the base name of a type (no generic arguments, annotations or brackets) and
    /// returns its array dimensions.
    pub(super) fn base_name(&self, ty: Node, out: &mut String, depth: u32) -> u32 {
        if depth > MAX_NESTING {
            return 0;
        }
        let depth = depth + 1;
        match k(ty) {
            K::ArrayType => {
                let dims = ty
                    .child_by_field_id(self.ids.f_dimensions)
                    .map_or(0, count_dims);
                let mut cur = ty.walk();
                let elem = ty
                    .named_children(&mut cur)
                    .find(|c| k(*c) != K::Dimensions && !is_annotation(*c));
                dims + elem.map_or(0, |e| self.base_name(e, out, depth))
            }
            K::GenericType | K::AnnotatedType => {
                let mut cur = ty.walk();
                let inner = ty
                    .named_children(&mut cur)
                    .find(|c| k(*c) != K::TypeArguments && !is_annotation(*c));
                inner.map_or(0, |i| self.base_name(i, out, depth))
            }
            K::ScopedTypeIdentifier => {
                let mut cur = ty.walk();
                let mut first = true;
                for c in ty.named_children(&mut cur) {
                    if is_annotation(c) {
                        continue;
                    }
                    if !first {
                        out.push('.');
                    }
                    first = false;
                    self.base_name(c, out, depth);
                }
                0
            }
            _ => {
                out.push_str(self.text(ty));
                0
            }
        }
    }
}
