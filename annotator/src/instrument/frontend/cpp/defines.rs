//! The project's own `#define`s, applied for parsing only: object-like macros that expand to
//! specifiers, attributes, nothing or namespace braces, and function-like macros whose body
//! is a declaration (`#define GETTER(t, f) t get_##f() const { return f##_; }`). Collected
//! across the project's files and `compile_commands.json` `-D` flags.

use std::collections::HashMap;

use super::macros::{is_ident_byte, match_parens};

/// One `#define`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Define {
    /// `None` for an object-like macro.
    pub params: Option<Vec<String>>,
    pub body: String,
}

/// Defines by name; `None` when the project defines a name in incompatible ways.
#[derive(Debug, Clone, Default)]
pub struct Defines {
    map: HashMap<String, Option<Define>>,
}

impl Defines {
    /// The `#define`s of one file's text.
    pub fn of(src: &str) -> Defines {
        let mut d = Defines::default();
        d.scan(src);
        d
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Adds every `#define` line of `src` (continuations joined, comments dropped).
    pub fn scan(&mut self, src: &str) {
        let mut logical = String::new();
        for line in src.lines() {
            let cont = line.ends_with('\\');
            logical.push_str(line.strip_suffix('\\').unwrap_or(line));
            logical.push(' ');
            if cont {
                continue;
            }
            if let Some((name, def)) = parse_define(&logical) {
                self.add(name, def);
            }
            logical.clear();
        }
    }

    /// A compiler flag's define: `NAME` or `NAME=VALUE` (from `-D`).
    pub fn add_flag(&mut self, flag: &str) {
        let (head, body) = flag.split_once('=').unwrap_or((flag, "1"));
        if let Some((name, def)) = parse_define(&format!("#define {head} {body}")) {
            self.add(name, def);
        }
    }

    /// `other`'s defines replace these: a file's own macros over the project's.
    pub fn overlay(&mut self, other: &Defines) {
        for (k, v) in &other.map {
            self.map.insert(k.clone(), v.clone());
        }
    }

    fn add(&mut self, name: String, def: Define) {
        match self.map.get(&name) {
            None => {
                self.map.insert(name, Some(def));
            }
            Some(Some(old)) if *old == def => {}
            // `#ifdef _WIN32 / #define API __declspec(…) / #else / #define API` : both are
            // specifiers, either reading parses the same.
            // `#if HAVE_NS / #define NS_BEGIN namespace X { / #else / #define NS_BEGIN`: the
            // braces are kept (the pair END/BEGIN resolves alike).
            Some(Some(old)) if old.params.is_none() && def.params.is_none() => {
                let neutral = |b: &str| is_specifiers(b, self, 0) || is_scope_brace(b);
                if !(neutral(&old.body) && neutral(&def.body)) {
                    self.map.insert(name, None);
                } else if old.body.is_empty() && !def.body.is_empty() {
                    self.map.insert(name, Some(def));
                }
            }
            // `#ifdef _WIN32 / #define API(T) __declspec(dllexport) T __cdecl / #else /
            // #define API(T) T`: both wrap their type in specifiers; the plainer is kept.
            Some(Some(old))
                if old.params.is_some()
                    && old.params == def.params
                    && is_type_wrapper(old, self)
                    && is_type_wrapper(&def, self) =>
            {
                if def.body.len() < old.body.len() {
                    self.map.insert(name, Some(def));
                }
            }
            // `#ifdef FMT_DOC / #define FMT_ENABLE_IF(...) / #else / #define
            // FMT_ENABLE_IF(...) enable_if_t<(__VA_ARGS__), int> = 0`: a documentation or
            // disabled reading against the real one; the real one is kept (it expands only
            // where the parse fails anyway, or reads as a declaration either way).
            Some(Some(old))
                if old.params.is_some()
                    && old.params == def.params
                    && (old.body.is_empty() || def.body.is_empty()) =>
            {
                if old.body.is_empty() {
                    self.map.insert(name, Some(def));
                }
            }
            Some(None) => {}
            Some(Some(_)) => {
                self.map.insert(name, None);
            }
        }
    }

    /// Whether `name` is defined somewhere (in whatever way).
    pub fn has(&self, name: &str) -> bool {
        self.map.contains_key(name)
    }

    pub fn get(&self, name: &str) -> Option<&Define> {
        self.map.get(name).and_then(|d| d.as_ref())
    }
}

/// `#define NAME body` / `#define NAME(a, b) body` on one logical line.
fn parse_define(line: &str) -> Option<(String, Define)> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("define")?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let rest = rest.trim_start();
    let n = rest.bytes().take_while(|&b| is_ident_byte(b)).count();
    if n == 0 || rest.as_bytes()[0].is_ascii_digit() {
        return None;
    }
    let name = rest[..n].to_string();
    let mut rest = &rest[n..];
    let mut params = None;
    if rest.starts_with('(') {
        let close = rest.find(')')?;
        let ps: Vec<String> = (rest[1..close].split(','))
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        params = Some(ps);
        rest = &rest[close + 1..];
    }
    let body = strip_comments(rest).trim().to_string();
    Some((name, Define { params, body }))
}

