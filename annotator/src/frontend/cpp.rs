//! The Cpp front end (tree-sitter-cpp).
//!
//! Walks the declaration level of the syntax tree only (namespaces, classes, members,
//! out-of-class definitions); function bodies are never descended into except for a cheap
//! text scan for preprocessor directives. When the first parse has errors, stand-alone macro
//! invocations without `;` (`Q_OBJECT`, `DISALLOW_COPY(Foo)`) and export macros in class heads
//! (`class DLL_EXPORT Foo`) are blanked out with spaces (byte offsets unchanged) and the file is
//! parsed again; the better of the parses is kept.

use std::cell::RefCell;

use tree_sitter::{Node, Parser, Tree};

use super::{line_col, span_of};
use crate::model::{
    ClassDecl, ClassKind, Diagnostic, FieldDecl, FileModel, Frontend, Lang, MethodDecl,
    MethodFlags, MethodKind, Param, Span, TypeRef,
};

pub struct CppFrontend;

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Deepest nesting of declaration scopes we follow (guards the recursion).
const MAX_DEPTH: usize = 256;
/// Diagnostics reported per file for syntax errors (all are still attributed).
const MAX_ERROR_DIAGS: usize = 100;
/// Rounds of macro blanking + reparse.
const MAX_BLANK_ROUNDS: usize = 3;

fn parse_tree(src: &str, old: Option<&Tree>) -> Option<Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut p = Parser::new();
            p.set_language(&tree_sitter_cpp::LANGUAGE.into()).ok()?;
            *slot = Some(p);
        }
        slot.as_mut()?.parse(src, old)
    })
}

impl Frontend for CppFrontend {
    fn lang(&self) -> Lang {
        Lang::Cpp
    }
    fn parse(&self, path: &str, src: &str) -> FileModel {
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parse_file(path, src)));
        match run {
            Ok(m) => m,
            Err(_) => FileModel {
                path: path.to_string(),
                diagnostics: vec![Diagnostic {
                    path: path.to_string(),
                    line: 1,
                    col: 1,
                    message: "internal error in the C++ front end; file not modelled".into(),
                }],
                ..Default::default()
            },
        }
    }
}

fn parse_file(path: &str, src: &str) -> FileModel {
    let mut model = FileModel {
        path: path.to_string(),
        ..Default::default()
    };
    let Some(mut tree) = parse_tree(src, None) else {
        model.diagnostics.push(Diagnostic {
            path: path.to_string(),
            line: 1,
            col: 1,
            message: "parser failed".into(),
        });
        return model;
    };
    let mut text: std::borrow::Cow<str> = std::borrow::Cow::Borrowed(src);
    let mut macro_diags = Vec::new();
    if tree.root_node().has_error() {
        let mut errors = count_errors(tree.root_node());
        for _ in 0..MAX_BLANK_ROUNDS {
            let regions = macro_candidates(&text, tree.root_node());
            if regions.is_empty() {
                break;
            }
            let mut bytes = text.as_bytes().to_vec();
            for &(s, e) in &regions {
                for b in &mut bytes[s..e] {
                    if *b != b'\n' {
                        *b = b' ';
                    }
                }
            }
            let Ok(blanked) = String::from_utf8(bytes) else {
                break;
            };
            // Same length, same newlines: an in-place edit, so reparse incrementally.
            let mut edited = tree.clone();
            let nls: Vec<usize> = memchr_all(text.as_bytes());
            for &(s, e) in &regions {
                let start = point_of(&nls, s);
                let end = point_of(&nls, e);
                edited.edit(&tree_sitter::InputEdit {
                    start_byte: s,
                    old_end_byte: e,
                    new_end_byte: e,
                    start_position: start,
                    old_end_position: end,
                    new_end_position: end,
                });
            }
            let Some(t2) = parse_tree(&blanked, Some(&edited)) else {
                break;
            };
            let e2 = count_errors(t2.root_node());
            if e2 > errors {
                break;
            }
            for &(s, e) in &regions {
                let (line, col) = line_col_of(src, s);
                let name: String = src[s..e]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                macro_diags.push(Diagnostic {
                    path: path.to_string(),
                    line,
                    col,
                    message: format!("note: macro invocation `{name}` ignored (not modelled)"),
                });
            }
            errors = e2;
            tree = t2;
            text = std::borrow::Cow::Owned(blanked);
            if errors == 0 {
                break;
            }
        }
    }
    let mut w = Walker {
        src: &text,
        path,
        model,
        too_deep: None,
    };
    let mut ns = Vec::new();
    w.scope(tree.root_node(), &mut ns, 0);
    let mut model = w.model;
    if let Some((line, col)) = w.too_deep {
        model.diagnostics.push(Diagnostic {
            path: path.to_string(),
            line,
            col,
            message: format!(
                "declarations nested more than {MAX_DEPTH} deep are not listed (from here on)"
            ),
        });
    }
    model.diagnostics.extend(macro_diags);
    attribute_errors(&mut model, tree.root_node(), path);
    model
}

