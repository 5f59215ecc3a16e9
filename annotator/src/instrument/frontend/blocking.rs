//! Where a method body may block, as written: calls whose names the language's standard
//! library gives to waiting (a monitor's `wait`, a thread's `join`, a blocking queue's
//! `take`/`put`, a future's `get`, a mutex's `lock`, a condition variable's `wait`) and
//! `synchronized` blocks. Syntax only, so a name is matched with its arity, and `get` only
//! on a variable the body declares as a future: the analysis names what a method that spent
//! its time off the CPU was waiting on, and a wrong name there would mislead. A Java
//! `take()`/`put(x)` counts only on a queue: its receiver's declared type is noted here when
//! the body declares it (`BlockingQueue.take via q: LinkedBlockingQueue`), else its name
//! (`BlockingQueue.take via q`, a parameter or field), and `saf::build` keeps it when that
//! type is a `java.util.concurrent` blocking queue or a project class extending one.

use tree_sitter::Node;

use crate::instrument::model::Lang;

/// A monitor's wait (`wait()`, `x.wait(ms)`): `wait` is final in `Object`.
pub const OBJECT_WAIT: &str = "Object.wait";
pub const THREAD_JOIN: &str = "Thread.join";
pub const QUEUE_TAKE: &str = "BlockingQueue.take";
pub const QUEUE_PUT: &str = "BlockingQueue.put";
/// Between a queue call's name and its receiver's, in a body's `blocks` (see the top).
pub(crate) const VIA: &str = " via ";
/// `java.util.concurrent`'s interfaces and classes with a blocking `take`/`put`.
pub(crate) const QUEUE_TYPES: [&str; 10] = [
    "BlockingQueue",
    "BlockingDeque",
    "TransferQueue",
    "ArrayBlockingQueue",
    "LinkedBlockingQueue",
    "LinkedBlockingDeque",
    "PriorityBlockingQueue",
    "DelayQueue",
    "SynchronousQueue",
    "LinkedTransferQueue",
];
pub const FUTURE_GET: &str = "Future.get";
/// A `synchronized` block or method: entering the monitor may wait for its holder.
pub const SYNCHRONIZED: &str = "synchronized";
pub const MUTEX_LOCK: &str = "std::mutex::lock";
pub const CONDITION_WAIT: &str = "std::condition_variable::wait";
pub const STD_THREAD_JOIN: &str = "std::thread::join";
pub const STD_FUTURE_GET: &str = "std::future::get";

/// What one body blocks on, gathered node by node.
#[derive(Default)]
pub struct Blocking {
    found: Vec<&'static str>,
    /// Variables the body declares with a future type.
    futures: Vec<String>,
    /// Receivers of `x.get()`: blocking when `x` is one of `futures`.
    gets: Vec<String>,
    /// Java variables the body declares, with their types as written ("" when inferred).
    locals: Vec<(String, String)>,
    /// `take`/`put` calls: the name, the receiver's name, and whether it is `this.x`.
    queue_calls: Vec<(&'static str, String, bool)>,
}

impl Blocking {
    /// One node's contribution.
    pub fn visit(&mut self, lang: Lang, n: Node, src: &str) {
        match (lang, n.kind()) {
            (Lang::Java, "method_invocation") => self.java_call(n, src),
            (Lang::Java, "synchronized_statement") => self.found.push(SYNCHRONIZED),
            (Lang::Java, "local_variable_declaration") => {
                self.declared(n, src, "Future");
                self.java_local(n, src);
            }
            (Lang::Java, "enhanced_for_statement" | "formal_parameter") => self.java_local(n, src),
            (Lang::Java, "inferred_parameters") => {
                let mut c = n.walk();
                let names: Vec<String> = n
                    .named_children(&mut c)
                    .map(|p| text(p, src).to_string())
                    .collect();
                self.locals
                    .extend(names.into_iter().map(|x| (x, String::new())));
            }
            (Lang::Java, "lambda_expression") => {
                if let Some(p) = n
                    .child_by_field_name("parameters")
                    .filter(|p| p.kind() == "identifier")
                {
                    self.locals.push((text(p, src).to_string(), String::new()));
                }
            }
            (Lang::Cpp, "call_expression") => self.cpp_call(n, src),
            (Lang::Cpp, "declaration") => {
                let ty = n.child_by_field_name("type").map_or("", |t| text(t, src));
                if ["lock_guard", "unique_lock", "scoped_lock"]
                    .iter()
                    .any(|l| ty.contains(l))
                {
                    self.found.push(MUTEX_LOCK);
                }
                self.declared(n, src, "future");
            }
            _ => {}
        }
    }

