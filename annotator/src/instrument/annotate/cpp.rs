//! C++ annotation: insertions for selected classes and their member functions, wherever they
//! are defined (in the class, after it in the header, or out of class in a source file).
//!
//! Generated code (all insertions, no newline except the include line pair):
//!
//! - at the top of each annotated file (after a leading `#pragma once` or include-guard
//!   `#define`): `#include "<rel>/.revy-runtime/revy_runtime.hpp"` then `#line N` so every
//!   original line keeps its number (`__LINE__`, diagnostics, assert messages);
//! - in each selected class with an intrusive ID, just before the closing `}`:
//!   ` ::_revy_rt::Tag<CLASS_ID, STATIC_SIZE> _rv_tag; ` — the last member, so it is constructed
//!   after every base and member (creation log) and destroyed right after the destructor body
//!   (destruction log); copies/moves get a new ID, assignment keeps it. A class derived from
//!   exactly one selected tagged class gets ` public: ::_revy_rt::SubTag<…> _rv_sub{&this->_rv_tag}; `
//!   instead, one with several tag-carrying bases or a virtual one a `JoinTag` and its
//!   `_rv_join` (one object = one ID and one Crt; see [`TagPlan`], `cpp_join.rs`), and the
//!   root's tag is `public:` and `Tag<…, false>`. Better mode adds
//!   ` public: unsigned long long _rv_rsize() const {…} ` to classes with standard-container
//!   fields ([`runtime_size_fn`]);
//! - right after each selected method body's `{`:
//!   ` ::_revy_rt::Scope _rv_s(METHOD_ID, OID, SIZE); ` whose destructor logs the end on every exit;
//!   constructors log their start in their first initialiser instead and open the body with
//!   ` ::_revy_rt::CtorScope _rv_s(METHOD_ID, this, OID); ` (`cpp_ctor.rs`). The `)` closing such a
//!   wrapped expression is `/*revy*/)` ([`marked_close`]): every insertion holds a marker, so
//!   restore of an edited file removes exactly Revy's text or refuses.
//!   OID is `this->_rv_tag.oid`, `0` for static member functions, or a non-intrusive
//!   `::_revy_rt::nid(this, CLASS_ID, STATIC_SIZE)` (address map) for aggregates, unions and
//!   layout-sensitive classes; constructors of those use `nid_new`, destructors add a
//!   `::_revy_rt::NidEnd _rv_d(...)` that drops the address and logs the destruction.
//!
//! The runtime lives at `<manifest folder>/.revy-runtime/` ([`RUNTIME_DIR`]): the header
//! (embedded from `runtime-cpp/revy_runtime.hpp`) and a generated `revy_config.hpp` with the
//! trace settings and the class/method tables indexed by SAF ids.

use std::path::{Component, Path, PathBuf};

use super::cpp_ids::{member_taken, user_class, IdKind};
use super::cpp_plan::{IdPlans, TagPlan};
use super::{fresh_name, Context, FileEdits, LangAnnotator};
use crate::error::Result;
use crate::instrument::edits::{marked_close, Insertion};
use crate::instrument::manifest::Mode;
use crate::instrument::model::{ClassDecl, FileModel, Lang, MethodDecl, MethodKind, Param, Span};
use crate::instrument::saf::{Saf, SafClass, SafMethod};

pub(crate) mod rtlib;

/// Folder (relative to the manifest folder) holding the C++ runtime while annotated.
pub const RUNTIME_DIR: &str = crate::instrument::lang::CPP_RUNTIME_DIR;
pub const RUNTIME_HEADER: &str = "revy_runtime.hpp";
pub const CONFIG_HEADER: &str = "revy_config.hpp";

pub struct CppAnnotator;

impl LangAnnotator for CppAnnotator {
    fn lang(&self) -> Lang {
        Lang::Cpp
    }

    fn annotate_file(&self, cx: &Context, file: &FileModel, src: &str) -> FileEdits {
        let mut fe = FileEdits::default();
        let project = IdPlans::get(cx);
        let path = file.path.as_str();

        // Object identity for the selected classes declared here.
        for c in &file.classes {
            annotate_class(cx, &project, path, src, c, &mut fe);
        }

        // Member functions with bodies: in the classes, and out of class.
        for (owner, m) in file_methods(file) {
            annotate_method(cx, &project, path, src, owner, m, &mut fe);
        }

        if !fe.insertions.is_empty() {
            fe.insertions.insert(0, include_insertion(cx, path, src));
        }
        fe
    }