fn memchr_all(b: &[u8]) -> Vec<usize> {
    b.iter()
        .enumerate()
        .filter(|(_, &c)| c == b'\n')
        .map(|(i, _)| i)
        .collect()
}

/// Row/column of byte `pos` given the sorted newline offsets.
fn point_of(nls: &[usize], pos: usize) -> tree_sitter::Point {
    let row = nls.partition_point(|&nl| nl < pos);
    let column = if row == 0 {
        pos
    } else {
        pos - nls[row - 1] - 1
    };
    tree_sitter::Point { row, column }
}

fn line_col_of(src: &str, pos: usize) -> (u32, u32) {
    let before = &src.as_bytes()[..pos.min(src.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
    let col = match before.iter().rposition(|&b| b == b'\n') {
        Some(nl) => pos - nl,
        None => pos + 1,
    } as u32;
    (line, col)
}

// ---------------------------------------------------------------------------------------
// Errors

struct ErrorSite {
    pos: usize,
    missing: bool,
    line: u32,
    col: u32,
    message: String,
}

fn for_each_error(root: Node, mut f: impl FnMut(Node)) {
    if !root.has_error() {
        return;
    }
    let mut c = root.walk();
    loop {
        let n = c.node();
        if n.is_error() || n.is_missing() {
            f(n);
        }
        if n.has_error() && c.goto_first_child() {
            continue;
        }
        loop {
            if c.goto_next_sibling() {
                break;
            }
            if !c.goto_parent() {
                return;
            }
        }
    }
}

fn count_errors(root: Node) -> usize {
    let mut n = 0;
    for_each_error(root, |_| n += 1);
    n
}

fn attribute_errors(model: &mut FileModel, root: Node, path: &str) {
    let mut sites = Vec::new();
    for_each_error(root, |n| {
        let (line, col) = line_col(n.start_position());
        let message = if n.is_missing() {
            format!("missing '{}'", n.kind())
        } else {
            "syntax error".to_string()
        };
        sites.push(ErrorSite {
            pos: n.start_byte(),
            missing: n.is_missing(),
            line,
            col,
            message,
        });
    });
    let total = sites.len();
    for (i, s) in sites.iter().enumerate() {
        if i < MAX_ERROR_DIAGS {
            model.diagnostics.push(Diagnostic {
                path: path.to_string(),
                line: s.line,
                col: s.col,
                message: s.message.clone(),
            });
        }
        let inside =
            |sp: &Span| s.pos >= sp.start && (s.pos < sp.end || (s.missing && s.pos == sp.end));
        let reason = format!("{} at {}:{}", s.message, s.line, s.col);
        // Smallest enclosing method.
        let mut best: Option<(usize, Option<usize>, usize)> = None; // (len, class idx, method idx)
        for (ci, c) in model.classes.iter().enumerate() {
            if !inside(&c.span) {
                continue;
            }
            for (mi, m) in c.methods.iter().enumerate() {
                if inside(&m.span) {
                    let len = m.span.end - m.span.start;
                    if best.is_none_or(|b| len < b.0) {
                        best = Some((len, Some(ci), mi));
                    }
                }
            }
        }
        for (mi, (_, m)) in model.out_of_class.iter().enumerate() {
            if inside(&m.span) {
                let len = m.span.end - m.span.start;
                if best.is_none_or(|b| len < b.0) {
                    best = Some((len, None, mi));
                }
            }
        }
        if let Some((_, ci, mi)) = best {
            let m = match ci {
                Some(ci) => &mut model.classes[ci].methods[mi],
                None => &mut model.out_of_class[mi].1,
            };
            if m.not_annotatable.is_none() {
                m.not_annotatable = Some(reason);
            }
            continue;
        }
        // Smallest enclosing class: only its head or a field declaration count.
        let mut best_c: Option<(usize, usize)> = None;
        for (ci, c) in model.classes.iter().enumerate() {
            if inside(&c.span) {
                let len = c.span.end - c.span.start;
                if best_c.is_none_or(|b| len < b.0) {
                    best_c = Some((len, ci));
                }
            }
        }
        if let Some((_, ci)) = best_c {
            let c = &mut model.classes[ci];
            let in_body = s.pos > c.body.start && s.pos < c.body.end;
            let in_field = c.fields.iter().any(|f| inside(&f.span));
            if (!in_body || in_field) && c.not_annotatable.is_none() {
                c.not_annotatable = Some(reason);
            }
        }
    }
    if total > MAX_ERROR_DIAGS {
        let (line, col) = sites
            .get(MAX_ERROR_DIAGS)
            .map(|s| (s.line, s.col))
            .unwrap_or((1, 1));
        model.diagnostics.push(Diagnostic {
            path: path.to_string(),
            line,
            col,
            message: format!("{} more syntax errors", total - MAX_ERROR_DIAGS),
        });
    }
}

// ---------------------------------------------------------------------------------------
// Macro blanking

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// An identifier at `i` in upper case (macro style): `Q_OBJECT`, `DISALLOW_COPY`.
fn macro_ident(b: &[u8], i: usize) -> Option<usize> {
    if i >= b.len() || !(b[i].is_ascii_uppercase() || b[i] == b'_') {
        return None;
    }
    let mut j = i;
    while j < b.len() && is_ident_byte(b[j]) {
        j += 1;
    }
    let id = &b[i..j];
    if id.len() < 2
        || id.iter().any(|c| c.is_ascii_lowercase())
        || !id.iter().any(|c| c.is_ascii_uppercase())
    {
        return None;
    }
    Some(j)
}

/// End of a balanced `( ... )` starting at `i`, skipping string and char literals.
fn match_parens(b: &[u8], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut k = i;
    let limit = (i + 8192).min(b.len());
    while k < limit {
        match b[k] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k + 1);
                }
            }
            q @ (b'"' | b'\'') => {
                k += 1;
                while k < limit && b[k] != q {
                    if b[k] == b'\\' {
                        k += 1;
                    }
                    k += 1;
                }
            }
            _ => {}
        }
        k += 1;
    }
    None
}

