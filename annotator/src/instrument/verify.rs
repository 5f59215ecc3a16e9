//! `revy annotate --verify` (and `revy profile`, always): build the annotated tree with the
//! manifest's build command and withdraw, declaration by declaration, whatever the compiler
//! rejects, until the build passes or a bound is reached (then every original goes back).
//!
//! Each compiler error (g++/clang `file:line:col: error: …`, javac `file:line: error: …`,
//! Maven `[ERROR] file:[line,col] …`) is attributed to the innermost instrumented declaration
//! whose lines it falls in — both annotators keep every original line number, so the
//! compiler's lines are the SAF's — else to one named by its context lines (template
//! instantiation chains) or its text. A method loses its instrumentation; a class falls back
//! to non-intrusive IDs. Only changed files are rewritten ([`store::recommit`]), so the
//! build's own incremental behaviour rebuilds only them.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::instrument::annotate::{self, Summary, Withdrawn};
use crate::instrument::manifest::{Manifest, Mode};
use crate::instrument::saf::Saf;
use crate::instrument::store::{self, Plan};

/// Builds after which `--verify` gives up (restoring everything).
pub(crate) const MAX_ROUNDS: usize = 12;

/// One declaration taken back, with the compiler's line that caused it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Withdrawal {
    /// `path:line: Class::method` or `path:line: Class`.
    pub decl: String,
    /// What was taken back.
    pub how: &'static str,
    /// The compiler's first line of the error.
    pub compiler: String,
}

/// A verified annotation.
#[derive(Debug, Default)]
pub struct Verified {
    /// Builds run (the last one passed).
    pub builds: usize,
    pub withdrawn: Vec<Withdrawal>,
    /// The annotation summary after withdrawals (`None`: nothing was withdrawn).
    pub summary: Option<Summary>,
}

/// Builds the annotated tree (already committed from `plan`) and withdraws what the compiler
/// rejects. On failure every original is restored and the error says why.
pub fn verify(m: &Manifest, mode: Mode, plan: &Plan) -> Result<Verified> {
    let Some(cmd) = m.build.as_deref() else {
        let _ = store::restore(m);
        return Err(Error::input(format!(
            "{}: project.build is not set; --verify needs the command that builds your program \
             (the sources were restored)",
            m.path.display()
        )));
    };
    let originals: HashMap<String, String> = plan
        .files
        .iter()
        .map(|(p, t, _)| (p.clone(), t.clone()))
        .collect();
    let saf = Saf::load(&m.saf_path())?;
    let mut files = FileIndex::new(m, &saf);
    // Revy's runtime files too: an error there is Revy's, never "where Revy inserted nothing".
    let runtime: BTreeSet<String> = plan.runtime.iter().map(|(p, _)| p.clone()).collect();
    files.files.extend(runtime.iter().cloned());
    let mut w = Withdrawn::default();
    let mut out = Verified::default();
    for round in 1..=MAX_ROUNDS {
        out.builds = round;
        let (ok, log) = build(m, cmd, round)?;
        if ok {
            return settle(m, out);
        }
        // A build ended by Ctrl-C failed for no fault of the annotation: nothing to withdraw.
        if crate::util::signals::caught().is_some() {
            return give_up(m, "interrupted during the build");
        }
        let errors = compiler_errors(&log);
        let found = attribute(&saf, &files, &errors, &w);
        if let Some(line) = runtime_line(&log, &files, &runtime).filter(|_| found.is_empty()) {
            return give_up(
                m,
                &format!(
                    "the build failed in Revy's own runtime, which this build cannot compile \
                     (please report it): {line} (whole output: {})",
                    m.state_dir().join("build.log").display()
                ),
            );
        }
        if found.is_empty() {
            let first = errors
                .first()
                .map(|e| e.first.clone())
                .unwrap_or_else(|| last_lines(&log));
            return give_up(
                m,
                &format!(
                    "the build command failed where Revy inserted nothing (does the original build?): {first} (whole output: {})",
                    m.state_dir().join("build.log").display()
                ),
            );
        }
        for (d, line) in found {
            out.withdrawn.push(withdraw(&saf, &mut w, d, line));
        }
        match reannotate(m, mode, &w, &originals) {
            Ok(s) => out.summary = Some(s),
            Err(e) => return give_up(m, &e.to_string()),
        }
    }
    give_up(
        m,
        &format!(
            "the build still fails after {MAX_ROUNDS} builds ({} declarations withdrawn)",
            out.withdrawn.len()
        ),
    )
}

