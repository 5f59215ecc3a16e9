//! The project manifest (`revy.toml`): loading, validation and source discovery.
//!
//! Every error names the manifest file and the line:col of the offending key, so a user can
//! fix it without guessing.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use toml::Spanned;

use crate::error::{Error, Result};
use crate::instrument::lang::LangSpec;
use crate::instrument::model::Lang;
use crate::util::pathset::PathSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Better,
    Faster,
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Mode::Better => "better",
            Mode::Faster => "faster",
        })
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    project: RawProject,
    #[serde(default)]
    annotate: RawAnnotate,
    #[serde(default)]
    sizes: Sizes,
    #[serde(default)]
    trace: RawTrace,
    #[serde(default)]
    events: Vec<crate::instrument::events::RawEvent>,
    #[serde(default)]
    remote: Vec<crate::instrument::remote::RawRemote>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProject {
    name: Spanned<String>,
    sources: Spanned<Vec<Spanned<String>>>,
    #[serde(default)]
    exclude: Vec<Spanned<String>>,
    #[serde(default)]
    build: Option<String>,
    #[serde(default)]
    run: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAnnotate {
    #[serde(default = "default_mode")]
    mode: Mode,
    #[serde(default = "default_include")]
    include: Vec<Spanned<String>>,
    #[serde(default)]
    exclude: Vec<Spanned<String>>,
}

impl Default for RawAnnotate {
    fn default() -> Self {
        RawAnnotate {
            mode: default_mode(),
            include: default_include(),
            exclude: Vec::new(),
        }
    }
}

fn default_mode() -> Mode {
    Mode::Better
}
fn default_include() -> Vec<Spanned<String>> {
    vec![Spanned::new(0..0, "*".to_string())]
}

/// Byte sizes used where the real size cannot be known statically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Sizes {
    /// A library object when nothing better is known.
    #[serde(default = "d_system")]
    pub system: u64,
    #[serde(default = "d_pointer")]
    pub pointer: u64,
    /// Array/collection length assumed when it cannot be known (C++ raw arrays).
    #[serde(default = "d_sample")]
    pub collection_sample: u64,
}
fn d_system() -> u64 {
    32
}
fn d_pointer() -> u64 {
    8
}
fn d_sample() -> u64 {
    8
}
impl Default for Sizes {
    fn default() -> Self {
        Sizes {
            system: 32,
            pointer: 8,
            collection_sample: 8,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTrace {
    #[serde(default = "d_trace_path")]
    path: String,
    #[serde(default)]
    max_size: Option<Spanned<toml::Value>>,
    /// `false` turns throttling off.
    #[serde(default)]
    throttle: Option<Spanned<toml::Value>>,
    #[serde(default)]
    throttle_calls: Option<Spanned<toml::Value>>,
    #[serde(default)]
    throttle_us: Option<Spanned<toml::Value>>,
}
fn d_trace_path() -> String {
    ".revy/traces".into()
}
impl Default for RawTrace {
    fn default() -> Self {
        RawTrace {
            path: d_trace_path(),
            max_size: None,
            throttle: None,
            throttle_calls: None,
            throttle_us: None,
        }
    }
}

/// A selection pattern with where it was written (for messages).
#[derive(Debug, Clone)]
pub struct Pattern {
    pub text: String,
    /// `line:col` in the manifest, or empty for defaults.
    pub at: String,
}

/// A validated manifest.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// The manifest file itself.
    pub path: PathBuf,
    /// The folder holding it: sources, commands and `.revy/` are relative to this.
    pub root: PathBuf,
    pub name: String,
    pub sources: Vec<String>,
    pub exclude: Vec<String>,
    pub build: Option<String>,
    pub run: Option<String>,
    pub mode: Mode,
    pub include_patterns: Vec<Pattern>,
    pub exclude_patterns: Vec<Pattern>,
    pub sizes: Sizes,
    /// Trace folder, relative to `root` unless absolute.
    pub trace_path: String,
    pub trace_max_size: u64,
    /// TAU's rule, `[trace] throttle_calls` / `throttle_us`: a method with more calls than
    /// this on a thread, averaging under the time, stops producing events (its calls are
    /// aggregated). `None` when `throttle = false`.
    pub trace_throttle: Option<Throttle>,
    /// `[[events]]`: what the analysis follows as events (requests, user actions).
    pub events: Vec<crate::instrument::events::EventDef>,
    /// `[[remote]]`: remote calls whose client and server log the request's key.
    pub remote: Vec<crate::instrument::remote::RemoteDef>,
    source_set: GlobSet,
    exclude_set: PathSet,
}

/// The throttling rule of `[trace]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Throttle {
    pub calls: u64,
    pub us: f64,
}

impl Default for Throttle {
    fn default() -> Self {
        Throttle {
            calls: 100_000,
            us: 10.0,
        }
    }
}

/// `[trace] throttle`, `throttle_calls`, `throttle_us`, each error naming its `line:col`.
fn trace_throttle(
    t: &RawTrace,
    at: &dyn Fn(std::ops::Range<usize>) -> String,
) -> Result<Option<Throttle>> {
    let bad = |v: &Spanned<toml::Value>, what: &str| {
        Error::input(format!("{}: trace.{what}", at(v.span())))
    };
    if let Some(v) = &t.throttle {
        match v.get_ref() {
            toml::Value::Boolean(true) => {}
            toml::Value::Boolean(false) => return Ok(None),
            _ => return Err(bad(v, "throttle must be true or false")),
        }
    }
    let mut r = Throttle::default();
    if let Some(v) = &t.throttle_calls {
        r.calls = match v.get_ref() {
            toml::Value::Integer(i) if *i > 0 => *i as u64,
            _ => {
                return Err(bad(
                    v,
                    "throttle_calls must be a positive number of calls (e.g. 100000)",
                ))
            }
        };
    }
    if let Some(v) = &t.throttle_us {
        r.us = match v.get_ref() {
            toml::Value::Integer(i) if *i >= 0 => *i as f64,
            toml::Value::Float(f) if f.is_finite() && *f >= 0.0 => *f,
            _ => {
                return Err(bad(
                    v,
                    "throttle_us must be a number of microseconds >= 0 (e.g. 10 or 2.5)",
                ))
            }
        };
    }
    Ok(Some(r))
}

/// 1-based line and column of a byte offset in `text`.
pub(crate) fn line_col_of(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// `line_col_of` for offsets asked in (mostly) increasing order, in linear total time:
/// a manifest of 200k globs on one line must not cost 200k scans of that line.
struct Locator<'t> {
    text: &'t str,
    /// (offset, line, column) of the last answer.
    last: std::cell::Cell<(usize, usize, usize)>,
}

impl<'t> Locator<'t> {
    fn new(text: &'t str) -> Self {
        Locator {
            text,
            last: std::cell::Cell::new((0, 1, 1)),
        }
    }

    fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let (mut at, mut line, mut col) = self.last.get();
        if offset < at || !self.text.is_char_boundary(offset) {
            return line_col_of(self.text, offset);
        }
        for ch in self.text[at..offset].chars() {
            if ch == '\n' {
                (line, col) = (line + 1, 1);
            } else {
                col += 1;
            }
        }
        at = offset;
        self.last.set((at, line, col));
        (line, col)
    }
}

/// Where `key` is set inside `[table]` (or as `table.key` at the top), for errors about
/// values serde has already accepted.
fn key_line_col(text: &str, table: &str, key: &str) -> Option<(usize, usize)> {
    let mut current = String::new();
    let dotted = format!("{table}.{key}");
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if let Some(h) = t.strip_prefix('[') {
            current = h.split(']').next().unwrap_or("").trim().to_string();
            continue;
        }
        let name = t.split('=').next().unwrap_or("").trim();
        if (current == table && name == key) || (current.is_empty() && name == dotted) {
            return Some((i + 1, line.len() - t.len() + 1));
        }
    }
    None
}

/// The folder holding the manifest at `path` (`.` for a bare file name).
/// What restore and annotate own under `.revy/`: traces there would be deleted or mistaken.
const STATE_INTERNALS: [&str; 6] = [
    "backup",
    "edits",
    "state.toml",
    "saf.toml",
    "lock",
    "report.html",
];

