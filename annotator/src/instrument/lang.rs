//! The language table: everything the language-neutral stages need to know about a
//! language, in one entry per language. Stages look facts up here instead of matching on
//! [`Lang`]. The table holds facts only, so the front ends and annotators may read it: each
//! language's front end and annotator are chosen by `frontend::for_lang` and
//! `annotate::for_lang`, the one `match` on `Lang` each.

use tree_sitter::Language;

use crate::instrument::model::Lang;

/// One language's facts.
pub struct LangSpec {
    pub lang: Lang,
    /// The name in the SAF and in messages' keys: `java`, `cpp`.
    pub name: &'static str,
    /// The name shown to people: `Java`, `C++`.
    pub display: &'static str,
    /// File extensions (without the dot) that hold this language's sources.
    pub extensions: &'static [&'static str],
    /// Separator of qualified names: `pkg.Outer.Inner`, `ns::Outer::Inner`.
    pub scope_sep: &'static str,
    /// Primitive types and their sizes in bytes (C++: LP64, x86-64 / AArch64 Linux).
    pub primitives: &'static [(&'static str, u64)],
    /// Primitives always listed in the SAF's type table when the language is present.
    pub basic_types: &'static [&'static str],
    /// Non-static nested classes hold their outer instance (Java inner classes).
    pub inner_classes: bool,
    /// The tree-sitter grammar.
    pub grammar: fn() -> Language,
    /// The runtime's sources (file name, text), embedded in the binary; the annotator
    /// decides where in the user's tree they go.
    pub runtime: &'static [(&'static str, &'static str)],
    /// The folder, relative to the manifest's, its runtime always goes into, when it has
    /// one (Java's goes under the detected source root instead).
    pub runtime_dir: Option<&'static str>,
}

impl LangSpec {
    /// The entry of a language.
    pub fn of(lang: Lang) -> &'static LangSpec {
        match lang {
            Lang::Java => &JAVA,
            Lang::Cpp => &CPP,
        }
    }

    /// Every language, in SAF order.
    pub fn all() -> [&'static LangSpec; 2] {
        [&JAVA, &CPP]
    }

    /// The language a file belongs to, by extension.
    pub fn of_path(path: &str) -> Option<&'static LangSpec> {
        let ext = path.rsplit_once('.').map(|(_, e)| e)?;
        Self::all()
            .into_iter()
            .find(|s| s.extensions.contains(&ext))
    }

    /// Size in bytes of a primitive type, `None` if `name` is not primitive here.
    pub(crate) fn primitive_size(&self, name: &str) -> Option<u64> {
        self.primitives
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
    }
}

impl Lang {
    /// The language a file belongs to, by extension; `None` for anything else.
    pub fn of_path(path: &str) -> Option<Lang> {
        LangSpec::of_path(path).map(|s| s.lang)
    }

    /// This language's entry in the language table.
    pub fn spec(self) -> &'static LangSpec {
        LangSpec::of(self)
    }
}

static JAVA: LangSpec = LangSpec {
    lang: Lang::Java,
    name: "java",
    display: "Java",
    extensions: &["java"],
    scope_sep: ".",
    primitives: &[
        ("boolean", 1),
        ("byte", 1),
        ("char", 2),
        ("short", 2),
        ("int", 4),
        ("float", 4),
        ("long", 8),
        ("double", 8),
        ("void", 0),
    ],
    basic_types: &[
        "boolean", "byte", "char", "short", "int", "float", "long", "double", "void",
    ],
    inner_classes: true,
    grammar: || tree_sitter_java::LANGUAGE.into(),
    runtime: &[
        (
            "Rv.java",
            include_str!("../../../runtime-java/src/_revy/runtime/Rv.java"),
        ),
        (
            "RvAgg.java",
            include_str!("../../../runtime-java/src/_revy/runtime/RvAgg.java"),
        ),
        (
            "RvBuf.java",
            include_str!("../../../runtime-java/src/_revy/runtime/RvBuf.java"),
        ),
        (
            "RvCpu.java",
            include_str!("../../../runtime-java/src/_revy/runtime/RvCpu.java"),
        ),
        (
            "RvClasses.java",
            include_str!("../../../runtime-java/src/_revy/runtime/RvClasses.java"),
        ),
        (
            "RvIds.java",
            include_str!("../../../runtime-java/src/_revy/runtime/RvIds.java"),
        ),
        (
            "RvObjs.java",
            include_str!("../../../runtime-java/src/_revy/runtime/RvObjs.java"),
        ),
        (
            "RvSize.java",
            include_str!("../../../runtime-java/src/_revy/runtime/RvSize.java"),
        ),
        (
            "RvSizeCache.java",
            include_str!("../../../runtime-java/src/_revy/runtime/RvSizeCache.java"),
        ),
        (
            "RvBudget.java",
            include_str!("../../../runtime-java/src/_revy/runtime/RvBudget.java"),
        ),
        (
            "RvTrace.java",
            include_str!("../../../runtime-java/src/_revy/runtime/RvTrace.java"),
        ),
    ],
    runtime_dir: None,
};

