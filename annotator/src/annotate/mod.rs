//! Annotation: turns the selection recorded in the SAF into insertions per file (one
//! language annotator each) plus the runtime files to add; the store stage writes them.

pub mod cpp;
pub mod java;

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use rayon::prelude::*;

use crate::edits::Insertion;
use crate::error::{Error, Result};
use crate::manifest::{Manifest, Mode};
use crate::model::{FileModel, Lang, MethodDecl};
use crate::project::{parse_file, read_source, sha256_hex};
use crate::saf::{Saf, SafClass, SafMethod};
use crate::store::{self, Plan};

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
    /// Original texts of files Revy has already rewritten (`--verify` re-plans while the
    /// tree is annotated); other files are read from disk.
    pub originals: Option<&'a HashMap<String, String>>,
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

    /// The SAF entry of this very declaration: class-template specialisations share their
    /// primary's qualified name, so the file and first line tell them apart.
    pub fn class_of_decl(&self, qname: &str, file: &str, line: u32) -> Option<&'a SafClass> {
        self.saf
            .classes
            .iter()
            .find(|c| c.qname == qname && c.file == file && c.lines[0] == line)
            .or_else(|| self.class(qname))
    }

    /// The SAF class that declares method `sm` (a specialisation's own entry, if it is one).
    pub fn owner_of(&self, sm: &SafMethod) -> Option<&'a SafClass> {
        self.saf
            .classes
            .iter()
            .find(|c| c.methods.iter().any(|x| x.id == sm.id))
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

    /// The class and SAF entry of the method whose definition starts at `file:line` with
    /// this name (for C++ definitions whose owner is written less qualified).
    pub fn method_at(
        &self,
        file: &str,
        line: u32,
        name: &str,
    ) -> Option<(&'a SafClass, &'a SafMethod)> {
        self.saf.classes.iter().find_map(|c| {
            c.methods
                .iter()
                .find(|m| m.file == file && m.lines[0] == line && m.name == name)
                .map(|m| (c, m))
        })
    }

    /// The SAF entry of a method, selected or not.
    pub fn method(&self, qname: &str, file: &str, m: &MethodDecl) -> Option<&'a SafMethod> {
        // Template specialisations share their primary's qualified name: look in all.
        self.saf
            .classes
            .iter()
            .filter(|c| c.qname == qname)
            .flat_map(|c| &c.methods)
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

/// What `revy annotate` did, for its summary.
#[derive(Debug, Default)]
pub struct Summary {
    pub files: usize,
    pub classes: usize,
    pub methods: usize,
    pub runtime_files: usize,
    pub skipped: Vec<String>,
    pub notes: Vec<String>,
    /// Syntax problems recorded by `revy parse` (their declarations were left alone).
    pub parse_problems: usize,
}

/// Refuses a SAF that no longer describes the sources.
pub fn check_fresh(m: &Manifest, saf: &Saf) -> Result<()> {
    let stale = |why: String| {
        Err(Error::input(format!(
            "{}: the SAF is stale ({why}); re-run `revy parse`, then annotate",
            m.saf_path().display()
        )))
    };
    if saf.project != m.name {
        return stale(format!("it is for project `{}`", saf.project));
    }
    let now: BTreeSet<String> = m.discover()?.into_iter().collect();
    let then: BTreeSet<String> = saf.files.iter().map(|f| f.path.clone()).collect();
    if let Some(new) = now.difference(&then).next() {
        return stale(format!("{new} is new"));
    }
    if let Some(gone) = then.difference(&now).next() {
        return stale(format!("{gone} is gone"));
    }
    for f in &saf.files {
        let bytes =
            std::fs::read(m.root.join(&f.path)).map_err(|e| Error::io(m.root.join(&f.path), e))?;
        if sha256_hex(&bytes) != f.sha256 {
            return stale(format!("{} changed since it was parsed", f.path));
        }
    }
    Ok(())
}

/// Computes the annotation of the SAF's selection: insertions per file and runtime files.
pub fn plan(m: &Manifest, mode: Mode) -> Result<(Plan, Summary)> {
    store::ensure_not_annotated(m)?;
    let saf = Saf::load(&m.saf_path())?;
    check_fresh(m, &saf)?;
    plan_saf(m, mode, saf, None)
}

