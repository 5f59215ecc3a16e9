//! Which methods write no state of their receiver (instance or static fields of their class,
//! inherited ones, or anything reached through them): the only methods whose calls a pool
//! may run at once, since no call then depends on what an earlier one left behind. Decided
//! from the body's effects the front ends record; anything unknown counts as a write.

use crate::instrument::model::{ClassDecl, MethodDecl};

/// For each method of `c` (in order): true when it provably writes no state of its receiver.
pub fn stateless(c: &ClassDecl) -> Vec<bool> {
    let fields: Vec<&str> = c.fields.iter().map(|f| f.name.as_str()).collect();
    // Unqualified calls to names the class does not define may reach inherited methods
    // (bases, an enclosing class's) that write state.
    let may_inherit = !c.supers.is_empty() || c.outer.is_some();
    let mut ok: Vec<bool> = c
        .methods
        .iter()
        .map(|m| writes_nothing(m, &fields, c, may_inherit))
        .collect();
    // A method is only as stateless as the own methods it calls (any overload).
    loop {
        let mut changed = false;
        for (i, m) in c.methods.iter().enumerate() {
            if !ok[i] {
                continue;
            }
            let calls = m.effects.as_ref().map_or(&[][..], |e| &e.calls[..]);
            let bad = calls.iter().any(|call| {
                let name = own_name(call, c);
                c.methods
                    .iter()
                    .zip(&ok)
                    .any(|(o, &good)| !good && Some(o.name.as_str()) == name)
            });
            if bad {
                ok[i] = false;
                changed = true;
            }
        }
        if !changed {
            return ok;
        }
    }
}

/// `f` or `Class::f` of the own class → `f`; `None` for another's.
fn own_name<'a>(call: &'a str, c: &ClassDecl) -> Option<&'a str> {
    match call.rsplit_once("::") {
        Some((q, f)) if q == c.name || q == c.qname => Some(f),
        Some(_) => None,
        None => Some(call),
    }
}

fn writes_nothing(m: &MethodDecl, fields: &[&str], c: &ClassDecl, may_inherit: bool) -> bool {
    let Some(e) = &m.effects else {
        return false;
    };
    if e.this_escapes {
        return false;
    }
    let local = |r: &str| {
        !fields.contains(&r)
            && (m.params.iter().any(|p| p.name == r) || e.locals.iter().any(|l| l == r))
    };
    // A place is state unless rooted in a local: `this…`, `Class.x`, a field, or a name
    // declared nowhere in the body (inherited field, global).
    let state = |r: &str| r == "this" || r.contains('.') || !local(r);
    if e.writes.iter().any(|r| state(r)) {
        return false;
    }
    // Passed to a call: a field, or an undeclared name that may be an inherited field (a
    // global passed, such as a constant, is not the receiver's).
    let passed_state = |r: &str| {
        r == "this" || r.starts_with("this.") || fields.contains(&r) || (may_inherit && !local(r))
    };
    if e.passed.iter().any(|r| passed_state(r)) {
        return false;
    }
    // A method called on a field may change it; a capitalised undeclared name is a class
    // (a static call such as `Math.max`).
    let receiver_state = |r: &str| (fields.contains(&r) || !is_class_name(r)) && state(r);
    if e.receivers.iter().any(|r| receiver_state(r)) {
        return false;
    }
    let own = |name: &str| c.methods.iter().any(|o| o.name == name);
    !e.calls.iter().any(|call| match own_name(call, c) {
        Some(name) if own(name) => false, // settled by the fixpoint
        // A bare name the class does not define: inherited (unknown) or a free function
        // / local lambda.
        Some(name) => may_inherit && !local(name),
        None => false,
    })
}

fn is_class_name(r: &str) -> bool {
    !r.contains('.') && r.starts_with(|c: char| c.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instrument::frontend::Frontend;
    use crate::instrument::model::FileModel;

    fn java(src: &str) -> FileModel {
        crate::instrument::frontend::java::JavaFrontend.parse(
            "src/T.java",
            src,
            &Default::default(),
        )
    }
    fn cpp(src: &str) -> FileModel {
        crate::instrument::frontend::cpp::CppFrontend.parse("t.cpp", src, &Default::default())
    }
    /// The methods of class `name` that write no state, by name.
    fn stateless_of(m: &FileModel, name: &str) -> Vec<String> {
        let c = m.classes.iter().find(|c| c.name == name).unwrap();
        c.methods
            .iter()
            .zip(stateless(c))
            .filter(|(_, s)| *s)
            .map(|(x, _)| x.name.clone())
            .collect()
    }

    #[test]
    fn java_writes_of_own_fields_make_a_method_stateful() {
        let m = java(
            "import java.util.*;
class A {
    int n; static int count; int[] slots = new int[4]; List<Integer> seen = new ArrayList<>();
    final int rounds = 3;
    void assign(int x) { this.n = x; }
    void bare(int x) { n = x; }
    void inc() { n++; }
    void pre() { ++n; }
    void compound(int x) { n += x; }
    void statics() { A.count++; }
    void element(int i) { slots[i] = 1; }
    void call(int x) { seen.add(x); }
    void escape() { B.register(this); }
    void helper() { bare(1); }
    void thisHelper() { this.inc(); }
    void shadow(int n) { n = 2; }
    long pure(int x) { long h = x; for (int r = 0; r < rounds; r++) { h = h * 31 + slots[r]; } return Math.max(h, 0); }
    long viaPure(int x) { return pure(x) + 1; }
    int get() { return n; }
    void lambda() { Runnable r = () -> { int k = 0; k++; }; r.run(); }
}
class B { static void register(A a) { } }
class C extends A { void inherited() { n = 1; } void unknown() { helper(); } }",
        );
        assert_eq!(
            stateless_of(&m, "A"),
            vec!["pure", "viaPure", "get", "lambda"]
        );
        assert!(stateless_of(&m, "C").is_empty());
    }

    #[test]
    fn cpp_writes_and_calls_on_own_fields_make_a_method_stateful() {
        let m = cpp("#include <vector>
#include <utility>
struct Block { int w[4]; };
void mix(int* w, int key);
class W {
 public:
  void assign(int x) { x_ = x; }
  void arrow(int x) { this->x_ = x; }
  void inc() { ++n_; }
  void post() { n_--; }
  void push(int x) { v_.push_back(x); }
  void swapped(int y) { std::swap(x_, y); }
  void escape() { keep(this); }
  void helper() { inc(); }
  int get() const { return x_ + n_; }
  Block make(int seed) const { Block b; b.w[0] = seed + x_; mix(b.w, seed); return b; }
  int viaMake(int s) { return make(s).w[0]; }
  static void keep(W* w);
 private:
  int x_ = 0;
  int n_ = 0;
  std::vector<int> v_;
};
class D : public W { public: void unknown() { reset(); } };");
        assert_eq!(stateless_of(&m, "W"), vec!["get", "make", "viaMake"]);
        assert!(stateless_of(&m, "D").is_empty());
    }

    #[test]
    fn a_body_that_does_not_parse_is_stateful() {
        let m = java("class A { int n; int f(int x) { return x + ; } }");
        assert!(stateless_of(&m, "A").is_empty());
    }
}
