//! A readable text dump of a [`FileModel`]: what the front-end fixtures
//! (`tests/fixtures/frontend/`) compare against. Every field of the model is shown, offsets
//! as `line:col` plus the text around insertion points, so a diff says what changed.

use std::fmt::Write as _;

use crate::instrument::model::{ClassDecl, FieldDecl, FileModel, MethodDecl, Span, TypeRef};

/// The dump of `m`, parsed from `src`.
pub fn dump(m: &FileModel, src: &str) -> String {
    let at = Locator::new(src);
    let mut out = String::new();
    let _ = writeln!(out, "file {}", m.path);
    if let Some(p) = &m.package {
        let _ = writeln!(out, "package {p}");
    }
    for c in &m.classes {
        class(&mut out, &at, c);
    }
    for (owner, x) in &m.out_of_class {
        let _ = writeln!(out, "out of class, owner {owner}");
        method(&mut out, &at, x, "  ");
    }
    for u in &m.layout_uses {
        let _ = writeln!(out, "layout use {}", u.to_saf());
    }
    for d in &m.diagnostics {
        let sev = if d.is_note() { "note" } else { "error" };
        let _ = writeln!(out, "{sev} {}:{}: {}", d.line, d.col, d.message);
    }
    out
}

/// Byte offsets to `line:col` (1-based, columns in bytes) and snippets.
struct Locator<'s> {
    src: &'s str,
    line_starts: Vec<usize>,
}

impl<'s> Locator<'s> {
    fn new(src: &'s str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(src.match_indices('\n').map(|(i, _)| i + 1));
        Locator { src, line_starts }
    }

    fn pos(&self, off: usize) -> String {
        let line = self.line_starts.partition_point(|&s| s <= off).max(1);
        format!("{line}:{}", off - self.line_starts[line - 1] + 1)
    }

    /// `L:C-L:C` of a span, checked against its recorded lines.
    fn span(&self, s: Span) -> String {
        let (a, b) = (self.pos(s.start), self.pos(s.end));
        let lines_ok = a.starts_with(&format!("{}:", s.line))
            && (s.end == s.start
                || self
                    .pos(s.end.saturating_sub(1))
                    .starts_with(&format!("{}:", s.end_line)));
        let bad = if lines_ok { "" } else { " (lines disagree)" };
        format!("{a}-{b}{bad}")
    }

    /// The first line of a span's text, cut at 60 bytes.
    fn head(&self, s: Span) -> String {
        let t = self.src.get(s.start..s.end).unwrap_or("<out of range>");
        cut(t.lines().next().unwrap_or(""), 60, false)
    }

    /// `L:C-L:C `first line…` in FILE`.
    fn located(&self, s: Span, file: &str) -> String {
        format!("{} `{}` in {file}", self.span(s), self.head(s))
    }

    /// An insertion point with up to 16 bytes of its line on each side: `a {|x = 1;`.
    fn point(&self, off: usize) -> String {
        let Some((before, after)) = self.src.get(..off).zip(self.src.get(off..)) else {
            return format!("{off} <out of range>");
        };
        let before = cut(before.rsplit('\n').next().unwrap_or(""), 16, true);
        let after = cut(after.split('\n').next().unwrap_or(""), 16, false);
        format!("{} `{before}|{after}`", self.pos(off))
    }
}

/// At most `n` bytes of `s` (on a char boundary), from its end when `tail`.
fn cut(s: &str, n: usize, tail: bool) -> String {
    let s = s.trim_end_matches('\r');
    if s.len() <= n {
        return s.to_string();
    }
    let mut i = if tail { s.len() - n } else { n };
    while !s.is_char_boundary(i) {
        i = if tail { i + 1 } else { i - 1 };
    }
    if tail {
        format!("…{}", &s[i..])
    } else {
        format!("{}…", &s[..i])
    }
}

/// ` a b c`: each word after a space.
fn words<'a>(ws: impl Iterator<Item = &'a str>) -> String {
    ws.map(|w| format!(" {w}")).collect()
}

fn list(name: &str, xs: &[String]) -> String {
    if xs.is_empty() {
        String::new()
    } else {
        format!(" {name} [{}]", xs.join(", "))
    }
}

