use super::*;
use crate::model::ClassDecl;
use crate::model::MethodDecl;
use crate::model::{ClassKind, MethodKind};

fn parse(src: &str) -> FileModel {
    CppFrontend.parse("t.cpp", src)
}

fn class<'m>(m: &'m FileModel, qname: &str) -> &'m ClassDecl {
    m.classes
        .iter()
        .find(|c| c.qname == qname)
        .unwrap_or_else(|| {
            panic!(
                "no class {qname} in {:?}",
                m.classes.iter().map(|c| &c.qname).collect::<Vec<_>>()
            )
        })
}

fn method<'m>(c: &'m ClassDecl, name: &str) -> &'m MethodDecl {
    c.methods
        .iter()
        .find(|x| x.name == name)
        .unwrap_or_else(|| {
            panic!(
                "no method {name} in {}: {:?}",
                c.qname,
                c.methods.iter().map(|x| &x.name).collect::<Vec<_>>()
            )
        })
}

fn names(c: &ClassDecl) -> Vec<&str> {
    c.methods.iter().map(|m| m.name.as_str()).collect()
}

fn text(src: &str, s: Span) -> &str {
    &src[s.start..s.end]
}

#[test]
fn namespaces_nested_qualified_anonymous_inline() {
    let src = "namespace a { namespace b { class X { }; } }\n\
               namespace c::d { struct Y { int v; }; }\n\
               namespace { class Anon { }; }\n\
               namespace e { namespace { class Hidden { }; } inline namespace v1 { class In { }; } }\n\
               class Top { };\n\
               extern \"C\" { struct CS { int q; }; }\n";
    let m = parse(src);
    let q: Vec<&str> = m.classes.iter().map(|c| c.qname.as_str()).collect();
    assert_eq!(
        q,
        [
            "a::b::X",
            "c::d::Y",
            "Anon",
            "e::Hidden",
            "e::In",
            "Top",
            "CS"
        ]
    );
    assert_eq!(class(&m, "c::d::Y").kind, ClassKind::Struct);
    assert_eq!(class(&m, "a::b::X").name, "X");
    assert_eq!(class(&m, "a::b::X").outer, None);
    assert!(m.package.is_none());
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
}

#[test]
fn forward_declarations_are_not_classes_and_nested_classes_are() {
    let src = "class Fwd;\nnamespace bank { class Outer { class Inner { int x; }; struct P { int a; } p; }; }";
    let m = parse(src);
    let q: Vec<&str> = m.classes.iter().map(|c| c.qname.as_str()).collect();
    assert_eq!(q, ["bank::Outer", "bank::Outer::Inner", "bank::Outer::P"]);
    assert_eq!(
        class(&m, "bank::Outer::Inner").outer.as_deref(),
        Some("bank::Outer")
    );
    let outer = class(&m, "bank::Outer");
    assert_eq!(outer.fields.len(), 1);
    assert_eq!(outer.fields[0].name, "p");
    assert_eq!(outer.fields[0].ty.name, "P");
}

