//! The parse and annotate stages as the commands and `revy profile` run them: each does
//! its work and returns a report; printing the report is the command line's job.

use std::path::PathBuf;
use std::time::Instant;

use crate::error::{Error, Result};
use crate::instrument::annotate::Summary;
use crate::instrument::manifest::{Manifest, Mode};
use crate::instrument::model::Diagnostic;

/// What `revy parse` did.
#[derive(Debug)]
pub struct ParseReport {
    /// Syntax problems and notes, in file order.
    pub diagnostics: Vec<Diagnostic>,
    pub files: usize,
    pub classes: usize,
    /// Classes selected and annotatable.
    pub selected_classes: usize,
    pub methods: usize,
    /// Methods selected and instrumentable.
    pub selected_methods: usize,
    pub saf_path: PathBuf,
    pub seconds: f64,
}

impl ParseReport {
    /// Diagnostics that are problems (not notes).
    pub fn problems(&self) -> usize {
        self.diagnostics.iter().filter(|d| !d.is_note()).count()
    }
}

/// Parses the manifest's sources and writes the SAF.
pub fn parse(m: &Manifest) -> Result<ParseReport> {
    let started = Instant::now();
    // Annotated sources would put Revy's runtime and insertions into the SAF.
    crate::instrument::store::ensure_not_annotated(m)?;
    let project = crate::instrument::project::load(m)?;
    let mut saf = crate::instrument::saf::build::build(m, &project);
    // Selection follows the SAF, which records every class unselected.
    let (include, exclude) = (&m.include_patterns, &m.exclude_patterns);
    crate::instrument::select::apply(&mut saf.classes, include, exclude);
    let saf_path = m.saf_path();
    crate::instrument::store::write_state_file(&saf_path, saf.to_toml().as_bytes())?;
    let methods = saf.classes.iter().map(|c| c.methods.len()).sum();
    let selected_methods = (saf.classes.iter())
        .flat_map(|c| &c.methods)
        .filter(|x| x.selected && x.annotatable)
        .count();
    let selected_classes = (saf.classes.iter())
        .filter(|c| c.selected && c.annotatable)
        .count();
    Ok(ParseReport {
        diagnostics: project.diagnostics,
        files: saf.files.len(),
        classes: saf.classes.len(),
        selected_classes,
        methods,
        selected_methods,
        saf_path,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// What `revy annotate` did.
#[derive(Debug)]
pub struct AnnotateReport {
    pub mode: Mode,
    pub summary: Summary,
    /// Builds run by `--verify` (the last one passed); `None` when not verified.
    pub verified_builds: Option<usize>,
    /// What `--verify` took back because the compiler rejected it.
    pub withdrawn: Vec<crate::instrument::verify::Withdrawal>,
}

impl AnnotateReport {
    /// Whether anything selected was left alone or withdrawn (exit 1).
    pub fn has_problems(&self) -> bool {
        !self.summary.skipped.is_empty()
            || self.summary.parse_problems > 0
            || !self.withdrawn.is_empty()
    }
}

/// Annotates the SAF's selection and, with `verify`, builds the result and withdraws what
/// the compiler rejects. The flag says whether the tree may have been written to (then it
/// must be restored), also when the result is an error.
pub fn annotate(m: &Manifest, mode: Mode, verify: bool) -> (bool, Result<AnnotateReport>) {
    let (plan, summary) = match crate::instrument::annotate::plan(m, mode) {
        Ok(x) => x,
        Err(e) => return (false, Err(e)),
    };
    if plan.files.is_empty() {
        let e = Error::Problems(format!(
            "{}: nothing selected can be instrumented; check [annotate] include/exclude and `revy parse` output",
            m.path.display()
        ));
        return (false, Err(e));
    }
    let r = crate::instrument::store::commit(m, &plan);
    // A failed commit may have written part of the plan: the journal says so.
    let touched = r.is_ok() || matches!(crate::instrument::store::load_state(m), Ok(Some(_)));
    if let Err(e) = r {
        return (touched, Err(e));
    }
    let mut report = AnnotateReport {
        mode,
        summary,
        verified_builds: None,
        withdrawn: Vec::new(),
    };
    if verify {
        match crate::instrument::verify::verify(m, mode, &plan) {
            Ok(v) => {
                if let Some(s) = v.summary {
                    report.summary = s;
                }
                report.verified_builds = Some(v.builds);
                report.withdrawn = v.withdrawn;
            }
            // A failed verification restores the originals unless it could not.
            Err(e) => {
                let still = matches!(crate::instrument::store::load_state(m), Ok(Some(_)));
                return (still, Err(e));
            }
        }
    }
    (touched, Ok(report))
}