    /// The names found, sorted and deduplicated.
    pub fn finish(mut self, lang: Lang) -> Vec<String> {
        if self.gets.iter().any(|g| self.futures.contains(g)) {
            self.found.push(match lang {
                Lang::Java => FUTURE_GET,
                Lang::Cpp => STD_FUTURE_GET,
            });
        }
        let mut v: Vec<String> = self.found.iter().map(|s| s.to_string()).collect();
        for (call, name, this) in &self.queue_calls {
            let local = (!this)
                .then(|| self.locals.iter().rev().find(|(l, _)| l == name))
                .flatten();
            v.push(match local {
                Some((_, ty)) => format!("{call}{VIA}{name}: {ty}"),
                None => format!("{call}{VIA}{name}"),
            });
        }
        v.sort();
        v.dedup();
        v
    }

    fn java_call(&mut self, n: Node, src: &str) {
        let (Some(name), args) = (n.child_by_field_name("name"), arity(n)) else {
            return;
        };
        let object = n.child_by_field_name("object");
        let on_value = object.is_some_and(|o| !is_type_name(o, src));
        let found = match (text(name, src), args) {
            ("wait", 0..=2) => OBJECT_WAIT,
            ("join", 0..=2) if on_value => THREAD_JOIN,
            ("take", 0) if on_value => return self.queue_call(QUEUE_TAKE, object, src),
            ("put", 1) if on_value => return self.queue_call(QUEUE_PUT, object, src),
            ("get", 0 | 2) if on_value => return self.get_on(object, src),
            _ => return,
        };
        self.found.push(found);
    }

    /// `q.take()` / `this.q.put(x)`: noted with the receiver's name; another receiver (a
    /// call's result, `a.b`) has a type the syntax cannot tell, so it names nothing.
    fn queue_call(&mut self, call: &'static str, object: Option<Node>, src: &str) {
        let Some(o) = object else { return };
        let this_field = o.kind() == "field_access"
            && o.child_by_field_name("object")
                .is_some_and(|x| x.kind() == "this");
        let name = match o.kind() {
            "identifier" => o,
            _ if this_field => match o.child_by_field_name("field") {
                Some(f) => f,
                None => return,
            },
            _ => return,
        };
        self.queue_calls
            .push((call, text(name, src).to_string(), this_field));
    }

    /// A Java local, loop variable or lambda parameter, with its type as written.
    fn java_local(&mut self, n: Node, src: &str) {
        let ty = n.child_by_field_name("type").map_or("", |t| text(t, src));
        if let Some(name) = n.child_by_field_name("name") {
            self.locals
                .push((text(name, src).to_string(), ty.to_string()));
        }
        let mut c = n.walk();
        for d in n.children_by_field_name("declarator", &mut c) {
            if let Some(name) = d.child_by_field_name("name") {
                self.locals
                    .push((text(name, src).to_string(), ty.to_string()));
            }
        }
    }

    fn cpp_call(&mut self, n: Node, src: &str) {
        let args = arity(n);
        let Some(f) = n.child_by_field_name("function") else {
            return;
        };
        if f.kind() != "field_expression" {
            // `std::lock(a, b)` locks both.
            if matches!(text(f, src), "std::lock" | "lock") && args >= 2 {
                self.found.push(MUTEX_LOCK);
            }
            return;
        }
        let Some(field) = f.child_by_field_name("field") else {
            return;
        };
        let found = match (text(field, src), args) {
            ("lock", 0) => MUTEX_LOCK,
            ("wait" | "wait_for" | "wait_until", 1..=3) => CONDITION_WAIT,
            ("join", 0) => STD_THREAD_JOIN,
            ("get", 0) => return self.get_on(f.child_by_field_name("argument"), src),
            _ => return,
        };
        self.found.push(found);
    }

    /// `x.get()`: a future's when `x` is declared one, or is `std::async(…)` itself.
    fn get_on(&mut self, object: Option<Node>, src: &str) {
        let Some(o) = object else { return };
        match o.kind() {
            "identifier" => self.gets.push(text(o, src).to_string()),
            "call_expression" if text(o, src).contains("async") => self.found.push(STD_FUTURE_GET),
            _ => {}
        }
    }

