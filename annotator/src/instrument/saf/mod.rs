//! The static artifacts file (SAF): the project's types, classes, fields and methods with
//! signatures, static sizes and the selection, as versioned, deterministic TOML.
//!
//! Invariant: `Saf::to_toml` of the same sources and manifest gives identical bytes
//! (everything is sorted; no timestamps or absolute paths).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::instrument::manifest::Sizes;
use crate::instrument::model::{ClassKind, Lang, MethodKind};

pub(crate) const SAF_VERSION: u32 = 3;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Saf {
    /// Format version; readers refuse other versions.
    pub version: u32,
    pub project: String,
    pub sizes: Sizes,
    #[serde(default)]
    pub files: Vec<SafFile>,
    /// Absent when empty: a C++ project of free functions has no types or classes.
    #[serde(default)]
    pub types: Vec<SafType>,
    #[serde(default)]
    pub classes: Vec<SafClass>,
    /// Syntax problems found while parsing, `path:line:col: message`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SafFile {
    /// Relative to the manifest folder, `/`-separated.
    pub path: String,
    pub lang: Lang,
    /// SHA-256 of the file's bytes, hex; used to refuse a stale SAF.
    pub sha256: String,
    pub lines: u32,
    /// C++: the file's code that relies on the layout of a project class
    /// ([`LayoutUse::to_saf`](crate::instrument::model::LayoutUse::to_saf) form, source order): those
    /// classes keep non-intrusive object IDs. Only uses naming a class of the SAF are kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layout_uses: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TypeKind {
    Primitive,
    System,
    User,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SafType {
    pub name: String,
    pub lang: Lang,
    pub kind: TypeKind,
    /// Bytes: the primitive's size, `[sizes].system`, or the user type's static size.
    pub size: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SafClass {
    /// Dense id, 1-based, in SAF order; the runtimes' class tables use it.
    pub id: u32,
    pub qname: String,
    pub name: String,
    pub lang: Lang,
    pub kind: ClassKind,
    #[serde(rename = "abstract")]
    pub is_abstract: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outer: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub local: bool,
    #[serde(default, skip_serializing_if = "is_false", rename = "inner")]
    pub is_inner: bool,
    pub supers: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interfaces: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub type_params: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub specialization: Option<String>,
    /// C++: the access labels its body writes (see `ClassDecl::access_labels`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub access: Vec<String>,
    /// C++: the access of its non-static data members (see `ClassDecl::data_access`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub data_access: Vec<String>,
    /// C++: the base clause as written (see `ClassDecl::bases_written`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bases_written: Vec<SafBase>,
    /// C++: type parameters its body casts `this` to (CRTP).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub crtp_self_casts: Vec<String>,
    pub file: String,
    /// First and last line of the declaration.
    pub lines: [u32; 2],
    pub static_size: u64,
    pub selected: bool,
    pub annotatable: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default)]
    pub fields: Vec<SafField>,
    #[serde(default)]
    pub methods: Vec<SafMethod>,
}

