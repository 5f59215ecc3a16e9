//! C++ object identity: how each class's objects get their IDs, decided from the SAF's facts
//! alone (the annotator reads no source but the file it edits), so every file decides the
//! same. A class keeps an intrusive `Tag` member unless the model shows code may rely on
//! its layout or triviality ([`IdKind::NonIntrusive`], with the reason). The tag plans built
//! on these decisions are `cpp_plan.rs`'s.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use super::fresh_name;
use crate::instrument::model::{ClassKind, Lang, LayoutKind, LayoutUse, MethodKind};
use crate::instrument::saf::{Saf, SafClass, SafMethod};

/// How a class's objects get their IDs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdKind {
    /// A `::revy::Tag` member with this name.
    Tag(String),
    /// The runtime's address map; the reason is reported in the notes.
    NonIntrusive(String),
}

/// LP64 size of a C++ primitive (as in the SAF's type table), `std::`-qualified or not.
pub(super) fn primitive_size(name: &str) -> Option<u64> {
    use crate::instrument::saf::primitive_size as prim;
    prim(Lang::Cpp, name).or_else(|| prim(Lang::Cpp, name.trim_start_matches("std::")))
}

/// Resolves a type name written inside class `owner` to a C++ class of the SAF.
pub fn user_class<'a>(saf: &'a Saf, owner: &str, name: &str) -> Option<&'a SafClass> {
    let name = name.trim().trim_start_matches("::");
    if name.is_empty() || primitive_size(name).is_some() {
        return None;
    }
    // The standard library is never the user's (and `std::` names must not match by suffix).
    if name.starts_with("std::") {
        return None;
    }
    saf.resolve_class(Lang::Cpp, owner, name)
}

/// Per annotate run: how each class is identified, decided from the SAF's facts alone (the
/// annotator reads no source but the file it edits). `cpp_plan::IdPlans` holds it with the
/// tag plans made from it.
#[derive(Default)]
pub struct Ids {
    /// `id_kind` per class id (it weighs the whole project's layout uses).
    kinds: Mutex<HashMap<u32, IdKind>>,
    /// Classes a literal type holds by value (see [`literal_members`]): class id → the
    /// literal type's name.
    literal: OnceLock<HashMap<u32, String>>,
}

impl Ids {
    /// Why `sc` may be an aggregate under some standard from C++11 to C++20 (so brace
    /// initialisation, and traits, may rely on it): no virtual functions, no virtual,
    /// private or protected bases, no private or protected data members (member functions,
    /// static members and nested types may be anywhere), and no constructors but defaulted
    /// or deleted ones (user-declared ones count from C++20 only).
    fn aggregate_reason(&self, sc: &SafClass) -> Option<&'static str> {
        if sc.methods.iter().any(is_virtual) {
            return None;
        }
        let hidden_base = |b: &crate::instrument::saf::SafBase| match b.access.as_deref() {
            Some(a) => a != "public",
            None => sc.kind == ClassKind::Class,
        };
        if sc
            .bases_written
            .iter()
            .any(|b| b.is_virtual || hidden_base(b))
        {
            return None;
        }
        if (sc.data_access.iter()).any(|a| a == "private" || a == "protected") {
            return None;
        }
        let mut ctors = sc
            .methods
            .iter()
            .filter(|m| m.kind == MethodKind::Constructor);
        let declared_only =
            |m: &SafMethod| m.has_modifier("defaulted") || m.has_modifier("deleted");
        match ctors.clone().next() {
            None => Some("aggregate without constructors"),
            Some(_) if ctors.all(declared_only) => {
                Some("aggregate before C++20: its constructors are all defaulted or deleted")
            }
            Some(_) => None,
        }
    }

    /// A non-intrusive CRTP base's derived-type parameter: the first its body casts `this` to.
    pub(super) fn crtp_param(&self, saf: &Saf, sc: &SafClass) -> Option<String> {
        if sc.type_params.is_empty() || !matches!(id_kind(saf, sc, self), IdKind::NonIntrusive(_)) {
            return None;
        }
        sc.crtp_self_casts.first().cloned()
    }
}

