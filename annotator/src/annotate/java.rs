//! Java annotation: insertions for selected classes and methods.
//!
//! Generated code shape (all on the line it is inserted into, so line numbers in stack
//! traces do not move):
//!
//! - a selected class or enum gets one field right after its body's `{` (for enums, after
//!   the constant list): `private final transient long _rv$oid = revy.runtime.Rv.created(this, CID);`
//!   in the topmost selected class of a hierarchy, `…Rv.inherited(this, SUPER_CID);` below it
//!   (creation is logged once per object, with its runtime class). `private transient` keeps
//!   the default serialVersionUID unchanged; no methods, interfaces or static initialisers
//!   are added.
//! - a selected method's body `{ … }` becomes
//!   `{ revy.runtime.Rv.start(MID, OID, SIZE); try { … } finally { revy.runtime.Rv.end(MID, OID); } }`
//!   (constructors: after `this(…)`/`super(…)`), so every exit — returns after their value is
//!   computed, falling off the end, exceptions — logs the end. OID is a local read once:
//!   `Rv.oid(this._rv$oid, this)` (0 after deserialisation, as the field is transient: a
//!   fresh ID then) or `Rv.oidOf(this)` for classes without the field.
//! - `super.clone()` in a selected class's `clone()` becomes `Rv.cloned(super.clone())`:
//!   `Object.clone` copies the ID field, the clone gets a new ID and creation entry.
//! - methods of enum-constant bodies are the enum's; they read the field through a cast.
//! - class names, static sizes and method names/signatures live in the generated
//!   `revy/runtime/RvTable.java`, indexed by SAF id, written next to the runtime sources
//!   under the source root.

use std::collections::HashSet;

use super::{Context, FileEdits, LangAnnotator};
use crate::edits::Insertion;
use crate::error::{Error, Result};
use crate::manifest::Mode;
use crate::model::{ClassDecl, ClassKind, FileModel, Lang, MethodDecl, MethodKind};
use crate::saf::{Saf, SafClass};

pub struct JavaAnnotator;

/// The runtime sources, embedded in the binary.
const RUNTIME: &[(&str, &str)] = &[
    (
        "Rv.java",
        include_str!("../../../runtime-java/src/revy/runtime/Rv.java"),
    ),
    (
        "RvBuf.java",
        include_str!("../../../runtime-java/src/revy/runtime/RvBuf.java"),
    ),
    (
        "RvClasses.java",
        include_str!("../../../runtime-java/src/revy/runtime/RvClasses.java"),
    ),
    (
        "RvIds.java",
        include_str!("../../../runtime-java/src/revy/runtime/RvIds.java"),
    ),
    (
        "RvSize.java",
        include_str!("../../../runtime-java/src/revy/runtime/RvSize.java"),
    ),
    (
        "RvTrace.java",
        include_str!("../../../runtime-java/src/revy/runtime/RvTrace.java"),
    ),
];

/// Text that marks a file as already annotated.
const MARK: &str = "revy.runtime.Rv.";

/// Whether a class of this kind can take the object-ID field.
fn takes_field(kind: ClassKind) -> bool {
    matches!(kind, ClassKind::Class | ClassKind::Enum)
}

/// The name of the object-ID field of a class: `_rv$oid`, or `_rv$oidN` when the class
/// already declares a field of that name. Derived from the SAF alone so the table and the
/// inserted code agree.
pub fn oid_field_name(c: &SafClass) -> String {
    let taken: HashSet<&str> = c.fields.iter().map(|f| f.name.as_str()).collect();
    let mut name = "_rv$oid".to_string();
    let mut n = 1;
    while taken.contains(name.as_str()) {
        name = format!("_rv$oid{n}");
        n += 1;
    }
    name
}

/// The class with its own object-ID field, if `c` is one.
fn has_field(c: &SafClass) -> bool {
    c.selected && c.annotatable && takes_field(c.kind) && c.lang == Lang::Java
}

