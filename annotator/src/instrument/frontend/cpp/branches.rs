//! One configuration of a file's preprocessor conditionals, for files whose branches do
//! not parse together (a branch that opens a brace the other closes, a directive inside a
//! constructor's initialiser list): tree-sitter reads both branches of an `#if` as code, so
//! such a file loses whole classes to syntax errors. Here every conditional keeps one branch,
//! the others and the conditional directives become spaces, and offsets and line numbers stay
//! those of the file — the annotator's edits go into the real file at the same places. An
//! edit in a kept branch is compiled only in that configuration, which is harmless: the
//! method it opens exists only there.
//!
//! The branch kept is the one g++ on Linux most likely compiles when the build defines
//! nothing: `#ifdef`, `#ifndef`, `#if [!]defined(X)` and `#if X` are decided by the macros
//! the file defined above them, those the project defines elsewhere (other files, `-D`
//! flags) and the compiler's own ([`PREDEFINED`]); `#if 0` takes its `#else`; any other
//! expression takes its first branch.

/// The file with one branch of each conditional kept, and the 1-based line of the first
/// conditional directive; `None` when it has none or they do not pair up. `elsewhere` says
/// whether a macro the file does not define itself is defined for it by the project.
pub fn one_configuration(src: &str, elsewhere: impl Fn(&str) -> bool) -> Option<(String, u32)> {
    let mut out = src.as_bytes().to_vec();
    let mut groups: Vec<Group> = Vec::new();
    let mut first = None;
    let mut comment = false;
    let mut defined: Vec<&str> = Vec::new();
    for (line_no, (start, end)) in logical_lines(src).enumerate() {
        let line = &src[start..end];
        let was_comment = comment;
        comment = ends_in_comment(line, comment);
        let live = groups.iter().all(|g| g.keep);
        let Some(d) = (!was_comment).then(|| directive(line)).flatten() else {
            if !live {
                blank(&mut out, start, end);
            }
            continue;
        };
        let (word, expr) = d;
        match word {
            "if" | "ifdef" | "ifndef" => {
                let keep = holds(word, expr, &defined, &elsewhere);
                groups.push(Group { keep, taken: keep });
            }
            "elif" | "elifdef" | "elifndef" => {
                let g = groups.last_mut()?;
                g.keep = !g.taken && holds(word, expr, &defined, &elsewhere);
                g.taken |= g.keep;
            }
            "else" => {
                let g = groups.last_mut()?;
                g.keep = !g.taken;
                g.taken = true;
            }
            "endif" => {
                groups.pop()?;
            }
            _ => {
                // Another directive (`#define`, `#include`…): kept where its branch is.
                if !live {
                    blank(&mut out, start, end);
                } else if word == "define" {
                    defined.extend(name(expr));
                } else if word == "undef" {
                    let n = name(expr);
                    defined.retain(|d| Some(*d) != n);
                }
                continue;
            }
        }
        first.get_or_insert(line_no as u32 + 1);
        blank(&mut out, start, end);
    }
    if !groups.is_empty() {
        return None;
    }
    let line = first?;
    // Whole lines were blanked, every byte of them, so no UTF-8 sequence was cut.
    String::from_utf8(out).ok().map(|s| (s, line))
}

/// One `#if` group: whether the current branch is kept, and whether one already was.
struct Group {
    keep: bool,
    taken: bool,
}

/// Spaces over `start..end`, newlines (and the `\r` before them) kept so lines stay put.
fn blank(out: &mut [u8], start: usize, end: usize) {
    for b in &mut out[start..end] {
        if *b != b'\n' && *b != b'\r' {
            *b = b' ';
        }
    }
}

/// Byte ranges of logical lines: a line ending in `\` continues on the next (the range
/// then holds the inner newlines); the final newline is not part of the range.
fn logical_lines(src: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let b = src.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= b.len() {
            return None;
        }
        let start = at;
        let mut end;
        loop {
            end = b[at..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |p| at + p);
            let line = src[at..end].trim_end_matches('\r');
            at = (end + 1).min(b.len());
            if !line.ends_with('\\') || end >= b.len() {
                break;
            }
        }
        Some((start, end))
    })
}

/// Whether a block comment is open at the end of `line` (given whether one was at its start);
/// `//` comments and string literals are followed so their `/*` do not count.
fn ends_in_comment(line: &str, mut open: bool) -> bool {
    let b = line.as_bytes();
    let mut i = 0;
    let mut quote = None;
    while i < b.len() {
        let two = (b[i], b.get(i + 1).copied().unwrap_or(0));
        if open {
            if two == (b'*', b'/') {
                open = false;
                i += 1;
            }
        } else if let Some(q) = quote {
            if b[i] == b'\\' {
                i += 1;
            } else if b[i] == q {
                quote = None;
            }
        } else {
            match two {
                (b'/', b'*') => {
                    open = true;
                    i += 1;
                }
                (b'/', b'/') => return false,
                (b'"' | b'\'', _) => quote = Some(b[i]),
                _ => {}
            }
        }
        i += 1;
    }
    open
}

/// A directive line's keyword and the rest of it (`# if X` gives `("if", "X")`).
fn directive(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let end = rest
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(rest.len());
    Some((&rest[..end], &rest[end..]))
}

