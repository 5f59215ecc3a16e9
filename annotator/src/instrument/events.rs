//! `[[events]]` of the manifest: what starts an event (a user action, a client request) and
//! what may carry it across threads. The analysis (`analyse::events`) follows them in a
//! trace; here they are only read and checked, each error naming its `line:col`.
//!
//! A method pattern is a selection pattern (`Class.method`, `pkg.Class::method`, globs with
//! `*`) with an optional signature glob in parentheses, matched against the trace's
//! signature: `Worker.handle(!Request^0!)`, `*.run(!!)`.

use globset::{Glob, GlobMatcher};
use serde::Deserialize;
use toml::Spanned;

use crate::error::{Error, Result};

/// One `[[events]]` table as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawEvent {
    name: Spanned<String>,
    #[serde(default, rename = "type")]
    kind: Option<Spanned<String>>,
    /// One pattern or a list of them.
    #[serde(default)]
    method: Option<Spanned<toml::Value>>,
    /// A shipped definition: `executor` or `handler`.
    #[serde(default)]
    generic: Option<Spanned<String>>,
    #[serde(default, rename = "continue")]
    continue_: Option<Spanned<toml::Value>>,
    #[serde(default)]
    classes: Option<Spanned<toml::Value>>,
    #[serde(default)]
    reassociate: Option<Spanned<toml::Value>>,
}

/// A method pattern: class and method glob, optional signature glob.
#[derive(Debug, Clone)]
pub struct MethodPattern {
    pub text: String,
    method: GlobMatcher,
    signature: Option<GlobMatcher>,
}

impl MethodPattern {
    /// `Class.method` or `Class.method(SIGNATURE)`.
    pub fn parse(text: &str) -> std::result::Result<MethodPattern, String> {
        let text = text.trim();
        let (name, sig) = match text.strip_suffix(')').and_then(|t| t.split_once('(')) {
            Some((n, s)) => (n.trim(), Some(s.trim())),
            None => (text, None),
        };
        if name.is_empty() {
            return Err("is empty".into());
        }
        if !name.contains('.') && !name.contains("::") && name != "*" {
            return Err(
                "names no method; write Class.method (globs allowed, e.g. \"*.run\")".into(),
            );
        }
        let glob = |g: &str| {
            Glob::new(g)
                .map(|g| g.compile_matcher())
                .map_err(|e| format!("is not a valid pattern ({e})"))
        };
        Ok(MethodPattern {
            text: text.to_string(),
            method: glob(name)?,
            signature: sig.map(glob).transpose()?,
        })
    }

    /// Whether it names method `method` (signature `sgn`) of class `class`.
    pub fn matches(&self, class: &str, method: &str, sgn: &str) -> bool {
        crate::instrument::names::names_method(&self.method, class, method)
            && self.signature.as_ref().is_none_or(|s| s.is_match(sgn))
    }
}

/// A validated event definition.
#[derive(Debug, Clone)]
pub struct EventDef {
    pub name: String,
    /// What results are grouped by (the name when not given).
    pub kind: String,
    /// A call of one of these on a thread not in an event starts one.
    pub starts: Vec<MethodPattern>,
    /// Only these methods continue an event on an associated object (empty: any method).
    pub continues: Vec<MethodPattern>,
    /// Only objects of these classes carry the event (empty: any class).
    pub classes: Vec<GlobMatcher>,
    /// A call of one of these during an event moves its receiver to that event.
    pub reassociate: Vec<MethodPattern>,
    /// `line:col` of the definition in the manifest.
    pub at: String,
}

impl EventDef {
    /// Whether objects of `class` may carry this event.
    pub(crate) fn carried_by(&self, class: &str) -> bool {
        self.classes.is_empty()
            || (self.classes.iter()).any(|g| crate::instrument::names::names_class(g, class))
    }
}

