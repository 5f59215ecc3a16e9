//! Code that relies on a type's layout (`static_assert(sizeof(T) …)`, `offsetof`, `memcpy`
//! with `sizeof(T)`, `is_pod<T>`, `constexpr T`, `#pragma pack`…), recorded per file at
//! parse so the annotator never scans the project's text: a class named here keeps
//! non-intrusive object IDs. Line-based, like the preprocessor-level code it looks for.

use crate::instrument::model::{LayoutKind, LayoutUse};

const MEMORY_FUNCTIONS: [&str; 4] = ["memcpy", "memset", "memmove", "memcmp"];

/// Type traits and casts that need a type's exact layout or triviality.
const TRAITS: [&str; 13] = [
    "atomic<",
    "is_trivially_copyable<",
    "is_trivially_copyable_v<",
    "is_trivial<",
    "is_trivial_v<",
    "is_standard_layout<",
    "is_standard_layout_v<",
    "is_pod<",
    "is_pod_v<",
    "bit_cast<",
    "is_aggregate<",
    "is_aggregate_v<",
    "reinterpret_cast<",
];

/// Words that are never a class's name (`constexpr int`, `reinterpret_cast<char*>`).
const KEYWORDS: [&str; 24] = [
    "auto", "bool", "char", "char8_t", "char16_t", "char32_t", "const", "double", "float",
    "inline", "int", "long", "short", "signed", "static", "struct", "class", "typename",
    "unsigned", "void", "volatile", "wchar_t", "decltype", "sizeof",
];

/// Every layout use in `src`, in source order; per line in the order they are weighed.
pub fn layout_uses(src: &str) -> Vec<LayoutUse> {
    let mut out = Vec::new();
    if let Some(i) = src.find("#pragma pack") {
        let line = src[..i].matches('\n').count() as u32 + 1;
        out.push(LayoutUse {
            line,
            kind: LayoutKind::PragmaPack,
            name: String::new(),
        });
    }
    for (i, line) in src.lines().enumerate() {
        let n = i as u32 + 1;
        let mem = MEMORY_FUNCTIONS.iter().any(|f| line.contains(f));
        let mut push = |kind: LayoutKind, pre: &str| {
            for name in names_after(line, pre) {
                out.push(LayoutUse {
                    line: n,
                    kind: kind.clone(),
                    name,
                });
            }
        };
        if line.contains("static_assert") {
            push(LayoutKind::StaticAssertSize, "sizeof(");
            push(LayoutKind::StaticAssertSize, "alignof(");
        }
        push(LayoutKind::Offsetof, "offsetof(");
        if mem {
            push(LayoutKind::RawMemory, "sizeof(");
        }
        for t in TRAITS {
            push(LayoutKind::Trait(t.to_string()), t);
        }
        push(LayoutKind::ConstantExpression, "constexpr ");
        push(LayoutKind::ConstantExpression, "constinit ");
        for name in placed_names(line) {
            let seen =
                |u: &LayoutUse| u.line == n && u.kind == LayoutKind::PlacementNew && u.name == name;
            if !out.iter().any(seen) {
                out.push(LayoutUse {
                    line: n,
                    kind: LayoutKind::PlacementNew,
                    name: name.to_string(),
                });
            }
        }
        // Only the first one counts (it decides for every class of the file).
        let first = !out.iter().any(|u| u.kind == LayoutKind::RawMemoryOnObjects);
        if first && mem && (line.contains("this") || line.contains("sizeof(*")) {
            out.push(LayoutUse {
                line: n,
                kind: LayoutKind::RawMemoryOnObjects,
                name: String::new(),
            });
        }
    }
    out
}

/// The type names written after each `pre` on `line` (past `const ` and a leading `::`),
/// without duplicates; keywords are left out.
fn names_after(line: &str, pre: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (i, _) in line.match_indices(pre) {
        let rest = line[i + pre.len()..].trim_start();
        let rest = rest.strip_prefix("const ").unwrap_or(rest).trim_start();
        let rest = rest.strip_prefix("::").unwrap_or(rest);
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        let name = &rest[..end];
        let first_ok = name.chars().next().is_some_and(|c| !c.is_ascii_digit());
        if first_ok && !KEYWORDS.contains(&name) && !names.iter().any(|x| x == name) {
            names.push(name.to_string());
        }
    }
    names
}