/// Declarations `--verify` took back because the compiler rejected them (SAF ids).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Withdrawn {
    /// Method instrumentation dropped.
    pub methods: BTreeSet<u32>,
    /// Classes whose objects fall back to non-intrusive IDs (nothing inserted in the class).
    pub classes: BTreeSet<u32>,
}

impl Withdrawn {
    pub fn is_empty(&self) -> bool {
        self.methods.is_empty() && self.classes.is_empty()
    }
}

/// Re-plans the original texts (the tree is annotated) without what `w` withdraws.
pub fn plan_withdrawn(
    m: &Manifest,
    mode: Mode,
    w: &Withdrawn,
    originals: &HashMap<String, String>,
) -> Result<(Plan, Summary)> {
    let mut saf = Saf::load(&m.saf_path())?;
    for c in &mut saf.classes {
        if w.classes.contains(&c.id) {
            // Still selected, but takes no ID member: methods use the address map.
            c.annotatable = false;
        }
        for mm in &mut c.methods {
            if w.methods.contains(&mm.id) {
                mm.selected = false;
            }
        }
    }
    plan_saf(m, mode, saf, Some(originals))
}

fn plan_saf(
    m: &Manifest,
    mode: Mode,
    saf: Saf,
    originals: Option<&HashMap<String, String>>,
) -> Result<(Plan, Summary)> {
    let trace_dir = m.trace_dir();
    std::fs::create_dir_all(&trace_dir).map_err(|e| Error::io(&trace_dir, e))?;
    let root = std::fs::canonicalize(&m.root).map_err(|e| Error::io(&m.root, e))?;
    let cx = Context {
        mode,
        saf: &saf,
        trace: TraceSettings {
            dir: std::fs::canonicalize(&trace_dir).map_err(|e| Error::io(&trace_dir, e))?,
            max_size: m.trace_max_size,
            project: m.name.clone(),
        },
        root,
        originals,
    };
    // Files holding anything selected: class declarations or method definitions (also of
    // classes withdrawn to non-intrusive IDs).
    let mut wanted: BTreeSet<&str> = BTreeSet::new();
    for c in saf.classes.iter().filter(|c| c.selected) {
        let withdrawn = !c.annotatable && originals.is_some() && c.reason.is_none();
        if !c.annotatable && !withdrawn {
            continue;
        }
        wanted.insert(&c.file);
        for mm in c.methods.iter().filter(|x| x.selected && x.annotatable) {
            wanted.insert(&mm.file);
        }
    }
    let bar = crate::progress::bar(wanted.len(), "annotating");
    let results: Vec<(String, String, FileEdits)> = wanted
        .par_iter()
        .map(|rel| {
            bar.inc(1);
            let text = match originals.and_then(|o| o.get(*rel)) {
                Some(t) => t.clone(),
                None => read_source(m, rel)?,
            };
            let model = parse_file(rel, &text);
            let lang = Lang::of_path(rel).unwrap_or(Lang::Java);
            let mut fe = for_lang(lang).annotate_file(&cx, &model, &text);
            crate::verify::test_break(&cx, &model, &mut fe);
            Ok((rel.to_string(), text, fe))
        })
        .collect::<Result<Vec<_>>>()?;
    bar.finish_and_clear();
    let mut summary = Summary {
        parse_problems: saf
            .problems
            .iter()
            .filter(|p| !p.contains(": note: "))
            .count(),
        ..Default::default()
    };
    let mut files = Vec::new();
    let mut by_lang: std::collections::BTreeMap<Lang, Vec<String>> = Default::default();
    for (rel, text, fe) in results {
        summary.skipped.extend(fe.skipped);
        summary.notes.extend(fe.notes);
        summary.classes += fe.classes;
        summary.methods += fe.methods;
        if fe.insertions.is_empty() {
            continue;
        }
        by_lang
            .entry(Lang::of_path(&rel).unwrap_or(Lang::Java))
            .or_default()
            .push(rel.clone());
        files.push((rel, text, fe.insertions));
    }
    summary.files = files.len();
    let mut runtime = Vec::new();
    for (lang, annotated) in &by_lang {
        runtime.extend(for_lang(*lang).runtime_files(&cx, annotated)?);
    }
    summary.runtime_files = runtime.len();
    Ok((
        Plan {
            mode,
            files,
            runtime,
        },
        summary,
    ))
}
