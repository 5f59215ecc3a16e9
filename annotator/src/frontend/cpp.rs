//! The Cpp front end (tree-sitter-cpp).

use crate::model::{FileModel, Frontend, Lang};

pub struct CppFrontend;

impl Frontend for CppFrontend {
    fn lang(&self) -> Lang {
        Lang::Cpp
    }
    fn parse(&self, path: &str, _src: &str) -> FileModel {
        FileModel {
            path: path.to_string(),
            ..Default::default()
        }
    }
}