    /// Names a declaration declares when its type's text holds `future`.
    fn declared(&mut self, n: Node, src: &str, future: &str) {
        let ty = n.child_by_field_name("type").map_or("", |t| text(t, src));
        if !ty.contains(future) {
            return;
        }
        let mut c = n.walk();
        for d in n.children_by_field_name("declarator", &mut c) {
            let name = d.child_by_field_name("name").or_else(|| {
                // C++: `std::future<int> f = …` / `f(…)`: the declarator's own declarator.
                let mut x = d;
                while let Some(inner) = x.child_by_field_name("declarator") {
                    x = inner;
                }
                (x.kind() == "identifier").then_some(x)
            });
            self.futures.extend(name.map(|x| text(x, src).to_string()));
        }
    }
}

fn text<'s>(n: Node, src: &'s str) -> &'s str {
    n.utf8_text(src.as_bytes()).unwrap_or("")
}

/// The number of arguments of a call.
fn arity(n: Node) -> usize {
    n.child_by_field_name("arguments")
        .map_or(0, |a| a.named_child_count())
}

/// `String` in `String.join(…)`: a class, so the call is static (Java's naming convention).
fn is_type_name(o: Node, src: &str) -> bool {
    o.kind() == "identifier" && text(o, src).starts_with(|c: char| c.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use crate::instrument::frontend::Frontend;
    use crate::instrument::frontend::{cpp::CppFrontend, java::JavaFrontend};
    use crate::instrument::model::FileModel;

    /// Each method's blocks, by method name.
    fn blocks(m: &FileModel) -> Vec<(String, Vec<String>)> {
        m.classes
            .iter()
            .flat_map(|c| &c.methods)
            .map(|x| (x.name.clone(), x.effects.clone().unwrap_or_default().blocks))
            .collect()
    }

    fn want(v: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
        v.iter()
            .map(|(n, b)| (n.to_string(), b.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    #[test]
    fn java_blocking_calls_are_named_and_look_alikes_are_not() {
        let src = r#"
import java.util.*;
import java.util.concurrent.*;
class C {
    Object take() throws InterruptedException { while (q.isEmpty()) wait(); return q.poll(); }
    void put(Object o) throws InterruptedException { queue.put(o); lock.wait(10); }
    void both(Thread t) throws Exception { t.join(); Object x = queue.take(); synchronized (this) { n++; } }
    int fut(ExecutorService e) throws Exception { Future<Integer> f = e.submit(() -> 1); return f.get(); }
    String alike(Map<String, String> m, Optional<String> o) { m.put("a", "b"); o.get(); return String.join(",", "a", "b"); }
}
"#;
        let m = JavaFrontend.parse("src/C.java", src, &Default::default());
        assert_eq!(
            blocks(&m),
            want(&[
                ("take", &["Object.wait"]),
                ("put", &["BlockingQueue.put via queue", "Object.wait"]),
                (
                    "both",
                    &[
                        "BlockingQueue.take via queue",
                        "Thread.join",
                        "synchronized"
                    ]
                ),
                ("fut", &["Future.get"]),
                ("alike", &[]),
            ])
        );
    }

    #[test]
    fn cpp_blocking_calls_are_named_and_look_alikes_are_not() {
        let src = r#"
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
class C {
public:
    int take() { std::unique_lock<std::mutex> l(m_); cv_.wait(l, [this] { return n_ > 0; }); return --n_; }
    void add() { m_.lock(); ++n_; m_.unlock(); }
    void guard() { std::lock_guard<std::mutex> g(m_); ++n_; }
    int finish(std::thread& t) { t.join(); std::future<int> f = std::async([] { return 1; }); return f.get(); }
    int alike(std::unique_ptr<int>& p) { return *p.get(); }
private:
    std::mutex m_;
    std::condition_variable cv_;
    int n_ = 0;
};
"#;
        let m = CppFrontend.parse("c.cpp", src, &Default::default());
        assert_eq!(
            blocks(&m),
            want(&[
                (
                    "take",
                    &["std::condition_variable::wait", "std::mutex::lock"]
                ),
                ("add", &["std::mutex::lock"]),
                ("guard", &["std::mutex::lock"]),
                ("finish", &["std::future::get", "std::thread::join"]),
                ("alike", &[]),
            ])
        );
    }
}
