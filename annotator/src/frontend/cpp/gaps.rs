//! Same-length rewrites of C++ that is valid but that tree-sitter-cpp 0.23 cannot parse, so
//! the declarations around it are not spoiled. Only the text the parser sees changes; every
//! offset stays the original's, so spans and edits need no mapping.
//!
//! - `new T*[n]` (an array of pointers; leveldb's `new LRUHandle*[new_length]`): the grammar
//!   reads `new T` and stops at `*[`. The stars become spaces (`new T [n]`): the walk reads no
//!   types inside bodies, so nothing it models changes.

use std::borrow::Cow;

/// `src` with the known grammar gaps rewritten (borrowed when there are none).
pub fn repair(src: &str) -> Cow<'_, str> {
    let b = src.as_bytes();
    let mut stars = Vec::new();
    for at in memchr::memmem::find_iter(b, b"new") {
        stars.extend(pointer_array_new(b, at));
    }
    if stars.is_empty() {
        return Cow::Borrowed(src);
    }
    let mut out = b.to_vec();
    for s in stars {
        out[s] = b' ';
    }
    // Only ASCII '*' bytes were replaced by ASCII spaces: still UTF-8.
    Cow::Owned(String::from_utf8(out).unwrap_or_else(|_| src.to_string()))
}

fn word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The offsets of the stars in `new [(placement)] TYPE *… [` starting at `at` (none when
/// the text there is anything else).
fn pointer_array_new(b: &[u8], at: usize) -> Vec<usize> {
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
    if b.get(i) == Some(&b'(') {
        // A placement: `new (std::nothrow) T*[n]`.
        let mut depth = 0usize;
        while let Some(&c) = b.get(i) {
            i += 1;
            match c {
                b'(' => depth += 1,
                b')' if depth == 1 => break,
                b')' => depth -= 1,
                b';' | b'{' | b'}' => return Vec::new(),
                _ => {}
            }
        }
        i = skip_ws(i);
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
    let mut stars = Vec::new();
    while let Some(&c) = b.get(i) {
        match c {
            b'*' => stars.push(i),
            c if c.is_ascii_whitespace() => {}
            b'[' if !stars.is_empty() => return stars,
            _ => break,
        }
        i += 1;
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

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
            ("r = new const char*[k];", "r = new const char [k];"),
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
}