    fn runtime_files(
        &self,
        cx: &Context,
        annotated: &[&FileModel],
    ) -> Result<Vec<(String, Vec<u8>)>> {
        if !(annotated.iter()).any(|f| Lang::of_path(&f.path) == Some(Lang::Cpp)) {
            return Ok(Vec::new());
        }
        let runtime = Lang::Cpp.spec().runtime.iter();
        let mut files: Vec<(String, Vec<u8>)> = runtime
            .map(|(n, t)| (format!("{RUNTIME_DIR}/{n}"), t.as_bytes().to_vec()))
            .collect();
        let dir = cx.root.join(RUNTIME_DIR);
        let form = rtlib::form(cx, &dir, &|shared| config_header(cx, shared));
        files.push((
            format!("{RUNTIME_DIR}/{CONFIG_HEADER}"),
            form.config.into_bytes(),
        ));
        if let Some(lib) = form.lib {
            files.push((format!("{RUNTIME_DIR}/{}", rtlib::LIB), lib));
        }
        Ok(files)
    }
}

// ---- classes ---------------------------------------------------------------------------------

/// Gives a selected class declared in this file its object identity: the tag members before
/// its closing `}`, or a note that its objects get non-intrusive IDs.
fn annotate_class(
    cx: &Context,
    project: &IdPlans,
    path: &str,
    src: &str,
    c: &ClassDecl,
    fe: &mut FileEdits,
) {
    let Some(sc) = cx
        .class_of_decl(&c.qname, path, c.span.line)
        .filter(|s| s.selected && s.annotatable)
    else {
        return;
    };
    if let Some(why) = &c.not_annotatable {
        fe.skipped
            .push(format!("{path}:{}: {} — {why}", c.span.line, c.qname));
        return;
    }
    fe.classes += 1;
    match project.id_kind(cx.saf, sc) {
        IdKind::Tag(_) => {
            let close = c.body.end.saturating_sub(1);
            if src.as_bytes().get(close) != Some(&b'}') {
                fe.skipped.push(format!(
                    "{path}:{}: {} — class body not understood",
                    c.span.line, c.qname
                ));
                return;
            }
            let text = tag_members(cx, project, sc, c, src);
            fe.insertions.push(Insertion::new(close, text));
            unborn_tag_first(&project.tag_plan(cx.saf, sc), c, src, fe);
        }
        IdKind::NonIntrusive(why) => fe.notes.push(format!(
            "{path}:{}: {} — non-intrusive object IDs ({why})",
            c.span.line, c.qname
        )),
    }
}

/// Default member initialisers run before the class's own tag (its last member) exists, so a
/// method they call on the object would read what the memory held: a freed object's ID when
/// the allocator hands the memory back out, or garbage. Each one that may call something
/// (`int a = seed();`) first zeroes the tag's ID, as a constructor's early start does: such
/// calls log ID 0, no object yet. (A class with a sub-tag reads its base's tag, which exists.)
fn unborn_tag_first(plan: &TagPlan, c: &ClassDecl, src: &str, fe: &mut FileEdits) {
    if plan.sub.is_some() {
        return;
    }
    // An initialiser outside its field's declaration would be a model error: the insertion
    // would land in other code (fmt's macros once shifted them into a constructor's name).
    for init in c.fields.iter().filter(|f| !f.is_static).filter_map(|f| {
        f.init
            .filter(|i| f.span.start <= i.start && i.end <= f.span.end)
    }) {
        if !src
            .get(init.start..init.end)
            .is_some_and(|t| t.contains('('))
        {
            continue;
        }
        fe.insertions
            .push(Insertion::new(init.start, unborn_prefix(&plan.member)));
        fe.insertions.push(Insertion::new(init.end, marked_close()));
    }
}

/// `((void)::_revy_rt::unborn(&this->MEMBER.oid), `: opens a comma expression that zeroes the
/// own tag's ID before the expression it wraps.
fn unborn_prefix(member: &str) -> String {
    format!("((void)::_revy_rt::unborn(&this->{member}.oid), ")
}

/// The text inserted before a tagged class's `}`: better mode's `_rv_rsize`, then the tag,
/// sub-tag or join tag its [`TagPlan`] asks for.
fn tag_members(cx: &Context, project: &IdPlans, sc: &SafClass, c: &ClassDecl, src: &str) -> String {
    let plan = project.tag_plan(cx.saf, sc);
    let size = sc.static_size.max(1);
    let rsize = if cx.mode == Mode::Better {
        runtime_size_fn(sc, src.get(c.body.start..c.body.end).unwrap_or("#"))
    } else {
        String::new()
    };
    let fin = if plan.is_final { "" } else { ", false" };
    let text = match &plan.sub {
        None if plan.join.is_some() => {
            let bases = plan.join.as_deref().unwrap_or_default();
            format!(
                "{} public: ::_revy_rt::JoinTag<{}, {}, {size}{fin}> {}{{this}}; ",
                super::cpp_join::join_fn(bases),
                c.name,
                sc.id,
                plan.member
            )
        }
        None if plan.is_final => {
            format!(" ::_revy_rt::Tag<{}, {size}> {}; ", sc.id, plan.member)
        }
        // Subclasses reach the root tag: make it public.
        None => format!(
            " public: ::_revy_rt::Tag<{}, {size}{fin}> {}; ",
            sc.id, plan.member
        ),
        Some(sub) => format!(
            " public: ::_revy_rt::SubTag<{}, {size}{fin}> {sub}{{&this->{}}}; ",
            sc.id, plan.member
        ),
    };
    format!("{rsize}{text}")
}