#[test]
fn header_and_source_split() {
    let h = "#pragma once\n#include <string>\nnamespace bank {\nclass Account {\npublic:\n  explicit Account(double a);\n  ~Account();\n  double balance() const;\n  static int count();\nprivate:\n  double b;\n  std::string owner;\n};\n}\n";
    let hm = CppFrontend.parse("account.h", h);
    let acc = class(&hm, "bank::Account");
    assert_eq!(names(acc), ["Account", "~Account", "balance", "count"]);
    assert!(acc.methods.iter().all(|m| m.body.is_none()));
    assert_eq!(method(acc, "Account").kind, MethodKind::Constructor);
    assert_eq!(method(acc, "~Account").kind, MethodKind::Destructor);
    assert!(method(acc, "count").flags.is_static);
    assert!(method(acc, "balance").flags.is_const);
    assert_eq!(acc.fields[1].ty.name, "std::string");
    assert_eq!(acc.file, "account.h");

    let cpp = "#include \"account.h\"\n\
               namespace bank {\n\
               double Account::balance() const { return b; }\n\
               Account::~Account() {}\n\
               }\n\
               bank::Account::Account(double a) : b(a) { }\n\
               int bank::Account::count() { static int n = 0; return n; }\n\
               static bool helper() { return true; }\n\
               int main() { return 0; }\n";
    let cm = CppFrontend.parse("account.cpp", cpp);
    assert!(cm.classes.is_empty());
    let owners: Vec<(&str, &str)> = cm
        .out_of_class
        .iter()
        .map(|(o, m)| (o.as_str(), m.name.as_str()))
        .collect();
    assert_eq!(
        owners,
        [
            ("bank::Account", "balance"),
            ("bank::Account", "~Account"),
            ("bank::Account", "Account"),
            ("bank::Account", "count")
        ]
    );
    let (_, bal) = &cm.out_of_class[0];
    assert_eq!(bal.file, "account.cpp");
    assert!(bal.flags.is_const);
    assert_eq!(bal.ret.as_ref().unwrap().name, "double");
    assert_eq!(
        text(cpp, bal.span),
        "double Account::balance() const { return b; }"
    );
    assert_eq!(text(cpp, bal.body.unwrap()), "{ return b; }");
    let (_, ctor) = &cm.out_of_class[2];
    assert_eq!(ctor.kind, MethodKind::Constructor);
    assert_eq!(ctor.ret, None);
    assert_eq!(text(cpp, ctor.body.unwrap()), "{ }");
    assert_eq!(ctor.params[0].name, "a");
    assert_eq!(cm.out_of_class[1].1.kind, MethodKind::Destructor);
}

#[test]
fn out_of_class_templates_operators_and_defaults() {
    let src = "namespace n {\n\
               template<class T> void Box<T>::put(T v) { }\n\
               template<class T> template<class U> U Box<T>::get() const { return U(); }\n\
               Account& Account::operator=(const Account&) = default;\n\
               Account::operator bool() const { return true; }\n\
               bool operator<(const A& x, const A& y) { return true; }\n\
               X::X() try : a(1) { } catch (...) { }\n\
               }\n\
               Y::Y(const Y&) = delete;\n";
    let m = parse(src);
    let got: Vec<(&str, &str, MethodKind)> = m
        .out_of_class
        .iter()
        .map(|(o, x)| (o.as_str(), x.name.as_str(), x.kind))
        .collect();
    assert_eq!(
        got,
        [
            ("n::Box", "put", MethodKind::Method),
            ("n::Box", "get", MethodKind::Method),
            ("n::Account", "operator=", MethodKind::Operator),
            ("n::Account", "operator bool", MethodKind::Conversion),
            ("n::X", "X", MethodKind::Constructor),
            ("Y", "Y", MethodKind::Constructor),
        ]
    );
    let put = &m.out_of_class[0].1;
    assert!(put.flags.is_template);
    assert_eq!(
        text(src, put.span),
        "template<class T> void Box<T>::put(T v) { }"
    );
    assert_eq!(put.params[0].ty.name, "T");
    let get = &m.out_of_class[1].1;
    assert!(get.flags.is_template && get.flags.is_const);
    assert!(text(src, get.span).starts_with("template<class T> template<class U>"));
    assert!(m.out_of_class[2].1.flags.is_defaulted);
    assert_eq!(m.out_of_class[2].1.body, None);
    assert_eq!(m.out_of_class[3].1.ret.as_ref().unwrap().name, "bool");
    let tryb = &m.out_of_class[4].1;
    assert_eq!(tryb.not_annotatable.as_deref(), Some("function-try-block"));
    assert!(m.out_of_class[5].1.flags.is_deleted);
}