/// The shipped generic definitions: start patterns by name.
pub(crate) const GENERIC: [(&str, &[&str]); 2] = [
    // A task handed to an executor: its run()/call() is the outermost instrumented call on
    // a pool thread.
    ("executor", &["*.run(!!)", "*.call(!!)"]),
    // A main loop's dispatch to a handler or listener.
    (
        "handler",
        &[
            "*.handle*",
            "*.dispatch*",
            "*.on[A-Z]*",
            "*.actionPerformed",
        ],
    ),
];

/// Checks the `[[events]]` tables; `at` turns a span into `file:line:col`.
pub(crate) fn check(
    raw: &[RawEvent],
    at: &dyn Fn(std::ops::Range<usize>) -> String,
) -> Result<Vec<EventDef>> {
    let mut out: Vec<EventDef> = Vec::with_capacity(raw.len());
    for r in raw {
        let def = one(r, at)?;
        if out.iter().any(|d| d.name == def.name) {
            return Err(Error::input(format!(
                "{}: events: a second event named \"{}\"; give each [[events]] its own name",
                at(r.name.span()),
                def.name
            )));
        }
        out.push(def);
    }
    if out.len() > 32 {
        return Err(Error::input(format!(
            "{}: events: {} definitions, at most 32; group methods into one event's list",
            at(raw[32].name.span()),
            out.len()
        )));
    }
    Ok(out)
}

fn one(r: &RawEvent, at: &dyn Fn(std::ops::Range<usize>) -> String) -> Result<EventDef> {
    let name = r.name.get_ref().trim().to_string();
    if name.is_empty() {
        return Err(Error::input(format!(
            "{}: events.name is empty; name the event (e.g. \"request\")",
            at(r.name.span())
        )));
    }
    let mut starts = methods(r.method.as_ref(), "method", at)?;
    if let Some(g) = &r.generic {
        let Some((_, pats)) = GENERIC.iter().find(|(n, _)| n == g.get_ref()) else {
            let known: Vec<&str> = GENERIC.iter().map(|(n, _)| *n).collect();
            return Err(Error::input(format!(
                "{}: events.generic \"{}\" is not a shipped definition (one of {})",
                at(g.span()),
                g.get_ref(),
                known.join(", ")
            )));
        };
        starts.extend(
            pats.iter()
                .map(|p| MethodPattern::parse(p).expect("shipped")),
        );
    }
    if starts.is_empty() {
        return Err(Error::input(format!(
            "{}: event \"{name}\" has no method; add method = \"Class.method\" or generic = \"executor\"",
            at(r.name.span())
        )));
    }
    let kind = r
        .kind
        .as_ref()
        .map_or(name.clone(), |k| k.get_ref().trim().to_string());
    Ok(EventDef {
        kind: if kind.is_empty() { name.clone() } else { kind },
        starts,
        continues: methods(r.continue_.as_ref(), "continue", at)?,
        classes: classes(r.classes.as_ref(), at)?,
        reassociate: methods(r.reassociate.as_ref(), "reassociate", at)?,
        at: at(r.name.span()),
        name,
    })
}

/// A string or a list of strings, with where each was written.
fn strings(
    v: &Spanned<toml::Value>,
    key: &str,
    at: &dyn Fn(std::ops::Range<usize>) -> String,
) -> Result<Vec<String>> {
    let bad = || {
        Error::input(format!(
            "{}: events.{key} must be a pattern or a list of patterns",
            at(v.span())
        ))
    };
    match v.get_ref() {
        toml::Value::String(s) => Ok(vec![s.clone()]),
        toml::Value::Array(a) => a
            .iter()
            .map(|x| x.as_str().map(str::to_string).ok_or_else(bad))
            .collect(),
        _ => Err(bad()),
    }
}