/// One base of a C++ class head as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SafBase {
    pub name: String,
    #[serde(default, skip_serializing_if = "is_false", rename = "virtual")]
    pub is_virtual: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SafField {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub dim: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pointers: u32,
    #[serde(rename = "static")]
    pub is_static: bool,
    #[serde(rename = "final")]
    pub is_final: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SafParam {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub dim: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pointers: u32,
    #[serde(default, skip_serializing_if = "is_false")]
    pub reference: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SafMethod {
    /// Dense id, 1-based over the whole SAF; the runtimes' method tables use it.
    pub id: u32,
    pub name: String,
    pub kind: MethodKind,
    /// `!type^dim!type^dim!`, library types named individually.
    pub sgn: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ret: Option<String>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ret_dim: u32,
    #[serde(default)]
    pub params: Vec<SafParam>,
    #[serde(rename = "static")]
    pub is_static: bool,
    #[serde(rename = "abstract")]
    pub is_abstract: bool,
    /// Other modifiers that matter to annotation: `final`, `synchronized`, `native`,
    /// `default`, `virtual`, `override`, `const`, `noexcept`, `constexpr`, `consteval`,
    /// `defaulted`, `deleted`, `template`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modifiers: Vec<String>,
    pub file: String,
    pub lines: [u32; 2],
    pub has_body: bool,
    /// Writes no state of its receiver (`saf::state`): calls may run on a pool at once.
    /// Absent (false) when it may, or when the body could not be read.
    #[serde(default, skip_serializing_if = "is_false")]
    pub stateless: bool,
    /// Where its body may block, named by what it waits on (`Object.wait`,
    /// `std::mutex::lock`, …; `synchronized` for a synchronized method or block): the
    /// analysis names what a method that waited off the CPU was waiting on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<String>,
    pub selected: bool,
    pub annotatable: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}
fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl SafMethod {
    pub(crate) fn has_modifier(&self, m: &str) -> bool {
        self.modifiers.iter().any(|x| x == m)
    }
}

impl Saf {
    pub(crate) fn to_toml(&self) -> String {
        emit::to_toml(self)
    }

    pub fn from_toml(path: &std::path::Path, text: &str) -> Result<Saf> {
        let saf: Saf = toml::from_str(text).map_err(|e| {
            let (l, c) = e
                .span()
                .map(|s| crate::instrument::manifest::line_col_of(text, s.start))
                .unwrap_or((1, 1));
            Error::input(format!(
                "{}:{l}:{c}: not a valid SAF ({}); re-run `revy parse`",
                path.display(),
                e.message().trim().replace('\n', " ")
            ))
        })?;
        if saf.version != SAF_VERSION {
            return Err(Error::input(format!(
                "{}: SAF version {} is not {SAF_VERSION}; re-run `revy parse`",
                path.display(),
                saf.version
            )));
        }
        Ok(saf)
    }

    pub fn load(path: &std::path::Path) -> Result<Saf> {
        let text = std::fs::read_to_string(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::input(format!(
                "{}: no static artifacts file; run `revy parse` first",
                path.display()
            )),
            _ => Error::io(path, e),
        })?;
        Self::from_toml(path, &text)
    }

    pub fn class(&self, qname: &str) -> Option<&SafClass> {
        self.classes.iter().find(|c| c.qname == qname)
    }

    /// The class of `lang` that `name`, written in `scope` (a class or namespace, qualified;
    /// empty for global), refers to: the name in each enclosing scope, innermost first,
    /// then the one class whose qualified name ends with it (none if several do).
    pub(crate) fn resolve_class(&self, lang: Lang, scope: &str, name: &str) -> Option<&SafClass> {
        let sep = lang.spec().scope_sep;
        let name = name.trim_start_matches(sep);
        let of_lang = || self.classes.iter().filter(move |c| c.lang == lang);
        let found = in_scopes(sep, scope, name, |q| of_lang().find(|c| c.qname == q));
        if found.is_some() {
            return found;
        }
        let suffix = format!("{sep}{name}");
        let mut hits = of_lang().filter(|c| c.qname.ends_with(&suffix));
        match (hits.next(), hits.next()) {
            (Some(c), None) => Some(c),
            _ => None,
        }
    }
}

/// Looks `name` up as written in `scope` (qualified with `sep`): `scope::name`, then in each
/// enclosing scope outwards, then `name` itself. The one scope walk of every resolver.
pub(crate) fn in_scopes<T>(
    sep: &str,
    scope: &str,
    name: &str,
    mut lookup: impl FnMut(&str) -> Option<T>,
) -> Option<T> {
    let mut scope = scope;
    while !scope.is_empty() {
        if let Some(t) = lookup(&format!("{scope}{sep}{name}")) {
            return Some(t);
        }
        scope = scope.rfind(sep).map_or("", |p| &scope[..p]);
    }
    lookup(name)
}

pub mod build;
mod emit;
mod resolve;
mod state;
mod types;
mod waits;
pub use types::{method_signature, primitive_size, sig_type_name, signature};