#[test]
fn class_template_member_template_and_specialisations() {
    let src = "template<typename T, int N, typename... Ts>\n\
               class Box : public Base<T> {\n\
               public:\n\
               void put(T v) { items[0] = v; }\n\
               template<class U> U as() const { return U(); }\n\
               template<class... As> void emplace(As&&... as) { }\n\
               T items[N];\n\
               };\n\
               template<> class Box<bool> { public: void put(bool b) { } };\n\
               template<class T> class Box<T*> { };\n\
               struct Plain { template<class U> void f(U u) { } void g() { } };\n";
    let m = parse(src);
    let boxes: Vec<&ClassDecl> = m.classes.iter().filter(|c| c.qname == "Box").collect();
    assert_eq!(boxes.len(), 3);
    let primary = boxes[0];
    assert_eq!(
        primary.type_params,
        ["typename T", "int N", "typename... Ts"]
    );
    assert_eq!(primary.specialization, None);
    assert_eq!(primary.supers, ["Base"]);
    assert!(primary.methods.iter().all(|x| x.flags.is_template));
    assert!(text(src, primary.span).starts_with("template<typename T"));
    let emplace = method(primary, "emplace");
    assert!(emplace.params[0].varargs);
    assert!(emplace.params[0].ty.reference);
    assert_eq!(emplace.params[0].ty.name, "As");
    assert_eq!(primary.fields[0].ty.dims, 1);
    let full = boxes[1];
    assert_eq!(full.specialization.as_deref(), Some("<bool>"));
    assert!(full.type_params.is_empty());
    assert!(!method(full, "put").flags.is_template);
    let partial = boxes[2];
    assert_eq!(partial.specialization.as_deref(), Some("<T*>"));
    assert_eq!(partial.type_params, ["class T"]);
    let plain = class(&m, "Plain");
    assert!(method(plain, "f").flags.is_template);
    assert!(!method(plain, "g").flags.is_template);
}

#[test]
fn virtual_pure_override_final_and_multiple_inheritance() {
    let src = "class Shape { public: virtual ~Shape() = default; virtual double area() const = 0; virtual void draw(); };\n\
               class Sq final : public Shape, private std::exception, protected virtual Mixin<int> {\n\
               double area() const override { return 1.0; }\n\
               void draw() final { }\n\
               };\n";
    let m = parse(src);
    let shape = class(&m, "Shape");
    assert!(shape.is_abstract);
    let area = method(shape, "area");
    assert!(area.flags.is_abstract && area.flags.is_virtual && area.flags.is_const);
    assert_eq!(area.body, None);
    let dtor = method(shape, "~Shape");
    assert!(dtor.flags.is_virtual && dtor.flags.is_defaulted && !dtor.flags.is_abstract);
    assert!(method(shape, "draw").flags.is_virtual);
    let sq = class(&m, "Sq");
    assert!(!sq.is_abstract);
    assert_eq!(sq.supers, ["Shape", "std::exception", "Mixin"]);
    assert!(sq.interfaces.is_empty());
    assert!(method(sq, "area").flags.is_override);
    assert!(method(sq, "draw").flags.is_final);
}

#[test]
fn constructors_copy_move_and_assignment() {
    let src = "class A {\n\
               int v;\n\
               public:\n\
               A(int x) : v(x) { }\n\
               A() : A(0) { }\n\
               A(const A&) = default;\n\
               A(A&&) noexcept = delete;\n\
               A& operator=(const A&) = default;\n\
               A& operator=(A&&) = delete;\n\
               };\n";
    let m = parse(src);
    let a = class(&m, "A");
    let ctors: Vec<&MethodDecl> = a
        .methods
        .iter()
        .filter(|x| x.kind == MethodKind::Constructor)
        .collect();
    assert_eq!(ctors.len(), 4);
    assert_eq!(text(src, ctors[0].body.unwrap()), "{ }");
    assert_eq!(text(src, ctors[0].span), "A(int x) : v(x) { }");
    assert_eq!(text(src, ctors[1].span), "A() : A(0) { }");
    assert!(ctors[2].flags.is_defaulted && ctors[2].body.is_none());
    assert_eq!(ctors[2].params[0].ty.text, "const A&");
    assert!(ctors[3].flags.is_deleted && ctors[3].flags.is_noexcept);
    let assigns: Vec<&MethodDecl> = a.methods.iter().filter(|x| x.name == "operator=").collect();
    assert_eq!(assigns.len(), 2);
    assert_eq!(assigns[0].kind, MethodKind::Operator);
    assert!(assigns[0].flags.is_defaulted);
    assert!(assigns[1].flags.is_deleted);
    let r = assigns[0].ret.as_ref().unwrap();
    assert_eq!((r.name.as_str(), r.reference), ("A", true));
}

