//! C++ base clauses as written, for the identity member of a class whose object is assembled
//! from several tagged parts (two or more tagged bases, or a virtual one): its generated
//! `_rv_join` names each base exactly as the class head does (`this->Counter<T>::_rv_tag`), so
//! the runtime's `JoinTag` can give the whole object one ID (see `runtime-cpp/README.md`).

/// One base of a class head: its name as written (template arguments kept) and whether it is
/// a virtual base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenBase {
    pub name: String,
    pub is_virtual: bool,
}

impl WrittenBase {
    /// The unqualified name without template arguments: `Counter` for `lib::Counter<W>`.
    pub fn simple(&self) -> &str {
        let bare = self.name.split('<').next().unwrap_or("").trim();
        bare.rsplit("::").next().unwrap_or(bare).trim()
    }
}

/// The bases of a class head (`struct Doc : public Node, virtual Base<T>`), text up to the
/// body's `{`. Empty when there is no base clause; `None` when the head is not understood.
pub fn written_bases(head: &str) -> Option<Vec<WrittenBase>> {
    let colon = base_clause_start(head)?;
    let Some(colon) = colon else {
        return Some(Vec::new());
    };
    let mut out = Vec::new();
    for part in split_top(&head[colon + 1..], ',') {
        let mut is_virtual = false;
        let mut words: Vec<&str> = Vec::new();
        for w in part.split_whitespace() {
            match w {
                "virtual" => is_virtual = true,
                "public" | "protected" | "private" if words.is_empty() => {}
                _ => words.push(w),
            }
        }
        let name = words.join(" ");
        if name.is_empty() || name.contains("...") || name.starts_with('#') {
            return None;
        }
        out.push(WrittenBase { name, is_virtual });
    }
    Some(out)
}

/// Offset of the `:` opening the base clause (`Some(None)`: no base clause).
fn base_clause_start(head: &str) -> Option<Option<usize>> {
    if head.contains(['/', '"', '\'', '#']) {
        return None; // comments, strings, directives: not understood here
    }
    let b = head.as_bytes();
    let mut depth = 0i32;
    let mut seen_key = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'<' | b'(' | b'[' => depth += 1,
            b'>' | b')' | b']' => depth -= 1,
            b':' if b.get(i + 1) == Some(&b':') => i += 1,
            b':' if depth == 0 && seen_key => return Some(Some(i)),
            c if depth == 0 && c.is_ascii_alphabetic() => {
                let end = (i..b.len())
                    .find(|&j| !(b[j].is_ascii_alphanumeric() || b[j] == b'_'))
                    .unwrap_or(b.len());
                seen_key |= matches!(&head[i..end], "class" | "struct");
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Some(None)
}

/// `text` split at `sep` outside brackets (`<>`, `()`, `[]`, `{}`).
fn split_top(text: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(text[start..].trim());
    out
}

/// A base listed by a joining class's `_rv_join`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinBase {
    /// As written in the class head.
    pub name: String,
    /// The tag member seen through it.
    pub member: String,
    /// It joins parts of its own (has an `_rv_join`): those are listed first, so that when
    /// this object takes another part's ID they take it too.
    pub nested: bool,
}

/// The generated member function listing the tags of the bases.
pub fn join_fn(bases: &[JoinBase]) -> String {
    let calls: Vec<String> = bases
        .iter()
        .map(|b| {
            let nested = if b.nested {
                format!("this->{}::_rv_join(j); ", b.name)
            } else {
                String::new()
            };
            format!("{nested}j(this->{}::{});", b.name, b.member)
        })
        .collect();
    format!(
        " public: void _rv_join(::revy::Joiner& j) {{ {} }}",
        calls.join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(head: &str) -> Vec<(String, bool)> {
        written_bases(head)
            .unwrap()
            .into_iter()
            .map(|b| (b.name, b.is_virtual))
            .collect()
    }

    #[test]
    fn base_clauses() {
        assert_eq!(
            names("struct Doc : public Node, public Allocator "),
            vec![("Node".into(), false), ("Allocator".into(), false)]
        );
        assert_eq!(
            names("template <class T = a::B<int, 2>> class X final : virtual public lib::Base<T, 3>, Y "),
            vec![("lib::Base<T, 3>".into(), true), ("Y".into(), false)]
        );
        assert!(names("template <> class Buffer<bool> ").is_empty());
        assert!(names("struct A ").is_empty());
        assert_eq!(
            WrittenBase {
                name: "lib::Counter<W>".into(),
                is_virtual: false
            }
            .simple(),
            "Counter"
        );
        assert_eq!(written_bases("struct A : /* x */ B "), None);
    }
}

/// CRTP: the type parameter `D` of a class template whose body casts `this` to `D`
/// (`static_cast<const D*>(this)`, `static_cast<D&>(*this)`): its methods then report the ID of
/// the derived object they are part of (`::revy::crtp_oid<D>`).
pub fn crtp_param(type_params: &[String], body: &str) -> Option<String> {
    let compact: String = body.chars().filter(|c| !c.is_whitespace()).collect();
    type_params.iter().find_map(|p| {
        let name = p
            .split('=')
            .next()?
            .split_whitespace()
            .last()?
            .trim_start_matches("...");
        let casts = [
            format!("static_cast<{name}*>(this)"),
            format!("static_cast<const{name}*>(this)"),
            format!("static_cast<{name}&>(*this)"),
            format!("static_cast<const{name}&>(*this)"),
        ];
        casts
            .iter()
            .any(|c| compact.contains(c.as_str()))
            .then(|| name.to_string())
    })
}

#[cfg(test)]
mod crtp_tests {
    use super::crtp_param;

    #[test]
    fn crtp_parameter_is_found_by_its_cast() {
        let body = "int count() const { return static_cast<const D *>(this)->n(); }";
        assert_eq!(crtp_param(&["class D".into()], body), Some("D".into()));
        assert_eq!(
            crtp_param(
                &["typename T".into(), "class D".into()],
                "static_cast<D&>(*this)"
            ),
            Some("D".into())
        );
        assert_eq!(
            crtp_param(&["class D".into()], "static_cast<E*>(this)"),
            None
        );
    }
}