/// Skips whitespace and comments from `i`.
fn skip_ws_comments(b: &[u8], mut i: usize) -> usize {
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            match b[i + 2..].windows(2).position(|w| w == b"*/") {
                Some(p) => i = i + 2 + p + 2,
                None => return b.len(),
            }
        } else {
            return i;
        }
    }
}

/// Whether the line before `ls` ends a declaration (so a new one may start at `ls`).
fn prev_line_ok(b: &[u8], ls: usize) -> bool {
    let mut end = ls;
    loop {
        if end == 0 {
            return true;
        }
        let start = b[..end - 1]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |p| p + 1);
        let line = b[start..end - 1].trim_ascii();
        if line.is_empty() {
            end = start;
            continue;
        }
        if line.starts_with(b"//")
            || line.starts_with(b"#")
            || line.starts_with(b"*")
            || line.starts_with(b"/*")
            || line.ends_with(b"*/")
        {
            return true;
        }
        return matches!(line.last(), Some(b';' | b'{' | b'}' | b':' | b')'));
    }
}

const SCOPE_KINDS: &[&str] = &[
    "field_declaration_list",
    "declaration_list",
    "translation_unit",
];
const REJECT_KINDS: &[&str] = &[
    "compound_statement",
    "parameter_list",
    "argument_list",
    "initializer_list",
    "enumerator_list",
    "template_argument_list",
    "template_parameter_list",
    "condition_clause",
    "field_initializer_list",
    "preproc_arg",
    "preproc_def",
    "preproc_function_def",
    "string_literal",
    "raw_string_literal",
    "char_literal",
    "comment",
];

/// Whether the token at `s..e` sits at declaration scope in a member that has an error.
fn at_scope_with_error(root: Node, s: usize, e: usize) -> bool {
    let Some(mut n) = root.descendant_for_byte_range(s, e) else {
        return false;
    };
    let mut saw_error = n.is_error() || n.has_error();
    loop {
        let k = n.kind();
        if REJECT_KINDS.contains(&k) {
            return false;
        }
        let Some(p) = n.parent() else {
            return saw_error;
        };
        if SCOPE_KINDS.contains(&p.kind()) {
            return saw_error || n.has_error() || n.is_error();
        }
        saw_error |= p.is_error();
        n = p;
    }
}

