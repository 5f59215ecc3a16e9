//! Builds the SAF from a parsed project: type resolution, the type table, static sizes
//! (thesis fig. 5.6), signatures and annotatability; every class starts unselected (the
//! selection stage, `select.rs`, sets the flags).

use std::collections::{BTreeMap, HashMap, HashSet};

use super::resolve::Resolver;
use super::types::{method_signature, primitive_size, sig_type_name};
use super::*;
use crate::instrument::manifest::Manifest;
use crate::instrument::model::{ClassDecl, FieldDecl, LayoutKind, LayoutUse, MethodDecl, TypeRef};
use crate::instrument::project::Project;

struct Sizer<'a> {
    classes: &'a [ClassDecl],
    resolver: &'a Resolver<'a>,
    sizes: Sizes,
    memo: HashMap<usize, u64>,
    stack: Vec<usize>,
}

impl Sizer<'_> {
    /// Static size of class `ci`; returns the size and the lowest stack depth a cycle
    /// reached (usize::MAX if none), so results independent of the path are memoised.
    fn size(&mut self, ci: usize) -> (u64, usize) {
        if let Some(&s) = self.memo.get(&ci) {
            return (s, usize::MAX);
        }
        if let Some(depth) = self.stack.iter().position(|&c| c == ci) {
            return (self.sizes.pointer, depth);
        }
        let my_depth = self.stack.len();
        self.stack.push(ci);
        let mut total = 0u64;
        let mut low = usize::MAX;
        for (owner, f) in self.all_fields(ci) {
            if f.is_static && f.is_final {
                continue; // constants are not carried by instances (thesis §5.4.3)
            }
            let (s, l) = self.field_size(owner, &f.ty);
            total = total.saturating_add(s);
            low = low.min(l);
        }
        self.stack.pop();
        if low >= my_depth {
            self.memo.insert(ci, total);
            low = usize::MAX;
        }
        (total, low)
    }

    fn field_size(&mut self, owner: usize, ty: &TypeRef) -> (u64, usize) {
        let lang = self.classes[owner].lang;
        let (mut s, low) = if let Some(p) = primitive_size(lang, &ty.name) {
            if ty.pointers > 0 {
                (self.sizes.pointer, usize::MAX)
            } else {
                (p, usize::MAX)
            }
        } else if let Some(ci) = self.resolver.resolve(&ty.name, &self.classes[owner]) {
            self.size(ci)
        } else {
            (self.sizes.system, usize::MAX)
        };
        for _ in 0..ty.dims {
            s = s.saturating_mul(self.sizes.collection_sample);
        }
        (s, low)
    }

    /// Own fields, then inherited ones not shadowed by name, supers depth-first.
    fn all_fields(&self, ci: usize) -> Vec<(usize, crate::instrument::model::FieldDecl)> {
        let mut out: Vec<(usize, crate::instrument::model::FieldDecl)> = Vec::new();
        let mut seen_classes = vec![ci];
        let mut todo = vec![ci];
        while let Some(c) = todo.pop() {
            for f in &self.classes[c].fields {
                if !out.iter().any(|(_, g)| g.name == f.name) {
                    out.push((c, f.clone()));
                }
            }
            for s in self.classes[c].supers.iter().rev() {
                if let Some(sc) = self.resolver.resolve(s, &self.classes[c]) {
                    if !seen_classes.contains(&sc) {
                        seen_classes.push(sc);
                        todo.push(sc);
                    }
                }
            }
        }
        out
    }
}

/// The SAF's `modifiers`: every flag but `static` and `abstract` (fields of their own).
fn modifiers(m: &MethodDecl) -> Vec<String> {
    m.flags
        .names()
        .filter(|n| !matches!(*n, "static" | "abstract"))
        .map(String::from)
        .collect()
}

