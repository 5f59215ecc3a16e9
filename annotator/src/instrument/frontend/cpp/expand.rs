//! Applies the project's macros (see [`super::defines`]) to a file for parsing only, and maps
//! the model built from the expanded text back to the original's byte offsets, so
//! insertions land in the user's text. What a macro generated is flagged not annotatable.

use super::defines::{
    is_declaration_body, is_scope_brace, is_specifiers, is_statement_body, is_try_brace,
    is_type_wrapper, Defines,
};
use super::macros::{digit_separator, is_ident_byte, match_parens, skip_ws_comments};
use crate::instrument::model::{FileModel, MethodDecl, Span};

/// One replaced invocation: expanded `e0..e1` stands for original `o0..o1`.
#[derive(Debug, Clone)]
pub struct Seg {
    e0: usize,
    e1: usize,
    o0: usize,
    o1: usize,
    name: String,
    /// Function-like: what it expands to is generated code.
    generated: bool,
}

/// Where other macros expand: expression macros only where the plain parse failed, or
/// everywhere (in text a macro wrote).
#[derive(Clone, Copy)]
pub enum Errors<'e> {
    /// The byte ranges of the plain parse's syntax errors, sorted by start.
    At(&'e [(usize, usize)]),
    Everywhere,
}

impl Errors<'_> {
    /// Whether `s..e` (an invocation) holds or touches an error.
    fn near(self, s: usize, e: usize) -> bool {
        match self {
            Errors::Everywhere => true,
            Errors::At(ranges) => {
                let k = ranges.partition_point(|r| r.0 <= e);
                ranges[..k].iter().rev().take(64).any(|r| r.1 >= s)
            }
        }
    }
}

/// The expanded text and its segments (sorted), or `None` when nothing applies.
pub fn expand(src: &str, defs: &Defines, errors: Errors) -> Option<(String, Vec<Seg>)> {
    if defs.is_empty() {
        return None;
    }
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut segs = Vec::new();
    let (mut i, mut copied) = (0, 0);
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            i += b[i..]
                .iter()
                .position(|&x| x == b'\n')
                .unwrap_or(b.len() - i);
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i = src[i + 2..].find("*/").map_or(b.len(), |p| i + 2 + p + 2);
        } else if c == b'#' && line_start(b, i) {
            i = directive_end(b, i);
        } else if c == b'"' || (c == b'\'' && !digit_separator(b, i)) {
            i = literal_end(b, i);
        } else if c.is_ascii_digit() {
            i += b[i..]
                .iter()
                .take_while(|&&x| is_ident_byte(x) || x == b'.' || x == b'\'')
                .count();
        } else if is_ident_byte(c) {
            let j = i + b[i..].iter().take_while(|&&x| is_ident_byte(x)).count();
            if b.get(j) == Some(&b'"') && src[i..j].ends_with('R') {
                i = raw_end(src, j);
                continue;
            }
            match invocation(src, i, j, defs, errors) {
                Some((end, text, generated)) => {
                    out.push_str(&src[copied..i]);
                    let e0 = out.len();
                    out.push_str(&fit(&text, &src[i..end]));
                    segs.push(Seg {
                        e0,
                        e1: out.len(),
                        o0: i,
                        o1: end,
                        name: src[i..j].to_string(),
                        generated,
                    });
                    copied = end;
                    i = end;
                }
                None => i = j,
            }
        } else {
            i += 1;
        }
    }
    if segs.is_empty() {
        return None;
    }
    out.push_str(&src[copied..]);
    Some((out, segs))
}

/// `text` padded to the original's length and newline count (so later lines keep their
/// numbers and, when it fits, their offsets).
fn fit(text: &str, orig: &str) -> String {
    let nls = orig.bytes().filter(|&c| c == b'\n').count();
    let mut s = text.replace('\n', " ");
    while s.len() + nls < orig.len() {
        s.push(' ');
    }
    s.push_str(&"\n".repeat(nls));
    s
}