/// The file's member functions, each with its class's qualified name: those written in the
/// classes, then those defined out of class.
fn file_methods(file: &FileModel) -> Vec<(&str, &MethodDecl)> {
    let mut methods: Vec<(&str, &MethodDecl)> = Vec::new();
    for c in &file.classes {
        for m in &c.methods {
            methods.push((c.qname.as_str(), m));
        }
    }
    for (owner, m) in &file.out_of_class {
        methods.push((owner.as_str(), m));
    }
    methods
}

// ---- methods ---------------------------------------------------------------------------------

/// Probes one member function: a scope at the body's start (and, in constructors, the start
/// logged before the initialisers), or a note why it is skipped.
fn annotate_method(
    cx: &Context,
    project: &IdPlans,
    path: &str,
    src: &str,
    owner: &str,
    m: &MethodDecl,
    fe: &mut FileEdits,
) {
    let file = if m.file.is_empty() { path } else { &m.file };
    let Some(sm) = cx.method(owner, file, m).filter(|sm| sm.selected) else {
        return;
    };
    let simple = owner.rsplit("::").next().unwrap_or(owner);
    let what = format!("{path}:{}: {simple}::{}", m.span.line, m.name);
    let skip = |fe: &mut FileEdits, why: &str| fe.skipped.push(format!("{what} — {why}"));
    let body = match body_to_probe(m, sm, src) {
        Ok(Some(body)) => body,
        Ok(None) => return, // a declaration: instrumented where it is defined
        Err(why) => return skip(fe, why),
    };
    // A specialisation's member belongs to the specialisation, not to the primary template.
    let Some(sc) = cx.owner_of(sm).or_else(|| cx.class(owner)) else {
        return skip(fe, "class not found in the SAF");
    };
    let taken = taken_names(src, m, body, sc);
    let probe = Probe {
        cx,
        project,
        sc,
        m,
        mid: sm.id,
        scope: unique_name("_rv_s", &taken),
        size: message_size(cx, owner, &m.params),
        kind: if sc.selected && sc.annotatable {
            project.id_kind(cx.saf, sc)
        } else {
            IdKind::NonIntrusive("class not selected".into())
        },
        key: remote_key(cx, owner, sm, sc),
        taken,
    };
    probe.insert(src, body, m.flags.is_static || sm.is_static, fe);
}

/// For a `[[remote]]` client or server method, the statement logging its key's hash after
/// the scope (` if (req) ::_revy_rt::log_key(MID, req->id);`); else nothing. A hop through a
/// pointer (a parameter's or the class's field's declared type) reads `->`, guarded.
fn remote_key(cx: &Context, owner: &str, sm: &SafMethod, sc: &SafClass) -> String {
    let Some((_, path)) = (cx.remote.iter()).find_map(|r| r.key_of(owner, &sm.name, &sm.sgn))
    else {
        return String::new();
    };
    let pointer = |name: &str| {
        (sm.params
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.pointers > 0))
        .or_else(|| (sc.fields.iter().find(|f| f.name == name)).map(|f| f.pointers > 0))
        .unwrap_or(false)
    };
    let mut expr = path[0].clone();
    let mut guard = None;
    if let Some(rest) = path.get(1..).filter(|r| !r.is_empty()) {
        if pointer(&path[0]) {
            guard = Some(format!("if ({}) ", path[0]));
            expr.push_str("->");
        } else {
            expr.push('.');
        }
        expr.push_str(&rest.join("."));
    }
    format!(
        " {}::_revy_rt::log_key({}, {expr});",
        guard.unwrap_or_default(),
        sm.id
    )
}

