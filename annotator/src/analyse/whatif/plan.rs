//! What becomes active: manifest-style patterns (`pkg.Class`, `ns::Class`, `Class.method`,
//! `*.get*`) or one instance (`Class#ID`) resolved against a tree; and which methods return
//! nothing, read from the SAF beside the trace's project.

use std::path::{Path, PathBuf};

use globset::Glob;
use rustc_hash::{FxHashMap, FxHashSet};

use super::tree::{InstInfo, Tree};
use crate::analyse::walk::InstKind;
use crate::error::{Error, Result};
use crate::instrument::saf::Saf;

/// The proposed change: instances that get their own thread, methods whose calls become
/// tasks on a pool.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub instances: FxHashSet<u32>,
    pub methods: FxHashSet<u32>,
}

impl Plan {
    /// This plan (in the walker's instance ids) in `tree`'s ids: a focused tree numbers
    /// only the instances its nodes name, and an instance it does not name receives
    /// nothing the replay could move.
    pub(crate) fn in_tree(&self, tree: &Tree) -> Plan {
        if tree.walker_ids.is_empty() {
            return self.clone();
        }
        let mine: rustc_hash::FxHashMap<u32, u32> = tree
            .walker_ids
            .iter()
            .enumerate()
            .map(|(i, &w)| (w, i as u32))
            .collect();
        Plan {
            instances: self
                .instances
                .iter()
                .filter_map(|w| mine.get(w).copied())
                .collect(),
            methods: self.methods.clone(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.instances.is_empty() && self.methods.is_empty()
    }

    /// Whether a message of `method` to `receiver` becomes active under this plan.
    pub fn takes(&self, method: u32, receiver: u32) -> bool {
        self.instances.contains(&receiver) || self.methods.contains(&method)
    }
}

fn simple(name: &str) -> &str {
    name.rsplit(['.', ':']).next().unwrap_or(name)
}

fn class_matches(g: &globset::GlobMatcher, class: &str) -> bool {
    g.is_match(class) || g.is_match(simple(class))
}

fn method_matches(g: &globset::GlobMatcher, class: &str, method: &str) -> bool {
    [class, simple(class)]
        .iter()
        .any(|c| g.is_match(format!("{c}.{method}")) || g.is_match(format!("{c}::{method}")))
}

/// What a pattern is, checked before any trace is read (a whole run's tree takes seconds
/// and gigabytes to build): one instance, or a glob over class and method names.
pub enum Pattern {
    Instance(String, u64),
    Glob(globset::GlobMatcher),
}

/// `pattern` parsed, or why it cannot name anything.
pub fn parse_pattern(pattern: &str) -> Result<Pattern> {
    let bad = |why: &str| Error::input(format!("--active {pattern}: {why}"));
    if let Some((class, id)) = pattern.rsplit_once('#') {
        let oid: u64 = id
            .parse()
            .map_err(|_| bad("an instance is `Class#ID` with a numeric ID (see `revy analyze`)"))?;
        return Ok(Pattern::Instance(class.to_string(), oid));
    }
    let g = Glob::new(pattern).map_err(|e| bad(&format!("not a valid pattern ({e})")))?;
    Ok(Pattern::Glob(g.compile_matcher()))
}

/// An instance as patterns see it: its id, kind, class (none for a root) and object id.
pub(crate) type Subject<'a> = (u32, InstKind, Option<&'a str>, u64);

/// Add what `pattern` names to `plan`; an error when it names nothing in the trace.
pub(crate) fn add_pattern(tree: &Tree, plan: &mut Plan, pattern: &str) -> Result<()> {
    let insts = || {
        tree.instances
            .iter()
            .enumerate()
            .map(|(i, x): (usize, &InstInfo)| (i as u32, x.kind, x.class.as_deref(), x.oid))
    };
    add_pattern_in(insts, &tree.methods, plan, pattern)
}

/// [`add_pattern`] over the instances `insts` gives and `methods` (by id).
pub(crate) fn add_pattern_in<'a, I: Iterator<Item = Subject<'a>>>(
    insts: impl Fn() -> I,
    methods: &[super::tree::MethodInfo],
    plan: &mut Plan,
    pattern: &str,
) -> Result<()> {
    let bad = |why: &str| Error::input(format!("--active {pattern}: {why}"));
    let g = match parse_pattern(pattern)? {
        Pattern::Instance(class, oid) => return add_instance(insts(), plan, &class, oid, bad),
        Pattern::Glob(g) => g,
    };
    let before = plan.instances.len();
    for (i, kind, class, _) in insts() {
        if let (InstKind::Object | InstKind::Class, Some(c)) = (kind, class) {
            if class_matches(&g, c) {
                plan.instances.insert(i);
            }
        }
    }
    if plan.instances.len() > before {
        return Ok(());
    }
    let before = plan.methods.len();
    for (i, m) in methods.iter().enumerate() {
        if method_matches(&g, &m.class, &m.name) {
            plan.methods.insert(i as u32);
        }
    }
    if plan.methods.len() == before {
        return Err(bad(
            "matches no class, instance or method in the trace (names as `revy analyze` prints them)",
        ));
    }
    Ok(())
}

/// Add instance `class#oid` to `plan`; an error when the trace has none.
fn add_instance<'a>(
    insts: impl Iterator<Item = Subject<'a>>,
    plan: &mut Plan,
    class: &str,
    oid: u64,
    bad: impl Fn(&str) -> Error,
) -> Result<()> {
    let found: Vec<u32> = insts
        .filter(|&(_, kind, c, o)| {
            kind == InstKind::Object
                && o == oid
                && c.is_some_and(|c| c == class || simple(c) == class)
        })
        .map(|(i, ..)| i)
        .collect();
    if found.is_empty() {
        return Err(bad(
            "no such instance in the trace (see `revy analyze` for instance IDs)",
        ));
    }
    plan.instances.extend(found);
    Ok(())
}

