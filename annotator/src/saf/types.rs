//! The type table's fixed part: primitive sizes per language, and method signatures.

use crate::model::{Lang, Param, TypeRef};

/// Size in bytes of a primitive type, or `None` if `name` is not primitive in `lang`.
/// C++ sizes are the usual LP64 ones (x86-64 / AArch64 Linux).
pub fn primitive_size(lang: Lang, name: &str) -> Option<u64> {
    lang.spec().primitive_size(name)
}

/// The name a type has in signatures: the base name as written (generic arguments
/// stripped), C++ pointers as trailing `*`; references and cv-qualifiers dropped.
pub fn sig_type_name(ty: &TypeRef) -> String {
    let mut s = ty.name.replace(' ', "_");
    for _ in 0..ty.pointers {
        s.push('*');
    }
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

    #[test]
    fn primitive_sizes() {
        assert_eq!(primitive_size(Lang::Java, "char"), Some(2));
        assert_eq!(primitive_size(Lang::Java, "String"), None);
        assert_eq!(primitive_size(Lang::Cpp, "unsigned long long"), Some(8));
        assert_eq!(primitive_size(Lang::Cpp, "char"), Some(1));
    }
}
