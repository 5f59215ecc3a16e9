//! A direct TOML writer for the SAF. The generic serializer spent more time than parsing the
//! whole corpus; this one writes the same document (read back by serde, see the round-trip
//! test) in a single pass.

use std::fmt::Write as _;

use super::*;

fn esc(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

struct W(String);

impl W {
    fn str(&mut self, k: &str, v: &str) {
        self.0.push_str(k);
        self.0.push_str(" = ");
        esc(&mut self.0, v);
        self.0.push('\n');
    }
    fn opt(&mut self, k: &str, v: &Option<String>) {
        if let Some(v) = v {
            self.str(k, v);
        }
    }
    fn num(&mut self, k: &str, v: impl std::fmt::Display) {
        let _ = writeln!(self.0, "{k} = {v}");
    }
    fn nonzero(&mut self, k: &str, v: u32) {
        if v != 0 {
            self.num(k, v);
        }
    }
    fn flag(&mut self, k: &str, v: bool) {
        let _ = writeln!(self.0, "{k} = {v}");
    }
    fn list(&mut self, k: &str, v: &[String]) {
        self.0.push_str(k);
        self.0.push_str(" = [");
        for (i, s) in v.iter().enumerate() {
            if i > 0 {
                self.0.push_str(", ");
            }
            esc(&mut self.0, s);
        }
        self.0.push_str("]\n");
    }
    /// Inline tables: `bases_written = [{ name = "B<T>", virtual = true, access = "public" }]`.
    fn bases(&mut self, v: &[SafBase]) {
        self.0.push_str("bases_written = [");
        for (i, b) in v.iter().enumerate() {
            self.0
                .push_str(if i > 0 { ", { name = " } else { "{ name = " });
            esc(&mut self.0, &b.name);
            if b.is_virtual {
                self.0.push_str(", virtual = true");
            }
            if let Some(a) = &b.access {
                self.0.push_str(", access = ");
                esc(&mut self.0, a);
            }
            self.0.push_str(" }");
        }
        self.0.push_str("]\n");
    }
    fn lines(&mut self, l: [u32; 2]) {
        let _ = writeln!(self.0, "lines = [{}, {}]", l[0], l[1]);
    }
}

fn lang(l: Lang) -> &'static str {
    l.spec().name
}