fn macro_candidates(text: &str, root: Node) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut ls = 0usize;
    while ls < b.len() {
        let next_ls = b[ls..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |p| ls + p + 1);
        let mut i = ls;
        while i < next_ls && (b[i] == b' ' || b[i] == b'\t') {
            i += 1;
        }
        if let Some(j) = macro_ident(b, i) {
            if let Some(region) = standalone_macro(b, ls, i, j) {
                if at_scope_with_error(root, i, j) {
                    out.push(region);
                }
            } else {
                // A specifier macro opening a declaration: `TINYXML2_PRIVATE void f();`.
                let mut k = j;
                while k < next_ls && (b[k] == b' ' || b[k] == b'\t') {
                    k += 1;
                }
                if k > j
                    && k < next_ls
                    && (b[k].is_ascii_alphabetic() || b[k] == b'_' || b[k] == b'~')
                    && at_scope_with_error(root, i, j)
                {
                    out.push((i, j));
                }
            }
        }
        ls = next_ls;
    }
    // Trailing annotation macros after a declarator: `Status Recover(VersionEdit* e)
    // EXCLUSIVE_LOCKS_REQUIRED(mutex_);`, `MemTable* imm_ GUARDED_BY(mutex_);` (leveldb).
    let mut i = 0usize;
    while i < b.len() {
        if !(b[i].is_ascii_uppercase() || b[i] == b'_') || (i > 0 && is_ident_byte(b[i - 1])) {
            i += 1;
            continue;
        }
        let Some(j) = macro_ident(b, i) else {
            i += 1;
            continue;
        };
        let mut end = j;
        let mut k2 = j;
        while k2 < b.len() && (b[k2] == b' ' || b[k2] == b'\t') {
            k2 += 1;
        }
        if k2 < b.len() && b[k2] == b'(' {
            if let Some(e) = match_parens(b, k2) {
                end = e;
            }
        }
        // Before: `)` or an identifier (a declarator, `const`, `override`); after: `;`, `{`,
        // `=`, `,` or another such macro.
        let mut p = i;
        while p > 0 && matches!(b[p - 1], b' ' | b'\t' | b'\n' | b'\r') {
            p -= 1;
        }
        let before_ok = p > 0 && p < i && (b[p - 1] == b')' || is_ident_byte(b[p - 1]));
        let n = skip_ws_comments(b, end);
        let after_ok = n < b.len()
            && (matches!(b[n], b';' | b'{' | b'=' | b',' | b':') || macro_ident(b, n).is_some());
        // The parse error may sit just before the macro (`)` then a MISSING `;`).
        let near_error = root
            .descendant_for_byte_range(p.saturating_sub(1), end)
            .is_some_and(|n| n.has_error());
        if before_ok && after_ok && end > j && near_error {
            out.push((i, end));
        }
        i = end.max(i + 1);
    }
    // `class DLL_EXPORT Foo [final] {` / `:`
    let mut k = 0usize;
    while let Some(p) = find_class_kw(b, k) {
        let (kw_end, next) = p;
        k = next;
        let i = skip_ws_comments(b, kw_end);
        let Some(j) = macro_ident(b, i) else { continue };
        let n = skip_ws_comments(b, j);
        if n >= b.len() || !(b[n].is_ascii_alphabetic() || b[n] == b'_') {
            continue;
        }
        let mut m = n;
        while m < b.len() && is_ident_byte(b[m]) {
            m += 1;
        }
        if &b[n..m] == b"final" {
            continue;
        }
        let mut q = skip_ws_comments(b, m);
        if b[q..].starts_with(b"final") {
            q = skip_ws_comments(b, q + 5);
        }
        if q < b.len() && (b[q] == b'{' || (b[q] == b':' && b.get(q + 1) != Some(&b':'))) {
            out.push((i, j));
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Finds the next `class`/`struct`/`union` keyword at or after `from`: (end of keyword, resume).
fn find_class_kw(b: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut i = from;
    while i < b.len() {
        let c = b[i];
        if c == b'c' || c == b's' || c == b'u' {
            for kw in [&b"class"[..], b"struct", b"union"] {
                if b[i..].starts_with(kw)
                    && (i == 0 || !is_ident_byte(b[i - 1]))
                    && b.get(i + kw.len())
                        .is_some_and(|&d| d == b' ' || d == b'\t')
                {
                    return Some((i + kw.len(), i + kw.len()));
                }
            }
        }
        i += 1;
    }
    None
}

/// A macro invocation standing alone on its line(s): `IDENT` or `IDENT(...)`, nothing after it
/// on the line but a comment, and the next token starting a new member.
fn standalone_macro(b: &[u8], ls: usize, i: usize, j: usize) -> Option<(usize, usize)> {
    let mut k = j;
    while k < b.len() && (b[k] == b' ' || b[k] == b'\t') {
        k += 1;
    }
    let end = if k < b.len() && b[k] == b'(' {
        match_parens(b, k)?
    } else {
        j
    };
    let mut m = end;
    while m < b.len() && (b[m] == b' ' || b[m] == b'\t' || b[m] == b'\r') {
        m += 1;
    }
    if b[m..].starts_with(b"//") {
        while m < b.len() && b[m] != b'\n' {
            m += 1;
        }
    }
    if m < b.len() && b[m] != b'\n' {
        return None;
    }
    let n = skip_ws_comments(b, m);
    if n < b.len() {
        let c = b[n];
        let ok = c.is_ascii_alphabetic()
            || c == b'_'
            || c == b'~'
            || c == b'#'
            || c == b'}'
            || b[n..].starts_with(b"[[");
        if !ok {
            return None;
        }
        let mut t = n;
        while t < b.len() && is_ident_byte(b[t]) {
            t += 1;
        }
        let word = &b[n..t];
        const CONT: &[&[u8]] = &[
            b"noexcept",
            b"override",
            b"final",
            b"try",
            b"throw",
            b"requires",
        ];
        if CONT.contains(&word) {
            return None;
        }
    }
    if !prev_line_ok(b, ls) {
        return None;
    }
    Some((i, end))
}

// ---------------------------------------------------------------------------------------
// Text helpers

/// Collapses whitespace and drops it around `::`.
fn norm(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    for ch in s.chars() {
        if ch.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space
            && !out.ends_with("::")
            && ch != ':'
            && !out.ends_with('<')
            && ch != '>'
            && ch != ','
        {
            out.push(' ');
        }
        pending_space = false;
        out.push(ch);
    }
    out
}

/// Removes template argument lists (`std::vector<int>` -> `std::vector`), normalised.
fn strip_targs(s: &str) -> String {
    if !s.contains('<') {
        return norm(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut depth = 0usize;
    for ch in s.chars() {
        match ch {
            '<' => depth += 1,
            '>' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(ch),
            _ => {}
        }
    }
    norm(&out)
}

fn children<'t>(n: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    let mut c = n.walk();
    let v: Vec<Node<'t>> = n.children(&mut c).collect();
    v.into_iter()
}

fn field<'t>(n: Node<'t>, name: &str) -> Option<Node<'t>> {
    n.child_by_field_name(name)
}

fn is_class_spec(k: &str) -> bool {
    matches!(
        k,
        "class_specifier" | "struct_specifier" | "union_specifier"
    )
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

// ---------------------------------------------------------------------------------------
// Declarators

#[derive(Default)]
struct Decor {
    pointers: u32,
    reference: Option<&'static str>,
    dims: Vec<String>,
    /// `= value` of an init declarator.
    value: Option<String>,
    variadic: bool,
}

/// Unwraps pointer/reference/array/init declarators down to the named part (or a function
/// declarator), collecting the decorations.
fn unwrap_decl<'t>(src: &str, mut n: Option<Node<'t>>, d: &mut Decor) -> Option<Node<'t>> {
    for _ in 0..64 {
        let node = n?;
        match node.kind() {
            "pointer_declarator" | "abstract_pointer_declarator" => {
                d.pointers += 1;
                n = field(node, "declarator");
                n?;
            }
            "reference_declarator" | "abstract_reference_declarator" => {
                let mut refk = "&";
                let mut inner = None;
                for c in children(node) {
                    match c.kind() {
                        "&&" => refk = "&&",
                        "&" => {}
                        _ if c.is_named() => inner = Some(c),
                        _ => {}
                    }
                }
                d.reference = Some(refk);
                n = inner;
                inner?;
            }
            "array_declarator" | "abstract_array_declarator" => {
                let size = field(node, "size").map(|s| txt(src, s)).unwrap_or("");
                d.dims.insert(0, format!("[{size}]"));
                n = field(node, "declarator");
                n?;
            }
            "init_declarator" => {
                d.value = field(node, "value").map(|v| norm(txt(src, v)));
                n = field(node, "declarator");
            }
            "variadic_declarator" => {
                d.variadic = true;
                n = node.named_child(0);
                n?;
            }
            "attributed_declarator" => n = node.named_child(0),
            _ => return Some(node),
        }
    }
    None
}