/// The body of a selected member function to probe: `Ok(None)` for a declaration, `Err` the
/// reason it is skipped.
fn body_to_probe<'a>(
    m: &'a MethodDecl,
    sm: &'a SafMethod,
    src: &str,
) -> Result<Option<Span>, &'a str> {
    if m.flags.is_defaulted || sm.has_modifier("defaulted") {
        return Err("`= default`");
    }
    if m.flags.is_deleted || sm.has_modifier("deleted") {
        return Err("`= delete`");
    }
    let Some(body) = m.body else {
        return Ok(None);
    };
    if let Some(why) = &m.not_annotatable {
        return Err(why.as_str());
    }
    if !sm.annotatable {
        return Err(sm.reason.as_deref().unwrap_or("not annotatable"));
    }
    if m.flags.is_constexpr || sm.has_modifier("constexpr") {
        return Err("constexpr function");
    }
    if m.flags.is_consteval || sm.has_modifier("consteval") {
        return Err("consteval function");
    }
    // The front end flagged bodies it must not touch (macros, directives, coroutines,
    // function-try-blocks) in `not_annotatable`; this only guards a model/text mismatch.
    if src.as_bytes().get(body.start) != Some(&b'{') {
        return Err("body not understood");
    }
    Ok(Some(body))
}

/// The method's text plus its class's member names: generated locals must not hide the
/// method's own names nor the class's members.
fn taken_names(src: &str, m: &MethodDecl, body: Span, sc: &SafClass) -> String {
    let mut text = src
        .get(m.span.start..m.span.end.max(body.end))
        .unwrap_or("")
        .to_string();
    for n in sc
        .fields
        .iter()
        .map(|f| &f.name)
        .chain(sc.methods.iter().map(|m| &m.name))
    {
        text.push(' ');
        text.push_str(n);
    }
    text
}

/// A member function's probe: what its generated code is written from.
struct Probe<'a> {
    cx: &'a Context<'a>,
    project: &'a IdPlans,
    /// The class the method belongs to.
    sc: &'a SafClass,
    m: &'a MethodDecl,
    /// The method's SAF id.
    mid: u32,
    /// Names generated locals must avoid ([`taken_names`]).
    taken: String,
    /// The `Scope` local's name.
    scope: String,
    /// The message-size expression.
    size: String,
    /// How the class's objects are identified.
    kind: IdKind,
    /// The `[[remote]]` key's logging, after the scope (empty: not a remote method).
    key: String,
}