#[test]
fn operators_friends_and_conversions() {
    let src = "struct V {\n\
               V operator+(const V& o) const { return o; }\n\
               int operator()(int a, int b) { return a + b; }\n\
               bool operator<(const V& o) const;\n\
               explicit operator bool() const { return true; }\n\
               operator const char*() const;\n\
               friend std::ostream& operator<<(std::ostream& os, const V& v) { return os; }\n\
               friend bool operator==(const V&, const V&);\n\
               friend class W;\n\
               };\n";
    let m = parse(src);
    let v = class(&m, "V");
    assert_eq!(
        names(v),
        [
            "operator+",
            "operator()",
            "operator<",
            "operator bool",
            "operator const char*",
            "operator<<"
        ]
    );
    assert_eq!(method(v, "operator+").kind, MethodKind::Operator);
    assert_eq!(method(v, "operator()").params.len(), 2);
    let b = method(v, "operator bool");
    assert_eq!(b.kind, MethodKind::Conversion);
    assert!(b.flags.is_const);
    assert_eq!(b.ret.as_ref().unwrap().name, "bool");
    let cc = method(v, "operator const char*");
    assert_eq!(cc.ret.as_ref().unwrap().pointers, 1);
    let sh = method(v, "operator<<");
    assert_eq!(sh.kind, MethodKind::Operator);
    assert!(sh.flags.is_static);
    assert_eq!(sh.ret.as_ref().unwrap().name, "std::ostream");
    assert!(text(src, sh.span).starts_with("friend std::ostream&"));
    assert_eq!(text(src, sh.body.unwrap()), "{ return os; }");
}

#[test]
fn qualifiers_trailing_return_and_decltype_auto() {
    let src = "class Q {\n\
               [[nodiscard]] int a() const noexcept { return 1; }\n\
               int b() noexcept(false) { return 2; }\n\
               auto c() -> const std::vector<int>& { return v; }\n\
               decltype(auto) d() { return (x); }\n\
               static constexpr int e() { return 3; }\n\
               consteval int f() { return 4; }\n\
               void g() && { }\n\
               void h(void);\n\
               void i(int n, ...);\n\
               };\n";
    let m = parse(src);
    let q = class(&m, "Q");
    let a = method(q, "a");
    assert!(a.flags.is_const && a.flags.is_noexcept);
    assert_eq!(
        text(src, a.span),
        "[[nodiscard]] int a() const noexcept { return 1; }"
    );
    assert!(!method(q, "b").flags.is_noexcept);
    let c = method(q, "c").ret.as_ref().unwrap();
    assert_eq!(
        (c.name.as_str(), c.reference, c.text.as_str()),
        ("std::vector", true, "const std::vector<int>&")
    );
    assert_eq!(method(q, "d").ret.as_ref().unwrap().name, "decltype(auto)");
    let e = method(q, "e");
    assert!(e.flags.is_constexpr && e.flags.is_static);
    assert!(method(q, "f").flags.is_consteval);
    assert!(method(q, "h").params.is_empty());
    let i = method(q, "i");
    assert_eq!(i.params.len(), 2);
    assert!(i.params[1].varargs);
}

