//! What a method body may change, as written: the facts `saf::build` needs to tell whether
//! a method writes state of its receiver (a method pool is only valid for calls that do not
//! depend on each other). Syntax only: names are resolved against the class's fields later.

use tree_sitter::Node;

use crate::instrument::model::{BodyEffects, Lang};

/// The effects of one body; `None` when the body has syntax errors (unknown = stateful).
pub fn of_body(lang: Lang, body: Node, src: &str) -> Option<BodyEffects> {
    if body.has_error() {
        return None;
    }
    let mut e = BodyEffects::default();
    let mut blocking = super::blocking::Blocking::default();
    let mut cur = body.walk();
    loop {
        visit(lang, cur.node(), src, &mut e);
        blocking.visit(lang, cur.node(), src);
        if cur.goto_first_child() {
            continue;
        }
        while !cur.goto_next_sibling() {
            if !cur.goto_parent() || cur.node() == body {
                for v in [
                    &mut e.writes,
                    &mut e.passed,
                    &mut e.receivers,
                    &mut e.locals,
                    &mut e.calls,
                ] {
                    v.sort();
                    v.dedup();
                }
                e.blocks = blocking.finish(lang);
                return Some(e);
            }
        }
    }
}

fn text<'s>(n: Node, src: &'s str) -> &'s str {
    n.utf8_text(src.as_bytes()).unwrap_or("")
}

/// One node's contribution.
fn visit(lang: Lang, n: Node, src: &str, e: &mut BodyEffects) {
    let f = |name: &str| n.child_by_field_name(name);
    match n.kind() {
        "assignment_expression" => e.writes.extend(f("left").and_then(|l| root(l, src))),
        "update_expression" => {
            let operand = f("argument").or_else(|| n.named_child(0));
            e.writes.extend(operand.and_then(|x| root(x, src)));
        }
        // A bare name or member passed to a call may be changed there (a C++ reference, a
        // Java object).
        "argument_list" => {
            let mut c = n.walk();
            for a in n.named_children(&mut c) {
                if is_place(a) {
                    e.passed.extend(root(a, src));
                }
            }
        }
        "method_invocation" => match f("object") {
            None => e.calls.extend(f("name").map(|x| text(x, src).to_string())),
            Some(o) if o.kind() == "this" => {
                e.calls.extend(f("name").map(|x| text(x, src).to_string()))
            }
            Some(o) if o.kind() == "super" => e.this_escapes = true,
            Some(o) => e.receivers.extend(root(o, src)),
        },
        "call_expression" => match f("function") {
            Some(x) if x.kind() == "identifier" => e.calls.push(text(x, src).to_string()),
            Some(x) if x.kind() == "field_expression" => {
                match (
                    x.child_by_field_name("argument"),
                    x.child_by_field_name("field"),
                ) {
                    (Some(a), Some(m)) if a.kind() == "this" => {
                        e.calls.push(text(m, src).to_string())
                    }
                    (Some(a), _) => e.receivers.extend(root(a, src)),
                    _ => e.this_escapes = true,
                }
            }
            // `ns::f(…)`, `Class::f(…)`, templates: the qualified name, resolved later.
            Some(x) => e.calls.push(text(x, src).to_string()),
            None => {}
        },
        "this" => {
            // Anything but `this.x` / `this->x` / `this.m()` lets the object out.
            let p = n.parent();
            let member = p.is_some_and(|p| {
                matches!(
                    p.kind(),
                    "field_access" | "method_invocation" | "field_expression"
                ) && p.named_child(0) == Some(n)
            });
            if !member {
                e.this_escapes = true;
            }
        }
        _ => declared(lang, n, src, e),
    }
}

/// Names declared in the body (locals, lambda and catch parameters, loop variables).
fn declared(lang: Lang, n: Node, src: &str, e: &mut BodyEffects) {
    let name = match (lang, n.kind()) {
        (
            Lang::Java,
            "variable_declarator" | "formal_parameter" | "catch_formal_parameter" | "resource",
        ) => n.child_by_field_name("name"),
        (Lang::Java, "enhanced_for_statement") => n.child_by_field_name("name"),
        (Lang::Java, "lambda_expression") => n
            .child_by_field_name("parameters")
            .filter(|p| p.kind() == "identifier"),
        (Lang::Java, "inferred_parameters") => {
            let mut c = n.walk();
            for p in n.named_children(&mut c) {
                e.locals.push(text(p, src).to_string());
            }
            None
        }
        (
            Lang::Cpp,
            "declaration"
            | "parameter_declaration"
            | "optional_parameter_declaration"
            | "for_range_loop"
            | "init_declarator",
        ) => n
            .child_by_field_name("declarator")
            .and_then(declarator_name),
        _ => None,
    };
    e.locals.extend(name.map(|x| text(x, src).to_string()));
}

/// The identifier a C++ declarator declares (`*p`, `&r`, `a[4]`, `x = 1`).
fn declarator_name(mut d: Node) -> Option<Node> {
    for _ in 0..16 {
        match d.kind() {
            "identifier" => return Some(d),
            "init_declarator"
            | "pointer_declarator"
            | "reference_declarator"
            | "array_declarator" => d = d.child_by_field_name("declarator").or(d.named_child(0))?,
            _ => return None,
        }
    }
    None
}

/// An expression that names a place (something that can be changed), not a value.
fn is_place(n: Node) -> bool {
    matches!(
        n.kind(),
        "identifier"
            | "field_access"
            | "field_expression"
            | "array_access"
            | "subscript_expression"
            | "pointer_expression"
            | "this"
    )
}

/// The root of a place: `x` for `x`, `x.a[i]`, `*x`; `this.x` for `this.x` / `this->x`;
/// `this` when the place is reached through a call's result (which may be the receiver's
/// own state); `Class.x` for a qualified name; `None` for a fresh value.
fn root(n: Node, src: &str) -> Option<String> {
    let mut n = n;
    for _ in 0..64 {
        let next = match n.kind() {
            "identifier" => return Some(text(n, src).to_string()),
            "this" => return Some("this".into()),
            "qualified_identifier" | "scoped_identifier" => {
                return Some(text(n, src).replace("::", "."))
            }
            "field_access" | "field_expression" => {
                let obj = n
                    .child_by_field_name("object")
                    .or(n.child_by_field_name("argument"))?;
                if obj.kind() == "this" {
                    let field = n.child_by_field_name("field")?;
                    return Some(format!("this.{}", text(field, src)));
                }
                if obj.kind() == "identifier" {
                    let first = text(obj, src);
                    // `Class.x`: a static field, kept qualified.
                    if first.starts_with(|c: char| c.is_ascii_uppercase()) {
                        let field = n.child_by_field_name("field")?;
                        return Some(format!("{first}.{}", text(field, src)));
                    }
                }
                obj
            }
            "array_access" => n.child_by_field_name("array")?,
            "subscript_expression" | "pointer_expression" => n.child_by_field_name("argument")?,
            "parenthesized_expression" | "cast_expression" => n
                .child_by_field_name("value")
                .or(n.named_child(n.named_child_count().saturating_sub(1)))?,
            "method_invocation" | "call_expression" => return Some("this".into()),
            _ => return None,
        };
        n = next;
    }
    Some("this".into())
}