impl Probe<'_> {
    /// Adds the scope after the body's `{` and, in a constructor whose first initialiser can
    /// take it, the start logged before the initialisers.
    fn insert(&self, src: &str, body: Span, is_static: bool, fe: &mut FileEdits) {
        let m = self.m;
        let text = self.scope_text(is_static);
        // Constructors log their start before the initialisers where one can take the call.
        let early = (m.kind == MethodKind::Constructor && !is_static)
            .then(|| super::cpp_ctor::first_init_arg(src, m.span.start, body.start, &m.name))
            .flatten();
        let text = match early {
            Some((a, b)) => {
                fe.insertions.push(Insertion::new(a, self.ctor_start()));
                fe.insertions.push(Insertion::new(b, marked_close()));
                ctor_scope(&text, &self.scope, self.mid)
            }
            None => {
                self.unborn_before_braces(src, body, is_static, fe);
                text
            }
        } + &self.key;
        fe.insertions
            .push(Insertion::new(m.entry.unwrap_or(body.start + 1), text));
        fe.methods += 1;
    }

    /// A constructor whose first initialiser is braced and may call something
    /// (`head_{NewNode(h)}`) takes no early start, but still zeroes its class's own tag ID
    /// first, as the early start does: methods it calls on the object read 0.
    fn unborn_before_braces(&self, src: &str, body: Span, is_static: bool, fe: &mut FileEdits) {
        let m = self.m;
        if m.kind != MethodKind::Constructor || is_static {
            return;
        }
        let Some(member) = self.own_tag() else {
            return;
        };
        if let Some((a, b)) =
            super::cpp_ctor::first_brace_call(src, m.span.start, body.start, &m.name)
        {
            fe.insertions
                .push(Insertion::new(a, unborn_prefix(&member)));
            fe.insertions.push(Insertion::new(b, marked_close()));
        }
    }

    /// The member of the class's own tag (none for a sub-tag or non-intrusive IDs).
    fn own_tag(&self) -> Option<String> {
        matches!(self.kind, IdKind::Tag(_))
            .then(|| self.project.tag_plan(self.cx.saf, self.sc))
            .filter(|plan| plan.sub.is_none())
            .map(|plan| plan.member)
    }

    /// ` ::_revy_rt::Scope NAME(MID, OID, SIZE); ` with the OID the class's identity plan gives
    /// (non-intrusive destructors first declare the `NidEnd` that drops the address).
    fn scope_text(&self, is_static: bool) -> String {
        let (scope_name, size, mid) = (&self.scope, &self.size, self.mid);
        let (inherited, crtp) = self.borrowed_id();
        let cls = self.sc.id;
        let ssize = self.sc.static_size.max(1);
        if is_static {
            return format!(" ::_revy_rt::Scope {scope_name}({mid}, 0, {size}); ");
        }
        match (&self.kind, self.m.kind) {
            _ if crtp.is_some() => format!(
                " ::_revy_rt::Scope {scope_name}({mid}, ::_revy_rt::crtp_oid<{}>(this, {cls}, {ssize}), {size}); ",
                crtp.as_deref().unwrap_or_default()
            ),
            _ if inherited.is_some() => format!(
                " ::_revy_rt::Scope {scope_name}({mid}, this->{}.oid, {size}); ",
                inherited.as_deref().unwrap_or_default()
            ),
            (IdKind::Tag(_), _) => format!(
                " ::_revy_rt::Scope {scope_name}({mid}, this->{}.oid, {size}); ",
                self.project.tag_plan(self.cx.saf, self.sc).member
            ),
            (IdKind::NonIntrusive(_), MethodKind::Constructor) => format!(
                " ::_revy_rt::Scope {scope_name}({mid}, ::_revy_rt::nid_new(this, {cls}, {ssize}), {size}); "
            ),
            (IdKind::NonIntrusive(_), MethodKind::Destructor) => {
                let d = unique_name("_rv_d", &self.taken);
                format!(
                    " ::_revy_rt::NidEnd {d}(this, {cls}, {ssize}); ::_revy_rt::Scope {scope_name}({mid}, {d}.oid, {size}); "
                )
            }
            (IdKind::NonIntrusive(_), _) => format!(
                " ::_revy_rt::Scope {scope_name}({mid}, ::_revy_rt::nid(this, {cls}, {ssize}), {size}); "
            ),
        }
    }

    /// The tag member whose ID a non-intrusive class's method reports, and the derived type
    /// of a CRTP base whose object's ID it reports instead of its own.
    fn borrowed_id(&self) -> (Option<String>, Option<String>) {
        let (saf, sc) = (self.cx.saf, self.sc);
        // A non-intrusive class below a tagged one reports the ID of the object it is part of.
        let inherited = match &self.kind {
            IdKind::NonIntrusive(_) if sc.selected => self.project.inherited_tag(saf, sc),
            _ => None,
        };
        // A CRTP base's methods (not its constructors and destructor, which run while the
        // derived part does not exist) report the derived object's ID.
        let crtp = match self.m.kind {
            MethodKind::Constructor | MethodKind::Destructor => None,
            _ if inherited.is_none() && sc.selected => self.project.crtp_param(saf, sc),
            _ => None,
        };
        (inherited, crtp)
    }

    /// A constructor's early start, `((void)::_revy_rt::ctor_start(…), `, to open its first
    /// initialiser's first argument.
    fn ctor_start(&self) -> String {
        let size = &self.size;
        // With its own tag (the last member, not constructed yet) the start zeroes its ID
        // first: methods the initialisers call on the object read it.
        if let Some(member) = self.own_tag() {
            format!(
                "((void)::_revy_rt::ctor_start({}, {size}, this, &this->{member}.oid), ",
                self.mid
            )
        } else {
            format!(
                "((void)::_revy_rt::ctor_start({}, {size}, this), ",
                self.mid
            )
        }
    }
}

/// ` ::_revy_rt::Scope NAME(MID, OID, SIZE); ` → ` ::_revy_rt::CtorScope NAME(MID, this, OID); `: the
/// start was logged before the initialisers, the body fills in the ID and logs the end.
fn ctor_scope(scope: &str, name: &str, mid: u32) -> String {
    let head = format!("::_revy_rt::Scope {name}({mid}, ");
    let Some(at) = scope.find(&head) else {
        return scope.to_string();
    };
    let args = &scope[at + head.len()..];
    // The OID is everything up to the last top-level `, SIZE);`.
    let mut depth = 0i32;
    let mut last_comma = None;
    for (i, c) in args.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => break,
            ')' => depth -= 1,
            ',' if depth == 0 => last_comma = Some(i),
            _ => {}
        }
    }
    let Some(comma) = last_comma else {
        return scope.to_string();
    };
    format!(
        "{}::_revy_rt::CtorScope {name}({mid}, this, {}); ",
        &scope[..at],
        &args[..comma]
    )
}

pub(super) fn has_word(text: &str, w: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(w).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(ident)
            && !text[i + w.len()..].chars().next().is_some_and(ident)
    })
}

/// `base`, or `base1`, `base2`… whichever does not occur as an identifier in `text`.
fn unique_name(base: &str, text: &str) -> String {
    fresh_name(base, |n| has_word(text, n))
}

// ---- message sizes -------------------------------------------------------------------------