/// A virtual member function: declared `virtual`, pure, or overriding one (`override`,
/// `final`), so its class is polymorphic (never an aggregate, never trivial).
fn is_virtual(m: &SafMethod) -> bool {
    m.is_abstract
        || ["virtual", "override", "final"]
            .iter()
            .any(|k| m.has_modifier(k))
}

/// Decides how objects of `sc` are identified. Depends only on the SAF, so every file
/// (header and sources) decides the same.
pub fn id_kind(saf: &Saf, sc: &SafClass, project: &Ids) -> IdKind {
    if let Some(k) = project
        .kinds
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&sc.id)
    {
        return k.clone();
    }
    let k = id_kind_uncached(saf, sc, project);
    project
        .kinds
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(sc.id, k.clone());
    k
}

/// Whether `name` is a member (field or method) of `sc`.
pub(super) fn member_taken(sc: &SafClass, n: &str) -> bool {
    sc.fields.iter().any(|f| f.name == n) || sc.methods.iter().any(|m| m.name == n)
}

fn id_kind_uncached(saf: &Saf, sc: &SafClass, project: &Ids) -> IdKind {
    if let Some(why) = non_intrusive_reason(saf, sc, project) {
        return IdKind::NonIntrusive(why);
    }
    if let Some(why) = placed_reason(saf, sc) {
        return IdKind::NonIntrusive(why);
    }
    if sc.kind != ClassKind::Union && is_trivial(saf, sc, 0) {
        return IdKind::NonIntrusive(
            "trivial type: trivially copyable and default-constructible, so code may rely on it"
                .into(),
        );
    }
    IdKind::Tag(fresh_name("_rv_tag", |n| member_taken(sc, n)))
}

/// Whether the model says `sc` is trivial (trivially copyable and trivially
/// default-constructible): an ID member would make it non-trivial, and `memcpy`, unions,
/// `is_pod`/`is_trivial` asserts in other templates or C interop may rely on it anywhere.
/// Unknown types (template parameters, typedefs) count as trivial: the safe side.
fn is_trivial(saf: &Saf, sc: &SafClass, depth: u32) -> bool {
    if depth > 16 {
        return true;
    }
    let user = |m: &SafMethod| !m.has_modifier("defaulted") && !m.has_modifier("deleted");
    let own = |p: &crate::instrument::saf::SafParam| p.ty == sc.name || p.ty == sc.qname;
    let mut default_ctor = false;
    let mut other_ctor = false;
    for m in &sc.methods {
        if is_virtual(m) {
            return false;
        }
        match m.kind {
            MethodKind::Destructor if user(m) => return false,
            MethodKind::Constructor if m.params.is_empty() => {
                if user(m) {
                    return false;
                }
                default_ctor = true;
            }
            MethodKind::Constructor if m.params.len() == 1 && own(&m.params[0]) && user(m) => {
                return false; // user copy or move constructor
            }
            MethodKind::Constructor => other_ctor |= user(m),
            MethodKind::Operator if m.name.ends_with("operator=") && user(m) => return false,
            _ => {}
        }
    }
    if other_ctor && !default_ctor {
        return false; // no default constructor at all
    }
    let trivial_type = |ty: &str| {
        if let Some(c) = user_class(saf, &sc.qname, ty).filter(|c| c.id != sc.id) {
            return c.kind == ClassKind::Union || is_trivial(saf, c, depth + 1);
        }
        match ty.strip_prefix("std::") {
            Some(rest) => {
                rest == "size_t"
                    || rest == "ptrdiff_t"
                    || rest == "array"
                    || (rest.starts_with("int") || rest.starts_with("uint")) && rest.ends_with("_t")
            }
            None => true,
        }
    };
    let fields_ok = sc
        .fields
        .iter()
        .filter(|f| !f.is_static)
        .all(|f| f.pointers > 0 || trivial_type(&f.ty));
    fields_ok && sc.supers.iter().all(|b| trivial_type(b))
}

