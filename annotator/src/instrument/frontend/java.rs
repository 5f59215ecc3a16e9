//! The Java front end (tree-sitter-java).
//!
//! One pass over the declarations of the syntax tree builds the [`FileModel`]; method bodies
//! are only walked (with a cursor, no allocation) when their text may hold a local class.
//! A second pass descends only into subtrees that contain errors and turns ERROR/MISSING
//! nodes into diagnostics, marking the smallest enclosing method or class not annotatable.

use std::collections::HashMap;
use std::sync::OnceLock;

use tree_sitter::Node;

use super::{kit, span_of, Frontend, ProjectContext};
use crate::instrument::model::{
    ClassDecl, ClassKind, FieldDecl, FileModel, Lang, MethodDecl, MethodFlags, MethodKind, Param,
    TypeRef,
};

pub struct JavaFrontend;

impl Frontend for JavaFrontend {
    fn lang(&self) -> Lang {
        Lang::Java
    }
    fn parse(&self, path: &str, src: &str, _cx: &ProjectContext) -> FileModel {
        kit::guarded(Lang::Java, path, || parse_java(path, src))
    }
}

/// Node kind and field ids, looked up once.
struct Ids {
    class_decl: u16,
    interface_decl: u16,
    enum_decl: u16,
    record_decl: u16,
    annotation_decl: u16,
    f_name: u16,
    f_type: u16,
    f_body: u16,
    f_dimensions: u16,
    f_parameters: u16,
    f_value: u16,
    f_superclass: u16,
    f_interfaces: u16,
    f_type_parameters: u16,
    f_declarator: Option<std::num::NonZeroU16>,
}

fn ids() -> &'static Ids {
    static IDS: OnceLock<Ids> = OnceLock::new();
    IDS.get_or_init(|| {
        let g = kit::grammar(Lang::Java);
        let k = |s: &str| g.kind(s);
        let f = |s: &str| g.field(s).map_or(0, |id| id.get());
        Ids {
            class_decl: k("class_declaration"),
            interface_decl: k("interface_declaration"),
            enum_decl: k("enum_declaration"),
            record_decl: k("record_declaration"),
            annotation_decl: k("annotation_type_declaration"),
            f_name: f("name"),
            f_type: f("type"),
            f_body: f("body"),
            f_dimensions: f("dimensions"),
            f_parameters: f("parameters"),
            f_value: f("value"),
            f_superclass: f("superclass"),
            f_interfaces: f("interfaces"),
            f_type_parameters: f("type_parameters"),
            f_declarator: g.field("declarator"),
        }
    })
}

impl Ids {
    fn class_kind(&self, kind_id: u16) -> Option<ClassKind> {
        if kind_id == self.class_decl {
            Some(ClassKind::Class)
        } else if kind_id == self.interface_decl {
            Some(ClassKind::Interface)
        } else if kind_id == self.enum_decl {
            Some(ClassKind::Enum)
        } else if kind_id == self.record_decl {
            Some(ClassKind::Record)
        } else if kind_id == self.annotation_decl {
            Some(ClassKind::Annotation)
        } else {
            None
        }
    }
}

/// The node kinds the Java walk tests, looked up by kind id (`kit::KindTable`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum K {
    PackageDeclaration,
    Error,
    MethodDeclaration,
    ConstructorDeclaration,
    CompactConstructorDeclaration,
    FieldDeclaration,
    ConstantDeclaration,
    Identifier,
    ScopedIdentifier,
    Modifiers,
    Static,
    Abstract,
    Final,
    Synchronized,
    Native,
    Default,
    Private,
    ExtendsInterfaces,
    TypeList,
    TypeParameter,
    EnumConstant,
    EnumBodyDeclarations,
    ClassBody,
    Block,
    StaticInitializer,
    FormalParameter,
    SpreadParameter,
    Annotation,
    VariableDeclarator,
    ArrayType,
    Dimensions,
    GenericType,
    AnnotatedType,
    TypeArguments,
    ScopedTypeIdentifier,
    Comment,
    ExplicitConstructorInvocation,
    LeftBracket,
    Other,
}

