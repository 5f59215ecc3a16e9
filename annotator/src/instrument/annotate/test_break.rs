//! A test-only hook of the annotator, used to check that `--verify` withdraws exactly
//! what the compiler rejects.

use super::{Context, FileEdits};
use crate::instrument::edits::Insertion;
use crate::instrument::model::FileModel;

/// The test-only hook: `REVY_TEST_BREAK=Class.method` (or `=Class`, comma-separated) makes
/// the annotator insert code that cannot compile into that method's body (or that class's
/// body), so tests can check that `--verify` withdraws exactly it. Never set it otherwise.
pub const TEST_BREAK_VAR: &str = "REVY_TEST_BREAK";

/// Inserts code that cannot compile into the declarations named by [`TEST_BREAK_VAR`], if
/// they are instrumented in this file (test-only; see the constant).
pub fn test_break(cx: &Context, file: &FileModel, mut fe: FileEdits) -> FileEdits {
    let Ok(targets) = std::env::var(TEST_BREAK_VAR) else {
        return fe;
    };
    let ours = |a: usize, b: usize| fe.insertions.iter().any(|i| a < i.offset && i.offset < b);
    let mut add = Vec::new();
    for t in targets.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        if let Some(c) = file.classes.iter().find(|c| c.qname == t) {
            if cx.selected_class(&c.qname).is_some() && ours(c.body.start, c.body.end) {
                add.push(Insertion::new(
                    c.body.start + 1,
                    " revy_test_break_undeclared_t _rv_break; ",
                ));
            }
            continue;
        }
        let Some((cls, name)) = t.rsplit_once('.') else {
            continue;
        };
        let methods = file
            .classes
            .iter()
            .flat_map(|c| c.methods.iter().map(move |x| (c.qname.as_str(), x)))
            .chain(file.out_of_class.iter().map(|(o, x)| (o.as_str(), x)));
        for (owner, x) in methods.filter(|(o, x)| *o == cls && x.name == name) {
            let Some(body) = x.body else { continue };
            let f = if x.file.is_empty() {
                &file.path
            } else {
                &x.file
            };
            let selected = cx.method(owner, f, x).is_some_and(|s| s.selected);
            if selected && ours(body.start, body.end) {
                add.push(Insertion::new(
                    body.start + 1,
                    " revy_test_break_undeclared(); ",
                ));
            }
        }
    }
    fe.insertions.extend(add);
    fe
}
