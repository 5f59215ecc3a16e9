//! Signatures as people read them. The SAF and the traces keep the thesis notation
//! (`!const_K&^0!F&&^0!`: one `type^array-dims` per parameter, a C++ member function's
//! qualifiers after the last `!`), which is unambiguous and has no spaces; every text a
//! person reads (`analyze`, `whatif`, the report, the exports' labels) shows
//! `(const K&, F&&)` instead, through [`signature`].

/// `!const_K&^0!F&&^0!` → `(const K&, F&&)`, `!int^1!String^0!` → `(int[], String)`,
/// `!int^0!const` → `(int) const`, `!!` → `()`. Text not in the notation comes back as it is.
pub fn signature(sgn: &str) -> String {
    let Some(body) = sgn.strip_prefix('!') else {
        return sgn.to_string();
    };
    let Some(last) = body.rfind('!') else {
        return sgn.to_string();
    };
    let (params, quals) = (&body[..last], &body[last + 1..]);
    let mut out = String::from("(");
    for (i, p) in params.split('!').filter(|p| !p.is_empty()).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&param(p));
    }
    out.push(')');
    if !quals.is_empty() {
        out.push(' ');
        out.push_str(quals);
    }
    out
}

/// One parameter, `type^dims`. A pointer's or reference's `const_`/`volatile_` prefix
/// becomes `const `, and an underscore between two built-in type words (`unsigned_long`) a
/// space again; an underscore inside a name (`std::string_view`, a by-value
/// `const_iterator`) stays.
fn param(p: &str) -> String {
    let (ty, dims) = match p.rsplit_once('^') {
        Some((t, d)) => (t, d.parse::<usize>().unwrap_or(0)),
        None => (p, 0),
    };
    let mut out = String::new();
    let mut rest = ty;
    // A by-value parameter's qualifiers are not in the signature, so only these have them.
    if ty.ends_with(['*', '&']) {
        // Each at most once (`const_const_iterator&` is a const `const_iterator`).
        for q in ["const_", "volatile_"] {
            if let Some(r) = rest.strip_prefix(q) {
                out.push_str(&q[..q.len() - 1]);
                out.push(' ');
                rest = r;
            }
        }
    }
    let mut prev: Option<&str> = None;
    for w in rest.split('_') {
        if let Some(p) = prev {
            let builtin = is_builtin(p) && is_builtin(w.trim_end_matches(['*', '&']));
            out.push(if builtin { ' ' } else { '_' });
        }
        out.push_str(w);
        prev = Some(w);
    }
    out.push_str(&"[]".repeat(dims));
    out
}

/// The built-in type words a signature joins with `_` (`unsigned_long_long`).
fn is_builtin(w: &str) -> bool {
    matches!(
        w,
        "unsigned" | "signed" | "long" | "short" | "int" | "char" | "double" | "float"
    )
}

#[cfg(test)]
mod tests {
    use super::signature;

    #[test]
    fn the_thesis_notation_reads_as_a_parameter_list() {
        for (sgn, shown) in [
            ("!const_K&^0!F&&^0!", "(const K&, F&&)"),
            ("!!", "()"),
            ("!int^1!Student^0!Vector^0!", "(int[], Student, Vector)"),
            ("!int^0!const", "(int) const"),
            ("!!&&", "() &&"),
            ("!!const&", "() const&"),
            (
                "!unsigned_long^0!const_char*^0!",
                "(unsigned long, const char*)",
            ),
            ("!const_std::string_view&^0!", "(const std::string_view&)"),
            ("!my_type^0!long_long^2!", "(my_type, long long[][])"),
            ("!volatile_int*^0!", "(volatile int*)"),
            (
                "!const_iterator^0!int_fast32_t^0!",
                "(const_iterator, int_fast32_t)",
            ),
            ("!const_const_iterator&^0!", "(const const_iterator&)"),
            ("run", "run"),
        ] {
            assert_eq!(signature(sgn), shown, "{sgn}");
        }
    }
}
