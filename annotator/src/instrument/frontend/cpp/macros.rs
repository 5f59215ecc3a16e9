//! Macro blanking: finds macro invocations that make tree-sitter-cpp fail (lone ones such as
//! `DISALLOW_COPY(X)`, export macros in class heads, specifier macros opening declarations,
//! trailing annotation macros like `GUARDED_BY(mu_)`) and blanks them with spaces (byte
//! offsets and newlines unchanged), so the file reparses without losing the class's members.

use std::borrow::Cow;

use tree_sitter::{Node, Tree};

use super::kinds::k;
use crate::instrument::frontend::kit;
use crate::instrument::model::{Diagnostic, Lang};

pub(super) fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// An identifier at `i` in upper case (macro style): `Q_OBJECT`, `DISALLOW_COPY`.
pub(super) fn macro_ident(b: &[u8], i: usize) -> Option<usize> {
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
pub(super) fn match_parens(b: &[u8], i: usize) -> Option<usize> {
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
            // A digit separator (`1'000`) opens no character literal.
            b'\'' if digit_separator(b, k) => {}
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

/// Whether the `'` at `k` separates digits (`1'000`, `0xFF'FF`) rather than opening a
/// character literal (`'x'`, `L'x'`, `u8'x'`): the token it sits in starts with a digit.
pub(super) fn digit_separator(b: &[u8], k: usize) -> bool {
    let mut s = k;
    while s > 0 && (is_ident_byte(b[s - 1]) || b[s - 1] == b'\'' || b[s - 1] == b'.') {
        s -= 1;
    }
    s < k && b[s].is_ascii_digit()
}

/// Skips whitespace and comments from `i`.
pub(super) fn skip_ws_comments(b: &[u8], mut i: usize) -> usize {
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
pub(super) fn prev_line_ok(b: &[u8], ls: usize) -> bool {
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

/// Whether the token at `s..e` sits at declaration scope in a member that has an error.
pub(super) fn at_scope_with_error(root: Node, s: usize, e: usize) -> bool {
    let Some(mut n) = root.descendant_for_byte_range(s, e) else {
        return false;
    };
    let mut saw_error = n.is_error() || n.has_error();
    loop {
        if k(n).is_reject() {
            return false;
        }
        let Some(p) = n.parent() else {
            return saw_error;
        };
        if k(p).is_scope() {
            return saw_error || n.has_error() || n.is_error();
        }
        saw_error |= p.is_error();
        n = p;
    }
}

/// Macro invocations to blank out before reparsing: (start, end) byte ranges, sorted, unique.
pub(super) fn macro_candidates(text: &str, root: Node) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    line_start_macros(b, root, &mut out);
    trailing_macros(b, root, &mut out);
    class_head_macros(b, &mut out);
    out.sort_unstable();
    out.dedup();
    out
}

/// Macros opening a line at a scope with an error: standalone ones and declaration specifiers.
fn line_start_macros(b: &[u8], root: Node, out: &mut Vec<(usize, usize)>) {
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
}

/// Trailing annotation macros after a declarator: `MemTable* imm_ GUARDED_BY(mutex_);` (leveldb).
fn trailing_macros(b: &[u8], root: Node, out: &mut Vec<(usize, usize)>) {
    let mut i = 0usize;
    while i < b.len() {
        // Never in a comment (gflags' licence: `INTERRUPTION) HOWEVER CAUSED AND ON ANY`).
        if b[i..].starts_with(b"//") || b[i..].starts_with(b"/*") {
            i = skip_ws_comments(b, i);
            continue;
        }
        if !(b[i].is_ascii_uppercase() || b[i] == b'_') || (i > 0 && is_ident_byte(b[i - 1])) {
            i += 1;
            continue;
        }
        let Some(j) = macro_ident(b, i) else {
            i += 1;
            continue;
        };
        let end = macro_call_end(b, j);
        if end > j && trailing_fits(b, root, i, end) {
            out.push((i, end));
        }
        i = end.max(i + 1);
    }
}

/// The end of a macro invocation whose name ends at `j`: after its `(...)`, if any.
fn macro_call_end(b: &[u8], j: usize) -> usize {
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
    end
}

/// Whether the macro call at `i..end` sits where a trailing annotation would, near an error.
fn trailing_fits(b: &[u8], root: Node, i: usize, end: usize) -> bool {
    // Before: `)`, `]` or an identifier (a declarator, an array's bounds, `const`,
    // `override`); after: `;`, `{`, `=`, `,` or another such macro.
    let mut p = i;
    while p > 0 && matches!(b[p - 1], b' ' | b'\t' | b'\n' | b'\r') {
        p -= 1;
    }
    let before_ok = p > 0 && p < i && (matches!(b[p - 1], b')' | b']') || is_ident_byte(b[p - 1]));
    let n = skip_ws_comments(b, end);
    let after_ok = n < b.len()
        && (matches!(b[n], b';' | b'{' | b'=' | b',' | b':') || macro_ident(b, n).is_some());
    // The parse error may sit just before the macro (`)` then a MISSING `;`).
    let near_error = root
        .descendant_for_byte_range(p.saturating_sub(1), end)
        .is_some_and(|n| n.has_error());
    before_ok && after_ok && near_error
}

/// Export macros between a class keyword and its name: `class DLL_EXPORT Foo [final] {` / `:`.
fn class_head_macros(b: &[u8], out: &mut Vec<(usize, usize)>) {
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
}

/// Finds the next `class`/`struct`/`union` keyword at or after `from`: (end of keyword, resume).
pub(super) fn find_class_kw(b: &[u8], from: usize) -> Option<(usize, usize)> {
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
pub(super) fn standalone_macro(b: &[u8], ls: usize, i: usize, j: usize) -> Option<(usize, usize)> {
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

/// Rounds of macro blanking + reparse.
const MAX_BLANK_ROUNDS: usize = 3;

/// When `tree` (the parse of `src`) has errors, blanks the macro invocations that cause
/// them and reparses, up to [`MAX_BLANK_ROUNDS`] times, keeping a round only if it does not
/// add errors. Returns the text the final tree was parsed from, the tree, and one note per
/// blanked invocation.
pub(super) fn blank_failing_macros<'s>(
    path: &str,
    src: &'s str,
    mut tree: Tree,
) -> (Cow<'s, str>, Tree, Vec<Diagnostic>) {
    let mut text = Cow::Borrowed(src);
    let mut notes = Vec::new();
    if !tree.root_node().has_error() {
        return (text, tree, notes);
    }
    let mut errors = kit::count_errors(tree.root_node(), kit::Nested::Report);
    for _ in 0..MAX_BLANK_ROUNDS {
        let regions = macro_candidates(&text, tree.root_node());
        if regions.is_empty() {
            break;
        }
        let Some(blanked) = blank(&text, &regions) else {
            break;
        };
        // Same length, same newlines: an in-place edit, so reparse incrementally.
        let mut edited = tree.clone();
        let nls: Vec<usize> = (text.bytes().enumerate())
            .filter(|(_, c)| *c == b'\n')
            .map(|(i, _)| i)
            .collect();
        for &(s, e) in &regions {
            let (start, end) = (point_of(&nls, s), point_of(&nls, e));
            edited.edit(&tree_sitter::InputEdit {
                start_byte: s,
                old_end_byte: e,
                new_end_byte: e,
                start_position: start,
                old_end_position: end,
                new_end_position: end,
            });
        }
        let Some(t2) = kit::parse(Lang::Cpp, &blanked, Some(&edited)) else {
            break;
        };
        let e2 = kit::count_errors(t2.root_node(), kit::Nested::Report);
        if e2 > errors {
            break;
        }
        for &(s, e) in &regions {
            let (line, col) = line_col_of(src, s);
            let name: String = (src[s..e].chars())
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let message = format!("macro invocation `{name}` ignored (not modelled)");
            notes.push(kit::note(path, line, col, message));
        }
        errors = e2;
        tree = t2;
        text = Cow::Owned(blanked);
        if errors == 0 {
            break;
        }
    }
    (text, tree, notes)
}

/// `text` with every region's bytes but newlines replaced by spaces.
pub(super) fn blank(text: &str, regions: &[(usize, usize)]) -> Option<String> {
    let mut bytes = text.as_bytes().to_vec();
    for &(s, e) in regions {
        for b in &mut bytes[s..e] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    String::from_utf8(bytes).ok()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// (source, the texts blanked in it, in order).
    const CASES: &[(&str, &[&str])] = &[
        // Error-free files are never touched.
        ("class A { void f() {} };\n", &[]),
        (
            "class W {\n public:\n  DISALLOW_COPY_AND_ASSIGN(W)\n  void f() {}\n};\n",
            &["DISALLOW_COPY_AND_ASSIGN(W)"],
        ),
        (
            "class W : public QObject {\n  Q_OBJECT\n public:\n  void f() {}\n};\n",
            &["Q_OBJECT"],
        ),
        (
            "class DLL_EXPORT Foo : public Bar { void f() {} };\n",
            &["DLL_EXPORT"],
        ),
        // An upper-case class name followed by `final` is no macro.
        ("class FOO final { void g() {} };\n", &[]),
        (
            "class X {\n  TINYXML2_PRIVATE void f() {}\n  int g;\n};\n",
            &["TINYXML2_PRIVATE"],
        ),
        (
            "class D {\n  int* imm_ GUARDED_BY(mu_);\n  int mu_;\n};\n",
            &["GUARDED_BY(mu_)"],
        ),
        // After an array declarator (leveldb's `stats_[config::kNumLevels] GUARDED_BY(…)`,
        // which cost `DBImpl` all its methods).
        (
            "class D {\n  int stats_[4] GUARDED_BY(mu_);\n  int mu_;\n};\n",
            &["GUARDED_BY(mu_)"],
        ),
        (
            "class D {\n  int Recover(int* e)\n      EXCLUSIVE_LOCKS_REQUIRED(mu_);\n  int mu_;\n};\n",
            &["EXCLUSIVE_LOCKS_REQUIRED(mu_)"],
        ),
        // Inside a function body a macro line is left to the parser.
        ("void f() {\n  CHECK(x)\n  int y = 0;\n}\n", &[]),
        // Nothing in a comment: gflags' licence (`DAMAGES (INCLUDING, …\n// …
        // INTERRUPTION) HOWEVER`) was blanked across lines with their `//`, and the rest of
        // the comment became code.
        (
            "// CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT\n// SERVICES) HOWEVER CAUSED AND ON ANY\nclass D {\n  int* imm_ GUARDED_BY(mu_);\n  int mu_;\n};\n",
            &["GUARDED_BY(mu_)"],
        ),
    ];

    fn blanked_texts(src: &str) -> Vec<String> {
        let tree = kit::parse(Lang::Cpp, src, None).unwrap();
        let (text, _, notes) = blank_failing_macros("t.cpp", src, tree);
        assert_eq!(text.len(), src.len(), "offsets kept");
        let (a, b) = (src.as_bytes(), text.as_bytes());
        let mut out = Vec::new();
        let mut i = 0;
        while i < a.len() {
            if a[i] == b[i] {
                i += 1;
                continue;
            }
            assert_eq!(b[i], b' ', "blanked with spaces");
            let start = i;
            while i < a.len()
                && (a[i] != b[i] || (a[i] == b' ' && i + 1 < a.len() && a[i + 1] != b[i + 1]))
            {
                i += 1;
            }
            out.push(src[start..i].to_string());
        }
        assert_eq!(notes.len(), out.len(), "one note per blanked invocation");
        out
    }

    #[test]
    fn blanks_exactly_the_failing_macro_invocations() {
        for (src, want) in CASES {
            assert_eq!(blanked_texts(src), *want, "in {src:?}");
        }
    }

    #[test]
    fn blanking_keeps_newlines_inside_regions() {
        let text = blank("A(x,\ny) z", &[(0, 7)]).unwrap();
        assert_eq!(text, "    \n   z");
    }
}