/// Why a method cannot be instrumented, if it cannot.
fn method_blocker(m: &MethodDecl) -> Option<String> {
    let f = &m.flags;
    if let Some(r) = &m.not_annotatable {
        return Some(r.clone());
    }
    let why = if m.body.is_none() {
        if f.is_defaulted {
            "= default"
        } else if f.is_deleted {
            "= delete"
        } else if f.is_native {
            "native"
        } else if f.is_abstract {
            "abstract"
        } else {
            "no body in the sources"
        }
    } else if f.is_constexpr {
        "constexpr"
    } else if f.is_consteval {
        "consteval"
    } else {
        return None;
    };
    Some(why.to_string())
}

/// Builds the SAF for `project` under `manifest`'s sizes and selection.
pub fn build(manifest: &Manifest, project: &Project) -> Saf {
    let classes = &project.classes;
    let resolver = Resolver::new(classes);
    let mut sizer = Sizer {
        classes,
        resolver: &resolver,
        sizes: manifest.sizes,
        memo: HashMap::new(),
        stack: Vec::new(),
    };
    // Deterministic order: by qualified name, then file and line (specialisations, locals).
    let mut order: Vec<usize> = (0..classes.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&classes[a], &classes[b]);
        (&x.qname, &x.file, x.span.line).cmp(&(&y.qname, &y.file, y.span.line))
    });
    let mut types = TypeTable {
        types: BTreeMap::new(),
        system: manifest.sizes.system,
    };
    let mut out_classes = Vec::with_capacity(classes.len());
    let mut next_method = 1u32;
    for (id, &ci) in order.iter().enumerate() {
        let c = saf_class(id as u32 + 1, ci, &mut sizer, &mut types, &mut next_method);
        out_classes.push(c);
    }
    types.add_basics(&out_classes);
    let files = files_of(project, &out_classes);
    Saf {
        version: SAF_VERSION,
        project: manifest.name.clone(),
        sizes: manifest.sizes,
        files,
        types: types.types.into_values().collect(),
        classes: out_classes,
        problems: project.diagnostics.iter().map(|d| d.to_string()).collect(),
    }
}

/// The SAF's type table, filled as declarations mention types.
struct TypeTable {
    types: BTreeMap<(Lang, String), SafType>,
    /// `[sizes].system`: the size of a library type.
    system: u64,
}

impl TypeTable {
    /// Lists `ty` (as used in `from`) once: user types under their qualified name, however
    /// they are written.
    fn note(&mut self, lang: Lang, ty: &TypeRef, from: &ClassDecl, sizer: &mut Sizer) {
        if ty.name.is_empty() {
            return;
        }
        let user = primitive_size(lang, &ty.name)
            .is_none()
            .then(|| sizer.resolver.resolve(&ty.name, from))
            .flatten();
        let name = user.map_or_else(|| ty.name.clone(), |ci| sizer.classes[ci].qname.clone());
        let key = (lang, name.clone());
        if self.types.contains_key(&key) {
            return;
        }
        let t = if let Some(s) = primitive_size(lang, &ty.name) {
            SafType {
                name: ty.name.clone(),
                lang,
                kind: TypeKind::Primitive,
                size: s,
            }
        } else if let Some(ci) = user {
            SafType {
                name,
                lang,
                kind: TypeKind::User,
                size: sizer.size(ci).0,
            }
        } else {
            SafType {
                name: ty.name.clone(),
                lang,
                kind: TypeKind::System,
                size: self.system,
            }
        };
        self.types.insert(key, t);
    }

    /// Every present language's basic types, listed whether used or not.
    fn add_basics(&mut self, classes: &[SafClass]) {
        for lang in crate::instrument::lang::LangSpec::all().map(|s| s.lang) {
            if !classes.iter().any(|c| c.lang == lang) {
                continue;
            }
            for b in lang.spec().basic_types {
                self.types
                    .entry((lang, b.to_string()))
                    .or_insert_with(|| SafType {
                        name: b.to_string(),
                        lang,
                        kind: TypeKind::Primitive,
                        size: primitive_size(lang, b).unwrap_or(0),
                    });
            }
        }
    }
}