/// Grammar kind names and the kinds they stand for.
const KINDS: &[(&str, K)] = &[
    ("package_declaration", K::PackageDeclaration),
    ("method_declaration", K::MethodDeclaration),
    ("constructor_declaration", K::ConstructorDeclaration),
    (
        "compact_constructor_declaration",
        K::CompactConstructorDeclaration,
    ),
    ("field_declaration", K::FieldDeclaration),
    ("constant_declaration", K::ConstantDeclaration),
    ("identifier", K::Identifier),
    ("scoped_identifier", K::ScopedIdentifier),
    ("modifiers", K::Modifiers),
    ("static", K::Static),
    ("abstract", K::Abstract),
    ("final", K::Final),
    ("synchronized", K::Synchronized),
    ("native", K::Native),
    ("default", K::Default),
    ("private", K::Private),
    ("extends_interfaces", K::ExtendsInterfaces),
    ("type_list", K::TypeList),
    ("type_parameter", K::TypeParameter),
    ("enum_constant", K::EnumConstant),
    ("enum_body_declarations", K::EnumBodyDeclarations),
    ("class_body", K::ClassBody),
    ("block", K::Block),
    ("static_initializer", K::StaticInitializer),
    ("formal_parameter", K::FormalParameter),
    ("spread_parameter", K::SpreadParameter),
    ("annotation", K::Annotation),
    ("marker_annotation", K::Annotation),
    ("variable_declarator", K::VariableDeclarator),
    ("array_type", K::ArrayType),
    ("dimensions", K::Dimensions),
    ("generic_type", K::GenericType),
    ("annotated_type", K::AnnotatedType),
    ("type_arguments", K::TypeArguments),
    ("scoped_type_identifier", K::ScopedTypeIdentifier),
    ("line_comment", K::Comment),
    ("block_comment", K::Comment),
    (
        "explicit_constructor_invocation",
        K::ExplicitConstructorInvocation,
    ),
    ("[", K::LeftBracket),
];

/// `n`'s kind (ERROR nodes: `K::Error`).
fn k(n: Node) -> K {
    static TABLE: OnceLock<kit::KindTable<K>> = OnceLock::new();
    if n.is_error() {
        return K::Error;
    }
    TABLE
        .get_or_init(|| kit::KindTable::new(Lang::Java, KINDS, K::Other))
        .of(n)
}

/// Parses one Java file into the language-neutral model. Never panics on any input.
pub fn parse_java(path: &str, src: &str) -> FileModel {
    let mut model = FileModel {
        path: path.to_string(),
        ..Default::default()
    };
    let Some(tree) = kit::parse(Lang::Java, src, None) else {
        return kit::no_parser(Lang::Java, path);
    };
    let root = tree.root_node();
    let mut b = Builder {
        src,
        path,
        ids: ids(),
        package: None,
        classes: Vec::new(),
        parents: Vec::new(),
        locals: Vec::new(),
        record_params: Vec::new(),
        last_top_class: None,
        depth: 0,
        too_deep: false,
    };
    b.top_level(root);
    b.fix_local_names();
    if b.too_deep {
        let message = format!("declarations nested more than {MAX_NESTING} deep are not listed");
        model.diagnostics.push(kit::diag(path, 1, 1, message));
    }
    model.package = b.package;
    model.classes = b.classes;
    if root.has_error() {
        report_errors(root, src, &mut model);
    }
    model
}

/// Modifier keywords that matter to the model.
#[derive(Default, Clone, Copy)]
struct Mods {
    is_static: bool,
    is_abstract: bool,
    is_final: bool,
    is_synchronized: bool,
    is_native: bool,
    is_default: bool,
    is_private: bool,
}

struct Builder<'a> {
    src: &'a str,
    path: &'a str,
    ids: &'static Ids,
    package: Option<String>,
    classes: Vec<ClassDecl>,
    /// Index of each class's enclosing class (parallel to `classes`).
    parents: Vec<Option<usize>>,
    /// Indices of local classes, in source order.
    locals: Vec<usize>,
    /// Record components of the record being visited (for compact constructors).
    record_params: Vec<(usize, Vec<Param>)>,
    /// The last top-level class, which receives members stranded by error recovery.
    last_top_class: Option<usize>,
    /// Current nesting of declarations being visited.
    depth: u32,
    /// Some declarations were nested too deeply to be visited.
    too_deep: bool,
}

/// Deepest nesting of declarations visited (beyond it, inner declarations are skipped and a
/// diagnostic says so).
const MAX_NESTING: u32 = 200;

