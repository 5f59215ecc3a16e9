//! C++ constructors: the start entry goes before the member initialisers, so work done in them
//! is timed and arguments are measured before an initialiser moves them. The call is put into
//! the first written initialiser's first argument as a comma expression:
//! `name_(((void)::_revy_rt::ctor_start(MID, SIZE, this), std::move(name)))` — evaluated before
//! that initialiser (and every later one) runs. The object's ID does not exist yet; the body's
//! `::_revy_rt::CtorScope` fills it in and logs the end. Where no initialiser can take it (none,
//! braces, an empty or pack argument list, a null pointer constant that the comma would turn
//! into a plain integer), the body's `CtorScope` logs the start itself, as before. Comments
//! and literals in the head are read past (blanked in a copy of the same length).

/// Offsets of the first initialiser's first argument (start, end) in `src`, for a constructor
/// whose declaration starts at `decl` and whose body's `{` is at `body`.
pub fn first_init_arg(src: &str, decl: usize, body: usize, name: &str) -> Option<(usize, usize)> {
    if name.is_empty() {
        return None;
    }
    // Comments and the insides of literals blanked out (same offsets): their brackets and
    // commas do not count.
    let masked = mask(src.get(decl..body)?)?;
    let head = masked.as_str();
    let (args_open, args_close) = first_init_brackets(head, name)?;
    if head.as_bytes()[args_open] != b'(' {
        return None;
    }
    let args = &head[args_open + 1..args_close];
    if args.contains("...") {
        return None;
    }
    let first_end = top_comma(args).unwrap_or(args.len());
    if first_end < args.len() && args.contains('<') {
        return None; // `f(a < b, c > d)` or `X<A, B>(…)`: the first argument is not certain
    }
    let first = &args[..first_end];
    let t = first.trim();
    if t.is_empty() || t.starts_with('{') || is_null_constant(t) {
        return None;
    }
    let lead = first.len() - first.trim_start().len();
    let start = decl + args_open + 1 + lead;
    Some((start, start + t.len()))
}

/// For a constructor whose first written initialiser is braced (`head_{NewNode(h)}`: no
/// early start goes there), its first element when that may call something (holds a `(`):
/// the class's own tag ID is zeroed before it (`cpp::Probe::insert`), so a method it calls on
/// the object reads 0 rather than what the memory held.
pub fn first_brace_call(src: &str, decl: usize, body: usize, name: &str) -> Option<(usize, usize)> {
    if name.is_empty() {
        return None;
    }
    let masked = mask(src.get(decl..body)?)?;
    let head = masked.as_str();
    let (open, close) = first_init_brackets(head, name)?;
    let args = &head[open + 1..close];
    if head.as_bytes()[open] != b'{' || args.contains("...") {
        return None;
    }
    let first_end = top_comma(args).unwrap_or(args.len());
    if first_end < args.len() && args.contains('<') {
        return None;
    }
    let first = &args[..first_end];
    let t = first.trim();
    if !t.contains('(') || t.starts_with('{') {
        return None;
    }
    let lead = first.len() - first.trim_start().len();
    let start = decl + open + 1 + lead;
    Some((start, start + t.len()))
}

/// The first written initialiser's bracket (`(` or `{`) and the one closing it, in the masked
/// head of constructor `name`.
fn first_init_brackets(head: &str, name: &str) -> Option<(usize, usize)> {
    let b = head.as_bytes();
    let open = params_open(head, name)?;
    let close = matching(b, open)?;
    let colon = init_list_colon(b, close + 1)?;
    // The initialised name: identifiers, `::` and template arguments up to `(` or `{`.
    let mut i = colon + 1;
    let mut angle = 0i32;
    while i < b.len() {
        match b[i] {
            b'<' => angle += 1,
            b'>' => angle -= 1,
            b'(' | b'{' if angle == 0 => break,
            b'{' | b'(' | b';' | b'"' | b'\'' => return None,
            _ => {}
        }
        i += 1;
    }
    Some((i, matching(b, i)?))
}

