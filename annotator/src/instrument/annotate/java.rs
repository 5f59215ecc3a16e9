//! Java annotation: insertions for selected classes and methods.
//!
//! Generated code shape (all on the line it is inserted into, so line numbers in stack
//! traces do not move):
//!
//! - a selected class or enum gets one field right after its body's `{` (for enums, after
//!   the constant list): `private final transient long _rv$oid = _revy.runtime.Rv.created(this, CID);`
//!   in the topmost selected class of a hierarchy, `…Rv.inherited(this, SUPER_CID);` below it
//!   (creation is logged once per object, with its runtime class). `private transient` keeps
//!   the default serialVersionUID unchanged; no methods, interfaces or static initialisers
//!   are added.
//! - a selected method's body `{ … }` becomes
//!   `{ final int T = _revy.runtime.Rv.enter(MID, ARGS); try { … } finally { _revy.runtime.Rv.exit(T); } }`
//!   (constructors: after `this(…)`/`super(…)`), so every exit — returns after their value is
//!   computed, falling off the end, exceptions — logs the end. ARGS are, for an instance
//!   method, the receiver's ID field and `this` (`this._rv$oid, this`, read by `Rv.oid`: 0
//!   after deserialisation, as the field is transient, gives a fresh ID; `0L, this` in classes
//!   without the field), then the primitive parameters' size as an int and up to three
//!   reference parameters, which the runtime sizes (more: one size expression). The token T
//!   is all the exits need: javac copies the finally to every exit, so each copy is one
//!   `iload` and one `invokestatic`, and small methods stay small enough for HotSpot to
//!   inline.
//! - `super.clone()` in a selected class's `clone()` becomes `Rv.cloned(super.clone())`:
//!   `Object.clone` copies the ID field, the clone gets a new ID and creation entry.
//! - methods of enum-constant bodies are the enum's; they read the field through a cast.
//! - class names, static sizes and method names/signatures live in the generated
//!   `_revy/runtime/RvTable.java`, indexed by SAF id, written next to the runtime sources
//!   under the source root.

use std::collections::HashSet;

use super::{fresh_name, Context, FileEdits, LangAnnotator};
use crate::error::Result;
use crate::instrument::edits::Insertion;
use crate::instrument::manifest::Mode;
use crate::instrument::model::{ClassDecl, ClassKind, FileModel, Lang, MethodDecl, Span};
use crate::instrument::saf::{Saf, SafClass};

pub struct JavaAnnotator;

/// Text that marks a file as already annotated.
const MARK: &str = "_revy.runtime.Rv.";

/// Whether a class of this kind can take the object-ID field.
fn takes_field(kind: ClassKind) -> bool {
    matches!(kind, ClassKind::Class | ClassKind::Enum)
}

/// The name of the object-ID field of a class: `_rv$oid`, or `_rv$oidN` when the class
/// already declares a field of that name. Derived from the SAF alone so the table and the
/// inserted code agree.
/// The object-ID field's name: one that no field of the class or of a class enclosing it
/// has, so an inner class's new field never hides a field of its outer class that the inner
/// code uses.
pub(crate) fn oid_field_name(cx: &Context, c: &SafClass) -> String {
    let mut taken: HashSet<&str> = c.fields.iter().map(|f| f.name.as_str()).collect();
    let mut scope = c.qname.as_str();
    while let Some((outer, _)) = scope.rsplit_once('.') {
        if let Some(o) = cx.class(outer) {
            taken.extend(o.fields.iter().map(|f| f.name.as_str()));
        }
        scope = outer;
    }
    fresh_name("_rv$oid", |n| taken.contains(n))
}

/// The class with its own object-ID field, if `c` is one.
fn has_field(c: &SafClass) -> bool {
    c.selected && c.annotatable && takes_field(c.kind) && c.lang == Lang::Java
}

/// Resolves a superclass name as written (`Base`, `pkg.Base`, `Outer.Base`) against the SAF,
/// from the scope enclosing `from` (a class's own members are not in scope in its head).
fn resolve_super<'a>(saf: &'a Saf, from: &SafClass, name: &str) -> Option<&'a SafClass> {
    let scope = from.qname.rsplit_once('.').map_or("", |(outer, _)| outer);
    saf.resolve_class(Lang::Java, scope, name)
}

