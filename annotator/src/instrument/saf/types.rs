//! The type table's fixed part: primitive sizes per language, and method signatures.

use crate::instrument::model::{Lang, MethodDecl, Param, TypeRef};

/// Size in bytes of a primitive type, or `None` if `name` is not primitive in `lang`.
/// C++ sizes are the usual LP64 ones (x86-64 / AArch64 Linux).
pub fn primitive_size(lang: Lang, name: &str) -> Option<u64> {
    lang.spec().primitive_size(name)
}

/// The name a type has in signatures: the base name as written (generic arguments
/// stripped), C++ pointers as trailing `*` and references as `&` or `&&`. The cv-qualifiers
/// of what a pointer or reference refers to are kept as a prefix (`const_std::string&`):
/// `f(const T&)`, `f(T&)` and `f(T&&)` are three overloads. A by-value parameter's are
/// dropped, as they are not part of the function's type (`f(const int)` is `f(int)`).
pub fn sig_type_name(ty: &TypeRef) -> String {
    let (quals, reference) = ty.sig_decor();
    let mut s = quals;
    s.push_str(&ty.name.replace(' ', "_"));
    for _ in 0..ty.pointers {
        s.push('*');
    }
    s.push_str(reference);
    s
}

/// The thesis's signature form `!type^dim!type^dim!`; `!!` for no parameters.
pub fn signature(params: &[Param]) -> String {
    let mut s = String::from("!");
    if params.is_empty() {
        s.push('!');
    }
    for p in params {
        s.push_str(&sig_type_name(&p.ty));
        s.push('^');
        s.push_str(&p.ty.dims.to_string());
        s.push('!');
    }
    s
}

/// A method's signature: its parameters' and, for a C++ member function's qualifiers,
/// `const` and `&`/`&&` after them (`!int^0!const`, `!!&&`) — `at(int)` and `at(int) const`
/// are two methods with their own bodies, calls and times.
pub fn method_signature(m: &MethodDecl) -> String {
    let mut s = signature(&m.params);
    if m.flags.is_const {
        s.push_str("const");
    }
    s.push_str(m.flags.ref_qualifier);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str, dims: u32) -> Param {
        Param {
            name: "x".into(),
            ty: TypeRef {
                name: name.into(),
                dims,
                ..Default::default()
            },
            varargs: false,
        }
    }

    #[test]
    fn thesis_overloads_get_distinct_signatures() {
        let a = signature(&[p("int", 1), p("Student", 0), p("Vector", 0)]);
        let b = signature(&[p("int", 1), p("Student", 0), p("Hashtable", 0)]);
        assert_eq!(a, "!int^1!Student^0!Vector^0!");
        assert_ne!(a, b);
        assert_eq!(
            signature(&[p("double", 0), p("Account", 0)]),
            "!double^0!Account^0!"
        );
        assert_eq!(signature(&[]), "!!");
    }

    /// A C++ parameter type as the front end gives it: base name, pointers, reference, text.
    fn cpp(name: &str, pointers: u32, text: &str) -> TypeRef {
        TypeRef {
            name: name.into(),
            pointers,
            reference: text.contains('&'),
            text: text.into(),
            ..Default::default()
        }
    }

    #[test]
    fn cpp_overloads_by_qualifier_and_reference_get_distinct_names() {
        let names: Vec<String> = [
            cpp("std::string", 0, "const std::string&"),
            cpp("std::string", 0, "std::string&"),
            cpp("std::string", 0, "std::string&&"),
            cpp("char", 1, "const char*"),
            cpp("char", 1, "char*"),
            cpp("int", 0, "const int"),
            cpp("std::function", 0, "const std::function<void(int&&)>&"),
            cpp("int", 0, "int&[3]"),
        ]
        .iter()
        .map(sig_type_name)
        .collect();
        assert_eq!(
            names,
            [
                "const_std::string&",
                "std::string&",
                "std::string&&",
                "const_char*",
                "char*",
                "int", // a by-value parameter's const is not part of the type
                "const_std::function&",
                "int&",
            ]
        );
    }

    #[test]
    fn primitive_sizes() {
        assert_eq!(primitive_size(Lang::Java, "char"), Some(2));
        assert_eq!(primitive_size(Lang::Java, "String"), None);
        assert_eq!(primitive_size(Lang::Cpp, "unsigned long long"), Some(8));
        assert_eq!(primitive_size(Lang::Cpp, "char"), Some(1));
    }
}