/// Standard containers and strings: fields of these types are measured at run time.
const MEASURED: &[&str] = &[
    "std::string",
    "std::wstring",
    "std::basic_string",
    "std::vector",
    "std::deque",
    "std::list",
    "std::map",
    "std::multimap",
    "std::set",
    "std::multiset",
    "std::unordered_map",
    "std::unordered_multimap",
    "std::unordered_set",
    "std::unordered_multiset",
];

/// Better mode: ` public: unsigned long long _rv_rsize() const {…} ` — the object's runtime
/// size (static size plus the contents of its own standard-container and string fields), used
/// for message sizes by `::_revy_rt::rsize`. Empty when the class has no such field, when its body
/// has preprocessor lines (a field may not exist in this build) or the name is taken.
fn runtime_size_fn(sc: &SafClass, body: &str) -> String {
    if body.lines().any(|l| l.trim_start().starts_with('#')) || member_taken(sc, "_rv_rsize") {
        return String::new();
    }
    let fields: Vec<&str> = sc
        .fields
        .iter()
        .filter(|f| !f.is_static && f.pointers == 0 && f.dim == 0)
        .filter(|f| MEASURED.contains(&f.ty.trim_start_matches("::")))
        .filter(|f| !f.name.is_empty() && f.name.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .map(|f| f.name.as_str())
        .collect();
    if fields.is_empty() {
        return String::new();
    }
    let sum: Vec<String> = fields
        .iter()
        .map(|f| format!("::_revy_rt::size_of(this->{f})"))
        .collect();
    format!(
        " public: unsigned long long _rv_rsize() const {{ return {}ull + {}; }}",
        sc.static_size.max(1),
        sum.join(" + ")
    )
}

/// Whether a parameter's written type makes it a pack (`T...`, `const Args&...`): an
/// ellipsis outside template arguments and parentheses. fmt's `format_string<T...> fmt` is
/// one parameter (its `...` expands inside the type), and `fmt...` does not compile.
fn declares_pack(ty: &str) -> bool {
    let b = ty.as_bytes();
    let mut depth = 0i32;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'<' | b'(' | b'[' => depth += 1,
            b'>' | b')' | b']' => depth -= 1,
            b'.' if depth <= 0 && b[i..].starts_with(b"...") => return true,
            _ => {}
        }
    }
    false
}

/// The C++ expression for a call's message size (a sum of per-argument sizes).
fn message_size(cx: &Context, owner: &str, params: &[Param]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut constant: u64 = 0;
    for p in params {
        let ty = &p.ty;
        let pack = declares_pack(&ty.text) || p.varargs;
        if p.name.is_empty() {
            if pack {
                continue; // C varargs or an unnamed pack: unknown, counted as nothing
            }
            constant += static_estimate(cx, owner, &ty.name, ty.pointers, ty.dims);
            continue;
        }
        let n = &p.name;
        if pack {
            parts.push(format!("::_revy_rt::pack_size({n}...)"));
        } else if ty.dims > 0 {
            parts.push(format!("::_revy_rt::array_size({n})"));
        } else if let Some(uc) = user_class(cx.saf, owner, &ty.name) {
            let s = uc.static_size.max(1);
            let better = cx.mode == Mode::Better;
            match ty.pointers {
                // Better: the runtime size where the class has one (falls back to `s`).
                0 if better => parts.push(format!("::_revy_rt::rsize({n}, {s})")),
                1 if better => parts.push(format!("::_revy_rt::rsize_ptr({n}, {s})")),
                0 => constant += s,
                1 => parts.push(format!("::_revy_rt::ptr_size({n}, {s})")),
                _ => constant += cx.saf.sizes.pointer,
            }
        } else if ty.pointers > 0 || super::cpp_ids::primitive_size(&ty.name).is_some() {
            // What `size_of` gives a pointer or an arithmetic value, as a constant: no call
            // and no template instantiation per argument (-O0 builds compile each one).
            parts.push(format!("sizeof({n})"));
        } else {
            parts.push(format!("::_revy_rt::size_of({n})"));
        }
    }
    if constant > 0 || parts.is_empty() {
        parts.push(format!("{constant}u"));
    }
    if parts.len() == 1 {
        parts.pop().unwrap_or_default()
    } else {
        format!("({})", parts.join(" + "))
    }
}

/// Size of an unnamed parameter, known from its type name only (LP64).
fn static_estimate(cx: &Context, owner: &str, name: &str, pointers: u32, dims: u32) -> u64 {
    let sizes = &cx.saf.sizes;
    if pointers > 0 {
        return sizes.pointer;
    }
    let one = if let Some(s) = super::cpp_ids::primitive_size(name) {
        s
    } else if let Some(uc) = user_class(cx.saf, owner, name) {
        uc.static_size.max(1)
    } else {
        sizes.system
    };
    if dims > 0 {
        one * sizes.collection_sample
    } else {
        one
    }
}