fn class(out: &mut String, at: &Locator, c: &ClassDecl) {
    let flags = [
        (c.is_abstract, "abstract"),
        (c.is_static, "static"),
        (c.is_local, "local"),
    ];
    let flags = words(flags.iter().filter(|(on, _)| *on).map(|(_, f)| *f));
    let _ = writeln!(out, "{:?} {} (name {}){}", c.kind, c.qname, c.name, flags);
    let _ = writeln!(out, "  at {}", at.located(c.span, &c.file));
    let members = c.members_at.map_or("-".into(), |o| at.point(o));
    let _ = writeln!(out, "  body {}, members at {members}", at.span(c.body));
    let mut rel = String::new();
    if let Some(o) = &c.outer {
        rel.push_str(&format!(" outer {o}"));
    }
    rel.push_str(&list("supers", &c.supers));
    rel.push_str(&list("interfaces", &c.interfaces));
    rel.push_str(&list("type params", &c.type_params));
    if let Some(s) = &c.specialization {
        rel.push_str(&format!(" specialization {s}"));
    }
    if !rel.is_empty() {
        let _ = writeln!(out, " {rel}");
    }
    let mut facts = list("access", &c.access_labels);
    let bases: Vec<String> = (c.bases_written.iter())
        .map(|b| {
            let v = if b.is_virtual { "virtual " } else { "" };
            let a = b
                .access
                .as_deref()
                .map_or(String::new(), |a| format!("{a} "));
            format!("{v}{a}{}", b.name)
        })
        .collect();
    facts.push_str(&list("bases written", &bases));
    facts.push_str(&list("crtp self casts", &c.crtp_self_casts));
    facts.push_str(&list("data access", &c.data_access));
    if !facts.is_empty() {
        let _ = writeln!(out, " {facts}");
    }
    if let Some(why) = &c.not_annotatable {
        let _ = writeln!(out, "  not annotatable: {why}");
    }
    for f in &c.fields {
        field(out, at, f);
    }
    for m in &c.methods {
        method(out, at, m, "  ");
    }
}

fn ty(t: &TypeRef) -> String {
    let mut s = format!("`{}` {}", t.text, t.name);
    if t.dims > 0 {
        s.push_str(&format!(" dims {}", t.dims));
    }
    if t.pointers > 0 {
        s.push_str(&format!(" ptr {}", t.pointers));
    }
    if t.reference {
        s.push_str(" ref");
    }
    s
}

fn field(out: &mut String, at: &Locator, f: &FieldDecl) {
    let flags = [(f.is_static, "static"), (f.is_final, "final")];
    let flags = words(flags.iter().filter(|(on, _)| *on).map(|(_, f)| *f));
    let _ = writeln!(
        out,
        "  field {}: {}{flags} at {} `{}`",
        f.name,
        ty(&f.ty),
        at.span(f.span),
        at.head(f.span)
    );
}

fn method(out: &mut String, at: &Locator, m: &MethodDecl, ind: &str) {
    let ret = m.ret.as_ref().map_or("-".into(), ty);
    let _ = writeln!(
        out,
        "{ind}{:?} {} -> {ret}{}",
        m.kind,
        m.name,
        words(m.flags.names())
    );
    for p in &m.params {
        let va = if p.varargs { " varargs" } else { "" };
        let _ = writeln!(out, "{ind}  param {}: {}{va}", p.name, ty(&p.ty));
    }
    let _ = writeln!(out, "{ind}  at {}", at.located(m.span, &m.file));
    if let Some(b) = m.body {
        let entry = m.entry.map_or("-".into(), |o| at.point(o));
        let _ = writeln!(out, "{ind}  body {}, entry {entry}", at.span(b));
    }
    if let Some(why) = &m.not_annotatable {
        let _ = writeln!(out, "{ind}  not annotatable: {why}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_keeps_char_boundaries() {
        assert_eq!(cut("abc", 5, false), "abc");
        assert_eq!(cut("aéé", 2, false), "a…");
        assert_eq!(cut("ééa", 2, true), "…a");
    }

    #[test]
    fn positions_are_one_based_byte_columns() {
        let l = Locator::new("ab\ncé{x");
        assert_eq!(l.pos(0), "1:1");
        assert_eq!(l.pos(3), "2:1");
        assert_eq!(l.pos(7), "2:5");
        assert_eq!(l.point(7), "2:5 `cé{|x`");
    }
}