/// The nearest proper ancestor of `c` that has its own object-ID field.
fn field_ancestor<'a>(saf: &'a Saf, c: &SafClass) -> Option<&'a SafClass> {
    let mut seen: HashSet<u32> = HashSet::new();
    seen.insert(c.id);
    let mut cur = c;
    loop {
        let sup = cur
            .supers
            .first()
            .and_then(|s| resolve_super(saf, cur, s))?;
        if !seen.insert(sup.id) {
            return None;
        }
        if has_field(sup) {
            return Some(sup);
        }
        cur = sup;
    }
}

/// Wraps each `super.clone()` call in `clone()`'s body so the clone gets its own object ID
/// (`Object.clone` copies the ID field). Calls are found in the syntax tree, so the text in
/// a string literal or a comment is never rewritten.
fn clone_fresh_ids(src: &str, start: usize, end: usize, out: &mut FileEdits) {
    let Some(tree) = crate::instrument::frontend::kit::parse(Lang::Java, src, None) else {
        return;
    };
    let mut calls = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.end_byte() <= start || n.start_byte() >= end {
            continue;
        }
        if n.start_byte() >= start && n.end_byte() <= end && is_super_clone(n, src) {
            calls.push((n.start_byte(), n.end_byte()));
        }
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
    }
    calls.sort_unstable();
    for (at, to) in calls {
        out.insertions
            .push(Insertion::new(at, "_revy.runtime.Rv.cloned("));
        out.insertions.push(Insertion::new(to, ")"));
    }
}

/// `super.clone()`: a call node on `super` named `clone` with no arguments.
fn is_super_clone(n: tree_sitter::Node, src: &str) -> bool {
    n.kind() == "method_invocation"
        && n.child_by_field_name("object")
            .is_some_and(|o| o.kind() == "super")
        && n.child_by_field_name("name")
            .is_some_and(|x| src.get(x.byte_range()) == Some("clone"))
        && n.child_by_field_name("arguments")
            .is_some_and(|a| a.named_child_count() == 0)
}

fn is_primitive(name: &str) -> Option<u64> {
    Lang::Java
        .spec()
        .primitive_size(name)
        .filter(|_| name != "void")
}

/// The entry call's size arguments: the primitive parameters' size as an `int` literal, then
/// up to three reference parameters by name (the runtime sizes them, in better mode only
/// while the method is not throttled); with more, the whole message-size expression (`-1L`
/// when better mode skips the walk of a throttled method's arguments).
fn size_args(mode: Mode, m: &MethodDecl, mid: u32) -> SizeArgs {
    let mut constant = 0u64;
    let mut refs = Vec::new();
    for p in &m.params {
        match is_primitive(&p.ty.name) {
            Some(s) if p.ty.dims == 0 && !p.varargs => constant += s,
            _ => refs.push(p.name.clone()),
        }
    }
    if refs.len() <= 3 && constant <= i32::MAX as u64 {
        let mut out = constant.to_string();
        for r in &refs {
            out.push_str(", ");
            out.push_str(r);
        }
        return SizeArgs::Split(out);
    }
    let helper = match mode {
        Mode::Better => "_revy.runtime.Rv.size",
        Mode::Faster => "_revy.runtime.Rv.sizeFast",
    };
    let mut out = format!("{constant}L");
    for r in &refs {
        out.push_str(&format!(" + {helper}({r})"));
    }
    if mode == Mode::Better {
        out = format!("(_revy.runtime.Rv.sized({mid}) ? {out} : -1L)");
    }
    SizeArgs::Whole(out)
}

/// How an entry call gets its message size.
enum SizeArgs {
    /// The primitive parameters' size and the reference parameters, sized by the runtime.
    Split(String),
    /// The size as one `long` expression.
    Whole(String),
}

impl JavaAnnotator {
    /// Probes one class: its object-ID field, then its selected methods.
    fn annotate_class(
        &self,
        cx: &Context,
        file: &FileModel,
        src: &str,
        c: &ClassDecl,
        out: &mut FileEdits,
    ) {
        let own_field = insert_oid_field(cx, file, c, out);
        let class = ClassProbes {
            cx,
            file,
            src,
            c,
            own_field,
        };
        for m in &c.methods {
            class.annotate_method(m, out);
        }
    }
}