/// Resolves a superclass name as written (`Base`, `pkg.Base`, `Outer.Base`) against the SAF.
fn resolve_super<'a>(saf: &'a Saf, from: &SafClass, name: &str) -> Option<&'a SafClass> {
    let java = |c: &&SafClass| c.lang == Lang::Java;
    if let Some(c) = saf.classes.iter().filter(java).find(|c| c.qname == name) {
        return Some(c);
    }
    // Enclosing scopes: Outer.Inner, then the package.
    let mut scope = from.qname.as_str();
    while let Some((outer, _)) = scope.rsplit_once('.') {
        let cand = format!("{outer}.{name}");
        if let Some(c) = saf.classes.iter().filter(java).find(|c| c.qname == cand) {
            return Some(c);
        }
        scope = outer;
    }
    let suffix = format!(".{name}");
    let mut hits = saf
        .classes
        .iter()
        .filter(java)
        .filter(|c| c.qname.ends_with(&suffix));
    let first = hits.next()?;
    if hits.next().is_some() {
        return None;
    }
    Some(first)
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

/// Wraps each `super.clone()` in `clone()`'s body so the clone gets its own object ID
/// (`Object.clone` copies the ID field).
fn clone_fresh_ids(src: &str, start: usize, end: usize, out: &mut FileEdits) {
    let body = &src[start..end];
    for (i, _) in body.match_indices("super.clone()") {
        let at = start + i;
        if src[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '.')
        {
            continue;
        }
        out.insertions
            .push(Insertion::new(at, "revy.runtime.Rv.cloned("));
        out.insertions
            .push(Insertion::new(at + "super.clone()".len(), ")"));
    }
}

fn is_primitive(name: &str) -> Option<u64> {
    Some(match name {
        "boolean" | "byte" => 1,
        "char" | "short" => 2,
        "int" | "float" => 4,
        "long" | "double" => 8,
        _ => return None,
    })
}

/// The message-size expression of a parameter list.
fn size_expr(mode: Mode, m: &MethodDecl) -> String {
    let helper = match mode {
        Mode::Better => "revy.runtime.Rv.size",
        Mode::Faster => "revy.runtime.Rv.sizeFast",
    };
    let mut constant = 0u64;
    let mut parts = Vec::new();
    for p in &m.params {
        match is_primitive(&p.ty.name) {
            Some(s) if p.ty.dims == 0 && !p.varargs => constant += s,
            _ => parts.push(format!("{helper}({})", p.name)),
        }
    }
    let mut out = format!("{constant}L");
    for p in parts {
        out.push_str(" + ");
        out.push_str(&p);
    }
    out
}

/// A local name of the form `base`, `base1`, … that does not occur in `text`.
fn fresh(text: &str, base: &str) -> String {
    let mut name = base.to_string();
    let mut n = 1;
    while text.contains(&name) {
        name = format!("{base}{n}");
        n += 1;
    }
    name
}

fn parse_tree(src: &str) -> Option<tree_sitter::Tree> {
    let mut p = tree_sitter::Parser::new();
    p.set_language(&tree_sitter_java::LANGUAGE.into()).ok()?;
    p.parse(src, None)
}

/// The node spanning exactly `start..end`, if any.
fn node_at(tree: &tree_sitter::Tree, start: usize, end: usize) -> Option<tree_sitter::Node<'_>> {
    let mut n = tree.root_node().descendant_for_byte_range(start, end)?;
    loop {
        if n.start_byte() == start && n.end_byte() == end {
            return Some(n);
        }
        n = n.parent()?;
        if n.start_byte() < start || n.end_byte() > end {
            return None;
        }
    }
}

/// Where the field goes: just after `{`, or for enums after the constants' `;` (the second
/// element says whether a `;` must be written first).
fn field_offset(tree: Option<&tree_sitter::Tree>, c: &ClassDecl) -> (usize, bool) {
    let after_brace = c.body.start + 1;
    if c.kind != ClassKind::Enum {
        return (after_brace, false);
    }
    let Some(body) = tree.and_then(|t| node_at(t, c.body.start, c.body.end)) else {
        return (c.body.end - 1, true);
    };
    let mut cur = body.walk();
    for ch in body.children(&mut cur) {
        if ch.kind() == "enum_body_declarations" {
            // starts with `;`
            return (ch.start_byte() + 1, false);
        }
    }
    (c.body.end - 1, true)
}

