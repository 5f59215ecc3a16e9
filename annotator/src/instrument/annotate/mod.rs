//! Annotation: turns the selection recorded in the SAF into insertions per file (one
//! language annotator each) plus the runtime files to add; the store stage writes them.

pub(crate) mod cpp;
mod cpp_ctor;
mod cpp_ids;
mod cpp_join;
mod cpp_plan;
pub mod java;
mod java_module;
#[cfg(feature = "test-hooks")]
mod test_break;

/// The C++ classes of `saf` whose objects the annotation identifies by address (the
/// runtime's `nid` map: aggregates, unions, layout-sensitive classes), by qualified name:
/// each call of their methods looks the receiver's ID up (`nid_ns=`).
pub fn cpp_classes_by_address(saf: &Saf) -> std::collections::HashSet<String> {
    let ids = cpp_ids::Ids::default();
    saf.classes
        .iter()
        .filter(|c| c.lang == Lang::Cpp)
        .filter(|c| {
            matches!(
                cpp_ids::id_kind(saf, c, &ids),
                cpp_ids::IdKind::NonIntrusive(_)
            )
        })
        .map(|c| c.qname.clone())
        .collect()
}

use std::any::Any;
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::instrument::edits::Insertion;
use crate::instrument::manifest::read_source;
use crate::instrument::manifest::{Manifest, Mode};
use crate::instrument::model::{FileModel, Lang, MethodDecl};
use crate::instrument::project::{parse_file, source_lang};
use crate::instrument::saf::{Saf, SafClass, SafMethod};
use crate::instrument::store::{self, Plan};
use crate::util::hash::sha256_hex;

/// Where and how the runtimes record (resolved when annotating).
#[derive(Debug, Clone)]
pub struct TraceSettings {
    /// Absolute trace folder.
    pub dir: PathBuf,
    pub max_size: u64,
    pub project: String,
    /// `[trace]` throttling: calls (0 = off) and mean nanoseconds per call.
    pub throttle_calls: u64,
    pub throttle_ns: u64,
    /// The project's build command (a static link keeps the C++ runtime header-only).
    pub build: Option<String>,
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
    /// `[[remote]]`: methods that log a remote call's key on entry.
    pub remote: Vec<crate::instrument::remote::RemoteDef>,
    index: SafIndex<'a>,
    /// Per-run facts an annotator derives once from the whole project (C++: its sources'
    /// text), by language; dropped with the context, so no run sees another's.
    memo: Mutex<HashMap<Lang, Arc<dyn Any + Send + Sync>>>,
}

/// Hash lookups into the SAF, so annotating stays linear in the number of declarations.
struct SafIndex<'a> {
    /// Classes by qualified name, in SAF order (specialisations share their primary's).
    classes: HashMap<&'a str, Vec<&'a SafClass>>,
    /// Methods by (file, first line, name), in SAF order.
    methods: HashMap<MethodKey<'a>, Vec<(&'a SafClass, &'a SafMethod)>>,
    /// The class declaring each method, by SAF method id.
    owners: HashMap<u32, &'a SafClass>,
}

/// (file, first line, name) of a method.
type MethodKey<'a> = (&'a str, u32, &'a str);

impl<'a> SafIndex<'a> {
    fn new(saf: &'a Saf) -> Self {
        let mut ix = SafIndex {
            classes: HashMap::new(),
            methods: HashMap::new(),
            owners: HashMap::new(),
        };
        for c in &saf.classes {
            ix.classes.entry(c.qname.as_str()).or_default().push(c);
            for m in &c.methods {
                let key = (m.file.as_str(), m.lines[0], m.name.as_str());
                ix.methods.entry(key).or_default().push((c, m));
                ix.owners.entry(m.id).or_insert(c);
            }
        }
        ix
    }
}

impl<'a> Context<'a> {
    pub fn new(
        mode: Mode,
        saf: &'a Saf,
        trace: TraceSettings,
        root: PathBuf,
        originals: Option<&'a HashMap<String, String>>,
    ) -> Self {
        Context {
            mode,
            saf,
            trace,
            root,
            originals,
            remote: Vec::new(),
            index: SafIndex::new(saf),
            memo: Mutex::new(HashMap::new()),
        }
    }

    /// `lang`'s per-run value, built by `init` on first use in this run (one type per
    /// language; a value of another type is replaced).
    pub(crate) fn memo<T: Any + Send + Sync>(
        &self,
        lang: Lang,
        init: impl FnOnce() -> T,
    ) -> Arc<T> {
        let mut memo = self.memo.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = memo
            .get(&lang)
            .and_then(|v| Arc::clone(v).downcast::<T>().ok())
        {
            return v;
        }
        let v = Arc::new(init());
        memo.insert(lang, v.clone());
        v
    }

