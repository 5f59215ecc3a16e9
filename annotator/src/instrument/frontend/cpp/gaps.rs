//! Same-length rewrites of C++ that is valid but that tree-sitter-cpp 0.23 cannot parse, so
//! the declarations around it are not spoiled. Only the text the parser sees changes; every
//! offset stays the original's, so spans and edits need no mapping.
//!
//! - `new T*[n]` (an array of pointers; leveldb's `new LRUHandle*[new_length]`): the grammar
//!   reads `new T` and stops at `*[`. The stars become spaces (`new T [n]`): the walk reads no
//!   types inside bodies, so nothing it models changes. Likewise a qualifier after `new`
//!   (`new const char[n]`, `new const H(x)`), which the grammar does not take at all.
//! - `(x = e, y)`, a parenthesized comma expression whose first operand is an assignment
//!   (leveldb's `(a = Slice(k, n), &a)`): the grammar takes `(x = e` for a parenthesized
//!   assignment and stops at the comma. Where a parse error sits in one, it becomes
//!   `((x= e),y)`: a parenthesis borrowed from the space before `=` and one from the space
//!   after the comma, so `e` keeps its offsets and the assignment stays one for the effects
//!   analysis. Only at error sites, and kept only when the file then parses with fewer errors
//!   ([`super::parse_expanded`]), since the same text as a call's arguments is valid.
//! - Pointers to members (muparser's `typedef value_type (ParserBase::*ParseFunction)()
//!   const` and `(this->*m_pParseFormula)()`): the grammar has neither the `C::*` declarator
//!   nor the `->*` operator (it has `.*`). `C::*` loses its class (`    *`), and a member
//!   function pointer's qualifiers after its parameters go too (`(*F)() const` is no plain
//!   function pointer's); `->*` becomes ` .*`. Bodies are not typed by the walk, and such a
//!   declarator names no method, so nothing it models changes.
//! - NUL bytes: g++ ignores them ("null character(s) ignored"), in comments and code alike;
//!   tree-sitter stops a comment (and a token) at one, so the rest of the comment became
//!   code and the next class was spoiled. They become spaces.

use std::borrow::Cow;

/// `src` with the known grammar gaps rewritten (borrowed when there are none).
pub fn repair(src: &str) -> Cow<'_, str> {
    let b = src.as_bytes();
    let mut blank = Vec::new();
    for at in memchr::memmem::find_iter(b, b"new") {
        blank.extend(new_expression(b, at));
    }
    for at in memchr::memmem::find_iter(b, b"::") {
        blank.extend(member_pointer(b, at));
    }
    blank.extend(memchr::memchr_iter(0, b));
    let arrows: Vec<usize> = memchr::memmem::find_iter(b, b"->*")
        .filter(|&at| !after_operator(b, at))
        .collect();
    if blank.is_empty() && arrows.is_empty() {
        return Cow::Borrowed(src);
    }
    let mut out = b.to_vec();
    for i in blank {
        out[i] = b' ';
    }
    for at in arrows {
        out[at] = b' ';
        out[at + 1] = b'.';
    }
    // Only ASCII bytes were replaced by ASCII spaces: still UTF-8.
    Cow::Owned(String::from_utf8(out).unwrap_or_else(|_| src.to_string()))
}

/// `src` with each parenthesized comma expression that opens with an assignment and holds
/// one of the error positions `errors` rewritten as `((x= e),y)` (see the module's notes);
/// `None` when there is none.
pub fn repair_commas(src: &str, errors: &[usize]) -> Option<String> {
    let mut out = src.as_bytes().to_vec();
    let mut done = Vec::new();
    for &e in errors {
        let Some(open) = enclosing_paren(&out, e) else {
            continue;
        };
        if done.contains(&open) {
            continue;
        }
        if let Some((eq_ws, comma)) = assignment_then_comma(&out, open) {
            // `(WS x WS =` → `(( WS x WS=`: everything from the `(` to the space before `=`
            // moves one to the right.
            out.copy_within(open + 1..eq_ws, open + 2);
            out[open + 1] = b'(';
            // `e, y` → `e),y`.
            out[comma + 1] = b',';
            out[comma] = b')';
            done.push(open);
        }
    }
    // Only ASCII bytes were moved or written.
    (!done.is_empty())
        .then(|| String::from_utf8(out).ok())
        .flatten()
}