fn txt<'a>(src: &'a str, n: Node) -> &'a str {
    src.get(n.byte_range()).unwrap_or("")
}

/// The simple name of a declarator's name node.
fn name_of(src: &str, n: Node) -> String {
    match n.kind() {
        "destructor_name" => norm(txt(src, n)).replace(' ', ""),
        "operator_name" => op_name(txt(src, n)),
        "template_function" | "template_method" => field(n, "name")
            .map(|x| norm(txt(src, x)))
            .unwrap_or_default(),
        "parenthesized_declarator" => {
            let mut d = Decor::default();
            let mut cur = n.walk();
            let inner = n.named_children(&mut cur).filter(|c| !c.is_error()).last();
            unwrap_decl(src, inner, &mut d)
                .map(|x| name_of(src, x))
                .unwrap_or_default()
        }
        _ => norm(txt(src, n)),
    }
}

fn op_name(s: &str) -> String {
    let rest = norm(s.trim_start_matches("operator"));
    if rest.starts_with(|c: char| c.is_alphabetic()) {
        format!("operator {rest}")
    } else {
        format!("operator{}", rest.replace(' ', ""))
    }
}

// ---------------------------------------------------------------------------------------
// The walk

struct Walker<'a> {
    src: &'a str,
    path: &'a str,
    model: FileModel,
    /// Where nesting first went past MAX_DEPTH (reported, never silent).
    too_deep: Option<(u32, u32)>,
}