/// The SAF of the project a trace belongs to: `.revy/saf.toml` in the trace's folder or
/// one above it (traces live in `.revy/traces/` by default), else beside `manifest`.
pub(crate) fn find_saf(trace: &Path, manifest: Option<&Path>) -> Option<PathBuf> {
    let abs = std::fs::canonicalize(trace).ok()?;
    let mut dirs: Vec<PathBuf> = abs.ancestors().skip(1).map(Path::to_path_buf).collect();
    if let Some(m) = manifest.and_then(|m| std::fs::canonicalize(m).ok()) {
        dirs.extend(m.parent().map(Path::to_path_buf));
    }
    dirs.into_iter().find_map(|d| {
        [d.join("saf.toml"), d.join(".revy/saf.toml")]
            .into_iter()
            .find(|p| p.is_file())
    })
}

/// Mark each method of the tree void or not, and stateless or not, from the SAF (by class,
/// name and signature). Returns how many methods stay unknown.
pub(crate) fn apply_saf(tree: &mut Tree, saf: &Saf) -> usize {
    let mut ret: FxHashMap<(&str, &str, &str), (bool, bool)> = FxHashMap::default();
    for c in &saf.classes {
        for m in &c.methods {
            let void = m.ret.as_deref() == Some("void") && m.ret_dim == 0;
            ret.insert(
                (c.qname.as_str(), m.name.as_str(), m.sgn.as_str()),
                (void, m.stateless),
            );
        }
    }
    let mut unknown = 0;
    for m in &mut tree.methods {
        let found = ret
            .get(&(m.class.as_str(), m.name.as_str(), m.signature.as_str()))
            .copied();
        if m.void.is_none() {
            m.void = found.map(|f| f.0);
        }
        if m.stateless.is_none() {
            m.stateless = found.map(|f| f.1);
        }
        // Method ids are the SAF's, so the table has holes (empty names).
        unknown += (m.void.is_none() && !m.name.is_empty()) as usize;
    }
    unknown
}
