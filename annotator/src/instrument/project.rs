//! Reading and parsing every source of a manifest (in parallel), then linking C++ member
//! functions defined out of class back to their classes.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::instrument::frontend::{self, ProjectContext};
use crate::instrument::manifest::{read_source, Manifest};
use crate::instrument::model::{ClassDecl, Diagnostic, FileModel, Lang, MethodDecl};

/// One source file with its text and model.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Relative to the manifest folder, `/`-separated.
    pub path: String,
    pub lang: Lang,
    pub text: String,
    pub sha256: String,
    pub model: FileModel,
}

/// All parsed sources of a project, with classes linked across files.
#[derive(Debug)]
pub struct Project {
    pub files: Vec<SourceFile>,
    /// Classes of all files after linking (out-of-class definitions merged in), in file order.
    pub classes: Vec<ClassDecl>,
    /// Syntax problems and link problems, sorted by path and position.
    pub diagnostics: Vec<Diagnostic>,
}

/// Runs `f` (which parses in parallel) on threads whose stacks fit the front ends'
/// recursion at its depth limits, also in unoptimised builds (rayon's default is 2 MiB).
pub(crate) fn with_parse_stacks<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    match rayon::ThreadPoolBuilder::new().stack_size(64 << 20).build() {
        Ok(pool) => pool.install(f),
        Err(_) => f(),
    }
}

/// The language of source `path`, from its extension. A file no front end reads is an
/// error naming it, never parsed as some other language.
pub(crate) fn source_lang(path: &str) -> Result<Lang> {
    Lang::of_path(path).ok_or_else(|| {
        let exts: Vec<&str> = (crate::instrument::lang::LangSpec::all().into_iter())
            .flat_map(|s| s.extensions.iter().copied())
            .collect();
        Error::input(format!(
            "{path}: not a source of a language Revy reads (.{}); list only such files in \
             project.sources and run `revy parse` again",
            exts.join(" .")
        ))
    })
}

/// Parses one file with its language's front end, in the project's context `cx`.
pub fn parse_file(path: &str, text: &str, cx: &ProjectContext) -> Result<FileModel> {
    Ok(frontend::for_lang(source_lang(path)?).parse(path, text, cx))
}

/// Discovers, reads and parses all sources of `manifest`, using all cores. The caller
/// checks first that the sources are not annotated (`store::ensure_not_annotated`).
pub fn load(manifest: &Manifest) -> Result<Project> {
    crate::instrument::safepath::check_state_dir(&manifest.root, &manifest.state_dir())?;
    let paths = manifest.discover()?;
    let bar = crate::util::progress::bar(paths.len(), "parsing");
    let texts: Vec<(String, String)> = with_parse_stacks(|| {
        (paths.par_iter())
            .map(|rel| Ok((rel.clone(), read_source(manifest, rel)?)))
            .collect::<Result<Vec<_>>>()
    })?;
    let cx = crate::instrument::cppdefs::context(
        manifest,
        texts.iter().map(|(p, t)| (p.as_str(), t.as_str())),
    );
    let files: Vec<SourceFile> = with_parse_stacks(|| {
        texts
            .into_par_iter()
            .map(|(rel, text)| {
                bar.inc(1);
                Ok(SourceFile {
                    lang: source_lang(&rel)?,
                    model: parse_file(&rel, &text, &cx)?,
                    sha256: crate::util::hash::sha256_hex(&crate::util::srctext::encode(&text)),
                    path: rel,
                    text,
                })
            })
            .collect::<Result<Vec<_>>>()
    })?;
    bar.finish_and_clear();
    Ok(link(files))
}

/// Merges C++ out-of-class definitions into their classes: a definition replaces the
/// in-class declaration with the same name and parameter types, else it is appended.
pub fn link(files: Vec<SourceFile>) -> Project {
    let mut classes: Vec<ClassDecl> = files
        .iter()
        .flat_map(|f| f.model.classes.iter().cloned())
        .collect();
    let mut diagnostics: Vec<Diagnostic> = files
        .iter()
        .flat_map(|f| f.model.diagnostics.iter().cloned())
        .collect();
    let mut by_qname: std::collections::HashMap<String, Vec<usize>> = Default::default();
    for (i, c) in classes.iter().enumerate() {
        by_qname.entry(c.qname.clone()).or_default().push(i);
    }
    for f in &files {
        for (owner, def) in &f.model.out_of_class {
            // An owner that is no class of the sources is a namespace-qualified free
            // function (`void ns::f() {}`) or a member of an outside class: nothing to link.
            if let Some(ci) = find_owner(&classes, &by_qname, owner) {
                // An explicit specialisation shares the primary's qualified name: the one
                // whose class declares this member takes the definition
                // (`bool convert<bool>::decode(...)` in yaml-cpp).
                let ci = by_qname
                    .get(&classes[ci].qname)
                    .and_then(|ids| {
                        ids.iter()
                            .copied()
                            .find(|&i| declaration_slot(&classes[i], def).is_some())
                    })
                    .unwrap_or(ci);
                merge_definition(&mut classes[ci], def.clone());
            }
        }
    }
    diagnostics.sort_by(|a, b| (&a.path, a.line, a.col).cmp(&(&b.path, b.line, b.col)));
    Project {
        files,
        classes,
        diagnostics,
    }
}