    /// The SAF entry of a class, if it is selected and annotatable.
    pub(crate) fn selected_class(&self, qname: &str) -> Option<&'a SafClass> {
        self.class(qname).filter(|c| c.selected && c.annotatable)
    }

    /// Any SAF class by qualified name (the first one, as `Saf::class`).
    pub fn class(&self, qname: &str) -> Option<&'a SafClass> {
        self.index
            .classes
            .get(qname)
            .and_then(|v| v.first().copied())
    }

    /// The SAF entry of this very declaration: class-template specialisations share their
    /// primary's qualified name, so the file and first line tell them apart.
    pub(crate) fn class_of_decl(&self, qname: &str, file: &str, line: u32) -> Option<&'a SafClass> {
        self.index
            .classes
            .get(qname)
            .and_then(|v| {
                v.iter()
                    .find(|c| c.file == file && c.lines[0] == line)
                    .copied()
            })
            .or_else(|| self.class(qname))
    }

    /// The SAF class that declares method `sm` (a specialisation's own entry, if it is one).
    pub(crate) fn owner_of(&self, sm: &SafMethod) -> Option<&'a SafClass> {
        self.index.owners.get(&sm.id).copied()
    }

    /// The SAF entry of a method of class `qname` declared in `file`, if it is selected
    /// and annotatable. Matches by name, file and first line (overloads differ by line).
    pub(crate) fn selected_method(
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
        // Template specialisations share their primary's qualified name: look in all.
        let found = self
            .index
            .methods
            .get(&(file, m.span.line, m.name.as_str()))?;
        // A definition may name its class less qualified than declared: after
        // `using namespace A;`, `int B::C::f() {…}` defines `A::B::C::f` (the link to the
        // class took the same suffix; `project::find_owner`).
        let suffix = format!("::{qname}");
        (found.iter().find(|(c, _)| c.qname == qname))
            .or_else(|| found.iter().find(|(c, _)| c.qname.ends_with(&suffix)))
            .map(|(_, sm)| *sm)
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
    /// relative to the manifest folder with their contents. `annotated` holds the models of
    /// the source files that received insertions.
    fn runtime_files(
        &self,
        cx: &Context,
        annotated: &[&FileModel],
    ) -> Result<Vec<(String, Vec<u8>)>>;
}

/// `base`, or `base1`, `base2`, … the first name `taken` does not refuse. Every generated
/// identifier goes through here, so none collides with a user's.
pub(crate) fn fresh_name(base: &str, taken: impl Fn(&str) -> bool) -> String {
    let mut name = base.to_string();
    let mut n = 0;
    while taken(&name) {
        n += 1;
        name = format!("{base}{n}");
    }
    name
}

/// The annotator for a language.
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
pub(crate) fn check_fresh(m: &Manifest, saf: &Saf) -> Result<()> {
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

/// Refuses a SAF whose classes or methods name a file that is not one of the checked
/// sources (the SAF was edited by hand or forged), naming the SAF's line.
fn check_saf_paths(m: &Manifest, saf: &Saf, wanted: &BTreeSet<&str>) -> Result<()> {
    let known: BTreeSet<&str> = saf.files.iter().map(|f| f.path.as_str()).collect();
    for rel in wanted {
        let why = match crate::instrument::safepath::escape_reason(&m.root, rel) {
            Some(why) => why,
            None if !known.contains(rel) => "is not one of the project's sources".to_string(),
            None => continue,
        };
        let text = std::fs::read_to_string(m.saf_path()).unwrap_or_default();
        return Err(Error::input(format!(
            "{}:{}: file `{rel}` {why}; Revy only writes inside {}. Re-run `revy parse` to \
             rebuild the SAF",
            m.saf_path().display(),
            crate::instrument::safepath::line_of_value(&text, rel),
            m.root.display()
        )));
    }
    Ok(())
}

/// Computes the annotation of the SAF's selection: insertions per file and runtime files.
pub fn plan(m: &Manifest, mode: Mode) -> Result<(Plan, Summary)> {
    // Taken here too so a concurrent annotate is told who holds the lock.
    let _lock = crate::instrument::lock::acquire(m)?;
    store::ensure_not_annotated(m)?;
    let saf = Saf::load(&m.saf_path())?;
    check_fresh(m, &saf)?;
    plan_saf(m, mode, saf, None)
}

/// Declarations `--verify` took back because the compiler rejected them (SAF ids).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Withdrawn {
    /// Method instrumentation dropped.
    pub methods: BTreeSet<u32>,
    /// Classes whose objects fall back to non-intrusive IDs (nothing inserted in the class).
    pub classes: BTreeSet<u32>,
}