/// `head` with comments turned into spaces and the insides of string and character
/// literals into spaces (their quotes kept), byte for byte; `None` for what is not read here:
/// directives, raw strings, `u8` character literals.
fn mask(head: &str) -> Option<String> {
    if head.contains('#') || head.contains("R\"") || head.contains("u8'") {
        return None;
    }
    let b = head.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = head[i..].find('\n').map_or(b.len(), |e| i + e);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = head[i + 2..].find("*/").map(|e| i + 2 + e + 2)?;
                blank(&mut out, i, end);
                i = end;
            }
            // A quote after a digit is a digit separator (`1'000`, `0xFF'FF`).
            b'\'' if i > 0 && b[i - 1].is_ascii_hexdigit() => i += 1,
            q @ (b'"' | b'\'') => {
                let mut j = i + 1;
                while j < b.len() && b[j] != q {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                if j >= b.len() {
                    return None;
                }
                blank(&mut out, i + 1, j);
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    // Only ASCII bytes were replaced, each by a space: still UTF-8 (a multi-byte character
    // inside a comment or literal becomes several spaces, not a split character).
    String::from_utf8(out).ok()
}

/// The `(` of the parameter list: the first `name` followed by `(`.
fn params_open(head: &str, name: &str) -> Option<usize> {
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let b = head.as_bytes();
    for (i, _) in head.match_indices(name) {
        if i > 0 && ident(b[i - 1]) {
            continue;
        }
        let rest = &head[i + name.len()..];
        let trimmed = rest.trim_start();
        if trimmed.starts_with('(') {
            return Some(head.len() - trimmed.len());
        }
    }
    None
}

/// The bracket closing the one at `open` (`(`/`{`), counting all bracket kinds.
fn matching(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The `:` opening the member-initialiser list, after the parameter list (not `::`).
fn init_list_colon(b: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0i32;
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b':' if b.get(i + 1) == Some(&b':') => i += 1,
            b':' if depth == 0 => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Offset of the first comma outside brackets (`()`, `[]`, `{}`).
fn top_comma(text: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// `0`, `0L`, `NULL`, `false`…: null pointer constants only while they stand alone.
fn is_null_constant(t: &str) -> bool {
    let t = t.trim_matches(|c| c == '(' || c == ')' || c == ' ');
    t == "NULL"
        || t == "false"
        || (!t.is_empty()
            && t.trim_start_matches("0x")
                .trim_start_matches("0X")
                .chars()
                .all(|c| c == '0' || c == 'u' || c == 'U' || c == 'l' || c == 'L'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(src: &str, name: &str) -> Option<&'static str> {
        let body = src.rfind('{').unwrap();
        let (a, b) = first_init_arg(src, 0, body, name)?;
        Some(Box::leak(src[a..b].to_string().into_boxed_str()))
    }

    #[test]
    fn first_argument_of_the_first_initialiser() {
        let s = "explicit Person(std::string name) : name_(std::move(name)) {}";
        assert_eq!(arg(s, "Person"), Some("std::move(name)"));
        let s = "Sorter(int n) noexcept(true) : Base(n, 2), data_(sorted(n)) {}";
        assert_eq!(arg(s, "Sorter"), Some("n"));
        let s = "template <class T> Buffer<T>::Buffer(int n) : lib::B<T>( f(n) ) {}";
        assert_eq!(arg(s, "Buffer"), Some("f(n)"));
        let s = "X::X(const X& o) : Base(o), p_(o.p_) {}";
        assert_eq!(arg(s, "X"), Some("o"));
    }

    #[test]
    fn a_braced_first_initialiser_that_calls_gets_the_tag_zeroed_before_it() {
        let at = |src: &str| {
            let body = src.rfind('{').unwrap();
            first_brace_call(src, 0, body, "S").map(|(a, b)| src[a..b].to_string())
        };
        assert_eq!(
            at("S(int h) : head_{New(h)}, n_(h) {}").as_deref(),
            Some("New(h)")
        );
        assert_eq!(at("S(int h) : v_{ f(h), g() } {}").as_deref(), Some("f(h)"));
        assert_eq!(at("S(int h) : n_{h} {}"), None); // no call
        assert_eq!(at("S(int h) : n_(f(h)) {}"), None); // parentheses: the early start's place
        assert_eq!(at("S(int h) : n_{\"(\"} {}"), None); // a parenthesis in a literal
        assert_eq!(at("S(int h) : n_{{f(h)}} {}"), None);
        assert_eq!(at("S() {}"), None);
    }

    #[test]
    fn no_place_for_the_start() {
        assert_eq!(arg("A() {}", "A"), None); // no initialisers
        assert_eq!(arg("A() : x_{1} {}", "A"), None); // braces: narrowing checks
        assert_eq!(arg("A() : x_() {}", "A"), None);
        assert_eq!(arg("A() : p_(0), q_(1) {}", "A"), None); // a null pointer constant
        assert_eq!(arg("A() : p_(NULL) {}", "A"), None);
        assert_eq!(arg("A(Ts... t) : b_(t...) {}", "A"), None);
        assert_eq!(arg("A(int a) : m_(f<int, 2>(a)) {}", "A"), None);
        assert_eq!(arg("A(int a) : m_(f<int>(a)) {}", "A"), Some("f<int>(a)"));
        assert_eq!(arg("A(int a) : m_(a < 1, 2 > a) {}", "A"), None);
        assert_eq!(arg("A() : p_(0 /* none */) {}", "A"), None);
        assert_eq!(arg("#define X\nA(int a) : m_(a) {}", "A"), None);
    }

    /// Comments and literals (leveldb's `SkipList`: `head_(NewNode(0 /* any key will do */,
    /// kMaxHeight))` kept its constructor's start out of the initialisers).
    #[test]
    fn comments_and_literals_are_read_past() {
        let s = "S(C cmp, A* a)\n    : compare_(cmp),\n      head_(New(0 /* any, key ( */, 12)) {}";
        assert_eq!(arg(s, "S"), Some("cmp"));
        let s = "S(int a) : // the first (of two\n m_(a), n_(a) {}";
        assert_eq!(arg(s, "S"), Some("a"));
        let s = "S(int a) : m_(f(a /* ) */, 2)) {}";
        assert_eq!(arg(s, "S"), Some("f(a /* ) */, 2)"));
        let s = "S(std::string s = \")\") : m_(s), c_(',') {}";
        assert_eq!(arg(s, "S"), Some("s"));
        let s = "S() : m_(\"a, (b\"), n_(1'000) {}";
        assert_eq!(arg(s, "S"), Some("\"a, (b\""));
        let s = "S() : m_(1'000'000) {}";
        assert_eq!(arg(s, "S"), Some("1'000'000"));
        let s = "S(int a) : m_(a) /* é ) */ {}";
        assert_eq!(arg(s, "S"), Some("a"));
        assert_eq!(arg("S(int a) : m_(a /* open {}", "S"), None);
    }
}