/// The first compiler line located in one of Revy's runtime files (an error, or a warning
/// that `-Werror` makes fatal).
fn runtime_line(log: &str, files: &FileIndex, runtime: &BTreeSet<String>) -> Option<String> {
    let ours = |l: &&str| {
        locate(l).is_some_and(|(at, _)| files.rel(&at.path).is_some_and(|r| runtime.contains(&r)))
    };
    log.lines().find(ours).map(clip)
}

/// Makes the summary say what the tree holds: with nothing left annotated after the
/// withdrawals every original goes back (no runtime files stay behind), otherwise the
/// runtime files counted are the journal's.
fn settle(m: &Manifest, mut out: Verified) -> Result<Verified> {
    let Some(s) = out.summary.as_mut() else {
        return Ok(out);
    };
    if s.files == 0 {
        store::restore(m)?;
        s.runtime_files = 0;
        s.notes.push(
            "nothing is left annotated after the withdrawals: every original is restored"
                .to_string(),
        );
    } else if let Some(state) = store::load_state(m)? {
        s.runtime_files = state.runtime.len();
    }
    Ok(out)
}

/// Marks the declaration withdrawn and says what was withdrawn and why.
fn withdraw(saf: &Saf, w: &mut Withdrawn, d: Decl, compiler: String) -> Withdrawal {
    let (decl, how) = describe(saf, d);
    match d {
        Decl::Method(id) => w.methods.insert(id),
        Decl::Class(id) => w.classes.insert(id),
    };
    Withdrawal {
        decl,
        how,
        compiler,
    }
}

/// Annotates the originals again without the withdrawn declarations and rewrites the tree.
fn reannotate(
    m: &Manifest,
    mode: Mode,
    w: &Withdrawn,
    originals: &HashMap<String, String>,
) -> Result<Summary> {
    let (p, s) = annotate::plan_withdrawn(m, mode, w, originals)?;
    store::recommit(m, &p)?;
    Ok(s)
}

fn give_up<T>(m: &Manifest, why: &str) -> Result<T> {
    let restored = match store::restore(m) {
        Ok(_) => "every original is restored".to_string(),
        Err(e) => format!("restoring failed too ({e}); run `revy restore`"),
    };
    Err(Error::Problems(format!(
        "{}: --verify: {why}; {restored}",
        m.path.display()
    )))
}

/// Runs the build command in the manifest folder (showing the step and its time); returns
/// success and its combined output.
fn build(m: &Manifest, cmd: &str, round: usize) -> Result<(bool, String)> {
    let what = match round {
        1 => "building the annotated sources".to_string(),
        n => format!("building the annotated sources again (build {n})"),
    };
    let b = crate::instrument::build_log::build_logged(m, &what, cmd)?;
    Ok((b.status.success(), b.log))
}

fn last_lines(log: &str) -> String {
    let lines: Vec<&str> = log.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(1)..].join(" ");
    if tail.is_empty() {
        "no compiler error found in its output".into()
    } else {
        clip(&tail)
    }
}

fn clip(s: &str) -> String {
    let s = s.trim();
    if s.len() <= 240 {
        return s.to_string();
    }
    let mut end = 240;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

// ---- reading the compiler's output -----------------------------------------------------------

/// A source location in the compiler's output.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Loc {
    path: String,
    line: u32,
}

/// One compiler error: its own location and line, plus the locations and text around it
/// (instantiation chains before it, notes after it).
#[derive(Debug, Clone)]
struct CompilerError {
    at: Loc,
    first: String,
    context: Vec<Loc>,
    text: String,
}