/// The nearest `(` before `at` not closed before it, within the statement.
fn enclosing_paren(b: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    for i in (0..at.min(b.len())).rev() {
        match b[i] {
            b')' => depth += 1,
            b'(' if depth == 0 => return Some(i),
            b'(' => depth -= 1,
            b';' | b'{' | b'}' => return None,
            _ => {}
        }
    }
    None
}

/// For `(` at `open` followed by `WS lvalue WS+ = e, WS`: the offset of the last space
/// before `=` and of the top-level comma (followed by a space). The lvalue is a name or a
/// chain of `.`/`->` members; `==` is not an assignment.
fn assignment_then_comma(b: &[u8], open: usize) -> Option<(usize, usize)> {
    let ws = |c: u8| c == b' ' || c == b'\t';
    let mut i = open + 1;
    while b.get(i).is_some_and(|&c| ws(c)) {
        i += 1;
    }
    let lhs = i;
    while b
        .get(i)
        .is_some_and(|&c| word(c) || c == b'.' || c == b'>' || c == b'-')
    {
        i += 1;
    }
    if i == lhs || !word(b[lhs]) || b.get(i).is_none_or(|&c| !ws(c)) {
        return None;
    }
    while b.get(i + 1).is_some_and(|&c| ws(c)) {
        i += 1;
    }
    let eq_ws = i;
    if b.get(i + 1) != Some(&b'=') || b.get(i + 2) == Some(&b'=') {
        return None;
    }
    let mut depth = 0usize;
    for j in i + 2..b.len() {
        match b[j] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' if depth == 0 => return None,
            b')' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                return b.get(j + 1).is_some_and(|&c| ws(c)).then_some((eq_ws, j));
            }
            b';' | b'"' | b'\'' => return None,
            _ => {}
        }
    }
    None
}

/// The offsets to blank for a pointer-to-member declarator whose `::*` starts at `at`
/// (`C::*`, `ns::C::*`, `C<T>::*`): the class and its `::`, and for a member function
/// pointer (`(C::*f)(…) const &`) the qualifiers after its parameters. None when `at` is
/// not followed by `*` or not preceded by a name.
fn member_pointer(b: &[u8], at: usize) -> Vec<usize> {
    let ws = |c: u8| c.is_ascii_whitespace();
    let mut star = at + 2;
    while b.get(star).is_some_and(|&c| ws(c)) {
        star += 1;
    }
    if b.get(star) != Some(&b'*') {
        return Vec::new();
    }
    // The qualifier: names, `::` and template arguments, back from `at`.
    let mut i = at;
    let mut angle = 0usize;
    while i > 0 {
        let c = b[i - 1];
        match c {
            b'>' => angle += 1,
            b'<' if angle > 0 => angle -= 1,
            b':' => {}
            _ if word(c) => {}
            b',' | b' ' | b'\t' | b'*' | b'&' if angle > 0 => {}
            _ => break,
        }
        i -= 1;
    }
    if angle > 0 || i == at || !word(b[i]) || (i > 0 && b[i - 1] == b'.') {
        return Vec::new();
    }
    let mut blank: Vec<usize> = (i..star).collect();
    blank.extend(member_function_qualifiers(b, star));
    blank
}