// ---- the include ------------------------------------------------------------------------------

/// `#include` of the runtime plus `#line` so the original lines keep their numbers.
fn include_insertion(cx: &Context, path: &str, src: &str) -> Insertion {
    let rel = runtime_include_path(&cx.root, path);
    let at = include_offset(src);
    let mut text = String::new();
    if at > 0 && !src[..at].ends_with('\n') {
        text.push('\n');
    }
    let line = src[..at].matches('\n').count() + 1;
    text.push_str(&format!("#include \"{rel}\"\n#line {line}\n"));
    Insertion::new(at, text)
}

/// The runtime header's path as written in an `#include` in `file` (relative to the file's
/// folder; absolute when the file's path leaves the manifest folder).
pub fn runtime_include_path(root: &Path, file: &str) -> String {
    let p = Path::new(file);
    let mut depth = 0usize;
    let parent = p.parent().unwrap_or(Path::new(""));
    for c in parent.components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            _ => {
                let abs: PathBuf = root.join(RUNTIME_DIR).join(RUNTIME_HEADER);
                return abs.display().to_string().replace('\\', "/");
            }
        }
    }
    format!("{}{RUNTIME_DIR}/{RUNTIME_HEADER}", "../".repeat(depth))
}

/// Where the include goes: after a leading `#pragma once` or include guard's `#define`, else
/// at the start (after a UTF-8 byte-order mark).
fn include_offset(src: &str) -> usize {
    let start = if src.starts_with('\u{feff}') { 3 } else { 0 };
    let mut pos = start;
    let mut in_block_comment = false;
    let mut guard: Option<String> = None;
    while pos < src.len() {
        let end = src[pos..].find('\n').map_or(src.len(), |i| pos + i + 1);
        let line = src[pos..end].trim();
        let next = end;
        if in_block_comment {
            if line.contains("*/") {
                in_block_comment = false;
            }
            pos = next;
            continue;
        }
        if line.is_empty() || line.starts_with("//") {
            pos = next;
            continue;
        }
        if line.starts_with("/*") {
            if !line.contains("*/") {
                in_block_comment = true;
            }
            pos = next;
            continue;
        }
        let words: Vec<&str> = line.trim_start_matches('#').split_whitespace().collect();
        if !line.starts_with('#') {
            return start;
        }
        match (guard.as_deref(), words.as_slice()) {
            (None, ["pragma", "once", ..]) => return next,
            (None, ["ifndef", g, ..]) => {
                guard = Some(g.to_string());
                pos = next;
            }
            (Some(g), ["define", d, ..]) if *d == g => return next,
            _ => return start,
        }
    }
    start
}

// ---- the generated configuration header -------------------------------------------------------