/// The type names written right after a placement new in `text` (`ns::T` of
/// `new (memory) ns::T(…)`): `new` as a word, a parenthesised place, then a type name.
fn placed_names(text: &str) -> impl Iterator<Item = &str> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices("new").filter_map(move |(i, _)| {
        if text[..i].chars().next_back().is_some_and(ident) {
            return None;
        }
        let rest = text[i + 3..].trim_start_matches([' ', '\t']);
        if !rest.starts_with('(') {
            return None;
        }
        let mut depth = 0usize;
        let close = rest.char_indices().find_map(|(j, c)| {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '\n' | ';' | '{' => return Some(None),
                _ => {}
            }
            (depth == 0).then_some(Some(j))
        })??;
        let place = rest[1..close].trim();
        if place == "std::nothrow" || place == "nothrow" {
            return None; // an ordinary heap allocation that returns null instead of throwing
        }
        let ty = rest[close + 1..].trim_start().trim_start_matches("::");
        let end = ty.find(|c: char| !ident(c) && c != ':').unwrap_or(ty.len());
        let ty = ty[..end].trim_end_matches(':');
        (!ty.is_empty()).then_some(ty)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saf(src: &str) -> Vec<String> {
        layout_uses(src).iter().map(LayoutUse::to_saf).collect()
    }

    #[test]
    fn each_construct_is_recorded_with_its_type() {
        let src = "#include <cstring>\n\
                   static_assert(sizeof(Packet) == 8, \"\");\n\
                   size_t o = offsetof(ns::Hdr, len);\n\
                   memcpy(&a, &b, sizeof(const Packet));\n\
                   static_assert(std::is_pod<Node::Inner>::value, \"\");\n\
                   constexpr Point origin{};\n\
                   constexpr int k = 1;\n\
                   void C::clear() { memset(this, 0, sizeof(*this)); }\n\
                   #pragma pack(push, 1)\n";
        assert_eq!(
            saf(src),
            [
                "9 pragma_pack",
                "2 static_assert Packet",
                "3 offsetof ns::Hdr",
                "4 raw_memory Packet",
                "5 is_pod< Node::Inner",
                "6 constexpr Point",
                "8 raw_memory_on_objects",
            ]
        );
        for s in saf(src) {
            assert_eq!(LayoutUse::from_saf(&s).unwrap().to_saf(), s);
        }
    }

    #[test]
    fn a_use_names_a_type_or_its_nested_types_only() {
        let u = LayoutUse::from_saf("1 offsetof Packet::Header").unwrap();
        assert!(u.names("Packet") && u.names("Packet::Header"));
        assert!(!u.names("Pack") && !u.names("Header") && !u.names(""));
        // fmt's `constexpr detail::buffer_size buffer_size{}`: the class's qname is longer.
        assert!(u.names("lib::v1::Packet::Header"));
        assert!(!u.names("lib::MyPacket::Header"));
        let c = LayoutUse::from_saf("3 constexpr detail::buffer_size").unwrap();
        assert!(c.names("fmt::detail::buffer_size") && !c.names("buffer_size"));
    }

    #[test]
    fn placement_new_names() {
        let t = "a = new (memory) xml_node_struct(page, type);\n\
                 new(other) impl::xml_document_struct(p);\n\
                 return memory ? new (memory) xpath_ast_node(t, r, v) : 0;\n\
                 T* x = new (f(a, (b))) ::ns::T;\n\
                 p = new Foo(1); renew (x) y; q = new int[3];\n\
                 r = new (std::nothrow) Bar(2);\n";
        let got: Vec<&str> = placed_names(t).collect();
        assert_eq!(
            got,
            [
                "xml_node_struct",
                "impl::xml_document_struct",
                "xpath_ast_node",
                "ns::T"
            ]
        );
    }
}