/// Re-plans the original texts (the tree is annotated) without what `w` withdraws.
pub(crate) fn plan_withdrawn(
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

/// Plans the annotation of `saf`'s selection; `originals` when re-planning an annotated tree.
fn plan_saf(
    m: &Manifest,
    mode: Mode,
    saf: Saf,
    originals: Option<&HashMap<String, String>>,
) -> Result<(Plan, Summary)> {
    let (trace, root) = trace_settings(m)?;
    let mut cx = Context::new(mode, &saf, trace, root, originals);
    cx.remote = m.remote.clone();
    let wanted = wanted_files(&saf, originals);
    check_saf_paths(m, &saf, &wanted)?;
    let results = annotate_files(m, &cx, &wanted, originals)?;
    let mut summary = Summary {
        parse_problems: saf
            .problems
            .iter()
            .filter(|p| !p.contains(": note: "))
            .count(),
        ..Default::default()
    };
    let mut files = Vec::new();
    let mut models = Vec::new();
    for (rel, text, model, fe) in results {
        summary.skipped.extend(fe.skipped);
        summary.notes.extend(fe.notes);
        summary.classes += fe.classes;
        summary.methods += fe.methods;
        if fe.insertions.is_empty() {
            continue;
        }
        models.push(model);
        files.push((rel, text, fe.insertions));
    }
    let runtime = plan_runtime(&cx, &models)?;
    let java: Vec<&FileModel> = (models.iter())
        .filter(|f| Lang::of_path(&f.path) == Some(Lang::Java))
        .collect();
    files.extend(java_module::module_edit(m, &java, originals)?);
    summary.files = files.len();
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

/// The trace settings and the canonical project root (creates the trace folder).
fn trace_settings(m: &Manifest) -> Result<(TraceSettings, PathBuf)> {
    let trace_dir = m.trace_dir();
    std::fs::create_dir_all(&trace_dir).map_err(|e| Error::io(&trace_dir, e))?;
    let root = std::fs::canonicalize(&m.root).map_err(|e| Error::io(&m.root, e))?;
    let trace = TraceSettings {
        dir: std::fs::canonicalize(&trace_dir).map_err(|e| Error::io(&trace_dir, e))?,
        max_size: m.trace_max_size,
        project: m.name.clone(),
        throttle_calls: m.trace_throttle.map_or(0, |t| t.calls),
        throttle_ns: m
            .trace_throttle
            .map_or(0, |t| (t.us * 1000.0).round() as u64),
        build: m.build.clone(),
    };
    Ok((trace, root))
}

/// Files declaring anything selected (classes withdrawn to non-intrusive IDs included).
fn wanted_files<'s>(
    saf: &'s Saf,
    originals: Option<&HashMap<String, String>>,
) -> BTreeSet<&'s str> {
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
    wanted
}

/// Parses and annotates each wanted file in parallel: (path, text, model, edits).
fn annotate_files(
    m: &Manifest,
    cx: &Context,
    wanted: &BTreeSet<&str>,
    originals: Option<&HashMap<String, String>>,
) -> Result<Vec<(String, String, FileModel, FileEdits)>> {
    let project_cx = crate::instrument::cppdefs::for_manifest(m, originals);
    let bar = crate::util::progress::bar(wanted.len(), "annotating");
    let results: Vec<(String, String, FileModel, FileEdits)> =
        crate::instrument::project::with_parse_stacks(|| {
            wanted
                .par_iter()
                .map(|rel| {
                    bar.inc(1);
                    let text = match originals.and_then(|o| o.get(*rel)) {
                        Some(t) => t.clone(),
                        None => read_source(m, rel)?,
                    };
                    let model = parse_file(rel, &text, &project_cx)?;
                    let lang = source_lang(rel)?;
                    let fe = for_lang(lang).annotate_file(cx, &model, &text);
                    #[cfg(feature = "test-hooks")]
                    let fe = test_break::test_break(cx, &model, fe);
                    Ok((rel.to_string(), text, model, fe))
                })
                .collect::<Result<Vec<_>>>()
        })?;
    bar.finish_and_clear();
    Ok(results)
}

/// The runtime files for the annotated files' languages, in language order.
fn plan_runtime(cx: &Context, models: &[FileModel]) -> Result<Vec<(String, Vec<u8>)>> {
    let mut by_lang: std::collections::BTreeMap<Lang, Vec<&FileModel>> = Default::default();
    for model in models {
        let lang = source_lang(&model.path)?;
        by_lang.entry(lang).or_default().push(model);
    }
    let mut runtime = Vec::new();
    for (lang, annotated) in &by_lang {
        runtime.extend(for_lang(*lang).runtime_files(cx, annotated)?);
    }
    Ok(runtime)
}