/// Gives a selected class or enum its object-ID field (or notes that its objects get
/// non-intrusive IDs); returns the class's SAF entry when it has the field.
fn insert_oid_field<'a>(
    cx: &Context<'a>,
    file: &FileModel,
    c: &ClassDecl,
    out: &mut FileEdits,
) -> Option<&'a SafClass> {
    let sc = cx.class(&c.qname);
    let own_field = sc.filter(|s| has_field(s) && c.not_annotatable.is_none());
    if let Some(s) = own_field {
        let name = oid_field_name(cx, s);
        let init = match field_ancestor(cx.saf, s) {
            Some(sup) => format!("_revy.runtime.Rv.inherited(this, {})", sup.id),
            None => format!("_revy.runtime.Rv.created(this, {})", s.id),
        };
        // An enum without `;` after its constants gets one before `}`.
        let (at, semi) = match c.members_at {
            Some(at) => (at, false),
            None => (c.body.end - 1, true),
        };
        let text = format!(
            "{}private final transient long {name} = {init}; ",
            if semi { "; " } else { " " }
        );
        out.insertions.push(Insertion::new(at, text));
        out.classes += 1;
    } else if let Some(s) = cx.selected_class(&c.qname) {
        if !takes_field(s.kind) && s.kind != ClassKind::Annotation {
            out.notes.push(format!(
                "{}:{}: {} {}: non-intrusive object IDs (identity weak map; creation logged on first call)",
                file.path,
                c.span.line,
                format!("{:?}", s.kind).to_lowercase(),
                c.qname
            ));
            out.classes += 1;
        }
    }
    own_field
}

/// A class whose methods are being probed, with what every probe needs to know about it.
struct ClassProbes<'a> {
    cx: &'a Context<'a>,
    file: &'a FileModel,
    src: &'a str,
    c: &'a ClassDecl,
    /// The class's SAF entry when it has its own object-ID field.
    own_field: Option<&'a SafClass>,
}

impl ClassProbes<'_> {
    /// Wraps a selected method's body in `Rv.enter`/`try … finally Rv.exit`: one int local
    /// (the call's token) and one small call per exit, as javac copies the finally to each.
    fn annotate_method(&self, m: &MethodDecl, out: &mut FileEdits) {
        let Some((mid, body)) = self.body_to_probe(m, out) else {
            return;
        };
        let src = self.src;
        let body_text = &src[body.start..body.end];
        let local = fresh_name("_rv$o", |n| body_text.contains(n));
        if self.own_field.is_some() && m.name == "clone" && m.params.is_empty() {
            clone_fresh_ids(src, body.start, body.end, out);
        }
        let start = m.entry.unwrap_or(body.start + 1);
        let args = match (self.receiver(m), size_args(self.cx.mode, m, mid)) {
            (None, SizeArgs::Split(size)) => format!("{mid}, {size}"),
            (None, SizeArgs::Whole(size)) => format!("{mid}, 0L, null, {size}"),
            (Some(recv), SizeArgs::Split(size) | SizeArgs::Whole(size)) => {
                format!("{mid}, {recv}, {size}")
            }
        };
        let key = self.remote_key(m, mid);
        out.insertions.push(Insertion::new(
            start,
            format!(" final int {local} = _revy.runtime.Rv.enter({args}); try {{{key}"),
        ));
        out.insertions.push(Insertion::new(
            body.end - 1,
            format!("}} finally {{ _revy.runtime.Rv.exit({local}); }} "),
        ));
        out.methods += 1;
    }

    /// The SAF id and body of a method to probe; `None` for one that is not selected or has
    /// no body to probe (noting why a selected one is skipped).
    fn body_to_probe(&self, m: &MethodDecl, out: &mut FileEdits) -> Option<(u32, Span)> {
        let (cx, path, qname) = (self.cx, &self.file.path, &self.c.qname);
        let Some(sm) = cx.selected_method(qname, path, m) else {
            if let Some(sm) = cx.method(qname, path, m) {
                if sm.selected && !sm.annotatable && sm.has_body {
                    if let Some(r) = &sm.reason {
                        self.skip(m, r, out);
                    }
                }
            }
            return None;
        };
        let body = m.body?;
        if m.flags.is_abstract || m.flags.is_native {
            return None;
        }
        if let Some(r) = &m.not_annotatable {
            self.skip(m, r, out);
            return None;
        }
        Some((sm.id, body))
    }

    /// For a `[[remote]]` client or server method, the statement logging its key's hash
    /// (` if (req != null) Rv.key(MID, req.id);`); else nothing.
    fn remote_key(&self, m: &MethodDecl, mid: u32) -> String {
        let (cx, qname) = (self.cx, &self.c.qname);
        let Some(sm) = cx.selected_method(qname, &self.file.path, m) else {
            return String::new();
        };
        let Some(path) = (cx.remote.iter()).find_map(|r| r.key_of(qname, &sm.name, &sm.sgn)) else {
            return String::new();
        };
        let path = path.1;
        let guards: Vec<String> = (1..path.len())
            .map(|k| format!("{} != null", path[..k].join(".")))
            .collect();
        let call = format!("_revy.runtime.Rv.key({mid}, {});", path.join("."));
        if guards.is_empty() {
            format!(" {call}")
        } else {
            format!(" if ({}) {call}", guards.join(" && "))
        }
    }

    /// Notes why a selected method is left as it is.
    fn skip(&self, m: &MethodDecl, why: &str, out: &mut FileEdits) {
        out.skipped.push(format!(
            "{}:{}: {}.{} — {why}",
            self.file.path, m.span.line, self.c.qname, m.name
        ));
    }

    /// The entry call's receiver arguments, `ID_FIELD, this` (`0L, this` in classes without
    /// the field: the runtime's identity map); `None` in static methods.
    fn receiver(&self, m: &MethodDecl) -> Option<String> {
        let c = self.c;
        // Methods of enum-constant bodies live in anonymous subclasses, which do not
        // inherit the enum's private ID field: they read it through a cast (the body is
        // inside the enum, so private access is allowed).
        let in_constant =
            c.kind == ClassKind::Enum && m.span.start < c.members_at.unwrap_or(c.body.end);
        if m.flags.is_static {
            None
        } else if let Some(s) = self.own_field {
            let this = if in_constant {
                format!("(({}) this)", c.name)
            } else {
                "this".to_string()
            };
            // 0 after deserialisation (the field is transient): a fresh ID then.
            Some(format!("{this}.{}, this", oid_field_name(self.cx, s)))
        } else {
            Some("0L, this".to_string())
        }
    }
}