static CPP: LangSpec = LangSpec {
    lang: Lang::Cpp,
    name: "cpp",
    display: "C++",
    extensions: &[
        "cpp", "cc", "cxx", "c++", "h", "hpp", "hh", "hxx", "h++", "ipp", "tpp", "inl", "tcc",
        "txx",
    ],
    scope_sep: "::",
    primitives: CPP_PRIMITIVES,
    basic_types: &[
        "bool",
        "char",
        "short",
        "int",
        "long",
        "long long",
        "float",
        "double",
        "long double",
        "void",
    ],
    inner_classes: false,
    grammar: || tree_sitter_cpp::LANGUAGE.into(),
    runtime: &[
        (
            "revy_runtime.hpp",
            include_str!("../../../runtime-cpp/revy_runtime.hpp"),
        ),
        (
            "revy_runtime_impl.hpp",
            include_str!("../../../runtime-cpp/revy_runtime_impl.hpp"),
        ),
    ],
    runtime_dir: Some(CPP_RUNTIME_DIR),
};

/// Where the C++ annotator writes the runtime: `.revy-runtime/` beside the manifest.
pub(crate) const CPP_RUNTIME_DIR: &str = ".revy-runtime";

const CPP_PRIMITIVES: &[(&str, u64)] = &[
    ("void", 0),
    ("bool", 1),
    ("char", 1),
    ("signed char", 1),
    ("unsigned char", 1),
    ("char8_t", 1),
    ("int8_t", 1),
    ("uint8_t", 1),
    ("std::int8_t", 1),
    ("std::uint8_t", 1),
    ("std::byte", 1),
    ("short", 2),
    ("short int", 2),
    ("signed short", 2),
    ("unsigned short", 2),
    ("unsigned short int", 2),
    ("char16_t", 2),
    ("int16_t", 2),
    ("uint16_t", 2),
    ("std::int16_t", 2),
    ("std::uint16_t", 2),
    ("int", 4),
    ("signed", 4),
    ("signed int", 4),
    ("unsigned", 4),
    ("unsigned int", 4),
    ("float", 4),
    ("wchar_t", 4),
    ("char32_t", 4),
    ("int32_t", 4),
    ("uint32_t", 4),
    ("std::int32_t", 4),
    ("std::uint32_t", 4),
    ("long", 8),
    ("long int", 8),
    ("signed long", 8),
    ("unsigned long", 8),
    ("unsigned long int", 8),
    ("long long", 8),
    ("long long int", 8),
    ("unsigned long long", 8),
    ("unsigned long long int", 8),
    ("double", 8),
    ("size_t", 8),
    ("std::size_t", 8),
    ("ssize_t", 8),
    ("ptrdiff_t", 8),
    ("std::ptrdiff_t", 8),
    ("intptr_t", 8),
    ("uintptr_t", 8),
    ("std::intptr_t", 8),
    ("std::uintptr_t", 8),
    ("int64_t", 8),
    ("uint64_t", 8),
    ("std::int64_t", 8),
    ("std::uint64_t", 8),
    ("std::nullptr_t", 8),
    ("long double", 16),
    ("__int128", 16),
    ("unsigned __int128", 16),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_map_to_one_language_each() {
        assert_eq!(
            LangSpec::of_path("a/B.java").map(|s| s.lang),
            Some(Lang::Java)
        );
        assert_eq!(LangSpec::of_path("x.hpp").map(|s| s.lang), Some(Lang::Cpp));
        assert!(LangSpec::of_path("README.md").is_none());
        for s in LangSpec::all() {
            assert_eq!(LangSpec::of(s.lang).name, s.name);
            for b in s.basic_types {
                assert!(s.primitive_size(b).is_some(), "{} {b}", s.name);
            }
        }
    }
}
