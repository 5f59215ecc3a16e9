//! Edits are insertions at byte offsets of the original text — never reprinting — so all
//! text outside them stays byte-identical and restore can always undo them.

use serde::{Deserialize, Serialize};

/// Revy's own text in either language. Every C++ insertion holds one, so restore can prove
/// an edited file lost exactly Revy's insertions: the result holds no more of these than the
/// original did (`store::proven_unapply`).
pub(crate) const MARKERS: [&str; 4] = [
    "_revy.runtime.",
    "::_revy_rt::",
    ".revy-runtime/",
    CLOSE_MARK,
];

/// Marks an insertion that is otherwise plain syntax (the `)` closing a wrapped
/// expression): a bare `)` could be mistaken for the user's after an edit, and restore would
/// remove the user's instead (`x_(f(a) + 1)` becoming `x_(f(a + 1))`).
pub(crate) const CLOSE_MARK: &str = "/*revy*/";

/// The marked `)` that closes an expression an insertion opened.
pub fn marked_close() -> String {
    format!("{CLOSE_MARK})")
}

/// Whether `text` holds one of Revy's markers.
pub fn is_marked(text: &str) -> bool {
    MARKERS.iter().any(|m| text.contains(m))
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Insertion {
    /// UTF-8 byte offset into the original text (must be a char boundary).
    pub offset: usize,
    pub text: String,
}

impl Insertion {
    pub fn new(offset: usize, text: impl Into<String>) -> Self {
        Insertion {
            offset,
            text: text.into(),
        }
    }
}

/// Applies insertions to `src`. Insertions at the same offset keep their relative order.
/// Panics only on a programming error (offset out of range or inside a UTF-8 sequence).
pub fn apply(src: &str, insertions: &[Insertion]) -> String {
    let mut sorted: Vec<&Insertion> = insertions.iter().collect();
    sorted.sort_by_key(|i| i.offset); // stable: same-offset order kept
    let extra: usize = sorted.iter().map(|i| i.text.len()).sum();
    let mut out = String::with_capacity(src.len() + extra);
    let mut at = 0;
    for ins in sorted {
        assert!(
            ins.offset <= src.len() && src.is_char_boundary(ins.offset),
            "insertion offset {} is not a char boundary",
            ins.offset
        );
        out.push_str(&src[at..ins.offset]);
        out.push_str(&ins.text);
        at = ins.offset;
    }
    out.push_str(&src[at..]);
    out
}

/// Removes previously applied `insertions` from `annotated`, which may have been edited
/// since: each inserted text is looked for in order after the previous one. Returns `None`
/// when some insertion can no longer be found intact (the caller then refuses).
pub fn unapply(annotated: &str, insertions: &[Insertion]) -> Option<String> {
    let mut sorted: Vec<&Insertion> = insertions.iter().collect();
    sorted.sort_by_key(|i| i.offset);
    let mut out = String::with_capacity(annotated.len());
    let mut at = 0;
    for ins in sorted {
        if ins.text.is_empty() {
            continue;
        }
        let found = annotated[at..].find(&ins.text)? + at;
        out.push_str(&annotated[at..found]);
        at = found + ins.text.len();
    }
    out.push_str(&annotated[at..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply_then_unapply_round_trips_with_multibyte_text() {
        let src = "class Café { void größe() { int ñ = 1; } }";
        let b = src.find("{ int").unwrap() + 1;
        let e = src.rfind("} }").unwrap();
        let ins = vec![
            Insertion::new(b, " START();"),
            Insertion::new(e, "END(); "),
            Insertion::new(b, " SECOND();"),
        ];
        let out = apply(src, &ins);
        assert!(out.contains("{ START(); SECOND(); int ñ"));
        assert_eq!(unapply(&out, &ins).unwrap(), src);
    }

    #[test]
    fn unapply_keeps_user_edits_and_fails_on_damaged_insertions() {
        let src = "a\nb\n";
        let ins = vec![Insertion::new(2, "X;\n")];
        let out = apply(src, &ins);
        let edited = out.replace("a\n", "a changed\n");
        assert_eq!(unapply(&edited, &ins).unwrap(), "a changed\nb\n");
        assert!(unapply(&out.replace("X;", "Y;"), &ins).is_none());
    }
}