/// Refuses a `[trace] path` inside Revy's own files under `.revy/` (restore deletes them).
fn check_trace_path(manifest: &Path, text: &str, value: &str) -> Result<()> {
    let root = manifest_root(manifest);
    let p = Path::new(value);
    let rel = if p.is_absolute() {
        let canon = std::fs::canonicalize(&root).unwrap_or(root.clone());
        match p.strip_prefix(&canon).or_else(|_| p.strip_prefix(&root)) {
            Ok(r) => r.to_path_buf(),
            Err(_) => return Ok(()),
        }
    } else {
        p.to_path_buf()
    };
    // Lexical normal form: `.` dropped, `..` pops.
    let mut parts: Vec<String> = Vec::new();
    for c in rel.components() {
        match c {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::Normal(n) => parts.push(n.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    let inside =
        parts.len() >= 2 && parts[0] == ".revy" && STATE_INTERNALS.contains(&parts[1].as_str());
    if inside {
        return Err(Error::input(format!(
            "{}:{}: trace.path \"{value}\" is inside Revy's own files under .revy/ (restore \
             removes them); use the default \".revy/traces\" or a folder of your own",
            manifest.display(),
            crate::instrument::safepath::line_of_value(text, value)
        )));
    }
    Ok(())
}

fn manifest_root(path: &Path) -> PathBuf {
    path.parent()
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .unwrap_or(Path::new("."))
        .to_path_buf()
}

/// Checks one manifest's text, each error naming the file and the offending `line:col`.
struct Checker<'a> {
    path: &'a Path,
    text: &'a str,
    /// Shared by all errors and patterns so positions cost linear time in total.
    loc: Locator<'a>,
}

impl<'a> Checker<'a> {
    /// A checker of `text`, read from `path`.
    fn new(path: &'a Path, text: &'a str) -> Self {
        Checker {
            path,
            text,
            loc: Locator::new(text),
        }
    }

    /// `path:line:col` of the start of `span`.
    fn at(&self, span: std::ops::Range<usize>) -> String {
        let (l, c) = self.loc.line_col(span.start);
        format!("{}:{l}:{c}", self.path.display())
    }

    /// The TOML read into the raw tables; unknown keys and wrong types are errors here.
    fn parse(&self) -> Result<RawManifest> {
        toml::from_str(self.text).map_err(|e| {
            let where_ = e
                .span()
                .map(|s| self.at(s))
                .unwrap_or_else(|| self.path.display().to_string());
            let msg = e.message().trim().replace('\n', " ");
            Error::input(format!(
                "{where_}: {msg} (README.md lists the manifest keys)"
            ))
        })
    }

    /// `project.name`, trimmed; also refuses an empty `project.sources`.
    fn project_name(&self, p: &RawProject) -> Result<String> {
        let name = p.name.get_ref().trim().to_string();
        if name.is_empty() {
            return Err(Error::input(format!(
                "{}: project.name is empty; give the project a name",
                self.at(p.name.span())
            )));
        }
        if p.sources.get_ref().is_empty() {
            return Err(Error::input(format!(
                "{}: project.sources is empty; list globs such as \"src/**/*.java\"",
                self.at(p.sources.span())
            )));
        }
        Ok(name)
    }

    /// The `project.sources` globs, compiled.
    fn source_set(&self, project: &RawProject) -> Result<GlobSet> {
        let key = "project.sources";
        let mut b = GlobSetBuilder::new();
        for p in project.sources.get_ref() {
            let g = Glob::new(p.get_ref()).map_err(|e| {
                Error::input(format!("{}: bad glob in {key}: {e}", self.at(p.span())))
            })?;
            // A file named outright that no language reads would be skipped without a word.
            let literal = !p.get_ref().contains(['*', '?', '[', '{']);
            if literal && Lang::of_path(p.get_ref()).is_none() {
                let exts: Vec<String> = (LangSpec::all().iter())
                    .flat_map(|l| l.extensions.iter().map(|x| format!(".{x}")))
                    .collect();
                return Err(Error::input(format!(
                    "{}: {key} names {:?}, which Revy does not read (it reads {}); rename it or remove it from the list",
                    self.at(p.span()),
                    p.get_ref(),
                    exts.join(" ")
                )));
            }
            b.add(g);
        }
        b.build()
            .map_err(|e| Error::input(format!("{}: {key}: {e}", self.path.display())))
    }

    /// The `project.exclude` globs, compiled.
    fn exclude_set(&self, project: &RawProject) -> Result<PathSet> {
        let mut excludes = Vec::with_capacity(project.exclude.len());
        for p in &project.exclude {
            excludes.push(Glob::new(p.get_ref()).map_err(|e| {
                Error::input(format!(
                    "{}: bad glob in project.exclude: {e}",
                    self.at(p.span())
                ))
            })?);
        }
        PathSet::new(excludes)
            .map_err(|e| Error::input(format!("{}: project.exclude: {e}", self.path.display())))
    }

    /// The selection patterns of `key`, trimmed, each checked and remembering where it was.
    fn patterns(&self, key: &str, pats: &[Spanned<String>]) -> Result<Vec<Pattern>> {
        pats.iter().map(|p| self.pattern(key, p)).collect()
    }

    /// One selection pattern; a default (empty span) has no position.
    fn pattern(&self, key: &str, p: &Spanned<String>) -> Result<Pattern> {
        let t = p.get_ref().trim();
        if t.is_empty() {
            return Err(Error::input(format!(
                "{}: empty pattern in {key}",
                self.at(p.span())
            )));
        }
        Glob::new(t).map_err(|e| {
            Error::input(format!("{}: bad pattern in {key}: {e}", self.at(p.span())))
        })?;
        Ok(Pattern {
            text: t.to_string(),
            at: if p.span().is_empty() {
                String::new()
            } else {
                self.at(p.span())
            },
        })
    }

    /// `[sizes]`: `system` and `pointer` must be positive (serde keeps no span for them).
    fn check_sizes(&self, sizes: &Sizes) -> Result<()> {
        for (k, v) in [("system", sizes.system), ("pointer", sizes.pointer)] {
            if v == 0 {
                let (l, c) = key_line_col(self.text, "sizes", k).unwrap_or((1, 1));
                return Err(Error::input(format!(
                    "{}:{l}:{c}: sizes.{k} must be a positive number of bytes",
                    self.path.display()
                )));
            }
        }
        Ok(())
    }

    /// `[trace] max_size` in bytes (default 1 GiB).
    fn trace_max_size(&self, t: &RawTrace) -> Result<u64> {
        match &t.max_size {
            None => Ok(1 << 30),
            Some(v) => parse_size(v.get_ref()).ok_or_else(|| {
                Error::input(format!(
                    "{}: trace.max_size must be bytes or a size like \"512MiB\" / \"1GiB\"",
                    self.at(v.span())
                ))
            }),
        }
    }
}

impl Manifest {
    /// Loads and validates `path`.
    pub fn load(path: &Path) -> Result<Manifest> {
        let bytes = std::fs::read(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::input(format!(
                "{}: no manifest here; run `revy init` to write one or pass -m PATH",
                path.display()
            )),
            _ => Error::io(path, e),
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let good = String::from_utf8_lossy(&e.as_bytes()[..e.utf8_error().valid_up_to()]);
            let (l, c) = line_col_of(&good, good.len());
            Error::input(format!(
                "{}:{l}:{c}: not UTF-8; save the manifest as UTF-8",
                path.display()
            ))
        })?;
        Self::from_str(path, &text)
    }

    /// Validates manifest `text` as if read from `path`.
    pub fn from_str(path: &Path, text: &str) -> Result<Manifest> {
        let cx = Checker::new(path, text);
        let raw = cx.parse()?;
        let name = cx.project_name(&raw.project)?;
        let source_set = cx.source_set(&raw.project)?;
        let exclude_set = cx.exclude_set(&raw.project)?;
        let include_patterns = cx.patterns("annotate.include", &raw.annotate.include)?;
        let exclude_patterns = cx.patterns("annotate.exclude", &raw.annotate.exclude)?;
        cx.check_sizes(&raw.sizes)?;
        let trace_max_size = cx.trace_max_size(&raw.trace)?;
        let trace_throttle = trace_throttle(&raw.trace, &|span| cx.at(span))?;
        check_trace_path(path, text, &raw.trace.path)?;
        let events = crate::instrument::events::check(&raw.events, &|span| cx.at(span))?;
        let remote = crate::instrument::remote::check(&raw.remote, &|span| cx.at(span))?;
        Ok(Manifest {
            path: path.to_path_buf(),
            root: manifest_root(path),
            name,
            sources: raw
                .project
                .sources
                .get_ref()
                .iter()
                .map(|s| s.get_ref().clone())
                .collect(),
            exclude: raw
                .project
                .exclude
                .iter()
                .map(|s| s.get_ref().clone())
                .collect(),
            build: raw.project.build,
            run: raw.project.run,
            mode: raw.annotate.mode,
            include_patterns,
            exclude_patterns,
            sizes: raw.sizes,
            trace_path: raw.trace.path,
            trace_max_size,
            trace_throttle,
            events,
            remote,
            source_set,
            exclude_set,
        })
    }

    /// How to name a source file in messages: relative to the current folder when the
    /// manifest is there, else joined to the manifest folder.
    pub(crate) fn display_path(&self, rel: &str) -> PathBuf {
        if self.root == Path::new(".") {
            PathBuf::from(rel)
        } else {
            self.root.join(rel)
        }
    }

    /// The state folder `.revy/` beside the manifest.
    pub fn state_dir(&self) -> PathBuf {
        self.root.join(".revy")
    }

    /// Where the SAF goes.
    pub fn saf_path(&self) -> PathBuf {
        self.state_dir().join("saf.toml")
    }

    /// The trace folder, absolute or relative to the manifest folder.
    pub fn trace_dir(&self) -> PathBuf {
        let p = Path::new(&self.trace_path);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.root.join(p)
        }
    }

    /// Source files matched by `sources` minus `exclude`, as sorted `/`-separated paths
    /// relative to the manifest folder. Errors when nothing matches.
    pub(crate) fn discover(&self) -> Result<Vec<String>> {
        let mut out = Vec::new();
        let walker = walkdir::WalkDir::new(&self.root)
            .follow_links(true)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| {
                // Revy's own state and VCS folders are never sources.
                let n = e.file_name().to_string_lossy();
                e.depth() == 0 || !(n == ".revy" || n == ".git")
            });
        for entry in walker {
            // Dangling symlinks and symlink loops hold no sources: pass them by.
            let entry = match entry {
                Err(e) if e.loop_ancestor().is_some() || is_dangling(e.path()) => continue,
                other => other,
            };
            let entry = entry.map_err(|e| {
                let p = e
                    .path()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| self.root.clone());
                Error::input(format!(
                    "{}: cannot read while finding sources: {e}",
                    p.display()
                ))
            })?;
            if !entry.file_type().is_file() {
                continue;
            }
            let rel = match entry.path().strip_prefix(&self.root) {
                Ok(r) => r,
                Err(_) => continue,
            };
            let rel = rel.to_string_lossy().replace('\\', "/");
            if Lang::of_path(&rel).is_none() {
                continue;
            }
            if self.source_set.is_match(&rel) && !self.exclude_set.is_match(&rel) {
                out.push(rel);
            }
        }
        if out.is_empty() {
            return Err(Error::input(format!(
                "{}: project.sources ({}) matches no .java/.cpp/.h file under {}; fix the globs",
                self.path.display(),
                self.sources.join(", "),
                self.root.display()
            )));
        }
        out.sort();
        Ok(out)
    }
}