#[test]
fn fields_aggregates_and_unions() {
    let src = "struct Agg {\n\
               int a, *b, c[4];\n\
               const std::vector<int>& r;\n\
               unsigned long long big;\n\
               std::string name;\n\
               static const int K = 3;\n\
               static int counter;\n\
               unsigned flag : 1;\n\
               char** argv;\n\
               int grid[2][3];\n\
               using T = int;\n\
               typedef int U;\n\
               static_assert(sizeof(int) == 4, \"int\");\n\
               };\n\
               union Num { int i; float f; };\n";
    let m = parse(src);
    let agg = class(&m, "Agg");
    let f: Vec<(&str, &str, u32, u32, bool)> = agg
        .fields
        .iter()
        .map(|f| {
            (
                f.name.as_str(),
                f.ty.name.as_str(),
                f.ty.pointers,
                f.ty.dims,
                f.ty.reference,
            )
        })
        .collect();
    assert_eq!(
        f,
        [
            ("a", "int", 0, 0, false),
            ("b", "int", 1, 0, false),
            ("c", "int", 0, 1, false),
            ("r", "std::vector", 0, 0, true),
            ("big", "unsigned long long", 0, 0, false),
            ("name", "std::string", 0, 0, false),
            ("K", "int", 0, 0, false),
            ("counter", "int", 0, 0, false),
            ("flag", "unsigned", 0, 0, false),
            ("argv", "char", 2, 0, false),
            ("grid", "int", 0, 2, false),
        ]
    );
    assert_eq!(agg.fields[3].ty.text, "const std::vector<int>&");
    assert_eq!(agg.fields[2].ty.text, "int[4]");
    assert!(agg.fields[6].is_static && agg.fields[6].is_final);
    assert!(agg.fields[7].is_static && !agg.fields[7].is_final);
    assert!(agg.methods.is_empty());
    let num = class(&m, "Num");
    assert_eq!(num.kind, ClassKind::Union);
    assert_eq!(num.fields.len(), 2);
    assert_eq!(text(src, num.body), "{ int i; float f; }");
}

#[test]
fn macros_preprocessor_blocks_and_lambdas() {
    let src = "#define GETTER(n) int get##n() { return n; }\n\
               class Widget {\n\
               Q_OBJECT\n\
               public:\n\
               Widget() { }\n\
               DISALLOW_COPY_AND_ASSIGN(Widget)\n\
               GETTER(x)\n\
               int size() const { auto f = [](int a) { return a; }; return f(1); }\n\
               #if USE_FAST\n\
               void fast() { }\n\
               #else\n\
               void slow() { }\n\
               #endif\n\
               #ifdef DEBUG\n\
               void dump() const;\n\
               #endif\n\
               void run() {\n\
               #if DEBUG\n\
               log();\n\
               #endif\n\
               }\n\
               int x;\n\
               };\n";
    let m = parse(src);
    let w = class(&m, "Widget");
    // The file's own GETTER is seen through: its method is modelled, but left alone.
    assert_eq!(
        names(w),
        ["Widget", "getx", "size", "fast", "slow", "dump", "run"]
    );
    assert_eq!(
        method(w, "getx").not_annotatable.as_deref(),
        Some("generated by macro GETTER")
    );
    assert!(w.not_annotatable.is_none());
    for n in ["Widget", "size", "fast", "slow"] {
        assert_eq!(method(w, n).not_annotatable, None, "{n}");
    }
    assert_eq!(
        method(w, "run").not_annotatable.as_deref(),
        Some("preprocessor directive inside body")
    );
    assert_eq!(w.fields.len(), 1);
    assert_eq!(w.fields[0].name, "x");
    // Blanked macros are notes (no problem, no exit 1), shown with its `note: ` prefix.
    let notes: Vec<String> = m
        .diagnostics
        .iter()
        .filter(|d| d.is_note())
        .map(|d| d.to_string())
        .collect();
    assert_eq!(
        notes,
        [
            "t.cpp:3:1: note: macro invocation `Q_OBJECT` ignored (not modelled)",
            "t.cpp:6:1: note: macro invocation `DISALLOW_COPY_AND_ASSIGN` ignored (not modelled)",
        ]
    );
    assert!(
        m.diagnostics.iter().all(|d| d.is_note()),
        "{:?}",
        m.diagnostics
    );
    let size = method(w, "size");
    assert_eq!(
        text(src, size.body.unwrap()),
        "{ auto f = [](int a) { return a; }; return f(1); }"
    );
    assert!(
        m.diagnostics
            .iter()
            .any(|d| d.line == 3 && d.message.contains("Q_OBJECT")),
        "{:?}",
        m.diagnostics
    );
}

