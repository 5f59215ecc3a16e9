//! Per-language front ends behind the [`Frontend`](crate::instrument::model::Frontend) trait.

pub(crate) mod blocking;
pub(crate) mod cpp;
#[cfg(any(test, feature = "test-hooks"))]
pub mod dump;
pub(crate) mod effects;
pub(crate) mod java;
pub(crate) mod kit;

use crate::instrument::model::{Frontend, Lang};

/// The front end for a language.
pub fn for_lang(lang: Lang) -> &'static dyn Frontend {
    match lang {
        Lang::Java => &java::JavaFrontend,
        Lang::Cpp => &cpp::CppFrontend,
    }
}

/// 1-based line and byte column of a tree-sitter point.
pub fn line_col(p: tree_sitter::Point) -> (u32, u32) {
    (p.row as u32 + 1, p.column as u32 + 1)
}

/// A [`Span`](crate::instrument::model::Span) for a tree-sitter node.
pub fn span_of(node: tree_sitter::Node) -> crate::instrument::model::Span {
    crate::instrument::model::Span {
        start: node.start_byte(),
        end: node.end_byte(),
        line: node.start_position().row as u32 + 1,
        end_line: node.end_position().row as u32 + 1,
    }
}