/// Macros g++ defines itself on Linux (x86-64 or another 64-bit target), as far as the
/// branch choice goes; every other macro counts as undefined until the file defines it.
const PREDEFINED: &[&str] = &[
    "__GNUC__",
    "__GNUG__",
    "__cplusplus",
    "__linux__",
    "__linux",
    "linux",
    "__unix__",
    "__unix",
    "unix",
    "__ELF__",
    "__LP64__",
    "_LP64",
    "__x86_64__",
    "__x86_64",
    "__STDC__",
    "__STDC_HOSTED__",
    "__GXX_RTTI",
    "__EXCEPTIONS",
    "__cpp_exceptions",
    "__cpp_rtti",
    "__ORDER_LITTLE_ENDIAN__",
    "__BYTE_ORDER__",
    "__SIZEOF_POINTER__",
    "__CHAR_BIT__",
];

/// The identifier a `#define`, `#undef`, `#ifdef` or `defined` names.
fn name(rest: &str) -> Option<&str> {
    let r = rest.trim_start();
    let end = r
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(r.len());
    (end > 0).then(|| &r[..end])
}

/// Whether the branch a conditional opens is taken, as far as can be told (see the module
/// comment): unknown expressions count as true, so the first branch is kept.
fn holds(word: &str, expr: &str, defined: &[&str], elsewhere: impl Fn(&str) -> bool) -> bool {
    let is_def = |n: &str| PREDEFINED.contains(&n) || defined.contains(&n) || elsewhere(n);
    let e = expr.split("//").next().unwrap_or("");
    let e = e.split("/*").next().unwrap_or("").trim();
    match word {
        "ifdef" | "elifdef" => return name(e).is_none_or(is_def),
        "ifndef" | "elifndef" => return name(e).is_none_or(|n| !is_def(n)),
        _ => {}
    }
    let (not, e) = match e.strip_prefix('!') {
        Some(r) => (true, r.trim_start()),
        None => (false, e),
    };
    let value = if e == "0" || e == "(0)" {
        Some(false)
    } else if e == "1" || e == "(1)" {
        Some(true)
    } else if let Some(r) = e.strip_prefix("defined") {
        let r = r.trim();
        let inner = r
            .strip_prefix('(')
            .and_then(|x| x.strip_suffix(')'))
            .unwrap_or(r);
        name(inner).filter(|n| *n == inner.trim()).map(is_def)
    } else if name(e).is_some_and(|n| n == e) {
        // A bare macro: 0 when undefined; when defined, its value is unknown (taken).
        Some(is_def(e))
    } else {
        None
    };
    value.is_none_or(|v| v != not)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(src: &str) -> String {
        let (text, _) = one_configuration(src, |n| n == "FROM_FLAGS").expect("pairs up");
        assert_eq!(text.len(), src.len());
        assert_eq!(
            text.matches('\n').count(),
            src.matches('\n').count(),
            "lines stay put"
        );
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn first_branches_are_kept_and_if_0_gives_its_else() {
        let src = "a\n#if X > 1\nb\n#elif Y\nc\n#else\nd\n#endif\n#if 0\ne\n#else\nf\n#endif\ng";
        assert_eq!(kept(src), "a b f g");
        let nested = "#ifdef __GNUC__\n#if 0\nx\n#elif 1\ny\n#endif\n#else\nz\n#endif";
        assert_eq!(kept(nested), "y");
        let elif0 = "#if 0\na\n#elif 0\nb\n#elif Q || R\nc\n#else\nd\n#endif";
        assert_eq!(kept(elif0), "c");
    }

    /// Undefined configuration macros take the other branch; the file's own defines count
    /// from where they are made (an include guard keeps its file).
    #[test]
    fn defined_macros_decide_the_branch() {
        let src = "#ifndef G_H\n#define G_H\n#ifdef _WIN32\nw\n#else\np\n#endif\n\
                   #if !defined(NDEBUG)\nd\n#endif\n#if defined __linux__\nl\n#endif\n\
                   #define OPT 1\n#if OPT\no\n#endif\n#undef OPT\n#ifdef OPT\nx\n#endif\n\
                   #ifdef G_H\ng\n#endif\n#ifdef FROM_FLAGS\nf\n#endif\n#endif\n";
        assert_eq!(
            kept(src),
            "#define G_H p d l #define OPT 1 o #undef OPT g f"
        );
    }

    #[test]
    fn other_directives_stay_where_their_branch_is_kept() {
        let src = "#ifndef H\n#define H\n#include <v>\n#else\n#define Z \\\n  1\n#endif\n";
        assert_eq!(kept(src), "#define H #include <v>");
    }

    /// The cases that break a parse of both branches at once.
    #[test]
    fn braces_and_initialiser_lists_come_out_whole() {
        let src = "S() : a_(1),\n#ifndef D\n  b_(2),\n#endif\n  c_(3) {}\n\
                   void f() {\n#ifdef D\n  if (x) {\n#else\n  if (y) {\n#endif\n  }\n}\n";
        assert_eq!(
            kept(src),
            "S() : a_(1), b_(2), c_(3) {} void f() { if (y) { } }"
        );
        let (_, line) = one_configuration(src, |_| false).unwrap();
        assert_eq!(line, 2);
    }

    #[test]
    fn directives_in_comments_and_unpaired_groups() {
        assert_eq!(kept("/*\n#if X\n*/\n#if 0\na\n#endif\nb"), "/* #if X */ b");
        assert_eq!(kept("x = \"/*\";\n#if 0\na\n#endif"), "x = \"/*\";");
        let none = |s: &str| one_configuration(s, |_| false).is_none();
        assert!(none("#if X\na\n"));
        assert!(none("a\n#endif\n"));
        assert!(none("#else\n"));
        assert!(none("no directives\n#define A 1\n"));
    }
}