#[test]
fn macro_without_semicolon_before_various_members() {
    let src = "class M {\n  Q_OBJECT\n  static int f() { return 1; }\n  MAC(y)\n  const std::string& h() const { return s; }\n  Q_OBJECT\n  virtual void g();\n  MAC(x)\n  int x;\n};\n";
    let m = parse(src);
    let c = class(&m, "M");
    assert_eq!(names(c), ["f", "h", "g"]);
    assert!(method(c, "f").flags.is_static);
    assert_eq!(
        method(c, "h").ret.as_ref().unwrap().text,
        "const std::string&"
    );
    assert!(c.methods.iter().all(|x| x.not_annotatable.is_none()));
    assert_eq!(c.fields.len(), 1);
    assert!(c.not_annotatable.is_none());
}

#[test]
fn export_macro_in_class_head() {
    let src = "class DLL_EXPORT Foo : public Bar { public: void f() { } };\nclass FOO final { void g() { } };\n";
    let m = parse(src);
    let foo = class(&m, "Foo");
    assert_eq!(foo.supers, ["Bar"]);
    assert_eq!(names(foo), ["f"]);
    assert_eq!(names(class(&m, "FOO")), ["g"]);
}

#[test]
fn non_ascii_comments_and_strings_keep_byte_offsets() {
    let src = "// Größe und Maß — ünïcödé 🚀\nnamespace zä {\nclass Konto { /* Ü */\n  const char* s = \"€uro\";\n  int saldo() const { return 1; /* ß */ }\n};\ndouble Konto::zins() { return 0.5; } // 日本\n}\n";
    let m = parse(src);
    let k = class(&m, "zä::Konto");
    let saldo = method(k, "saldo");
    assert_eq!(
        text(src, saldo.span),
        "int saldo() const { return 1; /* ß */ }"
    );
    assert_eq!(text(src, saldo.body.unwrap()), "{ return 1; /* ß */ }");
    assert_eq!(saldo.span.line, 5);
    assert_eq!(text(src, k.body).chars().next(), Some('{'));
    assert!(text(src, k.body).ends_with('}'));
    assert_eq!(k.fields[0].name, "s");
    let (owner, zins) = &m.out_of_class[0];
    assert_eq!(owner, "zä::Konto");
    assert_eq!(text(src, zins.body.unwrap()), "{ return 0.5; }");
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
}

#[test]
fn syntax_errors_mark_smallest_declaration() {
    let src =
        "class E {\n  void ok() { }\n  void bad() { int a = ; }\n  int after() { return 2; }\n};\n";
    let m = parse(src);
    let e = class(&m, "E");
    assert!(e.not_annotatable.is_none());
    assert_eq!(method(e, "ok").not_annotatable, None);
    assert!(method(e, "bad")
        .not_annotatable
        .as_deref()
        .unwrap()
        .starts_with("syntax error"));
    assert_eq!(method(e, "after").not_annotatable, None);
    assert!(!m.diagnostics.is_empty());
    let d = &m.diagnostics[0];
    assert_eq!((d.path.as_str(), d.line), ("t.cpp", 3));
}

#[test]
fn garbage_never_panics() {
    for src in [
        "",
        "}}}}",
        "class",
        "class A {",
        "template<",
        "namespace a { class B { void f() { ",
        "struct S { int a[; }; ü€ \u{0}",
        "#if X\nclass A {\n#else\nclass A : B {\n#endif\n void f() {}\n};",
        "A::B::~",
        "operator",
    ] {
        let m = parse(src);
        assert_eq!(m.path, "t.cpp");
    }
}

#[test]
fn parser_reused_across_threads() {
    let h: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                let src = format!("class C{i} {{ void f() {{ }} }};");
                parse(&src).classes[0].name.clone()
            })
        })
        .collect();
    let got: Vec<String> = h.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(got, ["C0", "C1", "C2", "C3"]);
}