fn is_dangling(p: Option<&Path>) -> bool {
    p.is_some_and(|p| {
        std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink()) && !p.exists()
    })
}

/// Parses `1024`, `"64KiB"`, `"512MB"`, `"1GiB"`.
pub(crate) fn parse_size(v: &toml::Value) -> Option<u64> {
    match v {
        toml::Value::Integer(i) if *i > 0 => Some(*i as u64),
        toml::Value::String(s) => {
            let s = s.trim();
            let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
            let (num, unit) = s.split_at(split);
            let n: u64 = num.parse().ok()?;
            let mul: u64 = match unit.trim().to_ascii_lowercase().as_str() {
                "" | "b" => 1,
                "k" | "kb" => 1000,
                "kib" => 1 << 10,
                "m" | "mb" => 1_000_000,
                "mib" => 1 << 20,
                "g" | "gb" => 1_000_000_000,
                "gib" => 1 << 30,
                _ => return None,
            };
            n.checked_mul(mul).filter(|&b| b > 0)
        }
        _ => None,
    }
}

/// Reads a source file as text: UTF-8, with any other byte carried through unchanged
/// ([`crate::util::srctext`]); an error names the line:col of a character that would be taken
/// for such a byte.
pub(crate) fn read_source(manifest: &Manifest, rel: &str) -> Result<String> {
    let full = manifest.display_path(rel);
    let bytes = std::fs::read(&full).map_err(|e| {
        Error::input(format!(
            "{}: cannot read ({e}); fix the file or exclude it in {}",
            full.display(),
            manifest.path.display()
        ))
    })?;
    crate::util::srctext::decode(bytes).map_err(|crate::util::srctext::Refused { line, col }| {
        Error::input(format!(
            "{}:{line}:{col}: holds a character of U+10FF80..U+10FFFF, which Revy uses to carry bytes that are not UTF-8; exclude the file",
            full.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<Manifest> {
        Manifest::from_str(Path::new("revy.toml"), text)
    }

    #[test]
    fn minimal_manifest_gets_defaults() {
        let m = load("[project]\nname = \"a\"\nsources = [\"src/**/*.java\"]\n").unwrap();
        assert_eq!(m.mode, Mode::Better);
        assert_eq!(m.sizes, Sizes::default());
        assert_eq!(m.trace_max_size, 1 << 30);
        assert_eq!(m.include_patterns[0].text, "*");
    }

    #[test]
    fn throttle_keys_default_configure_disable_and_name_their_line() {
        let base = "[project]\nname=\"a\"\nsources=[\"*\"]\n[trace]\n";
        let m = load(base).unwrap();
        assert_eq!(m.trace_throttle, Some(Throttle::default()));
        let m = load(&format!("{base}throttle_calls = 50\nthrottle_us = 2.5\n")).unwrap();
        assert_eq!(m.trace_throttle, Some(Throttle { calls: 50, us: 2.5 }));
        let m = load(&format!("{base}throttle = false\nthrottle_calls = 50\n")).unwrap();
        assert_eq!(m.trace_throttle, None);
        for (line, want) in [
            ("throttle_calls = 0", "revy.toml:6:18: trace.throttle_calls"),
            ("throttle_us = -1", "revy.toml:6:15: trace.throttle_us"),
            (
                "throttle = \"no\"",
                "revy.toml:6:12: trace.throttle must be",
            ),
        ] {
            let e = load(&format!("{base}\n{line}\n")).unwrap_err().to_string();
            assert!(e.contains(want), "{line}: {e}");
        }
    }

    #[test]
    fn unknown_key_names_its_line() {
        let e = load("[project]\nname = \"a\"\nsources = [\"x\"]\nbuidl = \"make\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("revy.toml:4:1"), "{e}");
        assert!(e.contains("buidl"), "{e}");
    }

    #[test]
    fn bad_glob_and_empty_sources_are_errors_with_lines() {
        let e = load("[project]\nname = \"a\"\nsources = [\"src/[*.java\"]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("revy.toml:3:12") && e.contains("bad glob"),
            "{e}"
        );
        let e = load("[project]\nname = \"a\"\nsources = []\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("revy.toml:3:11") && e.contains("empty"), "{e}");
    }

    #[test]
    fn sizes_parse() {
        let m =
            load("[project]\nname=\"a\"\nsources=[\"*\"]\n[trace]\nmax_size=\"64KiB\"\n").unwrap();
        assert_eq!(m.trace_max_size, 65536);
        let e = load("[project]\nname=\"a\"\nsources=[\"*\"]\n[trace]\nmax_size=\"lots\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains(":5:10"), "{e}");
    }
}
