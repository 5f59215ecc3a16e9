use super::*;
use crate::instrument::model::ClassDecl;
use crate::instrument::model::MethodDecl;

fn parse(src: &str) -> FileModel {
    CppFrontend.parse("t.cpp", src, &Default::default())
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
        let m = CppFrontend.parse(&p, &src, &Default::default());
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
fn bodies_the_annotator_must_leave_alone_are_flagged_on_the_model() {
    // (source, method, reason the model records): the annotator reads these, never the text.
    let cases = [
        (
            "struct A { void f() try { } catch (...) {} };",
            "f",
            Some("function-try-block"),
        ),
        (
            "struct A { void f() {\n#if X\n  g();\n#else\n  h();\n#endif\n} };",
            "f",
            None,
        ),
        // Read in one configuration (the `#if 0` block left out), the body parses.
        (
            "struct A { int f() {\n#if 0\n  this is { not code\n#endif\n  return 0;\n} };",
            "f",
            None,
        ),
        // The branch g++ compiles does not parse either: no reading helps.
        (
            "struct A { int f() {\n#ifdef __GNUC__\n  this is { not code\n#endif\n  return 0;\n} };",
            "f",
            Some("preprocessor conditional whose branches the parser cannot follow"),
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
            "struct A { void f() { \\\n    int x = 1; \\\n  } };",
            "f",
            Some("defined in a macro"),
        ),
        // A `#define` inside the body continues lines of its own (muparser's test bodies).
        (
            "struct A { int f() {\n  int s = 0;\n#define ROW(a) \\\n  s += a;\n  ROW(1);\n#undef ROW\n  return s;\n} };",
            "f",
            None,
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

#[test]
fn class_heads_and_bodies_are_recorded_as_facts() {
    let m = parse(
        "template <class T = a::B<int, 2>> class X final : virtual public lib::Base<T, 3>, Y {\n\
         public: int a; private: int b; public: struct In { protected: int c; };\n};\n\
         template <typename T, class D> struct Crtp { int n() const { return static_cast<const D *>(this)->k(); } };\n\
         template <class... Ps> struct All : Ps... {};",
    );
    let x = class(&m, "X");
    assert_eq!(x.access_labels, vec!["public", "private"]);
    let bases: Vec<_> = (x.bases_written.iter())
        .map(|b| (b.name.as_str(), b.is_virtual, b.access.as_deref()))
        .collect();
    assert_eq!(
        bases,
        vec![
            ("lib::Base<T, 3>", true, Some("public")),
            ("Y", false, None)
        ]
    );
    assert_eq!(class(&m, "X::In").access_labels, vec!["protected"]);
    assert_eq!(class(&m, "Crtp").crtp_self_casts, vec!["D"]);
    assert!(class(&m, "X").crtp_self_casts.is_empty());
    assert_eq!(class(&m, "All").bases_written[0].name, "Ps...");
}

fn assert_no_diagnostics(m: &FileModel) {
    let said: Vec<&String> = m.diagnostics.iter().map(|d| &d.message).collect();
    assert!(said.is_empty(), "{said:?}");
}

/// leveldb's `HandleTable::Resize` (`new LRUHandle*[new_length]`): tree-sitter-cpp cannot
/// parse an array of pointers in a new-expression, which spoiled the method (not
/// annotatable, a syntax error reported). The parser now sees `new LRUHandle [n]` (and
/// `new       char[n]` for `new const char[n]`); the method's spans are the source's.
#[test]
fn new_arrays_of_pointers_do_not_spoil_the_method() {
    let src = "struct H {};\nclass Table {\n public:\n  void Resize(unsigned n) {\n    H** list = new H*[n];\n    delete[] list_;\n    list_ = list;\n  }\n  const char* Name(unsigned n) { return new const char[n]; }\n  H** list_ = nullptr;\n};\n";
    let m = parse(src);
    assert_no_diagnostics(&m);
    let r = method(class(&m, "Table"), "Resize");
    assert!(r.not_annotatable.is_none(), "{:?}", r.not_annotatable);
    // `new const T[n]`: the grammar takes no qualifier there either.
    let n = method(class(&m, "Table"), "Name");
    assert!(n.not_annotatable.is_none(), "{:?}", n.not_annotatable);
    let body = r.body.expect("a body");
    assert_eq!(&src[body.start..body.start + 1], "{");
    assert_eq!(&src[body.end - 1..body.end], "}");
    let f = &class(&m, "Table").fields[0];
    assert_eq!(f.name, "list_");
    assert_eq!(f.ty.pointers, 2);
}

/// muparser's `typedef value_type (ParserBase::*ParseFunction)() const` and
/// `(this->*m_pParseFormula)()`: tree-sitter-cpp has neither the pointer-to-member
/// declarator nor `->*`, so the class's typedef and the methods calling through it were
/// spoiled (syntax errors, not annotatable). Now every method is annotatable and its spans
/// are the source's.
#[test]
fn pointers_to_members_do_not_spoil_the_methods() {
    let src = "class P {\n public:\n  typedef int (P::*Fn)() const;\n  int one() const { return 1; }\n  int Call() const { Fn f = &P::one; return (this->*f)(); }\n  void (P::*member_)(int);\n  int P::*data_;\n  P* operator->*(int) { return this; }\n  int After() const { return 3; }\n};\n";
    let m = parse(src);
    assert_no_diagnostics(&m);
    let c = class(&m, "P");
    for name in ["one", "Call", "After"] {
        let x = method(c, name);
        assert!(
            x.not_annotatable.is_none(),
            "{name}: {:?}",
            x.not_annotatable
        );
    }
    let b = method(c, "Call").body.unwrap();
    assert_eq!(
        &src[b.start..b.end],
        "{ Fn f = &P::one; return (this->*f)(); }"
    );
}

/// leveldb's `leveldb_compact_range` passes `(a = Slice(k, n), &a)`: tree-sitter-cpp takes
/// `(a = …` for a parenthesized assignment and fails at the comma, spoiling the method.
/// Parsed as `((a= …),&a)` at such errors, the method is annotatable, its offsets are the
/// source's, and the assignment is still seen (a member written there is a write).
#[test]
fn comma_expressions_opening_with_an_assignment_do_not_spoil_the_method() {
    let src = "struct S { S(const char*, int) {} };\nvoid take(S*);\nclass C {\n public:\n  void Go(const char* k, int n) {\n    S a(\"\", 0);\n    take(k ? (a = S(k, n), &a) : nullptr);\n  }\n  void Count(int n) {\n    while ((x_ = n, x_ > 0)) --n;\n  }\n  void Call(int n) { int y; take2(y = 1, n); }\n  void take2(int, int) {}\n  int x_ = 0;\n};\n";
    let m = parse(src);
    assert_no_diagnostics(&m);
    let c = class(&m, "C");
    for name in ["Go", "Count", "Call"] {
        let x = method(c, name);
        assert!(
            x.not_annotatable.is_none(),
            "{name}: {:?}",
            x.not_annotatable
        );
        let b = x.body.unwrap();
        assert_eq!(
            (&src[b.start..b.start + 1], &src[b.end - 1..b.end]),
            ("{", "}")
        );
    }
    let writes = |n: &str| method(c, n).effects.as_ref().unwrap().writes.clone();
    assert!(
        writes("Go").contains(&"a".to_string()),
        "{:?}",
        writes("Go")
    );
    assert!(
        writes("Count").contains(&"x_".to_string()),
        "{:?}",
        writes("Count")
    );
    // A call's arguments were valid as they were: not rewritten (`y` stays a write, `n` is
    // passed bare).
    let call = method(c, "Call").effects.as_ref().unwrap();
    assert!(call.writes.contains(&"y".to_string()) && call.passed.contains(&"n".to_string()));
}

/// Issue 37 item 15: g++ ignores a NUL byte (here in a comment); the parse must too, and
/// the next class keeps its methods. Messages never carry raw control characters.
#[test]
fn nul_in_a_comment_spoils_nothing_and_messages_escape_control_characters() {
    let m =
        parse("// a NUL: \0 (g++ accepts it)\nstruct After {\n  int next() { return 1; }\n};\n");
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    let after = class(&m, "After");
    assert!(after.not_annotatable.is_none());
    assert!(method(after, "next").not_annotatable.is_none());
    let m = parse("struct A {\n  int f() { return 1; }\n  \x1b[2J \x07 )(;\n};\n");
    assert!(!m.diagnostics.is_empty());
    for d in &m.diagnostics {
        assert!(!d.message.chars().any(char::is_control), "{:?}", d.message);
    }
}

/// Issue 37 item 19: the access of data members, not of every label, decides aggregates.
#[test]
fn data_access_records_the_access_of_data_members_only() {
    let m = parse(
        "struct Lazy {\n  const char* p;\n private:\n  struct Impl { int k; };\n  static int n();\n  void f() {}\n};\nclass C { int a; public: int b; };\n",
    );
    assert_eq!(class(&m, "Lazy").data_access, vec!["public"]);
    assert_eq!(class(&m, "C").data_access, vec!["private", "public"]);
}