/// The SAF entry of class `ci` (its methods numbered from `next_method` on).
fn saf_class(
    id: u32,
    ci: usize,
    sizer: &mut Sizer,
    types: &mut TypeTable,
    next_method: &mut u32,
) -> SafClass {
    let c = &sizer.classes[ci];
    let lang = c.lang;
    let static_size = sizer.size(ci).0;
    let own = TypeRef {
        name: c.qname.clone(),
        ..Default::default()
    };
    types.note(lang, &own, c, sizer);
    let fields = c
        .fields
        .iter()
        .map(|f| {
            types.note(lang, &f.ty, c, sizer);
            saf_field(f)
        })
        .collect();
    let class_blocker = c
        .not_annotatable
        .clone()
        .or_else(|| (c.kind == ClassKind::Annotation).then(|| "annotation type".to_string()));
    let blocker = class_blocker.as_deref();
    let methods = saf_methods(c, lang, blocker, sizer, types, next_method);
    SafClass {
        id,
        qname: c.qname.clone(),
        name: c.name.clone(),
        lang,
        kind: c.kind,
        is_abstract: c.is_abstract,
        outer: c.outer.clone(),
        local: c.is_local,
        is_inner: lang.spec().inner_classes && c.outer.is_some() && !c.is_static,
        supers: c.supers.clone(),
        interfaces: c.interfaces.clone(),
        type_params: c.type_params.clone(),
        specialization: c.specialization.clone(),
        access: c.access_labels.clone(),
        data_access: c.data_access.clone(),
        bases_written: saf_bases(c),
        crtp_self_casts: c.crtp_self_casts.clone(),
        file: c.file.clone(),
        lines: [c.span.line, c.span.end_line],
        static_size,
        selected: false,
        annotatable: class_blocker.is_none(),
        reason: class_blocker,
        fields,
        methods,
    }
}

/// The SAF entries of `c`'s methods, sorted by place and numbered from `next_method` on.
fn saf_methods(
    c: &ClassDecl,
    lang: Lang,
    class_blocker: Option<&str>,
    sizer: &mut Sizer,
    types: &mut TypeTable,
    next_method: &mut u32,
) -> Vec<SafMethod> {
    let mut methods: Vec<SafMethod> = c
        .methods
        .iter()
        .zip(super::state::stateless(c))
        .map(|(m, stateless)| {
            for p in &m.params {
                types.note(lang, &p.ty, c, sizer);
            }
            if let Some(r) = &m.ret {
                types.note(lang, r, c, sizer);
            }
            let reason = class_blocker
                .map(|r| format!("class: {r}"))
                .or_else(|| method_blocker(m));
            let blocks = super::waits::blocks(m, c, sizer.classes, sizer.resolver);
            saf_method(m, reason, stateless, blocks)
        })
        .collect();
    methods.sort_by(|a, b| (&a.file, a.lines[0], &a.name).cmp(&(&b.file, b.lines[0], &b.name)));
    for m in &mut methods {
        m.id = *next_method;
        *next_method += 1;
    }
    methods
}

/// A class's base clauses as written, for the SAF.
fn saf_bases(c: &ClassDecl) -> Vec<SafBase> {
    (c.bases_written.iter())
        .map(|b| SafBase {
            name: b.name.clone(),
            is_virtual: b.is_virtual,
            access: b.access.clone(),
        })
        .collect()
}

fn saf_field(f: &FieldDecl) -> SafField {
    SafField {
        name: f.name.clone(),
        ty: f.ty.name.clone(),
        dim: f.ty.dims,
        pointers: f.ty.pointers,
        is_static: f.is_static,
        is_final: f.is_final,
    }
}

