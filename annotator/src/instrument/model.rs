//! The language-neutral model of a parsed source file: what the front ends produce and
//! what the SAF, selection and annotators consume.
//!
//! Invariant: every offset is a UTF-8 byte offset into the original file text; lines and
//! columns are 1-based (columns count bytes) and exist only for messages.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Java,
    Cpp,
}

/// A byte range of the original text plus the 1-based lines it covers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub line: u32,
    pub end_line: u32,
}

/// How much a diagnostic matters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Severity {
    /// A problem: `revy parse` exits 1 when it reports one.
    #[default]
    Error,
    /// Information (a macro left out of the model…); never changes exit codes.
    Note,
}

/// A syntax problem or a reason something could not be modelled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub path: String,
    pub line: u32,
    pub col: u32,
    pub severity: Severity,
    pub message: String,
}

impl Diagnostic {
    pub(crate) fn is_note(&self) -> bool {
        self.severity == Severity::Note
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let note = if self.is_note() { "note: " } else { "" };
        write!(
            f,
            "{}:{}:{}: {note}{}",
            self.path, self.line, self.col, self.message
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClassKind {
    Class,
    Interface,
    Enum,
    Record,
    Annotation,
    Struct,
    Union,
}

/// A type as used in a declaration.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeRef {
    /// Base name without generic arguments, array brackets, pointers, references or
    /// cv-qualifiers, qualified as written: `int`, `String`, `java.util.Vector`,
    /// `std::string`, `Account`.
    pub name: String,
    /// Array dimensions (`int[][]` and `int a[][]` are 2; Java varargs add one).
    pub dims: u32,
    /// C++ pointer depth (`Account**` is 2); always 0 in Java.
    pub pointers: u32,
    /// C++ `&` or `&&`.
    pub reference: bool,
    /// The declaration text as written (for messages and C++ size code).
    pub text: String,
}

impl TypeRef {
    /// What a signature adds to a type's base name: the cv-qualifier prefix of a pointer's or
    /// reference's target (`const_`) and the reference (`&`, `&&` or nothing).
    pub(crate) fn sig_decor(&self) -> (String, &'static str) {
        let mut quals = String::new();
        if self.pointers > 0 || self.reference {
            let words = self.text.split_whitespace();
            for q in words.take_while(|w| matches!(*w, "const" | "volatile")) {
                quals.push_str(q);
                quals.push('_');
            }
        }
        if !self.reference {
            return (quals, "");
        }
        // The text ends with the reference and then any array bounds.
        let t = &self.text[..self.text.rfind('&').map_or(0, |i| i + 1)];
        (quals, if t.ends_with("&&") { "&&" } else { "&" })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldDecl {
    pub name: String,
    pub ty: TypeRef,
    pub is_static: bool,
    pub is_final: bool,
    pub span: Span,
    /// C++: a default member initialiser's expression (of a braced one, its first element),
    /// which runs before the class's last member, its ID tag, exists.
    pub init: Option<Span>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub ty: TypeRef,
    pub varargs: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MethodKind {
    Method,
    Constructor,
    Destructor,
    Operator,
    Conversion,
}

/// Flags that decide what may be instrumented; false unless the source says so.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MethodFlags {
    pub is_static: bool,
    pub is_abstract: bool,
    pub is_final: bool,
    pub is_synchronized: bool,
    pub is_native: bool,
    /// Java interface `default` method.
    pub is_default: bool,
    pub is_virtual: bool,
    pub is_override: bool,
    pub is_const: bool,
    /// C++ ref-qualifier of a member function: `"&"`, `"&&"` or `""`.
    pub ref_qualifier: &'static str,
    pub is_noexcept: bool,
    pub is_constexpr: bool,
    pub is_consteval: bool,
    /// C++ `= default`.
    pub is_defaulted: bool,
    /// C++ `= delete`.
    pub is_deleted: bool,
    /// C++ function template (or member of a template).
    pub is_template: bool,
}

impl MethodFlags {
    /// The names of the flags that are set, in declaration order (`static`, `abstract`,
    /// then the SAF's modifiers: `final` … `defaulted`, `deleted`, `template`).
    pub fn names(&self) -> impl Iterator<Item = &'static str> {
        [
            (self.is_static, "static"),
            (self.is_abstract, "abstract"),
            (self.is_final, "final"),
            (self.is_synchronized, "synchronized"),
            (self.is_native, "native"),
            (self.is_default, "default"),
            (self.is_virtual, "virtual"),
            (self.is_override, "override"),
            (self.is_const, "const"),
            (self.is_noexcept, "noexcept"),
            (self.is_constexpr, "constexpr"),
            (self.is_consteval, "consteval"),
            (self.is_defaulted, "defaulted"),
            (self.is_deleted, "deleted"),
            (self.is_template, "template"),
        ]
        .into_iter()
        .filter(|(on, _)| *on)
        .map(|(_, n)| n)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodDecl {
    pub name: String,
    pub kind: MethodKind,
    /// `None` for constructors and destructors.
    pub ret: Option<TypeRef>,
    pub params: Vec<Param>,
    pub flags: MethodFlags,
    /// File (relative to the manifest folder) holding the definition, or the declaration
    /// when there is no body. For C++ out-of-class definitions this differs from the class's.
    pub file: String,
    /// The whole declaration/definition.
    pub span: Span,
    /// The body's braces, `{` to `}` inclusive; `None` for a declaration without body.
    pub body: Option<Span>,
    /// Where code that must run first in the body goes: just after the body's `{`, or after
    /// a Java constructor's explicit `this(…)`/`super(…)` call. `None` without a body.
    pub entry: Option<usize>,
    /// Why this method cannot be instrumented (parse error inside, constexpr, macro body…).
    pub not_annotatable: Option<String>,
    /// What the body may change, as written; `None` without a body or with syntax errors.
    pub effects: Option<BodyEffects>,
}

/// What a method body may change, by name as written (`frontend::effects`); `saf::build`
/// resolves the names against the class's fields to tell a method that writes no state of
/// its receiver. Sorted, deduplicated.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BodyEffects {
    /// Roots of places assigned or incremented: `x`, `this.x`, `Class.x`, or `this` for a
    /// place reached through a call's result.
    pub writes: Vec<String>,
    /// Roots of places passed bare to a call (a C++ reference or a Java object may be
    /// changed there).
    pub passed: Vec<String>,
    /// Roots of objects a method is called on (`x.add(…)`, `x->f()`).
    pub receivers: Vec<String>,
    /// Names declared in the body (locals, lambda and catch parameters).
    pub locals: Vec<String>,
    /// Functions called without an object or on `this`: own, inherited or free.
    pub calls: Vec<String>,
    /// `this` is used other than for a member (passed, returned, stored, `super.m()`).
    pub this_escapes: bool,
    /// Where the body may block, named by what it waits on (`frontend::blocking`):
    /// `Object.wait`, `Thread.join`, `BlockingQueue.take`, `synchronized`,
    /// `std::mutex::lock`, `std::condition_variable::wait`, `std::thread::join`,
    /// `std::future::get`. A `take`/`put` on a name the body does not declare is
    /// `BlockingQueue.take via NAME`, which `saf::build` keeps when NAME is a queue field.
    pub blocks: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassDecl {
    /// Simple name: `Inner`, `Account`.
    pub name: String,
    /// Qualified name: Java `pkg.Outer.Inner`, C++ `ns::Outer::Inner`.
    pub qname: String,
    pub kind: ClassKind,
    /// The language of the front end that read it: what its sizes and names follow (a
    /// file's path may not tell, and is never guessed from).
    pub lang: Lang,
    pub is_abstract: bool,
    /// Java: static nested (or top level); C++: unused.
    pub is_static: bool,
    /// Declared inside a method body (Java local class).
    pub is_local: bool,
    /// Qualified name of the enclosing class, if nested.
    pub outer: Option<String>,
    /// Java `extends` (classes) / C++ base classes, as written (generic args stripped).
    pub supers: Vec<String>,
    /// Java `implements` (for interfaces: `extends`). Empty in C++.
    pub interfaces: Vec<String>,
    /// Type parameters with bounds as written: `T extends Comparable<T>`, `typename T`.
    pub type_params: Vec<String>,
    /// C++: `template<>` full specialisation arguments, e.g. `<bool>`.
    pub specialization: Option<String>,
    pub fields: Vec<FieldDecl>,
    pub methods: Vec<MethodDecl>,
    pub file: String,
    pub span: Span,
    /// The body's braces `{` to `}` inclusive.
    pub body: Span,
    /// Where a generated member goes: just after the body's `{`, or in a Java enum after the
    /// `;` that ends its constants; `None` for an enum without that `;` (write one first).
    pub members_at: Option<usize>,
    pub not_annotatable: Option<String>,
    /// C++: the access labels written in the body (`public`, `protected`, `private`), each once
    /// in source order; nested classes' labels not included.
    pub access_labels: Vec<String>,
    /// C++: the access of its non-static data members (each once, in source order; the class
    /// key's default where no label precedes them): an aggregate has only public ones.
    pub data_access: Vec<String>,
    /// C++: the base clause as written, one entry per base, in order.
    pub bases_written: Vec<BaseDecl>,
    /// C++: type parameters the body casts `this` to (`static_cast<D*>(this)`,
    /// `static_cast<const D&>(*this)`): a CRTP base's derived-type parameter.
    pub crtp_self_casts: Vec<String>,
}

/// One base of a C++ class head as written (`virtual public lib::Base<T, 3>`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BaseDecl {
    /// The base's type as written, template arguments kept, whitespace runs made one space;
    /// a pack expansion ends in `...`.
    pub name: String,
    pub is_virtual: bool,
    /// `public`, `protected` or `private` when written.
    pub access: Option<String>,
}

/// Code that relies on a type's exact layout or triviality (C++), found by the front end at
/// parse: a class it names keeps non-intrusive object IDs, since an ID member would change
/// its size or make it non-trivial.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutUse {
    /// 1-based line (uses on one line are weighed together, in the order listed).
    pub line: u32,
    pub kind: LayoutKind,
    /// The type as written after the construct (`ns::Packet`, `Packet::Header`); empty for
    /// the file-wide kinds.
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayoutKind {
    /// `sizeof(T)`/`alignof(T)` on a `static_assert` line.
    StaticAssertSize,
    /// `offsetof(T, …)`.
    Offsetof,
    /// `sizeof(T)` on a line calling `memcpy`/`memset`/`memmove`/`memcmp`.
    RawMemory,
    /// A type trait or cast that needs the layout (`is_pod<`, `atomic<`, `bit_cast<`,
    /// `reinterpret_cast<`…), as written with its `<`.
    Trait(String),
    /// `constexpr T`/`constinit T`.
    ConstantExpression,
    /// A raw memory function on `this` or `sizeof(*…)`: the classes of this file.
    RawMemoryOnObjects,
    /// `#pragma pack` somewhere in the file: the classes of this file.
    PragmaPack,
    /// `new (place) T(…)`: the project constructs `T` in memory it manages (an arena, a page,
    /// a budget), so `T`'s size — and its bases' and by-value members' — is its accounting.
    PlacementNew,
}

impl LayoutUse {
    /// The SAF's text form: `LINE KIND NAME` (`12 offsetof Packet`, `3 is_pod< ns::P`).
    pub(crate) fn to_saf(&self) -> String {
        let kind = match &self.kind {
            LayoutKind::StaticAssertSize => "static_assert",
            LayoutKind::Offsetof => "offsetof",
            LayoutKind::RawMemory => "raw_memory",
            LayoutKind::Trait(t) => t,
            LayoutKind::ConstantExpression => "constexpr",
            LayoutKind::RawMemoryOnObjects => "raw_memory_on_objects",
            LayoutKind::PragmaPack => "pragma_pack",
            LayoutKind::PlacementNew => "placement_new",
        };
        format!("{} {kind} {}", self.line, self.name)
            .trim_end()
            .to_string()
    }

    /// Reads [`to_saf`](Self::to_saf)'s form back; `None` if malformed.
    pub(crate) fn from_saf(s: &str) -> Option<LayoutUse> {
        let mut parts = s.splitn(3, ' ');
        let line = parts.next()?.parse().ok()?;
        let kind = match parts.next()? {
            "static_assert" => LayoutKind::StaticAssertSize,
            "offsetof" => LayoutKind::Offsetof,
            "raw_memory" => LayoutKind::RawMemory,
            "constexpr" => LayoutKind::ConstantExpression,
            "raw_memory_on_objects" => LayoutKind::RawMemoryOnObjects,
            "pragma_pack" => LayoutKind::PragmaPack,
            "placement_new" => LayoutKind::PlacementNew,
            t if t.ends_with('<') => LayoutKind::Trait(t.to_string()),
            _ => return None,
        };
        let name = parts.next().unwrap_or("").to_string();
        Some(LayoutUse { line, kind, name })
    }

    /// Whether this use names the type `n` (`n` itself, or `n::…` nested in it), or the
    /// qualified name `n` by its last parts (`detail::T` written for `fmt::v9::detail::T`).
    pub fn names(&self, n: &str) -> bool {
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        let head = self.name.split('<').next().unwrap_or("");
        let tail = head.contains("::")
            && n.strip_suffix(head)
                .is_some_and(|outer| outer.ends_with("::"));
        !n.is_empty()
            && ((self.name.starts_with(n) && !self.name[n.len()..].starts_with(ident)) || tail)
    }
}

/// Everything a front end learns from one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileModel {
    pub path: String,
    pub package: Option<String>,
    pub classes: Vec<ClassDecl>,
    /// C++ member functions defined outside their class (`double Account::balance() const {…}`),
    /// with the owner's qualified name as written/resolved against enclosing namespaces. The
    /// project stage links them to their classes.
    pub out_of_class: Vec<(String, MethodDecl)>,
    /// C++: code relying on a type's layout, in source order (see [`LayoutUse`]).
    pub layout_uses: Vec<LayoutUse>,
    pub diagnostics: Vec<Diagnostic>,
}