/// `path:line:…` / `path:line: …` / `[ERROR] path:[line,col] …` → the location and the rest.
fn locate(line: &str) -> Option<(Loc, &str)> {
    let l = line.trim_start();
    let l = l.strip_prefix("[ERROR] ").unwrap_or(l);
    let l = l.strip_prefix("In file included from ").unwrap_or(l);
    let l = l.strip_prefix("from ").unwrap_or(l);
    for (i, _) in l.match_indices(':') {
        let path = &l[..i];
        if crate::instrument::model::Lang::of_path(path).is_none() {
            continue;
        }
        let rest = &l[i + 1..];
        let rest = rest.strip_prefix('[').unwrap_or(rest);
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || !matches!(rest.as_bytes().get(digits), Some(b':' | b',')) {
            continue;
        }
        let n = rest[..digits].parse().ok()?;
        let after = rest[digits + 1..]
            .trim_start_matches(|c: char| c.is_ascii_digit() || c == ':' || c == ']');
        return Some((
            Loc {
                path: path.to_string(),
                line: n,
            },
            after.trim_start(),
        ));
    }
    None
}

fn is_error(line: &str, rest: &str) -> bool {
    rest.starts_with("error:")
        || rest.starts_with("fatal error:")
        || line.trim_start().starts_with("[ERROR] ")
}

fn compiler_errors(log: &str) -> Vec<CompilerError> {
    let lines: Vec<&str> = log.lines().collect();
    let errs: Vec<(usize, Loc)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let (loc, rest) = locate(l)?;
            is_error(l, rest).then_some((i, loc))
        })
        .collect();
    let mut out = Vec::new();
    for (k, (i, at)) in errs.iter().enumerate() {
        let from = if k == 0 { 0 } else { errs[k - 1].0 + 1 };
        let to = errs.get(k + 1).map_or(lines.len(), |e| e.0);
        let block = &lines[from..to];
        out.push(CompilerError {
            at: at.clone(),
            first: clip(lines[*i]),
            context: block
                .iter()
                .filter_map(|l| locate(l).map(|x| x.0))
                .collect(),
            text: block.join("\n"),
        });
    }
    out
}

// ---- attributing errors to declarations ------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Decl {
    Method(u32),
    Class(u32),
}

/// Maps the compiler's paths to the SAF's (relative to the manifest folder).
struct FileIndex {
    root: PathBuf,
    files: BTreeSet<String>,
}

impl FileIndex {
    fn new(m: &Manifest, saf: &Saf) -> Self {
        FileIndex {
            root: std::fs::canonicalize(&m.root).unwrap_or_else(|_| m.root.clone()),
            files: saf.files.iter().map(|f| f.path.clone()).collect(),
        }
    }

    fn rel(&self, path: &str) -> Option<String> {
        let p = Path::new(path);
        let full = if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.root.join(p)
        };
        if let Ok(c) = std::fs::canonicalize(&full) {
            if let Ok(r) = c.strip_prefix(&self.root) {
                let r = r.to_string_lossy().replace('\\', "/");
                if self.files.contains(&r) {
                    return Some(r);
                }
            }
        }
        // Builds in sub-folders name files relative to them: match by path suffix.
        let tail = path.trim_start_matches("./");
        let mut hits = self
            .files
            .iter()
            .filter(|f| f.ends_with(&format!("/{tail}")) || tail.ends_with(&format!("/{f}")));
        match (hits.next(), hits.next()) {
            (Some(f), None) => Some(f.clone()),
            _ => None,
        }
    }
}

/// The innermost declaration still instrumented at `rel:line`.
fn decl_at(saf: &Saf, rel: &str, line: u32, w: &Withdrawn) -> Option<Decl> {
    let within = |l: [u32; 2]| l[0] <= line && line <= l[1];
    let method = saf
        .classes
        .iter()
        .flat_map(|c| &c.methods)
        .filter(|x| x.file == rel && within(x.lines))
        .filter(|x| x.selected && x.annotatable && x.has_body && !w.methods.contains(&x.id))
        .min_by_key(|x| x.lines[1] - x.lines[0]);
    if let Some(x) = method {
        return Some(Decl::Method(x.id));
    }
    saf.classes
        .iter()
        .filter(|c| c.file == rel && within(c.lines))
        .filter(|c| c.selected && c.annotatable && !w.classes.contains(&c.id))
        .min_by_key(|c| c.lines[1] - c.lines[0])
        .map(|c| Decl::Class(c.id))
}