/// The invocation of a usable macro named `src[i..j]`: its end and replacement.
fn invocation(
    src: &str,
    i: usize,
    j: usize,
    defs: &Defines,
    errors: Errors,
) -> Option<(usize, String, bool)> {
    // `"%" PRId32`: <cinttypes>' format macros are string literals (a system header the
    // project's defines do not hold, or define per platform).
    if is_format_macro(&src[i..j]) && defs.get(&src[i..j]).is_none() && errors.near(i, j) {
        return Some((j, "\"d\"".into(), false));
    }
    let d = defs.get(&src[i..j])?;
    match &d.params {
        None if is_specifiers(&d.body, defs, 0)
            || is_scope_brace(&d.body)
            || is_try_brace(&d.body) =>
        {
            Some((j, nested(&d.body, defs, 0), false))
        }
        // Any other object-like macro (gflags' own `#define PRId32 "d"`), only where the
        // plain parse fails on it.
        None => errors
            .near(i, j)
            .then(|| (j, nested(&d.body, defs, 0), false)),
        Some(params) if is_declaration_body(&d.body) => {
            let (end, body) = call(src, j, params, &d.body)?;
            Some((end, nested(&body, defs, 0), true))
        }
        // `API_EXPORT(void) f(…);`: the compiler sees `void f(…);`. Not generated: the
        // declaration is the user's.
        Some(params) if is_type_wrapper(d, defs) => {
            let (end, body) = call(src, j, params, &d.body)?;
            Some((end, nested(&body, defs, 0), false))
        }
        // A statement macro invoked without a `;` (`MUP_ASSERT(x)` then the next statement)
        // reads as a call missing its `;` and spoils its method. It is read as the call
        // with its `;`, as the same macro is everywhere else (its body may hold macros the
        // project defines per branch, such as `_T`, which would not parse). Not generated:
        // the method around it is the user's.
        Some(params) if is_statement_body(&d.body) => {
            let (end, _) = call(src, j, params, &d.body)?;
            let next = skip_ws_comments(src.as_bytes(), end);
            (src.as_bytes().get(next) != Some(&b';'))
                .then(|| (end, format!("{};", &src[i..end]), false))
        }
        // Any other (an expression, usually) where the plain parse fails on it: gflags'
        // `VALUE_AS(bool)` (`*reinterpret_cast<bool*>(value_buffer_)`), a type as argument.
        // Elsewhere a call-like invocation parses as a call.
        Some(params) => {
            let (end, body) = call(src, j, params, &d.body)?;
            errors
                .near(i, end)
                .then(|| (end, nested(&body, defs, 0), false))
        }
    }
}

/// `PRId32`, `PRIu64`, `SCNxMAX`, `PRIdPTR`, `PRIuFAST16`…: <cinttypes>' format macros.
fn is_format_macro(name: &str) -> bool {
    let Some(rest) = name
        .strip_prefix("PRI")
        .or_else(|| name.strip_prefix("SCN"))
    else {
        return false;
    };
    let mut c = rest.chars();
    let conv = c.next().is_some_and(|x| "diouxX".contains(x));
    let tail = c.as_str();
    let tail = (tail.strip_prefix("LEAST"))
        .or_else(|| tail.strip_prefix("FAST"))
        .unwrap_or(tail);
    conv && ["8", "16", "32", "64", "MAX", "PTR"].contains(&tail)
}

/// The invocation whose name ends at `j`: the end of its `(...)` and `body` with the
/// arguments substituted; `None` without parentheses or with the wrong number of arguments.
fn call(src: &str, j: usize, params: &[String], body: &str) -> Option<(usize, String)> {
    let b = src.as_bytes();
    let k = j + b[j..]
        .iter()
        .take_while(|c| c.is_ascii_whitespace())
        .count();
    if b.get(k) != Some(&b'(') {
        return None;
    }
    let end = match_parens(b, k)?;
    let args = split_args(&src[k + 1..end - 1]);
    let (names, args) = bind(params, args)?;
    Some((end, substitute(body, &names, &args)))
}

/// Parameter names and their arguments; a variadic macro's last parameter (`...`, named
/// `__VA_ARGS__` in the body, or GNU's `args...`) takes the remaining arguments, commas and
/// all (fmt's `FMT_ENABLE_IF(...)`). `None` when the count does not fit.
fn bind(params: &[String], mut args: Vec<String>) -> Option<(Vec<String>, Vec<String>)> {
    let Some(last) = params.last().filter(|p| p.ends_with("...")) else {
        if args.len() != params.len() && !(params.is_empty() && args == [""]) {
            return None;
        }
        return Some((params.to_vec(), args));
    };
    let fixed = params.len() - 1;
    if args == [""] && fixed == 0 {
        args.clear();
    }
    if args.len() < fixed {
        return None;
    }
    let rest = args.split_off(fixed).join(", ");
    args.push(rest);
    let mut names = params[..fixed].to_vec();
    names.push(match last.trim_end_matches("...").trim() {
        "" => "__VA_ARGS__".to_string(),
        named => named.to_string(),
    });
    Some((names, args))
}