/// Where the start log goes: after `{`, or after an explicit `this(…)`/`super(…)`.
fn start_offset(
    tree: Option<&tree_sitter::Tree>,
    m: &MethodDecl,
    body_start: usize,
    body_end: usize,
) -> usize {
    if m.kind == MethodKind::Constructor {
        if let Some(body) = tree.and_then(|t| node_at(t, body_start, body_end)) {
            let mut cur = body.walk();
            for ch in body.named_children(&mut cur) {
                if ch.kind() == "explicit_constructor_invocation" {
                    return ch.end_byte();
                }
                if ch.kind() != "line_comment" && ch.kind() != "block_comment" {
                    break;
                }
            }
        }
    }
    body_start + 1
}

impl JavaAnnotator {
    fn annotate_class(
        &self,
        cx: &Context,
        file: &FileModel,
        src: &str,
        tree: Option<&tree_sitter::Tree>,
        c: &ClassDecl,
        out: &mut FileEdits,
    ) {
        let sc = cx.class(&c.qname);
        let own_field = sc.filter(|s| has_field(s) && c.not_annotatable.is_none());
        if let Some(s) = own_field {
            let name = oid_field_name(s);
            let init = match field_ancestor(cx.saf, s) {
                Some(sup) => format!("revy.runtime.Rv.inherited(this, {})", sup.id),
                None => format!("revy.runtime.Rv.created(this, {})", s.id),
            };
            let (at, semi) = field_offset(tree, c);
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
        for m in &c.methods {
            let Some(sm) = cx.selected_method(&c.qname, &file.path, m) else {
                if let Some(sm) = cx.method(&c.qname, &file.path, m) {
                    if sm.selected && !sm.annotatable && sm.has_body {
                        if let Some(r) = &sm.reason {
                            out.skipped.push(format!(
                                "{}:{}: {}.{} — {r}",
                                file.path, m.span.line, c.qname, m.name
                            ));
                        }
                    }
                }
                continue;
            };
            let Some(body) = m.body else { continue };
            if m.flags.is_abstract || m.flags.is_native {
                continue;
            }
            if let Some(r) = &m.not_annotatable {
                out.skipped.push(format!(
                    "{}:{}: {}.{} — {r}",
                    file.path, m.span.line, c.qname, m.name
                ));
                continue;
            }
            let body_text = &src[body.start..body.end];
            // Methods of enum-constant bodies live in anonymous subclasses, which do not
            // inherit the enum's private ID field: they read it through a cast (the body is
            // inside the enum, so private access is allowed).
            let in_constant = c.kind == ClassKind::Enum && m.span.start < field_offset(tree, c).0;
            let local = fresh(body_text, "_rv$o");
            if own_field.is_some() && m.name == "clone" && m.params.is_empty() {
                clone_fresh_ids(src, body.start, body.end, out);
            }
            let (pre, oid) = if m.flags.is_static {
                (String::new(), "0L".to_string())
            } else if let Some(s) = own_field {
                let this = if in_constant {
                    format!("(({}) this)", c.name)
                } else {
                    "this".to_string()
                };
                // 0 after deserialisation (the field is transient): a fresh ID then.
                let field = format!("{this}.{}", oid_field_name(s));
                (
                    format!("final long {local} = revy.runtime.Rv.oid({field}, this); "),
                    local,
                )
            } else {
                (
                    format!("final long {local} = revy.runtime.Rv.oidOf(this); "),
                    local,
                )
            };
            let start = start_offset(tree, m, body.start, body.end);
            let size = size_expr(cx.mode, m);
            out.insertions.push(Insertion::new(
                start,
                format!(
                    " {pre}revy.runtime.Rv.start({}, {oid}, {size}); try {{",
                    sm.id
                ),
            ));
            out.insertions.push(Insertion::new(
                body.end - 1,
                format!("}} finally {{ revy.runtime.Rv.end({}, {oid}); }} ", sm.id),
            ));
            out.methods += 1;
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
        let tree = parse_tree(src);
        for c in &file.classes {
            self.annotate_class(cx, file, src, tree.as_ref(), c, &mut out);
        }
        out
    }

    fn runtime_files(&self, cx: &Context, annotated: &[String]) -> Result<Vec<(String, String)>> {
        if annotated.is_empty() {
            return Ok(Vec::new());
        }
        let mut root = None;
        for rel in annotated {
            let text = std::fs::read_to_string(cx.root.join(rel))
                .map_err(|e| Error::io(cx.root.join(rel), e))?;
            if let Some(r) = source_root(rel, package_of(&text).as_deref()) {
                root = Some(r);
                break;
            }
        }
        let root = root.unwrap_or_default();
        let dir = if root.is_empty() {
            "revy/runtime".to_string()
        } else {
            format!("{root}/revy/runtime")
        };
        let mut files: Vec<(String, String)> = RUNTIME
            .iter()
            .map(|(n, t)| (format!("{dir}/{n}"), t.to_string()))
            .collect();
        files.push((format!("{dir}/RvTable.java"), table_source(cx)));
        Ok(files)
    }
}

/// The package a Java file declares (comments skipped), if any.
pub fn package_of(src: &str) -> Option<String> {
    let tree = parse_tree(src)?;
    let root = tree.root_node();
    let mut cur = root.walk();
    for ch in root.named_children(&mut cur) {
        if ch.kind() == "package_declaration" {
            let mut c2 = ch.walk();
            for n in ch.named_children(&mut c2) {
                if n.kind() == "scoped_identifier" || n.kind() == "identifier" {
                    return Some(
                        src[n.byte_range()]
                            .chars()
                            .filter(|c| !c.is_whitespace())
                            .collect(),
                    );
                }
            }
        }
    }
    None
}

/// The source root of a file: its folder minus the package's folders (`src/bank/A.java`
/// with `package bank;` → `src`). `None` when the folders do not match the package.
pub fn source_root(rel: &str, package: Option<&str>) -> Option<String> {
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
pub fn table_source(cx: &Context) -> String {
    let saf = cx.saf;
    let mut lines = Vec::new();
    let mut max_c = 0u32;
    let mut max_m = 0u32;
    let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
    for c in saf.classes.iter().filter(|c| c.lang == Lang::Java) {
        max_c = max_c.max(c.id);
        let field = if has_field(c) {
            oid_field_name(c)
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
    let data: Vec<String> = chunks
        .iter()
        .map(|c| format!("        {},\n", java_str(c)))
        .collect();
    let project: String = cx
        .trace
        .project
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!(
        "// Generated by `revy annotate` ({mode} mode); removed by `revy restore`.\n\
         package revy.runtime;\n\n\
         final class RvTable {{\n    private RvTable() {{\n    }}\n\n\
         \x20   static final String PROJECT = {project};\n\
         \x20   static final String DIR = {dir};\n\
         \x20   static final long MAX_SIZE = {max}L;\n\
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
        better = cx.mode == Mode::Better,
        ptr = saf.sizes.pointer,
        sys = saf.sizes.system,
        sample = saf.sizes.collection_sample,
        nc = max_c + 1,
        nm = max_m + 1,
        data = data.concat(),
    )
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
        assert_eq!(
            package_of("/* c */ package  a . b ;\nclass A {}").as_deref(),
            Some("a.b")
        );
    }

    #[test]
    fn java_strings_are_ascii() {
        assert_eq!(
            java_str("a\"\\\té😀"),
            "\"a\\\"\\\\\\t\\u00e9\\ud83d\\ude00\""
        );
    }
}