/// A method's SAF entry (id 0: numbered by the caller); `reason` why it is not annotatable;
/// `stateless`: its body writes none of its object's state (`saf::state`); `blocks`: what it
/// may block on (`saf::waits`).
fn saf_method(
    m: &MethodDecl,
    reason: Option<String>,
    stateless: bool,
    blocks: Vec<String>,
) -> SafMethod {
    SafMethod {
        id: 0,
        name: m.name.clone(),
        kind: m.kind,
        sgn: method_signature(m),
        ret: m.ret.as_ref().map(sig_type_name),
        ret_dim: m.ret.as_ref().map_or(0, |r| r.dims),
        params: m
            .params
            .iter()
            .map(|p| SafParam {
                name: p.name.clone(),
                ty: p.ty.name.clone(),
                dim: p.ty.dims,
                pointers: p.ty.pointers,
                reference: p.ty.reference,
            })
            .collect(),
        is_static: m.flags.is_static,
        is_abstract: m.flags.is_abstract,
        modifiers: modifiers(m),
        file: m.file.clone(),
        lines: [m.span.line, m.span.end_line],
        has_body: m.body.is_some(),
        stateless,
        blocks,
        selected: false,
        annotatable: reason.is_none(),
        reason,
    }
}

/// The SAF's file list, sorted by path, with the layout uses that name one of `classes`.
fn files_of(project: &Project, classes: &[SafClass]) -> Vec<SafFile> {
    // A use names a class when its name is the class's name or qname, or starts with one
    // followed by `::` (a nested type): look up the name and each prefix before a `:`.
    let names: HashSet<&str> = classes
        .iter()
        .flat_map(|c| [c.name.as_str(), c.qname.as_str()])
        .collect();
    let last = |n: &str| n.rsplit("::").next().unwrap_or("").to_string();
    let last_names: HashSet<String> = names.iter().map(|n| last(n)).collect();
    let names_a_class = |u: &LayoutUse| {
        u.name.is_empty()
            || names.contains(u.name.as_str())
            // `new (p) impl::T(…)`, `constexpr detail::T t{}`: T through namespaces the SAF
            // spells longer (or not at all); the annotator matches them to qnames
            || (u.kind == LayoutKind::PlacementNew || u.name.contains("::"))
                && last_names.contains(&last(u.name.split('<').next().unwrap_or("")))
            || u.name
                .match_indices(':')
                .any(|(i, _)| names.contains(&u.name[..i]))
    };
    let mut files: Vec<SafFile> = project
        .files
        .iter()
        .map(|f| SafFile {
            path: f.path.clone(),
            lang: f.lang,
            sha256: f.sha256.clone(),
            lines: f.text.lines().count() as u32,
            layout_uses: f
                .model
                .layout_uses
                .iter()
                .filter(|u| names_a_class(u))
                .map(LayoutUse::to_saf)
                .collect(),
        })
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

#[cfg(test)]
mod tests {
    use crate::instrument::frontend::{cpp::CppFrontend, java::JavaFrontend, Frontend};
    use crate::instrument::manifest::Manifest;
    use crate::instrument::model::Lang;
    use crate::instrument::project::{link, SourceFile};

    /// A C++ class read from a file whose name no language claims (`widget.inc`, included
    /// by a unity build) keeps C++'s sizes: its language is the front end's, never guessed
    /// from the path. Guessed, it was taken for Java: a `char` of 2 bytes, a Java type.
    #[test]
    fn a_cpp_class_is_never_taken_for_java() {
        let (path, text) = ("src/widget.inc", "class W { char c; short s; };\n");
        let model = CppFrontend.parse(path, text, &Default::default());
        let project = link(vec![SourceFile {
            path: path.into(),
            lang: Lang::Cpp,
            text: text.into(),
            sha256: String::new(),
            model,
        }]);
        let toml = "[project]\nname = \"t\"\nsources = [\"src/*\"]\n";
        let m = Manifest::from_str(std::path::Path::new("/nowhere/revy.toml"), toml).unwrap();
        let saf = super::build(&m, &project);
        let w = &saf.classes[0];
        assert_eq!(
            (w.qname.as_str(), w.lang, w.static_size),
            ("W", Lang::Cpp, 3)
        );
        let char_t = saf.types.iter().find(|t| t.name == "char").unwrap();
        assert_eq!((char_t.lang, char_t.size), (Lang::Cpp, 1));
    }

    /// Each method's `blocks` in the SAF of these Java files, by `Class.method`.
    fn blocks(files: &[(&str, &str)]) -> Vec<(String, Vec<String>)> {
        let sources = files
            .iter()
            .map(|(path, text)| SourceFile {
                path: path.to_string(),
                lang: Lang::Java,
                text: text.to_string(),
                sha256: String::new(),
                model: JavaFrontend.parse(path, text, &Default::default()),
            })
            .collect();
        let toml = "[project]\nname = \"t\"\nsources = [\"src/**/*.java\"]\n";
        let m = Manifest::from_str(std::path::Path::new("/nowhere/revy.toml"), toml).unwrap();
        let saf = super::build(&m, &link(sources));
        saf.classes
            .iter()
            .flat_map(|c| c.methods.iter().map(move |x| (c, x)))
            .map(|(c, x)| (format!("{}.{}", c.name, x.name), x.blocks.clone()))
            .collect()
    }

    /// A `take()`/`put(x)` names a blocking queue only on a receiver declared as one: a field,
    /// parameter or local of a `java.util.concurrent` queue type or of a project class
    /// extending one. A field of a project class with its own `take` (a channel built on
    /// `wait()`) was named `BlockingQueue.take`.
    #[test]
    fn take_and_put_name_a_queue_only_on_a_receiver_of_a_queue_type() {
        let channel = r#"package p;
class Channel {
    private final java.util.LinkedList<Object> items = new java.util.LinkedList<>();
    synchronized Object take() throws InterruptedException { while (items.isEmpty()) wait(); return items.poll(); }
    synchronized void put(Object o) { items.add(o); notifyAll(); }
}"#;
        let jobs = "package p;\nclass Jobs extends java.util.concurrent.LinkedBlockingQueue<Runnable> {}\n";
        let stage = r#"package p;
import java.util.concurrent.*;
class Stage {
    private final Channel in = new Channel();
    private final BlockingQueue<Object> out = new ArrayBlockingQueue<>(4);
    private Jobs jobs = new Jobs();
    void field() throws Exception { Object x = in.take(); this.in.put(x); }
    void queue() throws Exception { out.put(in.take()); }
    void sub() throws Exception { jobs.take(); }
    void param(Channel c, SynchronousQueue<Object> s) throws Exception { c.take(); s.put(c); }
    void local() throws Exception { Channel in = new Channel(); in.take(); }
    void localQueue() throws Exception { LinkedBlockingDeque<Object> d = new LinkedBlockingDeque<>(); d.take(); }
    void unknown() throws Exception { make().take(); var v = make(); v.take(); }
    Channel make() { return in; }
    class Inner { void outer() throws Exception { out.take(); in.take(); } }
}"#;
        let got = blocks(&[
            ("src/p/Channel.java", channel),
            ("src/p/Jobs.java", jobs),
            ("src/p/Stage.java", stage),
        ]);
        let want: Vec<(String, Vec<String>)> = [
            ("Channel.take", &["Object.wait", "synchronized"][..]),
            ("Channel.put", &["synchronized"]),
            ("Stage.field", &[]),
            ("Stage.queue", &["BlockingQueue.put"]),
            ("Stage.sub", &["BlockingQueue.take"]),
            ("Stage.param", &["BlockingQueue.put"]),
            ("Stage.local", &[]),
            ("Stage.localQueue", &["BlockingQueue.take"]),
            ("Stage.unknown", &[]),
            ("Stage.make", &[]),
            ("Inner.outer", &["BlockingQueue.take"]),
        ]
        .iter()
        .map(|(n, b)| (n.to_string(), b.iter().map(|s| s.to_string()).collect()))
        .collect();
        let mut got = got;
        got.sort();
        let mut want = want;
        want.sort();
        assert_eq!(got, want);
    }
}