/// After the `*` of `(C::*f)(…)`: the offsets of the `const`/`volatile`/`&`/`&&` that follow
/// the parameter list (none unless the declarator is parenthesized and has one).
fn member_function_qualifiers(b: &[u8], star: usize) -> Vec<usize> {
    let ws = |c: u8| c.is_ascii_whitespace();
    // The declarator's closing parenthesis: a name (or nothing) after the star.
    let mut i = star + 1;
    while b.get(i).is_some_and(|&c| word(c) || ws(c)) {
        i += 1;
    }
    if b.get(i) != Some(&b')') {
        return Vec::new();
    }
    i += 1;
    while b.get(i).is_some_and(|&c| ws(c)) {
        i += 1;
    }
    if b.get(i) != Some(&b'(') {
        return Vec::new();
    }
    let Some(mut i) = after_parens(b, i) else {
        return Vec::new();
    };
    let mut blank = Vec::new();
    loop {
        while b.get(i).is_some_and(|&c| ws(c)) {
            i += 1;
        }
        let rest = &b[i.min(b.len())..];
        let q = [&b"const"[..], b"volatile", b"&&", b"&"]
            .into_iter()
            .find(|q| {
                rest.starts_with(q) && !(word(q[0]) && rest.get(q.len()).is_some_and(|&c| word(c)))
            });
        let Some(q) = q else {
            return blank;
        };
        blank.extend(i..i + q.len());
        i += q.len();
    }
}

/// Just past the `)` that closes the `(` at `open`, within one statement (`None` at a `;`,
/// `{` or `}` first, or at the end).
fn after_parens(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' => depth += 1,
            b')' if depth == 1 => return Some(i + 1),
            b')' => depth -= 1,
            b';' | b'{' | b'}' => return None,
            _ => {}
        }
    }
    None
}

/// Whether `->*` at `at` is the name of an overloaded operator (`operator->*`).
fn after_operator(b: &[u8], at: usize) -> bool {
    let mut i = at;
    while i > 0 && b[i - 1].is_ascii_whitespace() {
        i -= 1;
    }
    b[..i].ends_with(b"operator") && (i < 9 || !word(b[i - 9]))
}