/// A comparison operator the class defaults (`bool operator==(const X&) const = default;`,
/// `<=>`): it compares every member, so an ID member would delete it and change what
/// `std::equality_comparable<X>` and the like say.
fn defaulted_comparison(sc: &SafClass) -> Option<&str> {
    const OPS: [&str; 7] = ["==", "!=", "<", ">", "<=", ">=", "<=>"];
    sc.methods
        .iter()
        .filter(|m| m.kind == MethodKind::Operator && m.has_modifier("defaulted"))
        .map(|m| m.name.as_str())
        .find(|n| {
            n.strip_prefix("operator")
                .is_some_and(|op| OPS.contains(&op.trim()))
        })
}

/// A class with a `constexpr` (or `consteval`) constructor.
fn has_constexpr_ctor(sc: &SafClass) -> bool {
    sc.methods.iter().any(|m| {
        m.kind == MethodKind::Constructor
            && (m.has_modifier("constexpr") || m.has_modifier("consteval"))
    })
}

/// The classes a literal type (one with a constexpr constructor) holds by value, as fields
/// or bases, transitively: each must stay literal too, or `constexpr` variables of the
/// outer type stop compiling (fmt's `basic_format_specs` holds a `fill_t`; an ID member in
/// `fill_t`, whose destructor is not trivial, made both non-literal). Class id → the
/// outermost literal type's name.
fn literal_members(saf: &Saf) -> HashMap<u32, String> {
    let mut out = HashMap::new();
    let mut todo: Vec<(&SafClass, &str)> = saf
        .classes
        .iter()
        .filter(|c| c.lang == Lang::Cpp && has_constexpr_ctor(c))
        .map(|c| (c, c.qname.as_str()))
        .collect();
    while let Some((c, root)) = todo.pop() {
        let held = c
            .fields
            .iter()
            .filter(|f| !f.is_static && f.pointers == 0 && !f.ty.contains('&'))
            .map(|f| f.ty.as_str())
            .chain(c.supers.iter().map(String::as_str));
        for ty in held {
            let Some(m) = user_class(saf, &c.qname, ty) else {
                continue;
            };
            if m.id != c.id && !has_constexpr_ctor(m) && !out.contains_key(&m.id) {
                out.insert(m.id, root.to_string());
                todo.push((m, root));
            }
        }
    }
    out
}

fn non_intrusive_reason(saf: &Saf, sc: &SafClass, project: &Ids) -> Option<String> {
    if sc.kind == ClassKind::Union {
        return Some("union".into());
    }
    if !matches!(sc.kind, ClassKind::Class | ClassKind::Struct) {
        return Some(format!("{:?}", sc.kind).to_lowercase());
    }
    let ctors: Vec<&SafMethod> = sc
        .methods
        .iter()
        .filter(|m| m.kind == MethodKind::Constructor)
        .collect();
    if let Some(why) = project.aggregate_reason(sc) {
        return Some(why.into());
    }
    if let Some(op) = defaulted_comparison(sc) {
        return Some(format!(
            "defaulted comparison `{op}`: an ID member would make it deleted"
        ));
    }
    if ctors
        .iter()
        .any(|m| m.has_modifier("constexpr") || m.has_modifier("consteval"))
    {
        return Some("constexpr constructor".into());
    }
    let literal = project.literal.get_or_init(|| literal_members(saf));
    if let Some(outer) = literal.get(&sc.id) {
        return Some(format!(
            "held by value in {outer}, a literal type (constexpr constructor): an ID member's destructor would make both non-literal"
        ));
    }
    let names: Vec<&str> = if sc.qname == sc.name {
        vec![sc.name.as_str()]
    } else {
        vec![sc.name.as_str(), sc.qname.as_str()]
    };
    let own_files: Vec<&str> = std::iter::once(sc.file.as_str())
        .chain(sc.methods.iter().map(|m| m.file.as_str()))
        .collect();
    for f in saf.files.iter().filter(|f| f.lang == Lang::Cpp) {
        let own = own_files.contains(&f.path.as_str());
        let uses: Vec<LayoutUse> = f
            .layout_uses
            .iter()
            .filter_map(|u| LayoutUse::from_saf(u))
            .collect();
        if let Some(why) = layout_reason(&uses, own, &names) {
            return Some(why.unwrap_or_else(|r| format!("{}: {r}", f.path)));
        }
    }
    None
}