fn strip_comments(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    loop {
        let line = rest.find("//");
        let block = rest.find("/*");
        match (line, block) {
            (Some(l), b) if b.is_none_or(|b| l < b) => {
                out.push_str(&rest[..l]);
                return out;
            }
            (_, Some(b)) => {
                out.push_str(&rest[..b]);
                out.push(' ');
                match rest[b + 2..].find("*/") {
                    Some(e) => rest = &rest[b + 2 + e + 2..],
                    None => return out,
                }
            }
            _ => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

const SPECIFIERS: &[&str] = &[
    "inline",
    "static",
    "extern",
    "virtual",
    "explicit",
    "constexpr",
    "const",
    "volatile",
    "friend",
    "noexcept",
    "final",
    "override",
    "alignas",
];
/// Names that take a parenthesised argument in a specifier macro.
const WITH_ARGS: &[&str] = &[
    "__attribute__",
    "__attribute",
    "__declspec",
    "alignas",
    "noexcept",
];

/// Whether `body` is only specifiers and attributes (or nothing): `__attribute__((…))`,
/// `__declspec(dllexport)`, `[[nodiscard]]`, `extern "C"`, `inline`, another such macro.
pub fn is_specifiers(body: &str, defs: &Defines, depth: usize) -> bool {
    let b = body.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
        } else if b[i..].starts_with(b"[[") {
            match body[i..].find("]]") {
                Some(e) => i += e + 2,
                None => return false,
            }
        } else if b[i] == b'"' && body[..i].trim_end().ends_with("extern") {
            match body[i + 1..].find('"') {
                Some(e) => i += e + 2,
                None => return false,
            }
        } else if is_ident_byte(b[i]) && !b[i].is_ascii_digit() {
            let j = i + b[i..].iter().take_while(|&&c| is_ident_byte(c)).count();
            let id = &body[i..j];
            let known = SPECIFIERS.contains(&id)
                || id.starts_with("__")
                || (depth < 4
                    && defs.get(id).is_some_and(|d| {
                        d.params.is_none() && is_specifiers(&d.body, defs, depth + 1)
                    }));
            if !known {
                return false;
            }
            i = j;
            let k = i + b[i..]
                .iter()
                .take_while(|c| c.is_ascii_whitespace())
                .count();
            if k < b.len() && b[k] == b'(' {
                if !WITH_ARGS.contains(&id) {
                    return false;
                }
                match match_parens(b, k) {
                    Some(e) => i = e,
                    None => return false,
                }
            }
        } else {
            return false;
        }
    }
    true
}

/// Whether `body` opens or closes namespaces / linkage blocks: `namespace lib {`,
/// `namespace a { inline namespace v9 {`, `extern "C" {`, `}`, `} }`.
pub fn is_scope_brace(body: &str) -> bool {
    let mut rest = body.trim();
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('}') {
            rest = r.trim_start();
        } else if let Some(r) = (rest.strip_prefix("inline"))
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix("namespace"))
            .or_else(|| rest.strip_prefix("namespace"))
        {
            let r = r.trim_start();
            let n = r
                .bytes()
                .take_while(|&c| is_ident_byte(c) || c == b':')
                .count();
            let Some(r) = r[n..].trim_start().strip_prefix('{') else {
                return false;
            };
            rest = r.trim_start();
        } else if let Some(r) = rest.strip_prefix("extern \"C\"") {
            let Some(r) = r.trim_start().strip_prefix('{') else {
                return false;
            };
            rest = r.trim_start();
        } else {
            return false;
        }
    }
    true
}

/// Whether a function-like macro's body declares something (a member or function with a
/// body, or declarations ending in `;`), not an expression or statement.
pub fn is_declaration_body(body: &str) -> bool {
    let b = body.trim();
    // `template <> struct Traits<type> { … }` (gflags' DEFINE_FLAG_TRAITS)
    let opens = ["template", "struct", "class", "union"].iter().any(|s| {
        b.starts_with(s) && !b[s.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
    });
    if opens && b.ends_with('}') {
        return true;
    }
    let stmt = ["do", "if", "for", "while", "switch", "return", "{"];
    if stmt
        .iter()
        .any(|s| b.starts_with(s) && !b[s.len()..].starts_with(|c: char| c.is_alphanumeric()))
    {
        return false;
    }
    (b.ends_with('}') && b.contains(')')) || (b.ends_with(';') && b.contains('('))
}

/// Whether a function-like macro's body is one compound or control statement that needs no
/// `;` after it: `{ … }`, `if (…) { … }`, `for`/`while`/`switch (…) { … }`, `try { … } catch`.
pub fn is_statement_body(body: &str) -> bool {
    let b = body.trim();
    let opens = ["if", "for", "while", "switch", "try"].iter().any(|s| {
        b.starts_with(s) && !b[s.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
    });
    (opens || b.starts_with('{')) && b.ends_with('}')
}

/// Whether a function-like macro puts specifiers around its parameters and nothing else
/// (`#define API_EXPORT(TYPE) API_EXPORT_CXX TYPE __cdecl`, `#define API_EXPORT(T) T`): an
/// export wrapper of a declaration's return type.
pub fn is_type_wrapper(d: &Define, defs: &Defines) -> bool {
    let Some(params) = &d.params else {
        return false;
    };
    let mut uses = 0;
    let mut rest = String::with_capacity(d.body.len());
    let b = d.body.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if is_ident_byte(b[i]) {
            let j = i + b[i..].iter().take_while(|&&c| is_ident_byte(c)).count();
            if params.iter().any(|p| p == &d.body[i..j]) {
                uses += 1;
                rest.push(' ');
            } else {
                rest.push_str(&d.body[i..j]);
            }
            i = j;
        } else {
            rest.push(b[i] as char);
            i += 1;
        }
    }
    uses > 0 && !d.body.contains('#') && is_specifiers(&rest, defs, 0)
}

/// Whether an object-like macro opens or closes a `try` block: `#define TRY try {`,
/// `#define CATCH } catch (Error& e) { … }` (C APIs wrapping C++ calls).
pub fn is_try_brace(body: &str) -> bool {
    let words: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    words == "try {"
        || words
            .strip_prefix('}')
            .is_some_and(|r| r.trim_start().starts_with("catch") && words.ends_with('}'))
}