fn word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The offsets to blank in a new-expression at `at`: a `const`/`volatile` after `new
/// [(placement)]`, and the stars of `TYPE *… [` (none when the text there is anything else).
fn new_expression(b: &[u8], at: usize) -> Vec<usize> {
    if (at > 0 && word(b[at - 1])) || b.get(at + 3).is_some_and(|&c| word(c)) {
        return Vec::new();
    }
    let skip_ws = |mut i: usize| {
        while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
            i += 1;
        }
        i
    };
    let mut i = skip_ws(at + 3);
    let mut blank = Vec::new();
    if b.get(i) == Some(&b'(') {
        // A placement: `new (std::nothrow) T*[n]`.
        let Some(end) = after_parens(b, i) else {
            return Vec::new();
        };
        i = skip_ws(end);
    }
    // `const`/`volatile` before the type: blanked.
    for q in [&b"const"[..], b"volatile"] {
        if b[i.min(b.len())..].starts_with(q)
            && b.get(i + q.len()).is_some_and(|c| c.is_ascii_whitespace())
        {
            blank.extend(i..i + q.len());
            i = skip_ws(i + q.len());
        }
    }
    // The type: names, `::`, template arguments (with their commas and spaces).
    let start = i;
    let mut angle = 0usize;
    while let Some(&c) = b.get(i) {
        match c {
            b'<' => angle += 1,
            b'>' if angle > 0 => angle -= 1,
            b',' | b' ' | b'\t' | b'*' | b'&' if angle > 0 => {}
            b':' => {}
            b' ' | b'\t' => {}
            _ if word(c) => {}
            _ => break,
        }
        i += 1;
    }
    if angle > 0 || !b.get(start).is_some_and(|&c| word(c) || c == b':') {
        return Vec::new();
    }
    let qualified = blank.len();
    while let Some(&c) = b.get(i) {
        match c {
            b'*' => blank.push(i),
            c if c.is_ascii_whitespace() => {}
            b'[' if blank.len() > qualified => return blank,
            _ => break,
        }
        i += 1;
    }
    // No array of pointers: only the qualifier, if any.
    blank.truncate(qualified);
    blank
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comma_expressions_opening_with_an_assignment_get_parenthesized_at_errors() {
        let src = "f((k ? (a = Slice(k, n), &a) : nullptr));";
        let at = src.find(", &a").unwrap();
        let fixed = repair_commas(src, &[at]).unwrap();
        assert_eq!(fixed, "f((k ? ((a= Slice(k, n)),&a) : nullptr));");
        assert_eq!(fixed.len(), src.len());
        // `Slice(k, n)` keeps its offsets.
        assert_eq!(fixed.find("Slice"), src.find("Slice"));
        let src = "y = (this->x_  =  1, 2);";
        let at = src.find('1').unwrap();
        assert_eq!(
            repair_commas(src, &[at]).unwrap(),
            "y = ((this->x_ =  1),2);"
        );
        // Not an assignment, no room, no comma, not at an error: left alone.
        for (src, at) in [
            ("y = (x == 1, 2);", 9),
            ("y = (x=1, 2);", 8),
            ("y = (x = 1,2);", 9),
            ("y = (x = 1);", 9),
            ("y = (x = 1, 2); z = 3;", 18),
        ] {
            assert_eq!(repair_commas(src, &[at]), None, "{src}");
        }
    }

    #[test]
    fn arrays_of_pointers_lose_their_stars_and_nothing_else_changes() {
        let cases = [
            ("x = new H*[n];", "x = new H [n];"),
            ("x = new LRUHandle* [len];", "x = new LRUHandle  [len];"),
            (
                "p = new (std::nothrow) ns::T**[4];",
                "p = new (std::nothrow) ns::T  [4];",
            ),
            (
                "q = new std::map<int, char*>*[2];",
                "q = new std::map<int, char*> [2];",
            ),
            ("r = new const char*[k];", "r = new       char [k];"),
            ("s = new const char[k];", "s = new       char[k];"),
            ("t = new volatile H(1);", "t = new          H(1);"),
        ];
        for (src, want) in cases {
            assert_eq!(repair(src), want, "{src}");
            assert_eq!(repair(src).len(), src.len());
        }
        for same in [
            "a = new H[n];",
            "a = new H*;",
            "a = new H(p)[0];",
            "renew*[3]",
            "newer*[3]",
            "int* new_list = nullptr; f(new_x *[2]);",
            "a = b * c[2]; // new",
        ] {
            assert!(matches!(repair(same), Cow::Borrowed(_)), "{same}");
        }
    }

    #[test]
    fn pointers_to_members_lose_their_class_and_arrows_become_dots() {
        let cases = [
            (
                "typedef int (P::*Fn)() const;",
                "typedef int (   *Fn)()      ;",
            ),
            (
                "typedef int (P:: * G)(int) const &;",
                "typedef int (    * G)(int)        ;",
            ),
            (
                "void (ns::Box<int, 2>::*b)();",
                "void (                 *b)();",
            ),
            ("int P::*data;", "int    *data;"),
            ("return (this->*f)();", "return (this .*f)();"),
            ("return (q ->* g)(2);", "return (q  .* g)(2);"),
            // Left alone: the overloaded operator, a scope without a star, `.*`.
            ("P* operator->*(int);", "P* operator->*(int);"),
            ("P* operator ->* (int);", "P* operator ->* (int);"),
            ("x = ns::f(*p);", "x = ns::f(*p);"),
            ("y = (p.*f)();", "y = (p.*f)();"),
            // A constant named like a qualifier is not one (`constexpr` is a word).
            (
                "typedef int (P::*H)() constexpr_x;",
                "typedef int (   *H)() constexpr_x;",
            ),
        ];
        for (src, want) in cases {
            let got = repair(src);
            assert_eq!(got, want, "{src}");
            assert_eq!(got.len(), src.len());
        }
    }
}