/// The class an out-of-class definition belongs to: exact qualified name first, then a
/// class whose qualified name ends with `::owner` (the definition may be qualified less).
/// Primary templates win over specialisations.
fn find_owner(
    classes: &[ClassDecl],
    by_qname: &std::collections::HashMap<String, Vec<usize>>,
    owner: &str,
) -> Option<usize> {
    let pick = |ids: &[usize]| {
        ids.iter()
            .copied()
            .find(|&i| classes[i].specialization.is_none())
            .or_else(|| ids.first().copied())
    };
    if let Some(ids) = by_qname.get(owner) {
        return pick(ids);
    }
    let suffix = format!("::{owner}");
    let ids: Vec<usize> = classes
        .iter()
        .enumerate()
        .filter(|(_, c)| c.qname.ends_with(&suffix))
        .map(|(i, _)| i)
        .collect();
    pick(&ids)
}

/// Same type name, or the same name qualified more in one of them: a definition out of class
/// writes `OurReader::Location` where the declaration in the class wrote `Location`.
fn same_type_name(a: &str, b: &str, relaxed: bool) -> bool {
    let (a, b) = (a.trim_start_matches("::"), b.trim_start_matches("::"));
    a == b
        || (relaxed
            && (a.strip_suffix(b).is_some_and(|p| p.ends_with("::"))
                || b.strip_suffix(a).is_some_and(|p| p.ends_with("::"))))
}

fn same_params(a: &MethodDecl, b: &MethodDecl, relaxed: bool) -> bool {
    a.params.len() == b.params.len()
        && a.params.iter().zip(&b.params).all(|(x, y)| {
            same_type_name(&x.ty.name, &y.ty.name, relaxed)
                && x.ty.dims == y.ty.dims
                && x.ty.pointers == y.ty.pointers
                && x.ty.reference == y.ty.reference
                && x.ty.sig_decor() == y.ty.sig_decor()
        })
}

/// The declaration (without body) in `class` that definition `def` defines, if any.
fn declaration_slot(class: &ClassDecl, def: &MethodDecl) -> Option<usize> {
    let find = |relaxed: bool| {
        class.methods.iter().position(|m| {
            m.name == def.name
                && m.body.is_none()
                && same_params(m, def, relaxed)
                && m.flags.is_const == def.flags.is_const
                && m.flags.ref_qualifier == def.flags.ref_qualifier
        })
    };
    find(false).or_else(|| find(true))
}

fn merge_definition(class: &mut ClassDecl, mut def: MethodDecl) {
    let slot = declaration_slot(class, &def);
    match slot {
        Some(i) => {
            // The declaration knows `static`/`virtual`/`override`; the definition knows the body.
            inherit(&mut def, &class.methods[i]);
            class.methods[i] = def;
        }
        None => {
            def.flags.is_template |= !class.type_params.is_empty();
            // Another definition of a member already defined (the branches of an `#if`
            // each define it): it is what the first is, e.g. static.
            let same = |m: &&MethodDecl| {
                m.name == def.name
                    && m.body.is_some()
                    && same_params(m, &def, true)
                    && m.flags.is_const == def.flags.is_const
                    && m.flags.ref_qualifier == def.flags.ref_qualifier
            };
            if let Some(first) = class.methods.iter().find(same) {
                inherit(&mut def, first);
            }
            class.methods.push(def);
        }
    }
}

/// What a definition takes from the declaration (or earlier definition) of its member.
fn inherit(def: &mut MethodDecl, decl: &MethodDecl) {
    def.flags.is_static |= decl.flags.is_static;
    def.flags.is_virtual |= decl.flags.is_virtual;
    def.flags.is_override |= decl.flags.is_override;
    def.flags.is_noexcept |= decl.flags.is_noexcept;
    def.flags.is_template |= decl.flags.is_template;
    if def.ret.is_none() {
        def.ret = decl.ret.clone();
    }
    def.kind = decl.kind;
}

#[cfg(test)]
mod tests {
    /// A file no front end claims is refused with its name, never read as Java (the old
    /// default gave `class W { char c; };` in `widget.inc` a Java model).
    #[test]
    fn a_file_of_no_known_language_is_an_error_naming_it() {
        let cx = Default::default();
        let e = super::parse_file("src/widget.inc", "class W { char c; };\n", &cx).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.starts_with("src/widget.inc: not a source of a language Revy reads (.java .cpp"),
            "{msg}"
        );
        assert_eq!(e.exit_code(), 2);
        let m = super::parse_file("src/w.hpp", "class W { char c; };\n", &cx).unwrap();
        assert_eq!(m.classes[0].lang, crate::instrument::model::Lang::Cpp);
    }
}