#[test]
#[ignore]
fn scan_dir() {
    let dir = std::env::var("SCAN").unwrap();
    let (mut files, mut classes, mut methods, mut diags) = (0, 0, 0, 0);
    for e in walkdir::WalkDir::new(dir).into_iter().flatten() {
        let p = e.path().to_string_lossy().to_string();
        if !e.file_type().is_file() {
            continue;
        }
        let Ok(src) = std::fs::read_to_string(&p) else {
            continue;
        };
        let m = CppFrontend.parse(&p, &src);
        files += 1;
        classes += m.classes.len();
        methods += m.classes.iter().map(|c| c.methods.len()).sum::<usize>() + m.out_of_class.len();
        diags += m.diagnostics.len();
        for c in &m.classes {
            for x in &c.methods {
                if let Some(b) = x.body {
                    assert!(
                        src[b.start..b.end].starts_with('{') && src[b.start..b.end].ends_with('}'),
                        "{p}"
                    );
                }
            }
        }
    }
    println!("files={files} classes={classes} methods={methods} diags={diags}");
}

#[test]
fn function_pointer_parameters_are_named() {
    let src = "class Sink {\n  void Take(char* b, void (*deleter)(void*, const char*, int), void* arg) {}\n};\n";
    let m = parse(src);
    let c = class(&m, "Sink");
    let t = method(c, "Take");
    let names: Vec<&str> = t.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["b", "deleter", "arg"]);
    assert_eq!(t.params[1].ty.pointers, 1);
}

#[test]
fn specifier_macros_opening_declarations_are_blanked() {
    // tinyxml2: `TINYXML2_PRIVATE` (visibility, or nothing) before members.
    let src = "class XMLAttribute {\n    TINYXML2_PRIVATE XMLAttribute() : _next( 0 ) {}\n    TINYXML2_PRIVATE virtual ~XMLAttribute() {}\n    int Value() const { return 1; }\n    XMLAttribute* _next;\n};\n";
    let m = parse(src);
    let c = class(&m, "XMLAttribute");
    assert!(c.not_annotatable.is_none(), "{:?}", c.not_annotatable);
    let n = names(c);
    assert!(n.contains(&"Value") && n.contains(&"XMLAttribute"), "{n:?}");
}

#[test]
fn trailing_annotation_macros_are_blanked() {
    // leveldb's thread-safety annotations.
    let src = "class DBImpl {\n public:\n  int Get(int k) { return k; }\n private:\n  int Recover(int* edit, bool* save)\n      EXCLUSIVE_LOCKS_REQUIRED(mutex_);\n  int* imm_ GUARDED_BY(mutex_);  // compacted\n  int mutex_;\n};\nclass MutexLock {\n public:\n  explicit MutexLock(int* mu) EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {\n  }\n  ~MutexLock() UNLOCK_FUNCTION() { }\n private:\n  int* const mu_;\n};\nint DBImpl::Recover(int* edit, bool* save) { return 0; }\n";
    let m = parse(src);
    let c = class(&m, "DBImpl");
    assert!(c.not_annotatable.is_none(), "{:?}", c.not_annotatable);
    let n = names(c);
    assert!(n.contains(&"Get") && n.contains(&"Recover"), "{n:?}");
    let l = class(&m, "MutexLock");
    assert!(l.not_annotatable.is_none(), "{:?}", l.not_annotatable);
    assert_eq!(l.methods.iter().filter(|x| x.body.is_some()).count(), 2);
}

#[test]
fn bodies_the_annotator_must_leave_alone_are_flagged_on_the_model() {
    // (source, method, reason the model records): the annotator reads these, never the text.
    let cases = [
        (
            "struct A { void f() try { } catch (...) {} };",
            "f",
            Some("function-try-block"),
        ),
        (
            "struct A { void f() {\n#if X\n#endif\n} };",
            "f",
            Some("preprocessor directive inside body"),
        ),
        (
            "struct A { T f() { co_await x; } };",
            "f",
            Some("coroutine"),
        ),
        (
            "struct A { T f() { co_return 1; } };",
            "f",
            Some("coroutine"),
        ),
        (
            "struct A { void f() { \\\n } };",
            "f",
            Some("defined in a macro"),
        ),
        (
            "struct A { int f() { int my_co_return = 0; return my_co_return; } };",
            "f",
            None,
        ),
    ];
    for (src, name, want) in cases {
        let m = parse(src);
        let got = method(class(&m, "A"), name).not_annotatable.as_deref();
        assert_eq!(got, want, "{src}");
    }
}