/// Why the layout uses of one file (recorded by the front end) keep a class named `names`
/// non-intrusive: `Ok` a whole reason, `Err` one to prefix with the file's path. `own`: the
/// class is declared or defined in this file. Uses are weighed line by line, per line the
/// names first.
fn layout_reason(uses: &[LayoutUse], own: bool, names: &[&str]) -> Option<Result<String, String>> {
    if own && uses.iter().any(|u| u.kind == LayoutKind::PragmaPack) {
        return Some(Ok("`#pragma pack` in its file".into()));
    }
    for line in uses.chunk_by(|a, b| a.line == b.line) {
        for n in names {
            // placement new is weighed with the class's bases and members (`placed`)
            let layout = |u: &&LayoutUse| u.kind != LayoutKind::PlacementNew && u.names(n);
            if let Some(u) = line.iter().find(layout) {
                return Some(Err(match &u.kind {
                    LayoutKind::StaticAssertSize => "static_assert on its size".into(),
                    LayoutKind::Offsetof => "offsetof".into(),
                    LayoutKind::RawMemory => "raw memory functions on it".into(),
                    LayoutKind::Trait(t) => format!("`{t}` on it"),
                    _ => "used in constant expressions".into(),
                }));
            }
        }
        if own
            && line
                .iter()
                .any(|u| u.kind == LayoutKind::RawMemoryOnObjects)
        {
            return Some(Err("raw memory functions on objects".into()));
        }
    }
    None
}

// ---- placement new ---------------------------------------------------------------------------

// Classes whose objects the project constructs with placement new (`new (where) T(…)`) into
// memory it manages itself: arenas, pages, fixed buffers, allocators with budgets (pugixml's
// documents and XPath nodes). Their size is part of that memory's accounting — how many fit in
// a page, when a budget runs out — so an ID member would change the program's behaviour.
// The same holds for the bases and by-value members of such a class: they are part of it.

/// Why `sc` must keep its size because the project places it (or a class containing it) with
/// placement new, if it does: from the placement-new uses the front end recorded per file.
fn placed_reason(saf: &Saf, sc: &SafClass) -> Option<String> {
    let placements = saf
        .files
        .iter()
        .filter(|f| f.lang == Lang::Cpp)
        .flat_map(|f| {
            f.layout_uses
                .iter()
                .filter_map(|u| LayoutUse::from_saf(u))
                .filter(|u| u.kind == LayoutKind::PlacementNew)
                .map(move |u| (f.path.as_str(), u.name))
        });
    for (path, name) in placements {
        let last = name.rsplit("::").next().unwrap_or(&name);
        let placed = saf
            .classes
            .iter()
            .filter(|c| c.lang == Lang::Cpp && c.name.split('<').next().unwrap_or(&c.name) == last);
        for c in placed {
            if c.id == sc.id {
                return Some(format!(
                    "placed with placement new in {path}: its size is part of memory the project manages"
                ));
            }
            if contains(saf, c, sc, 0) {
                return Some(format!(
                    "part of {}, which is placed with placement new in {path}",
                    c.name
                ));
            }
        }
    }
    None
}

/// Whether `inner` is a base or a by-value member of `outer`, at any depth.
fn contains(saf: &Saf, outer: &SafClass, inner: &SafClass, depth: u32) -> bool {
    if depth > 16 {
        return false;
    }
    let parts = outer.supers.iter().map(String::as_str).chain(
        outer
            .fields
            .iter()
            .filter(|f| !f.is_static && f.pointers == 0)
            .map(|f| f.ty.as_str()),
    );
    parts
        .filter_map(|ty| user_class(saf, &outer.qname, ty))
        .filter(|c| c.id != outer.id)
        .any(|c| c.id == inner.id || contains(saf, c, inner, depth + 1))
}