/// Template prefix of a declaration.
#[derive(Default, Clone)]
struct Tmpl<'t> {
    /// Parameters of the outermost `template<...>` list.
    params: Vec<String>,
    any: bool,
    /// The outermost template_declaration (span start).
    outer: Option<Node<'t>>,
}

/// What a class body's members need to know.
struct ClassCtx {
    idx: usize,
    name: String,
    qname: String,
    in_template: bool,
}

/// Information about a function declarator.
struct FnInfo<'t> {
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

    /// Declaration scope: translation unit, namespace bodies, preprocessor blocks, ERROR.
    fn scope(&mut self, node: Node, ns: &mut Vec<String>, depth: usize) {
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

    fn scope_item<'t>(&mut self, c: Node<'t>, ns: &mut Vec<String>, tmpl: &Tmpl<'t>, depth: usize) {
        if self.too_deep(c, depth) {
            return;
        }
        match c.kind() {
            "namespace_definition" => {
                let mut pushed = 0;
                let is_inline = children(c).any(|x| x.kind() == "inline");
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
            "linkage_specification" => {
                if let Some(body) = field(c, "body") {
                    if body.kind() == "declaration_list" {
                        self.scope(body, ns, depth + 1);
                    } else {
                        self.scope_item(body, ns, tmpl, depth + 1);
                    }
                }
            }
            "template_declaration" => {
                let t2 = self.push_template(c, tmpl);
                for x in children(c) {
                    if x.kind() != "template_parameter_list" {
                        self.scope_item(x, ns, &t2, depth + 1);
                    }
                }
            }
            k if is_class_spec(k) => {
                let prefix = Self::ns_prefix(ns);
                self.class(c, &prefix, None, tmpl, false, None, depth);
            }
            "declaration" | "type_definition" => {
                if let Some(ty) = field(c, "type") {
                    if is_class_spec(ty.kind()) {
                        let tdname = if c.kind() == "type_definition" {
                            field(c, "declarator").map(|d| norm(self.t(d)))
                        } else {
                            None
                        };
                        let prefix = Self::ns_prefix(ns);
                        self.class(ty, &prefix, None, tmpl, false, tdname.as_deref(), depth);
                    }
                }
                if c.kind() == "declaration" {
                    // Out-of-class `= default` / `= delete` definitions.
                    for d in children(c) {
                        if d.kind() == "init_declarator" {
                            self.out_of_class(c, d, ns, tmpl);
                        }
                    }
                }
            }
            "function_definition" => {
                if let Some(d) = field(c, "declarator") {
                    self.out_of_class(c, d, ns, tmpl);
                }
            }
            "preproc_if" | "preproc_ifdef" | "preproc_else" | "preproc_elif"
            | "preproc_elifdef" | "ERROR" => {
                self.scope(c, ns, depth + 1);
            }
            _ => {}
        }
    }

    fn push_template<'t>(&self, td: Node<'t>, outer: &Tmpl<'t>) -> Tmpl<'t> {
        let mut t = outer.clone();
        if !t.any {
            t.params = field(td, "parameters")
                .map(|pl| {
                    let mut cur = pl.walk();
                    pl.named_children(&mut cur)
                        .filter(|p| p.kind() != "comment")
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
        if def.kind() == "declaration" {
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
        let (mut name_node, fdecl) = match inner.kind() {
            "function_declarator" => (field(inner, "declarator")?, Some(inner)),
            "operator_cast" | "qualified_identifier" => (inner, None),
            _ => return None,
        };
        let mut scopes = Vec::new();
        let mut global = false;
        for _ in 0..32 {
            if name_node.kind() != "qualified_identifier" {
                break;
            }
            match field(name_node, "scope") {
                Some(s) => scopes.push(strip_targs(self.t(s))),
                None => global = true,
            }
            name_node = field(name_node, "name")?;
        }
        let (name, kind, fdecl, cast_type, cast_decl) = match name_node.kind() {
            "operator_cast" => {
                let ty = field(name_node, "type");
                let cd = field(name_node, "declarator");
                let mut d = Decor::default();
                let af = unwrap_decl(self.src, cd, &mut d);
                let fd = af.filter(|a| a.kind() == "abstract_function_declarator");
                let mut tyname = String::new();
                for q in children(name_node) {
                    if q.kind() == "type_qualifier"
                        && q.end_byte() <= ty.map_or(0, |t| t.start_byte())
                    {
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
            "destructor_name" => (
                name_of(self.src, name_node),
                MethodKind::Destructor,
                fdecl,
                None,
                None,
            ),
            "operator_name" => (
                name_of(self.src, name_node),
                MethodKind::Operator,
                fdecl,
                None,
                None,
            ),
            "identifier" | "field_identifier" | "template_function" | "template_method"
            | "type_identifier" => (
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

    fn type_ref(&self, holder: Node, ty: Option<Node>, d: &Decor) -> TypeRef {
        let Some(ty) = ty else {
            return TypeRef::default();
        };
        let mut quals = Vec::new();
        for c in children(holder) {
            if c.kind() == "type_qualifier" {
                let q = self.t(c);
                if q == "const" || q == "volatile" {
                    quals.push(q);
                }
            }
        }
        let name = match ty.kind() {
            k if is_class_spec(k) || k == "enum_specifier" => field(ty, "name")
                .map(|n| strip_targs(self.t(n)))
                .unwrap_or_else(|| "(anonymous)".into()),
            "dependent_type" => strip_targs(self.t(ty).trim_start_matches("typename")),
            "placeholder_type_specifier" | "decltype" => norm(self.t(ty)),
            _ => strip_targs(self.t(ty)),
        };
        let base = if is_class_spec(ty.kind()) || ty.kind() == "enum_specifier" {
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
            match p.kind() {
                "parameter_declaration"
                | "optional_parameter_declaration"
                | "variadic_parameter_declaration" => {
                    let mut d = Decor::default();
                    let mut inner = unwrap_decl(self.src, field(p, "declarator"), &mut d);
                    if let Some(f) = inner.filter(|n| n.kind() == "function_declarator") {
                        // A function pointer parameter `void (*f)(int)`: its name is inside.
                        inner = unwrap_decl(self.src, field(f, "declarator"), &mut d);
                        d.pointers += 1;
                    }
                    let name = inner.map(|n| name_of(self.src, n)).unwrap_or_default();
                    let ty = self.type_ref(p, field(p, "type"), &d);
                    out.push(Param {
                        name,
                        ty,
                        varargs: d.variadic || p.kind() == "variadic_parameter_declaration",
                    });
                }
                "..." => out.push(Param {
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
        let mut body = None;
        let mut not_annotatable = None;
        let mut eq_zero = false;
        let mut saw_eq = false;
        for c in children(def) {
            match c.kind() {
                "storage_class_specifier" | "type_qualifier" => match self.t(c) {
                    "static" => flags.is_static = true,
                    "constexpr" => flags.is_constexpr = true,
                    "consteval" => flags.is_consteval = true,
                    _ => {}
                },
                "virtual" => flags.is_virtual = true,
                "default_method_clause" => flags.is_defaulted = true,
                "delete_method_clause" => flags.is_deleted = true,
                "=" => saw_eq = true,
                "number_literal" if saw_eq && self.t(c) == "0" => eq_zero = true,
                "compound_statement" => body = Some(c),
                "try_statement" => {
                    body = field(c, "body");
                    not_annotatable = Some("function-try-block".to_string());
                }
                _ => {}
            }
        }
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
        let mut trailing = None;
        if let Some(fd) = info.fdecl {
            for c in children(fd) {
                match c.kind() {
                    "type_qualifier" if self.t(c) == "const" => flags.is_const = true,
                    "noexcept" => {
                        let t: String = self.t(c).chars().filter(|c| !c.is_whitespace()).collect();
                        flags.is_noexcept = t != "noexcept(false)";
                    }
                    "virtual_specifier" => match self.t(c) {
                        "override" => flags.is_override = true,
                        "final" => {
                            flags.is_final = true;
                            flags.is_override = true;
                        }
                        _ => {}
                    },
                    "trailing_return_type" => trailing = c.named_child(0),
                    _ => {}
                }
            }
        }
        let mut kind = info.kind;
        if kind == MethodKind::Method && class_name == Some(info.name.as_str()) {
            kind = MethodKind::Constructor;
        }
        let ret = match kind {
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
        };
        let params = info.fdecl.map(|fd| self.params(fd)).unwrap_or_default();
        let body_span = body.map(span_of);
        if not_annotatable.is_none() {
            if let Some(b) = body {
                if has_preproc(self.t(b)) {
                    not_annotatable = Some("preprocessor directive inside body".to_string());
                }
            }
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
            not_annotatable,
        })
    }

    /// A class/struct/union specifier with a body. Returns the class index.
    #[allow(clippy::too_many_arguments)]
    fn class<'t>(
        &mut self,
        spec: Node<'t>,
        prefix: &str,
        outer: Option<&ClassCtx>,
        tmpl: &Tmpl<'t>,
        _friend: bool,
        typedef_name: Option<&str>,
        depth: usize,
    ) -> Option<usize> {
        let body = field(spec, "body")?;
        let kind = match spec.kind() {
            "struct_specifier" => ClassKind::Struct,
            "union_specifier" => ClassKind::Union,
            _ => ClassKind::Class,
        };
        let mut specialization = None;
        let mut quals: Vec<String> = Vec::new();
        let name = match field(spec, "name") {
            Some(mut n) => {
                for _ in 0..32 {
                    if n.kind() != "qualified_identifier" {
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
                if n.kind() == "template_type" {
                    specialization = field(n, "arguments").map(|a| norm(self.t(a)));
                    field(n, "name")
                        .map(|x| norm(self.t(x)))
                        .unwrap_or_default()
                } else {
                    norm(self.t(n))
                }
            }
            None => typedef_name?.to_string(),
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
        let outer_name = if outer.is_some() || !quals.is_empty() {
            outer_q.filter(|_| outer.is_some() || !quals.is_empty())
        } else {
            None
        };
        let mut supers = Vec::new();
        for c in children(spec) {
            if c.kind() == "base_class_clause" {
                for b in children(c) {
                    if matches!(
                        b.kind(),
                        "type_identifier" | "qualified_identifier" | "template_type"
                    ) {
                        supers.push(strip_targs(self.t(b)));
                    }
                }
            }
        }
        let type_params = if tmpl.any {
            tmpl.params.clone()
        } else {
            Vec::new()
        };
        let in_template = !type_params.is_empty() || outer.is_some_and(|o| o.in_template);
        let span_node = tmpl.outer.unwrap_or(spec);
        let idx = self.model.classes.len();
        self.model.classes.push(ClassDecl {
            name: name.clone(),
            qname: qname.clone(),
            kind,
            is_abstract: false,
            is_static: false,
            is_local: false,
            outer: outer_name,
            supers,
            interfaces: Vec::new(),
            type_params,
            specialization,
            fields: Vec::new(),
            methods: Vec::new(),
            file: self.path.to_string(),
            span: span_of(span_node),
            body: span_of(body),
            not_annotatable: None,
        });
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
        let is_template = cls.in_template || tmpl.any;
        match c.kind() {
            "function_definition" | "field_declaration" | "declaration" => {
                // A function (definition or declaration)?
                let decls: Vec<Node> = {
                    let mut cur = c.walk();
                    c.children_by_field_name("declarator", &mut cur).collect()
                };
                if decls.len() == 1 {
                    if let Some(info) = self.fn_info(decls[0]) {
                        if !info.scopes.is_empty() {
                            return; // qualified friend etc.
                        }
                        if friend && c.kind() != "function_definition" {
                            return; // friend declaration only
                        }
                        let span_node = tmpl.outer.unwrap_or(c);
                        let span_node = if friend {
                            span_node
                                .parent()
                                .filter(|p| p.kind() == "friend_declaration")
                                .unwrap_or(span_node)
                        } else {
                            span_node
                        };
                        if let Some(m) = self.method(
                            c,
                            decls[0],
                            info,
                            Some(&cls.name),
                            is_template,
                            span_node,
                            friend,
                        ) {
                            self.model.classes[cls.idx].methods.push(m);
                        }
                        return;
                    }
                }
                if friend || c.kind() == "function_definition" {
                    return;
                }
                let ty = field(c, "type");
                if let Some(t) = ty {
                    if is_class_spec(t.kind()) {
                        let q = cls.qname.clone();
                        self.class(t, &q, Some(cls), tmpl, false, None, depth);
                    }
                }
                let mut is_static = false;
                let mut is_const = false;
                for x in children(c) {
                    match (x.kind(), self.t(x)) {
                        ("storage_class_specifier", "static") => is_static = true,
                        ("type_qualifier", "const" | "constexpr") => is_const = true,
                        _ => {}
                    }
                }
                for d in decls {
                    let mut dec = Decor::default();
                    let inner = unwrap_decl(self.src, Some(d), &mut dec);
                    let Some(inner) = inner else { continue };
                    let (name, fptr) = match inner.kind() {
                        "field_identifier" | "identifier" => (norm(self.t(inner)), false),
                        "function_declarator" => {
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
                        tr.text = norm(
                            &self.src[ty.map_or(d.start_byte(), |t| t.start_byte())..d.end_byte()],
                        );
                    }
                    self.model.classes[cls.idx].fields.push(FieldDecl {
                        name,
                        ty: tr,
                        is_static,
                        is_final: is_static && is_const,
                        span: span_of(c),
                    });
                }
            }
            "template_declaration" => {
                let t2 = self.push_template(c, tmpl);
                for x in children(c) {
                    if x.kind() != "template_parameter_list" {
                        self.member(x, cls, &t2, friend, depth + 1);
                    }
                }
            }
            "friend_declaration" => {
                for x in children(c) {
                    if x.kind() == "function_definition" {
                        self.member(x, cls, tmpl, true, depth + 1);
                    }
                }
            }
            k if is_class_spec(k) => {
                let q = cls.qname.clone();
                self.class(c, &q, Some(cls), tmpl, false, None, depth);
            }
            "preproc_if" | "preproc_ifdef" | "preproc_else" | "preproc_elif"
            | "preproc_elifdef" | "ERROR" => {
                self.members(c, cls, depth + 1);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
#[path = "cpp_tests.rs"]
mod tests;