impl LangAnnotator for JavaAnnotator {
    fn lang(&self) -> Lang {
        Lang::Java
    }

    fn annotate_file(&self, cx: &Context, file: &FileModel, src: &str) -> FileEdits {
        let mut out = FileEdits::default();
        if src.contains(MARK) {
            out.skipped.push(format!(
                "{}:1: the file already holds Revy probes (`{MARK}`); restore it first",
                file.path
            ));
            return out;
        }
        for c in &file.classes {
            self.annotate_class(cx, file, src, c, &mut out);
        }
        out
    }

    fn runtime_files(
        &self,
        cx: &Context,
        annotated: &[&FileModel],
    ) -> Result<Vec<(String, Vec<u8>)>> {
        if annotated.is_empty() {
            return Ok(Vec::new());
        }
        let root = (annotated.iter())
            .find_map(|f| source_root(&f.path, f.package.as_deref()))
            .unwrap_or_default();
        let dir = if root.is_empty() {
            "_revy/runtime".to_string()
        } else {
            format!("{root}/_revy/runtime")
        };
        let mut files: Vec<(String, Vec<u8>)> = (Lang::Java.spec().runtime.iter())
            .map(|(n, t)| (format!("{dir}/{n}"), t.as_bytes().to_vec()))
            .collect();
        files.push((format!("{dir}/RvTable.java"), table_source(cx).into_bytes()));
        Ok(files)
    }
}

/// The source root of a file: its folder minus the package's folders (`src/bank/A.java`
/// with `package bank;` → `src`). `None` when the folders do not match the package.
pub(crate) fn source_root(rel: &str, package: Option<&str>) -> Option<String> {
    let dir = rel.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
    let Some(pkg) = package else {
        return Some(dir.to_string());
    };
    let pdir = pkg.replace('.', "/");
    if dir == pdir {
        return Some(String::new());
    }
    dir.strip_suffix(&format!("/{pdir}")).map(str::to_string)
}

/// A Java string literal for `s`: ASCII only (other characters as `\uXXXX`), so the file
/// compiles whatever `-encoding` the user's build passes.
fn java_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            ' '..='~' => out.push(ch),
            _ => {
                let mut buf = [0u16; 2];
                for u in ch.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{:04x}", u));
                }
            }
        }
    }
    out.push('"');
    out
}

