//! The tree-sitter machinery every front end shares: one parser pool, node kind and field
//! ids looked up once per grammar, cursor-based child iteration that does not allocate, and
//! one policy for syntax errors (messages, a cap on diagnostics, a panic guard).
//!
//! Front ends keep only what is specific to their language: the walk that builds the model
//! and the rule that charges an error to a declaration.

use std::cell::RefCell;
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::num::NonZeroU16;
use std::sync::OnceLock;

use tree_sitter::{Language, Node, Parser, Tree, TreeCursor};

use super::line_col;
use crate::instrument::lang::LangSpec;
use crate::instrument::model::{Diagnostic, FileModel, Lang, Severity};

thread_local! {
    /// One parser per language per thread (parsers are not `Sync`; rayon threads each get
    /// their own on first use).
    static PARSERS: RefCell<HashMap<Lang, Parser>> = RefCell::new(HashMap::new());
}

fn new_parser(lang: Lang) -> Option<Parser> {
    let mut p = Parser::new();
    p.set_language(&(LangSpec::of(lang).grammar)()).ok()?;
    Some(p)
}

/// Parses `src` with this thread's parser for `lang`; `old` is an edited previous tree for
/// an incremental reparse. `None` only if the grammar cannot be loaded.
pub fn parse(lang: Lang, src: &str, old: Option<&Tree>) -> Option<Tree> {
    PARSERS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut pool) => {
            let parser = match pool.entry(lang) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => e.insert(new_parser(lang)?),
            };
            parser.parse(src, old)
        }
        // Re-entrant use (a parse inside a parse): a throwaway parser.
        Err(_) => new_parser(lang)?.parse(src, old),
    })
}

/// Node kind and field ids of one grammar, looked up once (tree-sitter's own lookups by
/// name scan the grammar's tables on every call).
pub struct Grammar {
    kinds: HashMap<&'static str, u16>,
    fields: HashMap<&'static str, NonZeroU16>,
}

impl Grammar {
    fn new(language: &Language) -> Grammar {
        let mut kinds = HashMap::new();
        for id in 0..language.node_kind_count() as u16 {
            if let Some(name) = language.node_kind_for_id(id) {
                if language.node_kind_is_named(id) {
                    // First id wins: the named kind, as `id_for_node_kind(name, true)`.
                    kinds.entry(name).or_insert(id);
                }
            }
        }
        let mut fields = HashMap::new();
        for id in 1..=language.field_count() as u16 {
            if let (Some(name), Some(nz)) = (language.field_name_for_id(id), NonZeroU16::new(id)) {
                fields.insert(name, nz);
            }
        }
        Grammar { kinds, fields }
    }

    /// The id of a named node kind; `u16::MAX` (matches no node) if the grammar lacks it.
    pub fn kind(&self, name: &str) -> u16 {
        self.kinds.get(name).copied().unwrap_or(u16::MAX)
    }

    /// The id of a field, if the grammar has it.
    pub fn field(&self, name: &str) -> Option<NonZeroU16> {
        self.fields.get(name).copied()
    }

    /// `node`'s child in field `name`.
    pub fn child<'t>(&self, node: Node<'t>, name: &str) -> Option<Node<'t>> {
        node.child_by_field_id(self.field(name)?.get())
    }
}

/// A front end's own enum of the node kinds it tests, indexed by kind id: built once per
/// grammar, so a kind test is an index, never a string compare. Every id bearing a listed
/// name gets its value (named and anonymous alike, aliases included: the same nodes as
/// comparing `kind()` with the name); anything else, ERROR nodes too, gets `other`.
pub struct KindTable<K: Copy> {
    by_id: Vec<K>,
    other: K,
}

impl<K: Copy> KindTable<K> {
    pub fn new(lang: Lang, names: &[(&str, K)], other: K) -> Self {
        let language = (LangSpec::of(lang).grammar)();
        let by_id = (0..language.node_kind_count() as u16)
            .map(|id| {
                let name = language.node_kind_for_id(id);
                names
                    .iter()
                    .find(|(n, _)| Some(*n) == name)
                    .map_or(other, |(_, k)| *k)
            })
            .collect();
        KindTable { by_id, other }
    }

    /// `n`'s value.
    pub fn of(&self, n: Node) -> K {
        self.by_id
            .get(n.kind_id() as usize)
            .copied()
            .unwrap_or(self.other)
    }
}

