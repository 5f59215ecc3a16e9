//! Per-language front ends behind the [`Frontend`] trait, and the [`ProjectContext`] every
//! one of them parses a file in.

pub(crate) mod blocking;
pub(crate) mod cpp;
#[cfg(any(test, feature = "test-hooks"))]
pub mod dump;
pub(crate) mod effects;
pub(crate) mod java;
pub(crate) mod kit;

use crate::instrument::model::{FileModel, Lang};

/// One language's parser. Parsing never fails: it returns the model plus diagnostics.
pub trait Frontend: Sync {
    fn lang(&self) -> Lang;
    /// `path` is the file's path relative to the manifest folder (used in the model and
    /// diagnostics); `src` is its full text; `cx` what the project tells about it.
    fn parse(&self, path: &str, src: &str, cx: &ProjectContext) -> FileModel;
}

/// What the project tells a front end beyond the file's own text, gathered once per
/// project (`cppdefs::context`) and shared by every file's parse.
#[derive(Debug, Clone, Default)]
pub struct ProjectContext {
    /// The project's C++ macros, which a C++ file is parsed through (its own `#define`s
    /// over them): `compile_commands.json`'s `-D` flags, the `#define`s of the headers
    /// its include paths reach, and those of the project's headers and included sources.
    /// Empty for a file parsed on its own.
    pub defines: cpp::defines::Defines,
}

/// The front end for a language.
pub fn for_lang(lang: Lang) -> &'static dyn Frontend {
    match lang {
        Lang::Java => &java::JavaFrontend,
        Lang::Cpp => &cpp::CppFrontend,
    }
}

/// 1-based line and byte column of a tree-sitter point.
pub(crate) fn line_col(p: tree_sitter::Point) -> (u32, u32) {
    (p.row as u32 + 1, p.column as u32 + 1)
}

/// A [`Span`](crate::instrument::model::Span) for a tree-sitter node.
pub(crate) fn span_of(node: tree_sitter::Node) -> crate::instrument::model::Span {
    crate::instrument::model::Span {
        start: node.start_byte(),
        end: node.end_byte(),
        line: node.start_position().row as u32 + 1,
        end_line: node.end_position().row as u32 + 1,
    }
}