/// The generated `RvTable.java`: settings plus the class and method tables as text lines
/// (`C id qname size oidfield` / `M id cid name sgn`, tab-separated), chunked to stay under
/// the class-file constant limits.
pub(crate) fn table_source(cx: &Context) -> String {
    let saf = cx.saf;
    let (lines, max_c, max_m) = table_lines(cx);
    let data = table_data(lines);
    let project = project_name(&cx.trace.project);
    format!(
        "// Generated by `revy annotate` ({mode} mode); removed by `revy restore`.\n\
         package _revy.runtime;\n\n\
         final class RvTable {{\n    private RvTable() {{\n    }}\n\n\
         \x20   static final String PROJECT = {project};\n\
         \x20   static final String DIR = {dir};\n\
         \x20   static final long MAX_SIZE = {max}L;\n\
         \x20   static final long THROTTLE_CALLS = {tcalls}L;\n\
         \x20   static final long THROTTLE_NS = {tns}L;\n\
         \x20   static final boolean BETTER = {better};\n\
         \x20   static final long POINTER = {ptr}L;\n\
         \x20   static final long SYSTEM = {sys}L;\n\
         \x20   static final long SAMPLE = {sample}L;\n\
         \x20   static final int CLASSES = {nc};\n\
         \x20   static final int METHODS = {nm};\n\
         \x20   static final String[] DATA = {{\n{data}    }};\n}}\n",
        mode = cx.mode,
        project = java_str(&project),
        dir = java_str(&cx.trace.dir.to_string_lossy()),
        max = cx.trace.max_size,
        tcalls = cx.trace.throttle_calls,
        tns = cx.trace.throttle_ns,
        better = cx.mode == Mode::Better,
        ptr = saf.sizes.pointer,
        sys = saf.sizes.system,
        sample = saf.sizes.collection_sample,
        nc = max_c + 1,
        nm = max_m + 1,
        data = data.concat(),
    )
}

/// The table's lines — each Java class, then its selected annotatable methods — and the
/// highest class and method ids.
fn table_lines(cx: &Context) -> (Vec<String>, u32, u32) {
    let mut lines = Vec::new();
    let mut max_c = 0u32;
    let mut max_m = 0u32;
    let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
    for c in cx.saf.classes.iter().filter(|c| c.lang == Lang::Java) {
        max_c = max_c.max(c.id);
        let field = if has_field(c) {
            oid_field_name(cx, c)
        } else {
            String::new()
        };
        lines.push(format!(
            "C\t{}\t{}\t{}\t{}\n",
            c.id,
            clean(&c.qname),
            c.static_size,
            field
        ));
        for m in &c.methods {
            max_m = max_m.max(m.id);
            if m.selected && m.annotatable {
                lines.push(format!(
                    "M\t{}\t{}\t{}\t{}\n",
                    m.id,
                    c.id,
                    clean(&m.name),
                    clean(&m.sgn)
                ));
            }
        }
    }
    (lines, max_c, max_m)
}

/// The `DATA` array's elements: the lines joined into string literals of about 8000
/// characters at most, so none exceeds the class file's limit on a constant.
fn table_data(lines: Vec<String>) -> Vec<String> {
    let mut chunks: Vec<String> = Vec::new();
    let mut cur = String::new();
    for l in lines {
        if cur.len() + l.len() > 8000 && !cur.is_empty() {
            chunks.push(std::mem::take(&mut cur));
        }
        cur.push_str(&l);
    }
    if !cur.is_empty() {
        chunks.push(cur);
    }
    chunks
        .iter()
        .map(|c| format!("        {},\n", java_str(c)))
        .collect()
}

/// The project's name with characters other than letters, digits, `-`, `_` and `.` replaced
/// by `_`.
fn project_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_roots_follow_packages() {
        assert_eq!(source_root("src/bank/A.java", Some("bank")).unwrap(), "src");
        assert_eq!(source_root("bank/A.java", Some("bank")).unwrap(), "");
        assert_eq!(
            source_root("src/main/java/a/b/A.java", Some("a.b")).unwrap(),
            "src/main/java"
        );
        assert_eq!(source_root("src/A.java", None).unwrap(), "src");
        assert!(source_root("src/x/A.java", Some("bank")).is_none());
        let model = crate::instrument::frontend::java::parse_java(
            "A.java",
            "/* c */ package  a . b ;\nclass A {}",
        );
        assert_eq!(model.package.as_deref(), Some("a.b"));
    }

    #[test]
    fn java_strings_are_ascii() {
        assert_eq!(
            java_str("a\"\\\té😀"),
            "\"a\\\"\\\\\\t\\u00e9\\ud83d\\ude00\""
        );
    }
}