impl<'a> Builder<'a> {
    fn text(&self, n: Node) -> &'a str {
        self.src.get(n.start_byte()..n.end_byte()).unwrap_or("")
    }

    fn top_level(&mut self, node: Node) {
        let mut cur = node.walk();
        for child in node.children(&mut cur) {
            if let Some(kind) = self.ids.class_kind(child.kind_id()) {
                let idx = self.classes.len();
                self.visit_class(child, kind, None, false);
                if idx < self.classes.len() {
                    self.last_top_class = Some(idx);
                }
                continue;
            }
            match k(child) {
                K::PackageDeclaration if self.package.is_none() => {
                    self.package = self.package_name(child);
                }
                // `enter` bounds the recursion (and counts the level on success).
                K::Error if self.enter() => {
                    self.top_level(child);
                    self.depth -= 1;
                }
                // Java has no top-level members: error recovery closed a class too early.
                K::MethodDeclaration | K::ConstructorDeclaration | K::FieldDeclaration => {
                    if let Some(idx) = self.last_top_class {
                        self.member(child, idx);
                    }
                }
                _ => {}
            }
        }
    }

    fn package_name(&self, node: Node) -> Option<String> {
        let mut cur = node.walk();
        let name = node
            .named_children(&mut cur)
            .find(|c| matches!(k(*c), K::Identifier | K::ScopedIdentifier))?;
        let s: String = self
            .text(name)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        (!s.is_empty()).then_some(s)
    }

    fn mods(&self, node: Node) -> Mods {
        let mut m = Mods::default();
        let mut cur = node.walk();
        let Some(modifiers) = node.children(&mut cur).find(|c| k(*c) == K::Modifiers) else {
            return m;
        };
        let mut cur = modifiers.walk();
        for c in modifiers.children(&mut cur) {
            match k(c) {
                K::Static => m.is_static = true,
                K::Abstract => m.is_abstract = true,
                K::Final => m.is_final = true,
                K::Synchronized => m.is_synchronized = true,
                K::Native => m.is_native = true,
                K::Default => m.is_default = true,
                K::Private => m.is_private = true,
                _ => {}
            }
        }
        m
    }

    /// Guards the recursion over nested declarations (and error nodes) against stack
    /// exhaustion on pathological input.
    fn enter(&mut self) -> bool {
        if self.depth >= MAX_NESTING {
            self.too_deep = true;
            return false;
        }
        self.depth += 1;
        true
    }

    fn visit_class(&mut self, node: Node, kind: ClassKind, parent: Option<usize>, is_local: bool) {
        if self.enter() {
            self.visit_class_inner(node, kind, parent, is_local);
            self.depth -= 1;
        }
    }

    /// A class's `extends` (classes), `implements` (for interfaces: `extends`) and type
    /// parameters, as written.
    fn heritage(&self, node: Node, kind: ClassKind) -> (Vec<String>, Vec<String>, Vec<String>) {
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
    fn record_components(&mut self, node: Node, idx: usize) {
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
    fn class_body(&mut self, body: Node, idx: usize) {
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
    fn visit_class_inner(
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
    fn add_class(
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

    fn enum_constant(&mut self, node: Node, idx: usize) {
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
    fn member(&mut self, node: Node, idx: usize) {
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

    fn field_decl(&mut self, node: Node, idx: usize) {
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

    /// A method or constructor of class `idx`; local classes in its body are walked too.
    fn method(&mut self, node: Node, idx: usize, kind: MethodKind) {
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
            effects: body.and_then(|b| super::effects::of_body(Lang::Java, b, self.src)),
        });
        if let Some(b) = body {
            self.walk_for_classes(b, idx);
        }
    }

    /// A method's name and return type (constructors: class name, none); `None` if unnamed.
    fn method_name_ret(
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
    fn method_params(&self, node: Node, idx: usize) -> Vec<Param> {
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
    fn param(&self, p: Node) -> Option<Param> {
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

    fn type_ref(&self, ty: Node, extra_dims: u32) -> TypeRef {
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

    fn base_name_of(&self, ty: Node) -> String {
        let mut name = String::new();
        self.base_name(ty, &mut name, 0);
        name
    }

    /// Appends the base name of a type (no generic arguments, annotations or brackets) and
    /// returns its array dimensions.
    fn base_name(&self, ty: Node, out: &mut String, depth: u32) -> u32 {
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

    /// Finds (local) class declarations anywhere below `node`, which belongs to class `idx`.
    fn walk_for_classes(&mut self, node: Node, idx: usize) {
        if !may_declare_class(self.text(node)) {
            return;
        }
        let ids = self.ids;
        let mut cur = node.walk();
        if !cur.goto_first_child() {
            return;
        }
        loop {
            let n = cur.node();
            let descend = match ids.class_kind(n.kind_id()) {
                Some(kind) => {
                    self.visit_class(n, kind, Some(idx), true);
                    false
                }
                None => true,
            };
            if descend && cur.goto_first_child() {
                continue;
            }
            loop {
                if cur.goto_next_sibling() {
                    break;
                }
                if !cur.goto_parent() {
                    return;
                }
            }
        }
    }

    /// Local classes whose qualified names collide get `$1`, `$2`… in source order.
    fn fix_local_names(&mut self) {
        if self.locals.is_empty() {
            return;
        }
        let mut groups: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, c) in self.classes.iter().enumerate() {
            groups.entry(c.qname.as_str()).or_default().push(i);
        }
        let mut suffix: HashMap<usize, usize> = HashMap::new();
        for members in groups.values() {
            if members.len() < 2 {
                continue;
            }
            let locals = members.iter().filter(|i| self.classes[**i].is_local);
            for (n, i) in locals.enumerate() {
                suffix.insert(*i, n + 1);
            }
        }
        if suffix.is_empty() {
            return;
        }
        // Parents precede children, so one pass in index order rebuilds every name.
        for i in 0..self.classes.len() {
            let seg = match suffix.get(&i) {
                Some(n) => format!("{}${n}", self.classes[i].name),
                None => self.classes[i].name.clone(),
            };
            let outer = self.parents[i].map(|p| self.classes[p].qname.clone());
            self.classes[i].qname = match (&outer, &self.package) {
                (Some(o), _) => format!("{o}.{seg}"),
                (None, Some(pkg)) => format!("{pkg}.{seg}"),
                (None, None) => seg,
            };
            self.classes[i].outer = outer;
        }
    }
}

/// See [`ClassDecl::members_at`]: enums take members after the `;` ending their constants.
fn members_at(kind: ClassKind, body: Option<Node>) -> Option<usize> {
    let Some(body) = body else {
        return Some(1); // broken declaration: never annotatable, any offset will do
    };
    if kind != ClassKind::Enum {
        return Some(body.start_byte() + 1);
    }
    kit::children(body)
        .find(|c| k(*c) == K::EnumBodyDeclarations) // starts with `;`
        .map(|c| c.start_byte() + 1)
}

/// See [`MethodDecl::entry`]: after `{`, or after a constructor's `this(…)`/`super(…)`.
fn entry_of(kind: MethodKind, body: Node) -> usize {
    if kind == MethodKind::Constructor {
        let first = kit::named_children(body).find(|c| k(*c) != K::Comment);
        if let Some(c) = first.filter(|c| k(*c) == K::ExplicitConstructorInvocation) {
            return c.end_byte();
        }
    }
    body.start_byte() + 1
}

fn is_annotation(n: Node) -> bool {
    k(n) == K::Annotation
}

/// Number of `[]` pairs in a `dimensions` node.
fn count_dims(d: Node) -> u32 {
    let mut cur = d.walk();
    d.children(&mut cur)
        .filter(|c| k(*c) == K::LeftBracket)
        .count() as u32
}

fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Cheap pre-check before walking a body: a class declaration needs one of these words.
fn may_declare_class(text: &str) -> bool {
    text.contains("class")
        || text.contains("interface")
        || text.contains("enum")
        || text.contains("record")
}

/// A declaration of the model that an error can be charged to.
#[derive(Clone, Copy)]
enum Target {
    Class(usize),
    Method(usize, usize),
}

/// Reports every ERROR and MISSING node (outermost only) and marks the innermost listed
/// declaration (method or class) enclosing it in the tree not annotatable; errors outside
/// any listed declaration only give diagnostics.
fn report_errors(root: Node, src: &str, model: &mut FileModel) {
    // Model declarations by byte range (a tree node is matched by kind and range).
    let mut index: HashMap<(usize, usize), Target> = HashMap::new();
    for (ci, c) in model.classes.iter().enumerate() {
        index.insert((c.span.start, c.span.end), Target::Class(ci));
        for (mi, m) in c.methods.iter().enumerate() {
            index.insert((m.span.start, m.span.end), Target::Method(ci, mi));
        }
    }
    let ids = ids();
    let mut sites = Vec::new();
    kit::for_each_error(root, kit::Nested::Skip, |n| {
        let site = kit::ErrorSite::new(n, src);
        let mut up = n.parent();
        let mut target = None;
        while let Some(p) = up {
            let decl = ids.class_kind(p.kind_id()).is_some()
                || matches!(
                    k(p),
                    K::MethodDeclaration
                        | K::ConstructorDeclaration
                        | K::CompactConstructorDeclaration
                );
            if decl {
                if let Some(t) = index.get(&(p.start_byte(), p.end_byte())) {
                    target = Some(*t);
                    break;
                }
            }
            up = p.parent();
        }
        let slot = match target {
            Some(Target::Method(ci, mi)) => {
                Some(&mut model.classes[ci].methods[mi].not_annotatable)
            }
            Some(Target::Class(ci)) => Some(&mut model.classes[ci].not_annotatable),
            None => None,
        };
        if let Some(slot) = slot {
            if slot.is_none() {
                *slot = Some(site.reason());
            }
        }
        sites.push(site);
    });
    kit::push_error_diags(model, &sites);
}

#[cfg(test)]
#[path = "java_tests.rs"]
mod tests;
