//! Modular Java projects: the runtime package `_revy.runtime` lands in the source root of
//! the annotated classes, so in a project with a `module-info.java` there it becomes part
//! of that module. The module then needs `java.management` (the runtime reads the JVM's
//! thread CPU clock and process id through it): annotate adds
//! ` requires java.management; /*revy*/` right after the module's `{` (on the same line, so
//! no line number moves; the marker lets restore prove it removed exactly that) unless the
//! module requires it already. The runtime needs no `exports` or `opens`: only classes of
//! its own module call it.

use std::collections::{BTreeSet, HashMap};

use crate::error::{Error, Result};
use crate::instrument::edits::{Insertion, CLOSE_MARK};
use crate::instrument::manifest::{read_source, Manifest};
use crate::instrument::model::FileModel;

const MODULE_INFO: &str = "module-info.java";
const NEEDED: &str = "java.management";

/// The edit of the `module-info.java` beside the runtime, when it needs one: (path,
/// original text, insertion). Refuses annotated classes spread over several modules (the
/// runtime can be in one of them only).
pub fn module_edit(
    m: &Manifest,
    models: &[&FileModel],
    originals: Option<&HashMap<String, String>>,
) -> Result<Option<(String, String, Vec<Insertion>)>> {
    let at = |root: &str| match root {
        "" => MODULE_INFO.to_string(),
        r => format!("{r}/{MODULE_INFO}"),
    };
    let roots: BTreeSet<String> = (models.iter())
        .filter_map(|f| super::java::source_root(&f.path, f.package.as_deref()))
        .collect();
    let modular: Vec<String> = (roots.iter().map(|r| at(r)))
        .filter(|p| m.root.join(p).is_file())
        .collect();
    if modular.is_empty() {
        return Ok(None);
    }
    if roots.len() > 1 {
        return Err(Error::input(format!(
            "{}: the selected classes are in {} source roots, and {} declares a module: Revy's \
             Java runtime can join one module only; select one module's classes \
             ([annotate] include/exclude), then annotate again",
            m.path.display(),
            roots.len(),
            m.display_path(&modular[0]).display()
        )));
    }
    let rel = modular[0].clone();
    let text = match originals.and_then(|o| o.get(&rel)) {
        Some(t) => t.clone(),
        None => read_source(m, &rel)?,
    };
    let toks = tokens(&text);
    if requires(&toks, NEEDED) {
        return Ok(None);
    }
    let Some(open) = body_open(&toks) else {
        return Err(Error::input(format!(
            "{}: no module declaration found (`module NAME {{ … }}`); fix it or exclude the file",
            m.display_path(&rel).display()
        )));
    };
    let ins = Insertion::new(open + 1, format!(" requires {NEEDED}; {CLOSE_MARK}"));
    Ok(Some((rel, text, vec![ins])))
}

/// Whether the module requires `name` (`requires [transitive|static] name;`).
fn requires(toks: &[(usize, &str)], name: &str) -> bool {
    let modifier = |t: &&str| *t == "transitive" || *t == "static";
    toks.iter().enumerate().any(|(i, t)| {
        t.1 == "requires" && toks[i + 1..].iter().map(|t| t.1).find(|t| !modifier(t)) == Some(name)
    })
}

/// The offset of the `{` opening the module's body.
fn body_open(toks: &[(usize, &str)]) -> Option<usize> {
    let m = toks.iter().position(|t| t.1 == "module")?;
    toks[m..].iter().find(|t| t.1 == "{").map(|t| t.0)
}

/// The tokens of Java source as (offset, text): names with their dots, single punctuation;
/// comments and string and character literals are skipped.
fn tokens(src: &str) -> Vec<(usize, &str)> {
    let b = src.as_bytes();
    let name = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'.';
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            i += memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        } else if rest.starts_with(b"/*") {
            i += memchr::memmem::find(&rest[2..], b"*/").map_or(rest.len(), |e| e + 4);
        } else if b[i] == b'"' || b[i] == b'\'' {
            let q = b[i];
            i += 1;
            while i < b.len() && b[i] != q {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if name(b[i]) {
            let s = i;
            while i < b.len() && name(b[i]) {
                i += 1;
            }
            out.push((s, &src[s..i]));
        } else {
            if !b[i].is_ascii_whitespace() && b[i].is_ascii() {
                out.push((i, &src[i..i + 1]));
            }
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_body_and_existing_requires_outside_comments() {
        let src = "/* module x { */ @Deprecated\nopen module m.app { // requires java.management;\n requires static java.logging; }\n";
        let t = tokens(src);
        assert_eq!(body_open(&t), src.find("m.app {").map(|i| i + 6));
        assert!(!requires(&t, NEEDED));
        assert!(requires(&t, "java.logging"));
        let t = tokens("module a { requires transitive java.management; }");
        assert!(requires(&t, NEEDED));
    }
}