fn c_string(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'?' => out.push_str("\\?"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    out
}

/// `revy_config.hpp`: trace settings and the class and method tables, by SAF id.
/// `shared`: the stamp and path of the runtime library the header loads (else the header
/// includes the implementation).
pub fn config_header(cx: &Context, shared: Option<(&str, &Path)>) -> String {
    let mut s = String::new();
    s.push_str(
        "// Generated by `revy annotate`; removed by `revy restore`. Do not edit.\n\
         #ifndef REVY_CONFIG_HPP_INCLUDED\n#define REVY_CONFIG_HPP_INCLUDED\n\
         #include <cstdint>\n",
    );
    if let Some((_, lib)) = shared {
        let lib = c_string(&lib.display().to_string());
        s.push_str(&format!("#define REVY_RUNTIME_LIB {lib}\n"));
    }
    s.push_str("namespace _revy_rt {\nnamespace config {\n");
    if let Some((stamp, _)) = shared {
        s.push_str(&format!(
            "inline const char* stamp() {{ return \"{stamp}\"; }}\n"
        ));
    }
    push_settings(&mut s, cx);
    // The tables are the implementation's: in the shared form only the library reads them,
    // so the project's translation units do not parse a line per method.
    if shared.is_some() {
        s.push_str(
            "#if defined(REVY_RUNTIME_BUILDING_LIB) || !defined(__GNUC__) || !defined(__linux__)\n",
        );
    }
    push_tables(&mut s, cx.saf);
    if shared.is_some() {
        s.push_str("#endif\n");
    }
    s.push_str("}  // namespace config\n}  // namespace _revy_rt\n#endif\n");
    s
}

/// The trace settings of `revy_config.hpp`.
fn push_settings(s: &mut String, cx: &Context) {
    let saf = cx.saf;
    let better = cx.mode == Mode::Better;
    // C++11-compatible and ODR-safe: scalars are `constexpr` (their values are only read),
    // strings and tables come from inline functions (one definition in every translation unit).
    s.push_str(&format!(
        "inline const char* project() {{ return {}; }}\n",
        c_string(&cx.trace.project)
    ));
    s.push_str(&format!(
        "inline const char* trace_dir() {{ return {}; }}\n",
        c_string(&cx.trace.dir.display().to_string())
    ));
    s.push_str(&format!(
        "constexpr std::uint64_t max_size = {}ull;\n\
         constexpr std::uint64_t throttle_calls = {}ull;\n\
         constexpr std::uint64_t throttle_ns = {}ull;\n",
        cx.trace.max_size, cx.trace.throttle_calls, cx.trace.throttle_ns
    ));
    s.push_str(&format!(
        "inline const char* mode() {{ return \"{}\"; }}\nconstexpr bool better = {better};\n",
        cx.mode
    ));
    s.push_str(&format!(
        "constexpr std::uint64_t collection_sample = {}ull;\n\
         constexpr std::uint64_t system_size = {}ull;\n",
        saf.sizes.collection_sample, saf.sizes.system
    ));
}

/// The class-name and method tables of `revy_config.hpp`, indexed by SAF id.
fn push_tables(s: &mut String, saf: &Saf) {
    let (class_count, class_names) = class_table(saf);
    let (method_count, table) = method_table(saf);
    s.push_str(&format!(
        "constexpr std::uint32_t class_count = {class_count};\n\
         inline const char* const* class_names() {{\n    static const char* const t[] = {{\n"
    ));
    for n in &class_names {
        s.push_str(&format!("        {},\n", c_string(n)));
    }
    s.push_str("    };\n    return t;\n}\nstruct Method {\n    std::uint32_t cls;\n    const char* name;\n    const char* sgn;\n};\n");
    s.push_str(&format!(
        "constexpr std::uint32_t method_count = {method_count};\n\
         inline const Method* methods() {{\n    static const Method t[] = {{\n"
    ));
    for (cls, name, sgn) in &table {
        s.push_str(&format!(
            "        {{{cls}, {}, {}}},\n",
            c_string(name),
            c_string(sgn)
        ));
    }
    s.push_str("    };\n    return t;\n}\n");
}

/// The highest class id and every class's name by id (empty where no class has the id).
fn class_table(saf: &Saf) -> (u32, Vec<String>) {
    let class_count = saf.classes.iter().map(|c| c.id).max().unwrap_or(0);
    let mut class_names = vec![String::new(); class_count as usize + 1];
    for c in &saf.classes {
        // Specialisations are classes of their own: `Buffer<bool>`.
        class_names[c.id as usize] =
            format!("{}{}", c.qname, c.specialization.as_deref().unwrap_or(""));
    }
    (class_count, class_names)
}

/// The highest method id and every method's (class id, name, signature) by id (zero and
/// empty where no method has the id).
fn method_table(saf: &Saf) -> (u32, Vec<(u32, String, String)>) {
    let mut methods: Vec<(u32, u32, String, String)> = Vec::new();
    for c in &saf.classes {
        for m in &c.methods {
            methods.push((m.id, c.id, m.name.clone(), m.sgn.clone()));
        }
    }
    let method_count = methods.iter().map(|m| m.0).max().unwrap_or(0);
    let mut table = vec![(0u32, String::new(), String::new()); method_count as usize + 1];
    for (id, cls, name, sgn) in methods {
        table[id as usize] = (cls, name, sgn);
    }
    (method_count, table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_goes_after_pragma_once_or_guard() {
        assert_eq!(include_offset("#pragma once\nint x;\n"), 13);
        let g = "// c\n#ifndef A_H\n#define A_H\nint x;\n#endif\n";
        assert_eq!(include_offset(g), g.find("int").unwrap());
        assert_eq!(include_offset("/* a\n b */\nint x;\n"), 0);
        assert_eq!(include_offset("\u{feff}int x;"), 3);
        assert_eq!(include_offset("#include <x>\n"), 0);
    }

    #[test]
    fn relative_runtime_path() {
        let r = Path::new("/p");
        assert_eq!(
            runtime_include_path(r, "src/a/b.h"),
            "../../.revy-runtime/revy_runtime.hpp"
        );
        assert_eq!(
            runtime_include_path(r, "m.cpp"),
            ".revy-runtime/revy_runtime.hpp"
        );
    }

    #[test]
    fn unique_names_and_words() {
        assert_eq!(unique_name("_rv_s", "{ int _rv_s = 1; }"), "_rv_s1");
        assert_eq!(unique_name("_rv_s", "{ int _rv_sx = 1; }"), "_rv_s");
        assert!(has_word("x co_return 1;", "co_return"));
        assert!(!has_word("my_co_return", "co_return"));
    }
}