/// The cached [`Grammar`] of a language.
pub fn grammar(lang: Lang) -> &'static Grammar {
    static GRAMMARS: [OnceLock<Grammar>; 2] = [OnceLock::new(), OnceLock::new()];
    let spec = LangSpec::of(lang);
    GRAMMARS[lang as usize].get_or_init(|| Grammar::new(&(spec.grammar)()))
}

/// Iterates over a node's children with one cursor, without collecting them.
pub struct Children<'t> {
    cursor: TreeCursor<'t>,
    started: bool,
    done: bool,
    named_only: bool,
}

impl<'t> Iterator for Children<'t> {
    type Item = Node<'t>;
    fn next(&mut self) -> Option<Node<'t>> {
        loop {
            if self.done {
                return None;
            }
            let moved = if self.started {
                self.cursor.goto_next_sibling()
            } else {
                self.started = true;
                self.cursor.goto_first_child()
            };
            if !moved {
                self.done = true;
                return None;
            }
            let n = self.cursor.node();
            if !self.named_only || n.is_named() {
                return Some(n);
            }
        }
    }
}

/// All children of `n`.
pub fn children(n: Node<'_>) -> Children<'_> {
    Children {
        cursor: n.walk(),
        started: false,
        done: false,
        named_only: false,
    }
}

/// The named children of `n`.
pub fn named_children(n: Node<'_>) -> Children<'_> {
    Children {
        named_only: true,
        ..children(n)
    }
}

/// Whether [`for_each_error`] also reports errors nested inside an ERROR node. Java reports
/// the outermost only; C++ counts nested ones too, because its macro blanking compares
/// error counts between parses and charges errors by position.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Nested {
    Skip,
    Report,
}

/// Calls `f` on every ERROR and MISSING node, in source order, descending only into
/// subtrees that contain errors.
pub fn for_each_error(root: Node, nested: Nested, mut f: impl FnMut(Node)) {
    if !root.has_error() {
        return;
    }
    let mut c = root.walk();
    loop {
        let n = c.node();
        if n.is_error() || n.is_missing() {
            f(n);
        }
        let descend = n.has_error() && (nested == Nested::Report || !n.is_error());
        if descend && c.goto_first_child() {
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

/// The number of ERROR and MISSING nodes (to compare two parses of one file).
pub fn count_errors(root: Node, nested: Nested) -> usize {
    let mut n = 0;
    for_each_error(root, nested, |_| n += 1);
    n
}

/// Syntax-error diagnostics reported per file (every error is still charged to its
/// declaration; the rest are summed up in one line).
pub const MAX_ERROR_DIAGS: usize = 100;

/// One ERROR or MISSING node, located and described.
pub struct ErrorSite {
    pub pos: usize,
    pub missing: bool,
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl ErrorSite {
    pub fn new(n: Node, src: &str) -> ErrorSite {
        let (line, col) = line_col(n.start_position());
        ErrorSite {
            pos: n.start_byte(),
            missing: n.is_missing(),
            line,
            col,
            message: error_message(n, src),
        }
    }

    /// The `not_annotatable` reason for the declaration this error spoils.
    pub fn reason(&self) -> String {
        format!("syntax error at {}:{}", self.line, self.col)
    }
}

/// The message of an ERROR (`syntax error: unexpected 'x'`) or MISSING (`missing ';'`,
/// `missing identifier`) node.
pub fn error_message(n: Node, src: &str) -> String {
    if n.is_missing() {
        return if n.is_named() {
            format!("missing {}", n.kind())
        } else {
            format!("missing '{}'", n.kind())
        };
    }
    let text = src.get(n.start_byte()..n.end_byte()).unwrap_or("");
    // Source text is hostile: no raw NUL or terminal escapes in a message.
    let snippet = crate::util::escape::escape_name(snippet(text).as_bytes());
    if snippet.is_empty() {
        "syntax error".to_string()
    } else {
        format!("syntax error: unexpected '{snippet}'")
    }
}

/// The first line of an erroneous text, trimmed and shortened, with control characters
/// (terminal escapes, NUL) and bidirectional overrides shown escaped (`\u{1b}`).
fn snippet(text: &str) -> String {
    let line = text.trim_start().lines().next().unwrap_or("").trim_end();
    let mut out = String::new();
    for (i, ch) in line.chars().enumerate() {
        if i == 40 {
            out.push('…');
            break;
        }
        out.push(ch);
    }
    crate::util::escape::escape_name(out.as_bytes())
}

/// Adds the diagnostics of `sites` to `model`, at most [`MAX_ERROR_DIAGS`] plus one line
/// counting the rest.
pub fn push_error_diags(model: &mut FileModel, sites: &[ErrorSite]) {
    for s in sites.iter().take(MAX_ERROR_DIAGS) {
        model
            .diagnostics
            .push(diag(&model.path, s.line, s.col, s.message.clone()));
    }
    if let Some(first_hidden) = sites.get(MAX_ERROR_DIAGS) {
        let message = format!("{} more syntax errors", sites.len() - MAX_ERROR_DIAGS);
        let d = diag(&model.path, first_hidden.line, first_hidden.col, message);
        model.diagnostics.push(d);
    }
}

/// A problem in `path`.
pub fn diag(path: &str, line: u32, col: u32, message: String) -> Diagnostic {
    Diagnostic {
        path: path.to_string(),
        line,
        col,
        severity: Severity::Error,
        message,
    }
}

/// A note about `path` (never a problem).
pub fn note(path: &str, line: u32, col: u32, message: String) -> Diagnostic {
    Diagnostic {
        severity: Severity::Note,
        ..diag(path, line, col, message)
    }
}

/// Runs a front end's parse, turning a panic (a bug, never the input's fault) into an
/// empty model with one diagnostic, so one bad file never stops the project's parse.
pub fn guarded(lang: Lang, path: &str, parse: impl FnOnce() -> FileModel) -> FileModel {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(parse)).unwrap_or_else(|_| {
        let name = LangSpec::of(lang).display;
        unmodelled(
            path,
            format!("internal error in the {name} front end; file not modelled"),
        )
    })
}

/// The model of a file whose grammar could not be loaded.
pub fn no_parser(lang: Lang, path: &str) -> FileModel {
    let name = LangSpec::of(lang).display;
    unmodelled(
        path,
        format!("internal error: the {name} parser could not run"),
    )
}

/// An empty model whose one diagnostic says why.
fn unmodelled(path: &str, message: String) -> FileModel {
    FileModel {
        path: path.to_string(),
        diagnostics: vec![diag(path, 1, 1, message)],
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_front_end_gives_one_diagnostic() {
        let m = guarded(Lang::Cpp, "x.cpp", || panic!("front-end bug"));
        assert_eq!(m.path, "x.cpp");
        assert!(m.classes.is_empty());
        let d: Vec<String> = m.diagnostics.iter().map(|d| d.to_string()).collect();
        assert_eq!(
            d,
            ["x.cpp:1:1: internal error in the C++ front end; file not modelled"]
        );
    }

    #[test]
    fn error_messages_and_the_cap_are_the_same_for_every_language() {
        // 150 broken lines, one error each; (language, file, line, column of the first error).
        let cases = [
            (Lang::Cpp, "t.cpp", ");", 1),
            (Lang::Java, "T.java", "class C { int ; }", 11),
        ];
        for (lang, path, line, col) in cases {
            let src = format!("{}\n", [line; 150].join("\n"));
            let tree = parse(lang, &src, None).unwrap();
            let mut sites = Vec::new();
            for_each_error(tree.root_node(), Nested::Skip, |n| {
                sites.push(ErrorSite::new(n, &src))
            });
            assert!(sites.len() > MAX_ERROR_DIAGS, "{path}: {}", sites.len());
            let mut m = FileModel {
                path: path.into(),
                ..Default::default()
            };
            push_error_diags(&mut m, &sites);
            assert_eq!(m.diagnostics.len(), MAX_ERROR_DIAGS + 1, "{path}");
            assert!(
                m.diagnostics[0].message.starts_with("syntax error"),
                "{path}"
            );
            let last = &m.diagnostics[MAX_ERROR_DIAGS].message;
            assert_eq!(
                *last,
                format!("{} more syntax errors", sites.len() - MAX_ERROR_DIAGS)
            );
            assert_eq!(
                sites[0].reason(),
                format!("syntax error at 1:{col}"),
                "{path}"
            );
        }
    }
}