/// The declarations to withdraw for these errors, each with the first compiler line naming it.
fn attribute(
    saf: &Saf,
    files: &FileIndex,
    errors: &[CompilerError],
    w: &Withdrawn,
) -> Vec<(Decl, String)> {
    let mut found: Vec<(Decl, String)> = Vec::new();
    let mut add = |d: Decl, line: &str| {
        if !found.iter().any(|(x, _)| *x == d) {
            found.push((d, line.to_string()));
        }
    };
    let at = |l: &Loc| files.rel(&l.path).and_then(|r| decl_at(saf, &r, l.line, w));
    for e in errors {
        if let Some(d) = at(&e.at) {
            add(d, &e.first);
            continue;
        }
        let ctx: Vec<Decl> = e.context.iter().filter_map(at).collect();
        if !ctx.is_empty() {
            ctx.into_iter().for_each(|d| add(d, &e.first));
            continue;
        }
        // Last resort: instrumented classes the error's text names.
        for c in saf
            .classes
            .iter()
            .filter(|c| c.selected && c.annotatable && !w.classes.contains(&c.id))
        {
            if names(&e.text, &c.name) || (c.qname != c.name && names(&e.text, &c.qname)) {
                add(Decl::Class(c.id), &e.first);
            }
        }
    }
    // A class falling back to non-intrusive IDs changes its methods' probes too: keep them
    // this round, the next build says whether they still fail.
    let classes: BTreeSet<u32> = found
        .iter()
        .filter_map(|(d, _)| match d {
            Decl::Class(id) => Some(*id),
            Decl::Method(_) => None,
        })
        .collect();
    found.retain(|(d, _)| match d {
        Decl::Method(id) => !saf
            .classes
            .iter()
            .any(|c| classes.contains(&c.id) && c.methods.iter().any(|x| x.id == *id)),
        Decl::Class(_) => true,
    });
    found
}

/// Whether `text` holds `name` as a whole identifier.
fn names(text: &str, name: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(name).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(ident)
            && !text[i + name.len()..].chars().next().is_some_and(ident)
    })
}

fn describe(saf: &Saf, d: Decl) -> (String, &'static str) {
    for c in &saf.classes {
        match d {
            Decl::Class(id) if c.id == id => {
                return (
                    format!("{}:{}: {}", c.file, c.lines[0], c.qname),
                    "class falls back to non-intrusive object IDs",
                )
            }
            Decl::Method(id) => {
                if let Some(x) = c.methods.iter().find(|x| x.id == id) {
                    let sep = c.lang.spec().scope_sep;
                    return (
                        format!("{}:{}: {}{sep}{}", x.file, x.lines[0], c.qname, x.name),
                        "method instrumentation dropped",
                    );
                }
            }
            _ => {}
        }
    }
    (format!("{d:?}"), "withdrawn")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_gcc_clang_javac_and_maven_errors() {
        let log = "\
src/a.cpp: In instantiation of 'struct Vec<Sparse<int>::IndexValue>':
src/a.cpp:20:22:   required from here
src/vec.h:5:19: error: static assertion failed: T must be POD
make: *** [Makefile:12: all] Error 1
src/Shape.java:7: error: cannot find symbol
[ERROR] /w/p/src/Main.java:[3,9] cannot find symbol
In file included from src/b.cpp:2:
src/b.h:9:5: fatal error: x.h: No such file or directory";
        let e = compiler_errors(log);
        let at: Vec<(&str, u32)> = e.iter().map(|e| (e.at.path.as_str(), e.at.line)).collect();
        assert_eq!(
            at,
            [
                ("src/vec.h", 5),
                ("src/Shape.java", 7),
                ("/w/p/src/Main.java", 3),
                ("src/b.h", 9)
            ]
        );
        assert!(e[0].context.contains(&Loc {
            path: "src/a.cpp".into(),
            line: 20
        }));
        assert!(e[0].text.contains("IndexValue"));
        assert!(e[0].first.ends_with("T must be POD"));
    }

    #[test]
    fn names_match_whole_identifiers_only() {
        assert!(names(
            "in 'struct Vec<Sparse<int>::IndexValue>'",
            "IndexValue"
        ));
        assert!(!names("IndexValues", "IndexValue"));
        assert!(!names("MyNode", "Node"));
    }
}