fn methods(
    v: Option<&Spanned<toml::Value>>,
    key: &str,
    at: &dyn Fn(std::ops::Range<usize>) -> String,
) -> Result<Vec<MethodPattern>> {
    let Some(v) = v else { return Ok(Vec::new()) };
    strings(v, key, at)?
        .iter()
        .map(|s| {
            MethodPattern::parse(s).map_err(|why| {
                Error::input(format!("{}: events.{key} \"{s}\" {why}", at(v.span())))
            })
        })
        .collect()
}

fn classes(
    v: Option<&Spanned<toml::Value>>,
    at: &dyn Fn(std::ops::Range<usize>) -> String,
) -> Result<Vec<GlobMatcher>> {
    let Some(v) = v else { return Ok(Vec::new()) };
    strings(v, "classes", at)?
        .iter()
        .map(|s| {
            Glob::new(s.trim())
                .map(|g| g.compile_matcher())
                .map_err(|e| {
                    Error::input(format!(
                        "{}: events.classes \"{s}\" is not a valid pattern ({e})",
                        at(v.span())
                    ))
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::instrument::manifest::Manifest;
    use std::path::Path;

    fn load(events: &str) -> crate::error::Result<Manifest> {
        let text = format!("[project]\nname=\"a\"\nsources=[\"*\"]\n{events}");
        Manifest::from_str(Path::new("revy.toml"), &text)
    }

    #[test]
    fn events_are_read_with_patterns_and_generics() {
        let m = load(
            "[[events]]\nname=\"request\"\nmethod=\"Acceptor.accept(!int^0!)\"\n\
             classes=[\"Request\", \"app.Response\"]\ncontinue=\"*.process\"\n\
             [[events]]\nname=\"task\"\ntype=\"pool\"\ngeneric=\"executor\"\n",
        )
        .unwrap();
        let (r, t) = (&m.events[0], &m.events[1]);
        assert_eq!((r.name.as_str(), r.kind.as_str()), ("request", "request"));
        assert!(r.starts[0].matches("app.Acceptor", "accept", "!int^0!"));
        assert!(!r.starts[0].matches("app.Acceptor", "accept", "!!"));
        assert!(!r.starts[0].matches("app.Acceptor", "close", "!int^0!"));
        assert!(r.carried_by("app.Request") && r.carried_by("app.Response"));
        assert!(!r.carried_by("app.Acceptor"));
        assert!(r.continues[0].matches("x.Request", "process", "!!"));
        assert_eq!(t.kind, "pool");
        assert!(t.starts.iter().any(|p| p.matches("a.Job", "run", "!!")));
        assert!(!t
            .starts
            .iter()
            .any(|p| p.matches("a.Job", "run", "!int^0!")));
        assert!(t.carried_by("anything"));
    }

    #[test]
    fn bad_events_name_their_line() {
        for (text, want) in [
            (
                "[[events]]\nname=\"r\"\n",
                "revy.toml:5:6: event \"r\" has no method",
            ),
            (
                "[[events]]\nname=\"r\"\nmethod=\"accept\"\n",
                "revy.toml:6:8: events.method \"accept\" names no method",
            ),
            (
                "[[events]]\nname=\"r\"\nmethod=\"A.[b\"\n",
                "revy.toml:6:8: events.method \"A.[b\" is not a valid pattern",
            ),
            (
                "[[events]]\nname=\"r\"\ngeneric=\"gui\"\n",
                "revy.toml:6:9: events.generic \"gui\" is not a shipped definition",
            ),
            (
                "[[events]]\nname=\"r\"\nmethod=\"A.b\"\n[[events]]\nname=\"r\"\nmethod=\"A.c\"\n",
                "revy.toml:8:6: events: a second event named \"r\"",
            ),
            (
                "[[events]]\nname=\"r\"\nmethod=\"A.b\"\nclasses=3\n",
                "revy.toml:7:9: events.classes must be a pattern or a list",
            ),
            (
                "[[events]]\nname=\"r\"\nmethod=\"A.b\"\nkeep=true\n",
                "revy.toml:7:1",
            ),
        ] {
            let e = load(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}