fn ser_name<T: Serialize>(v: &T) -> String {
    // Enum names come from their serde renames so the two writers cannot disagree.
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

pub(super) fn to_toml(saf: &Saf) -> String {
    let mut w = W(String::with_capacity(256 * (saf.classes.len() + 16)));
    w.0.push_str(
        "# Revy static artifacts file (SAF). Written by `revy parse`; you may flip\n\
         # `selected` flags by hand before `revy annotate`.\n",
    );
    w.num("version", saf.version);
    w.str("project", &saf.project);
    if !saf.problems.is_empty() {
        w.list("problems", &saf.problems);
    }
    w.0.push_str("\n[sizes]\n");
    w.num("system", saf.sizes.system);
    w.num("pointer", saf.sizes.pointer);
    w.num("collection_sample", saf.sizes.collection_sample);
    for f in &saf.files {
        w.0.push_str("\n[[files]]\n");
        w.str("path", &f.path);
        w.str("lang", lang(f.lang));
        w.str("sha256", &f.sha256);
        w.num("lines", f.lines);
        if !f.layout_uses.is_empty() {
            w.list("layout_uses", &f.layout_uses);
        }
    }
    for t in &saf.types {
        w.0.push_str("\n[[types]]\n");
        w.str("name", &t.name);
        w.str("lang", lang(t.lang));
        w.str("kind", &ser_name(&t.kind));
        w.num("size", t.size);
    }
    for c in &saf.classes {
        class(&mut w, c);
    }
    w.0
}

fn class(w: &mut W, c: &SafClass) {
    w.0.push_str("\n[[classes]]\n");
    w.num("id", c.id);
    w.str("qname", &c.qname);
    w.str("name", &c.name);
    w.str("lang", lang(c.lang));
    w.str("kind", &ser_name(&c.kind));
    w.flag("abstract", c.is_abstract);
    w.opt("outer", &c.outer);
    if c.local {
        w.flag("local", true);
    }
    if c.is_inner {
        w.flag("inner", true);
    }
    w.list("supers", &c.supers);
    if !c.interfaces.is_empty() {
        w.list("interfaces", &c.interfaces);
    }
    if !c.type_params.is_empty() {
        w.list("type_params", &c.type_params);
    }
    w.opt("specialization", &c.specialization);
    if !c.access.is_empty() {
        w.list("access", &c.access);
    }
    if !c.data_access.is_empty() {
        w.list("data_access", &c.data_access);
    }
    if !c.bases_written.is_empty() {
        w.bases(&c.bases_written);
    }
    if !c.crtp_self_casts.is_empty() {
        w.list("crtp_self_casts", &c.crtp_self_casts);
    }
    w.str("file", &c.file);
    w.lines(c.lines);
    w.num("static_size", c.static_size);
    w.flag("selected", c.selected);
    w.flag("annotatable", c.annotatable);
    w.opt("reason", &c.reason);
    for f in &c.fields {
        w.0.push_str("\n[[classes.fields]]\n");
        w.str("name", &f.name);
        w.str("type", &f.ty);
        w.num("dim", f.dim);
        w.nonzero("pointers", f.pointers);
        w.flag("static", f.is_static);
        w.flag("final", f.is_final);
    }
    for m in &c.methods {
        method(w, m);
    }
}

fn method(w: &mut W, m: &SafMethod) {
    w.0.push_str("\n[[classes.methods]]\n");
    w.num("id", m.id);
    w.str("name", &m.name);
    w.str("kind", &ser_name(&m.kind));
    w.str("sgn", &m.sgn);
    w.opt("ret", &m.ret);
    w.nonzero("ret_dim", m.ret_dim);
    w.flag("static", m.is_static);
    w.flag("abstract", m.is_abstract);
    if !m.modifiers.is_empty() {
        w.list("modifiers", &m.modifiers);
    }
    w.str("file", &m.file);
    w.lines(m.lines);
    w.flag("has_body", m.has_body);
    if m.stateless {
        w.flag("stateless", true);
    }
    if !m.blocks.is_empty() {
        w.list("blocks", &m.blocks);
    }
    w.flag("selected", m.selected);
    w.flag("annotatable", m.annotatable);
    w.opt("reason", &m.reason);
    for p in &m.params {
        w.0.push_str("\n[[classes.methods.params]]\n");
        w.str("name", &p.name);
        w.str("type", &p.ty);
        w.num("dim", p.dim);
        w.nonzero("pointers", p.pointers);
        if p.reference {
            w.flag("reference", true);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::instrument::manifest::Manifest;

    #[test]
    fn emitted_toml_reads_back_identically() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/saf");
        for fixture in ["java-constructs", "cpp-constructs", "java-errors"] {
            let m = Manifest::load(&dir.join(fixture).join("revy.toml")).unwrap();
            let project = crate::instrument::project::load(&m).unwrap();
            let saf = crate::instrument::saf::build::build(&m, &project);
            let text = saf.to_toml();
            let back =
                crate::instrument::saf::Saf::from_toml(std::path::Path::new("x"), &text).unwrap();
            assert_eq!(back, saf, "{fixture}");
            // Strings with quotes, backslashes and control characters survive.
            let mut odd = saf.clone();
            odd.project = "a\"b\\c\nd\te\u{1}ü".into();
            let back =
                crate::instrument::saf::Saf::from_toml(std::path::Path::new("x"), &odd.to_toml())
                    .unwrap();
            assert_eq!(back.project, odd.project);
        }
    }
}