/// Expands specifier macros inside a replacement (bounded depth).
fn nested(text: &str, defs: &Defines, depth: usize) -> String {
    if depth > 4 {
        return text.to_string();
    }
    match expand(text, defs, Errors::Everywhere) {
        Some((t, _)) => nested(&t, defs, depth + 1),
        None => text.to_string(),
    }
}

/// A macro call's arguments: split at top-level commas, brackets inside string and character
/// literals not counted (`_T("(k")` is one argument).
fn split_args(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (k, c) in s.char_indices() {
        if let Some(q) = quote {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                _ if c == q => quote = None,
                _ => {}
            }
            continue;
        }
        match c {
            '\'' if digit_separator(s.as_bytes(), k) => {}
            '"' | '\'' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..k].trim().to_string());
                start = k + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim().to_string());
    out
}

/// The body with parameters replaced, `#p` stringised and `##` pasted.
fn substitute(body: &str, params: &[String], args: &[String]) -> String {
    let b = body.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if is_ident_byte(b[i]) {
            let j = i + b[i..].iter().take_while(|&&x| is_ident_byte(x)).count();
            let id = &body[i..j];
            let stringise = out.ends_with('#') && !out.ends_with("##");
            match params.iter().position(|p| p == id) {
                Some(p) if stringise => {
                    out.pop();
                    out.push_str(&format!("\"{}\"", args[p]));
                }
                Some(p) => out.push_str(&args[p]),
                None => out.push_str(id),
            }
            i = j;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    // Token pasting: drop `##` and the blanks around it.
    while let Some(p) = out.find("##") {
        let l = out[..p].trim_end().len();
        let r = p + 2 + (out[p + 2..].len() - out[p + 2..].trim_start().len());
        out.replace_range(l..r, "");
    }
    out
}

fn line_start(b: &[u8], i: usize) -> bool {
    b[..i]
        .iter()
        .rev()
        .take_while(|&&c| c != b'\n')
        .all(|c| c.is_ascii_whitespace())
}

fn directive_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] != b'\n' {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
            i += 1;
        }
        i += 1;
    }
    i
}

fn literal_end(b: &[u8], i: usize) -> usize {
    let q = b[i];
    let mut k = i + 1;
    while k < b.len() && b[k] != q && b[k] != b'\n' {
        if b[k] == b'\\' {
            k += 1;
        }
        k += 1;
    }
    k + 1
}

/// End of a raw string `R"delim( … )delim"` whose `"` is at `q`.
fn raw_end(src: &str, q: usize) -> usize {
    let Some(open) = src[q..].find('(') else {
        return src.len();
    };
    let close = format!("){}\"", &src[q + 1..q + open]);
    src[q + open..]
        .find(&close)
        .map_or(src.len(), |p| q + open + p + close.len())
}

/// Maps positions of the expanded text back to the original.
pub struct OffsetMap<'a> {
    segs: &'a [Seg],
    nls: Vec<usize>,
}

impl<'a> OffsetMap<'a> {
    pub fn new(src: &str, segs: &'a [Seg]) -> Self {
        let nls = (src.bytes().enumerate())
            .filter(|(_, c)| *c == b'\n')
            .map(|(i, _)| i)
            .collect();
        OffsetMap { segs, nls }
    }

    /// `end` picks the invocation's end for a position inside one, else its start.
    fn pos(&self, p: usize, end: bool) -> usize {
        let k = self.segs.partition_point(|s| s.e0 <= p);
        if k == 0 {
            return p;
        }
        let s = &self.segs[k - 1];
        if p >= s.e1 {
            s.o1 + (p - s.e1)
        } else if p == s.e0 || !end {
            s.o0
        } else {
            s.o1
        }
    }

    /// The segment whose interior holds `p`, when that is generated or unsafe to edit.
    fn inside(&self, p: usize) -> Option<&Seg> {
        let k = self.segs.partition_point(|s| s.e0 < p);
        let s = self.segs.get(k.checked_sub(1)?)?;
        (p < s.e1).then_some(s)
    }

