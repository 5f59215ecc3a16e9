//! Cpp annotation: insertions for selected classes and methods.

use super::{Context, FileEdits, LangAnnotator};
use crate::error::Result;
use crate::model::{FileModel, Lang};

pub struct CppAnnotator;

impl LangAnnotator for CppAnnotator {
    fn lang(&self) -> Lang {
        Lang::Cpp
    }
    fn annotate_file(&self, _cx: &Context, _file: &FileModel, _src: &str) -> FileEdits {
        FileEdits::default()
    }
    fn runtime_files(&self, _cx: &Context, _annotated: &[String]) -> Result<Vec<(String, String)>> {
        Ok(Vec::new())
    }
}
