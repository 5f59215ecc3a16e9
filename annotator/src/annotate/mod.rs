//! Annotation: turns the selection recorded in the SAF into insertions per file (one
//! language annotator each) plus the runtime files to add; the store stage writes them.

pub mod cpp;
pub mod java;

use std::path::PathBuf;

use crate::edits::Insertion;
use crate::error::Result;
use crate::manifest::Mode;
use crate::model::{FileModel, Lang, MethodDecl};
use crate::saf::{Saf, SafClass, SafMethod};

/// Where and how the runtimes record (resolved when annotating).
#[derive(Debug, Clone)]
pub struct TraceSettings {
    /// Absolute trace folder.
    pub dir: PathBuf,
    pub max_size: u64,
    pub project: String,
}

/// Everything a language annotator needs besides the file itself.
pub struct Context<'a> {
    pub mode: Mode,
    pub saf: &'a Saf,
    pub trace: TraceSettings,
    /// The manifest folder (absolute); file paths are relative to it.
    pub root: PathBuf,
}

impl<'a> Context<'a> {
    /// The SAF entry of a class, if it is selected and annotatable.
    pub fn selected_class(&self, qname: &str) -> Option<&'a SafClass> {
        self.saf
            .class(qname)
            .filter(|c| c.selected && c.annotatable)
    }

    /// Any SAF class by qualified name.
    pub fn class(&self, qname: &str) -> Option<&'a SafClass> {
        self.saf.class(qname)
    }

    /// The SAF entry of a method of class `qname` declared in `file`, if it is selected
    /// and annotatable. Matches by name, file and first line (overloads differ by line).
    pub fn selected_method(
        &self,
        qname: &str,
        file: &str,
        m: &MethodDecl,
    ) -> Option<&'a SafMethod> {
        self.method(qname, file, m)
            .filter(|sm| sm.selected && sm.annotatable && sm.has_body)
    }

    /// The SAF entry of a method, selected or not.
    pub fn method(&self, qname: &str, file: &str, m: &MethodDecl) -> Option<&'a SafMethod> {
        let c = self.saf.class(qname)?;
        c.methods
            .iter()
            .find(|sm| sm.name == m.name && sm.file == file && sm.lines[0] == m.span.line)
    }
}

/// What annotating one file produced.
#[derive(Debug, Default, Clone)]
pub struct FileEdits {
    pub insertions: Vec<Insertion>,
    /// Selected things left alone, each `path:line: what — why` (reported; exit 1).
    pub skipped: Vec<String>,
    /// Informational lines for the summary (e.g. non-intrusive object IDs used).
    pub notes: Vec<String>,
    /// Counts for the summary.
    pub classes: usize,
    pub methods: usize,
}

/// One language's annotator.
pub trait LangAnnotator: Sync {
    fn lang(&self) -> Lang;
    /// Insertions for one file, given its model (re-parsed from the same bytes the SAF
    /// was made from) and text.
    fn annotate_file(&self, cx: &Context, file: &FileModel, src: &str) -> FileEdits;
    /// Files to add to the tree so the unchanged build finds the runtime, as paths
    /// relative to the manifest folder with their contents. `annotated` lists the source
    /// files that received insertions.
    fn runtime_files(&self, cx: &Context, annotated: &[String]) -> Result<Vec<(String, String)>>;
}

pub fn for_lang(lang: Lang) -> &'static dyn LangAnnotator {
    match lang {
        Lang::Java => &java::JavaAnnotator,
        Lang::Cpp => &cpp::CppAnnotator,
    }
}