    fn span(&self, sp: &mut Span) {
        sp.start = self.pos(sp.start, false);
        sp.end = self.pos(sp.end, true);
        sp.line = self.nls.partition_point(|&n| n < sp.start) as u32 + 1;
        sp.end_line = self.nls.partition_point(|&n| n < sp.end) as u32 + 1;
    }

    fn method(&self, m: &mut MethodDecl) {
        let within = self
            .segs
            .iter()
            .find(|s| s.generated && s.e0 <= m.span.start && m.span.end <= s.e1);
        let cut = (m.entry.and_then(|e| self.inside(e)))
            .or_else(|| m.body.and_then(|b| self.inside(b.start)))
            .or_else(|| m.body.and_then(|b| self.inside(b.end - 1)));
        if let Some(s) = within.or(cut) {
            m.not_annotatable = Some(format!("generated by macro {}", s.name));
        }
        self.span(&mut m.span);
        if let Some(b) = &mut m.body {
            self.span(b);
        }
        m.entry = m.entry.map(|e| self.pos(e, false));
    }

    /// Rewrites every offset of `model` (built from the expanded text) to the original's.
    pub fn apply(&self, model: &mut FileModel) {
        for c in &mut model.classes {
            let within = self
                .segs
                .iter()
                .find(|s| s.generated && s.e0 <= c.span.start && c.span.end <= s.e1);
            let cut = (c.members_at.and_then(|e| self.inside(e)))
                .or_else(|| self.inside(c.body.start))
                .or_else(|| self.inside(c.body.end.saturating_sub(1)));
            if let Some(s) = within.or(cut) {
                c.not_annotatable = Some(format!("generated by macro {}", s.name));
            }
            self.span(&mut c.span);
            self.span(&mut c.body);
            c.members_at = c.members_at.map(|e| self.pos(e, false));
            for f in &mut c.fields {
                self.span(&mut f.span);
                if let Some(i) = &mut f.init {
                    self.span(i);
                }
            }
            for m in &mut c.methods {
                self.method(m);
            }
        }
        for (_, m) in &mut model.out_of_class {
            self.method(m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::defines::Defines;
    use crate::instrument::frontend::{Frontend, ProjectContext};
    use crate::instrument::model::FileModel;

    const LIB_H: &str = include_str!("../../../../../tests/cpp-corpus/unseen/src/lib.h");
    const LIB_CPP: &str = include_str!("../../../../../tests/cpp-corpus/unseen/src/lib.cpp");

    fn parse(path: &str, src: &str) -> FileModel {
        parse_with(path, src, Defines::of(LIB_H))
    }

    /// Parses as a project whose macros are `defines` does.
    fn parse_with(path: &str, src: &str, defines: Defines) -> FileModel {
        super::super::CppFrontend.parse(path, src, &ProjectContext { defines })
    }

    fn assert_no_errors(m: &FileModel) {
        let errors: Vec<_> = (m.diagnostics.iter())
            .filter(|d| d.severity == crate::instrument::model::Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
    }

    /// fmt's macros whose expansion is longer than their name (`FMT_INLINE`): the default
    /// member initialisers' spans stayed in the expanded text's offsets, so the
    /// annotator's zeroing of the tag before `f(1)` landed inside the next constructor's
    /// name (`os((void)::_revy_rt::unborn(…), tream_params(…)`), and the build broke.
    #[test]
    fn default_member_initialisers_map_back_to_the_source() {
        let src = "#define NSB namespace detail {\n#define NSE }\nint f(int);\nNSB\nstruct P {\n  int a = f(1);\n  int b{f(2)};\n  P() {}\n};\nNSE\n";
        let m = parse_with("p.h", src, Defines::of(src));
        let p = m.classes.iter().find(|c| c.name == "P").unwrap();
        assert_eq!(p.qname, "detail::P");
        let inits: Vec<&str> = p
            .fields
            .iter()
            .map(|f| f.init.map_or("", |i| &src[i.start..i.end]))
            .collect();
        assert_eq!(inits, ["f(1)", "f(2)"]);
    }

    #[test]
    fn specifier_namespace_and_getter_macros_are_modelled() {
        let m = parse("lib.h", LIB_H);
        let g = m.classes.iter().find(|c| c.name == "Gauge").unwrap();
        assert_eq!(g.qname, "lib::Gauge", "LIB_NS_BEGIN opens namespace lib");
        assert_eq!(g.not_annotatable, None);
        // The generated getter is a method, flagged; its span is the invocation's.
        let get = g.methods.iter().find(|x| x.name == "get_level").unwrap();
        assert_eq!(
            get.not_annotatable.as_deref(),
            Some("generated by macro GETTER")
        );
        assert_eq!(&LIB_H[get.span.start..get.span.end], "GETTER(int, level)");
        assert_eq!(get.span.line, 41);
        // `LIB_API_FN int bump()` is annotatable, its offsets are the original's.
        let bump = g.methods.iter().find(|x| x.name == "bump").unwrap();
        assert_eq!(bump.not_annotatable, None);
        assert!(LIB_H[bump.span.start..].starts_with("int bump()"));
        let entry = bump.entry.unwrap();
        assert_eq!(&LIB_H[entry - 1..entry], "{");
        assert!(LIB_H[entry..].starts_with(" return ++level_;"));
        assert_eq!(&LIB_H[g.body.start..g.body.start + 1], "{");
        assert_eq!(&LIB_H[g.body.end - 1..g.body.end], "}");
        let errors = m
            .diagnostics
            .iter()
            .filter(|d| d.severity == crate::instrument::model::Severity::Error);
        assert_eq!(errors.count(), 0, "{:?}", m.diagnostics);
    }

    #[test]
    fn defines_from_another_file_apply() {
        let m = parse("lib.cpp", LIB_CPP);
        let errors = m
            .diagnostics
            .iter()
            .filter(|d| d.severity == crate::instrument::model::Severity::Error);
        assert_eq!(errors.count(), 0, "{:?}", m.diagnostics);
        // Without lib.h's defines the namespace macros are reported; with them, nothing.
        let alone = parse_with("lib.cpp", LIB_CPP, Defines::default());
        assert!(!alone.diagnostics.is_empty());
        assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    }

    #[test]
    fn macros_classified() {
        use super::super::defines::{is_declaration_body, is_scope_brace, is_specifiers};
        let d = Defines::of("#define API __attribute__((visibility(\"default\")))\n");
        assert!(is_specifiers("API inline", &d, 0));
        assert!(is_specifiers("__declspec(dllexport)", &d, 0));
        assert!(is_specifiers("[[nodiscard]] extern \"C\"", &d, 0));
        assert!(!is_specifiers("42", &d, 0));
        assert!(!is_specifiers("foo(1)", &d, 0));
        assert!(is_scope_brace("namespace a { namespace b {"));
        assert!(is_scope_brace("} }"));
        assert!(is_scope_brace("namespace fmt { inline namespace v9 {"));
        assert!(!is_scope_brace("inline int"));
        assert!(!is_scope_brace("{ 1, 2 }"));
        assert!(is_declaration_body("t get_##f() const { return f##_; }"));
        // Alternative configurations: the namespace braces win over nothing.
        let d = Defines::of(
            "#if NS\n# define B\n# define E\n#else\n# define B namespace n {\n# define E }\n#endif\n",
        );
        assert_eq!(d.get("B").unwrap().body, "namespace n {");
        assert_eq!(d.get("E").unwrap().body, "}");
        assert!(!is_declaration_body("do { x(); } while (0)"));
        assert!(!is_declaration_body("((a) > (b) ? (a) : (b))"));
    }

    /// muparser's macros: a statement one, an export wrapper defined per platform, try/catch
    /// braces; what each is taken for.
    #[test]
    fn statement_wrapper_and_try_macros_classified() {
        use super::super::defines::{is_statement_body, is_try_brace};
        assert!(is_statement_body("if (!(c)) { abort(); }"));
        assert!(is_statement_body("{ double r[] = {1, 2}; f(r); }"));
        assert!(!is_statement_body("do { x(); } while (0)"));
        assert!(!is_statement_body("ifdef_thing(x)"));
        assert!(is_try_brace("try   {"));
        assert!(is_try_brace("} catch (E& e) { h(e); }"));
        assert!(!is_try_brace("}"));
        let d = Defines::of(
            "#define CXX __declspec(dllexport)\n#ifdef _WIN32\n#define API(T) CXX T __cdecl\n#else\n#define API(T) T\n#endif\n#define ID(x) x + 1\n",
        );
        assert_eq!(
            d.get("API").unwrap().body,
            "T",
            "the plainer reading is kept"
        );
        assert!(d
            .get("ID")
            .is_some_and(|x| !super::super::defines::is_type_wrapper(x, &d)));
        // fmt: a documentation reading (empty) against the real one, and a variadic macro.
        let d = Defines::of(
            "#ifdef FMT_DOC\n#define ENABLE_IF(...)\n#else\n#define ENABLE_IF(...) enable_if_t<(__VA_ARGS__), int> = 0\n#endif\n",
        );
        let real = "enable_if_t<(__VA_ARGS__), int> = 0";
        assert_eq!(d.get("ENABLE_IF").unwrap().body, real);
        let src = "template <typename T, ENABLE_IF(is_same<T, int>::value)>\nstruct S { int f() { return 1; } };\n";
        let m = parse_with("s.h", src, d.clone());
        assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
        let params = ["f".to_string(), "...".to_string()];
        let args = ["a", "b", "c"].map(String::from).to_vec();
        let (names, args) = super::bind(&params, args).unwrap();
        assert_eq!(names, ["f", "__VA_ARGS__"]);
        assert_eq!(args, ["a", "b, c"]);
    }

    /// gflags' macros: an expression macro given a type (`VALUE_AS(bool)`), one built on
    /// it, a macro defining a template specialisation, `"%" PRId32` (system), `"%" I64`
    /// (the project's) and `PRIu64` defined per platform. Expression macros
    /// expand only where the plain parse fails: elsewhere a call parses as a call.
    #[test]
    fn expression_macros_expand_where_the_parse_fails() {
        let src = "#include <cinttypes>\n#define VALUE_AS(type) *reinterpret_cast<type*>(buf_)\n#define SET_VALUE_AS(type, v) VALUE_AS(type) = (v)\n#define TRAITS(type, k) template <> struct Tr<type> { static const int kind = k; }\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\ntemplate <class T> struct Tr;\nTRAITS(bool, 1);\nstruct F {\n  void* buf_;\n  bool get() const { return VALUE_AS(bool) ? MAX(1, 2) : 0; }\n  void set() { SET_VALUE_AS(bool, true); }\n  void show(char* s) const { sprintf(s, \"%\" PRId32, MAX(VALUE_AS(int), 0)); }\n  void wide(char* s) const { sprintf(s, \"%\" I64 \"%\" PRIu64, 1LL, 2ULL); }\n};\n#ifdef _WIN32\n#define PRIu64 \"I64u\"\n#else\n#define PRIu64 \"llu\"\n#endif\n#define I64 \"lld\"\n";
        let m = parse_with("f.cc", src, Defines::of(src));
        assert_no_errors(&m);
        let f = m.classes.iter().find(|c| c.name == "F").unwrap();
        for name in ["get", "set", "show", "wide"] {
            let x = f.methods.iter().find(|x| x.name == name).unwrap();
            assert_eq!(x.not_annotatable, None, "{name}");
        }
        let tr = m.classes.iter().find(|c| c.name.starts_with("Tr")).unwrap();
        assert_eq!(
            tr.not_annotatable.as_deref(),
            Some("generated by macro TRAITS")
        );
        let plain = "#define MAX(a, b) ((a) > (b) ? (a) : (b))\nint f() { return MAX(1, 2); }\n";
        assert!(super::expand(plain, &Defines::of(plain), super::Errors::At(&[])).is_none());
    }

    /// The statement macro without its `;` is read as a call with one; the declaration-like
    /// one gets its arguments split outside string literals; a `1'000` is no quote.
    #[test]
    fn statement_macros_and_quoted_arguments_expand() {
        let src = "#define CHECK(c) if (!(c)) { abort(); }\n#define NOTE(m, n) k += f(m) + n;\nstruct S { int k = 0; int g(int x) {\n  CHECK(x > 0)\n  NOTE(\"(k\", 1'000)\n  return k;\n} };\n";
        let m = parse_with("s.h", src, Defines::of(src));
        assert_no_errors(&m);
        let g = m.classes[0].methods.iter().find(|x| x.name == "g").unwrap();
        assert_eq!(g.not_annotatable, None);
        assert!(src[g.body.unwrap().start..].starts_with("{\n  CHECK"));
        assert_eq!(
            super::split_args("\"(k\", 1'000, ')', L'(', u8','"),
            ["\"(k\"", "1'000", "')'", "L'('", "u8','"]
        );
    }
}
