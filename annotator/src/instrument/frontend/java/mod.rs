//! The Java front end (tree-sitter-java).
//!
//! One pass over the declarations of the syntax tree builds the [`FileModel`]; method bodies
//! are only walked (with a cursor, no allocation) when their text may hold a local class.
//! A second pass descends only into subtrees that contain errors and turns ERROR/MISSING
//! nodes into diagnostics, marking the smallest enclosing method or class not annotatable.
//! Classes and their members are read in `classes.rs`, methods, parameters and types in
//! `methods.rs`.

use std::collections::HashMap;
use std::sync::OnceLock;

use tree_sitter::Node;

mod classes;
mod methods;

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
mod tests;
