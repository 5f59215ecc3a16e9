use super::*;
use crate::model::Span;
use pretty_assertions::assert_eq;

fn parse(src: &str) -> FileModel {
    JavaFrontend.parse("src/T.java", src)
}

fn cls<'m>(m: &'m FileModel, qname: &str) -> &'m ClassDecl {
    m.classes
        .iter()
        .find(|c| c.qname == qname)
        .unwrap_or_else(|| {
            let names: Vec<_> = m.classes.iter().map(|c| &c.qname).collect();
            panic!("no class {qname} in {names:?}")
        })
}

fn meth<'c>(c: &'c ClassDecl, name: &str) -> &'c MethodDecl {
    c.methods
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no method {name} in {}", c.qname))
}

fn field<'c>(c: &'c ClassDecl, name: &str) -> &'c FieldDecl {
    c.fields
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no field {name} in {}", c.qname))
}

fn at(src: &str, s: Span) -> &str {
    &src[s.start..s.end]
}

fn qnames(m: &FileModel) -> Vec<&str> {
    m.classes.iter().map(|c| c.qname.as_str()).collect()
}

fn method_names(c: &ClassDecl) -> Vec<&str> {
    c.methods.iter().map(|m| m.name.as_str()).collect()
}

fn field_names(c: &ClassDecl) -> Vec<&str> {
    c.fields.iter().map(|f| f.name.as_str()).collect()
}

fn ty(m: &MethodDecl) -> Vec<(&str, u32, bool)> {
    m.params
        .iter()
        .map(|p| (p.ty.name.as_str(), p.ty.dims, p.varargs))
        .collect()
}

#[test]
fn lang_is_java() {
    assert_eq!(JavaFrontend.lang(), Lang::Java);
}

#[test]
fn empty_and_trivial_inputs() {
    let m = parse("");
    assert_eq!(m.path, "src/T.java");
    assert!(m.classes.is_empty() && m.diagnostics.is_empty() && m.package.is_none());
    let m = parse("// just a comment\n");
    assert!(m.classes.is_empty() && m.diagnostics.is_empty());
    let m = parse("class A {}");
    assert_eq!(qnames(&m), ["A"]);
    assert_eq!(m.classes[0].outer, None);
    assert!(m.diagnostics.is_empty());
}

#[test]
fn package_and_nested_qnames() {
    let src = r#"package com.acme . util;
import java.util.*;
public class Outer {
    class Inner { class Deeper {} }
    static class Nested {}
    interface Callback { class Impl {} }
    enum Color { RED }
    record Pair(int a, int b) {}
    void m() {
        Runnable r = new Runnable() { public void run() {} };
        class Local { void lm() {} }
    }
}
class Second {}
"#;
    let m = parse(src);
    assert_eq!(m.package.as_deref(), Some("com.acme.util"));
    assert_eq!(
        qnames(&m),
        [
            "com.acme.util.Outer",
            "com.acme.util.Outer.Inner",
            "com.acme.util.Outer.Inner.Deeper",
            "com.acme.util.Outer.Nested",
            "com.acme.util.Outer.Callback",
            "com.acme.util.Outer.Callback.Impl",
            "com.acme.util.Outer.Color",
            "com.acme.util.Outer.Pair",
            "com.acme.util.Outer.Local",
            "com.acme.util.Second",
        ]
    );
    let outer = cls(&m, "com.acme.util.Outer");
    assert!(outer.is_static && !outer.is_local && outer.outer.is_none());
    assert_eq!(outer.name, "Outer");
    assert_eq!(outer.file, "src/T.java");
    assert!(at(src, outer.span).starts_with("public class Outer {"));
    assert!(at(src, outer.body).starts_with("{\n    class Inner"));
    assert!(at(src, outer.body).ends_with('}'));
    // Only m: the anonymous class's run() is not listed.
    assert_eq!(method_names(outer), ["m"]);

    let inner = cls(&m, "com.acme.util.Outer.Inner");
    assert_eq!(inner.name, "Inner");
    assert!(!inner.is_static, "inner classes are not static");
    assert_eq!(inner.outer.as_deref(), Some("com.acme.util.Outer"));
    let deeper = cls(&m, "com.acme.util.Outer.Inner.Deeper");
    assert_eq!(deeper.outer.as_deref(), Some("com.acme.util.Outer.Inner"));
    assert!(!deeper.is_static);
    assert!(cls(&m, "com.acme.util.Outer.Nested").is_static);
    let cb = cls(&m, "com.acme.util.Outer.Callback");
    assert!(cb.is_static && cb.is_abstract && cb.kind == ClassKind::Interface);
    assert!(
        cls(&m, "com.acme.util.Outer.Callback.Impl").is_static,
        "member classes of interfaces are implicitly static"
    );
    assert!(cls(&m, "com.acme.util.Outer.Color").is_static);
    assert!(cls(&m, "com.acme.util.Outer.Pair").is_static);
    let local = cls(&m, "com.acme.util.Outer.Local");
    assert!(local.is_local && !local.is_static);
    assert_eq!(local.outer.as_deref(), Some("com.acme.util.Outer"));
    assert_eq!(method_names(local), ["lm"]);
    assert!(!cls(&m, "com.acme.util.Second").is_local);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
}

#[test]
fn no_package_qnames() {
    let m = parse("class A { class B {} }");
    assert_eq!(m.package, None);
    assert_eq!(qnames(&m), ["A", "A.B"]);
}

#[test]
fn local_class_collisions_get_suffixes() {
    let src = r#"package p;
class Outer {
    void a() { class Helper { class Deep {} } }
    void b() { class Helper {} }
    void c() { class Other {} record R(int x) {} }
    static { class Helper {} }
}
"#;
    let m = parse(src);
    assert_eq!(
        qnames(&m),
        [
            "p.Outer",
            "p.Outer.Helper$1",
            "p.Outer.Helper$1.Deep",
            "p.Outer.Helper$2",
            "p.Outer.Other",
            "p.Outer.R",
            "p.Outer.Helper$3",
        ]
    );
    let h1 = cls(&m, "p.Outer.Helper$1");
    assert_eq!(h1.name, "Helper");
    assert!(h1.is_local);
    let deep = cls(&m, "p.Outer.Helper$1.Deep");
    assert_eq!(deep.outer.as_deref(), Some("p.Outer.Helper$1"));
    assert!(!deep.is_local);
    assert!(cls(&m, "p.Outer.R").is_static, "local records are static");
    // Member class and local class with the same name: the local one is suffixed.
    let m = parse("class O { class X {} void f() { class X {} } }");
    assert_eq!(qnames(&m), ["O", "O.X", "O.X$1"]);
    assert!(!m.classes[1].is_local && m.classes[2].is_local);
}

#[test]
fn local_classes_in_lambdas_anonymous_and_initializers() {
    let src = r#"class A {
    Runnable f = () -> { class InLambda {} };
    Object g = new Object() { void h() { class InAnon { void z() {} } } };
    { class InInit {} }
    A() { class InCtor {} }
}"#;
    let m = parse(src);
    assert_eq!(
        qnames(&m),
        ["A", "A.InLambda", "A.InAnon", "A.InInit", "A.InCtor"]
    );
    assert!(m.classes[1..].iter().all(|c| c.is_local));
    let a = cls(&m, "A");
    // Initializer blocks and anonymous-class methods are not methods of A.
    assert_eq!(method_names(a), ["A"]);
    assert_eq!(field_names(a), ["f", "g"]);
    assert_eq!(method_names(cls(&m, "A.InAnon")), ["z"]);
}

#[test]
fn class_kinds_abstract_supers_interfaces_type_params() {
    let src = r#"package p;
public abstract class Base<T extends Comparable<T>, K, V>
        extends java.util.AbstractList<T> implements Map.Entry<K, V>, java.io.Serializable, Cloneable {}
final class Impl extends Base<String, Integer, Long> {}
interface Shape<S> extends Comparable<S>, java.io.Serializable {}
sealed interface Sealed permits Circle, Square {}
enum E implements Runnable, Comparable<E> { A; public void run() {} }
record R<X extends Number & Comparable<X>>(X x) implements Cloneable {}
@interface Ann {}
"#;
    let m = parse(src);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    let base = cls(&m, "p.Base");
    assert_eq!(base.kind, ClassKind::Class);
    assert!(base.is_abstract);
    assert_eq!(base.supers, ["java.util.AbstractList"]);
    assert_eq!(
        base.interfaces,
        ["Map.Entry", "java.io.Serializable", "Cloneable"]
    );
    assert_eq!(base.type_params, ["T extends Comparable<T>", "K", "V"]);
    let imp = cls(&m, "p.Impl");
    assert!(!imp.is_abstract);
    assert_eq!(imp.supers, ["Base"]);
    assert!(imp.interfaces.is_empty() && imp.type_params.is_empty());
    let shape = cls(&m, "p.Shape");
    assert_eq!(shape.kind, ClassKind::Interface);
    assert!(shape.is_abstract);
    assert!(shape.supers.is_empty());
    assert_eq!(shape.interfaces, ["Comparable", "java.io.Serializable"]);
    assert_eq!(shape.type_params, ["S"]);
    let sealed = cls(&m, "p.Sealed");
    assert!(sealed.interfaces.is_empty() && sealed.supers.is_empty());
    let e = cls(&m, "p.E");
    assert_eq!(e.kind, ClassKind::Enum);
    assert!(!e.is_abstract && e.is_static);
    assert_eq!(e.interfaces, ["Runnable", "Comparable"]);
    let r = cls(&m, "p.R");
    assert_eq!(r.kind, ClassKind::Record);
    assert_eq!(r.interfaces, ["Cloneable"]);
    assert_eq!(r.type_params, ["X extends Number & Comparable<X>"]);
    let ann = cls(&m, "p.Ann");
    assert_eq!(ann.kind, ClassKind::Annotation);
    assert!(ann.is_abstract);
}

#[test]
fn fields_declarators_dims_and_types() {
    let src = r#"class F {
    int a, b[];
    int[] c;
    int[] d[];
    int[][] e = {{1}};
    java.util.List<String> list;
    List<Map<String, Integer>> nested;
    Map.Entry<K, V> entry;
    @Deprecated private static final String S = "s";
    transient volatile long t;
    java.util.@NonNull List<String> annotated;
    final F self = null;
}"#;
    let m = parse(src);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    let c = cls(&m, "F");
    assert_eq!(
        field_names(c),
        [
            "a",
            "b",
            "c",
            "d",
            "e",
            "list",
            "nested",
            "entry",
            "S",
            "t",
            "annotated",
            "self"
        ]
    );
    let dims: Vec<_> = c
        .fields
        .iter()
        .map(|f| (f.ty.name.as_str(), f.ty.dims))
        .collect();
    assert_eq!(
        dims,
        [
            ("int", 0),
            ("int", 1),
            ("int", 1),
            ("int", 2),
            ("int", 2),
            ("java.util.List", 0),
            ("List", 0),
            ("Map.Entry", 0),
            ("String", 0),
            ("long", 0),
            ("java.util.List", 0),
            ("F", 0),
        ]
    );
    assert_eq!(field(c, "b").ty.text, "int");
    assert_eq!(field(c, "d").ty.text, "int[]");
    assert_eq!(field(c, "list").ty.text, "java.util.List<String>");
    assert_eq!(field(c, "entry").ty.text, "Map.Entry<K, V>");
    let s = field(c, "S");
    assert!(s.is_static && s.is_final);
    assert!(at(src, s.span).starts_with("@Deprecated private static final String S"));
    let a = field(c, "a");
    assert!(!a.is_static && !a.is_final);
    assert_eq!(at(src, a.span), "int a, b[];");
    assert_eq!(a.ty.pointers, 0);
    assert!(!a.ty.reference);
    assert!(field(c, "self").is_final && !field(c, "self").is_static);
}

#[test]
fn methods_params_flags_and_spans() {
    let src = r#"abstract class M {
    @Override
    public static synchronized int[] f(int x, String[] ys, int z[], final @Deprecated long[] w[]) { return null; }
    abstract void g(String... names);
    native long n(int[]... arrays);
    final java.util.List<String> h(java.util.Map.Entry<K, V> e, M this) { return null; }
    int old()[] { return null; }
    <T extends Comparable<T>> T gen(T t) { return t; }
    M(int a) { this(); }
    M() { super(); }
    static { }
}"#;
    let m = parse(src);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    let c = cls(&m, "M");
    assert!(c.is_abstract);
    assert_eq!(
        method_names(c),
        ["f", "g", "n", "h", "old", "gen", "M", "M"]
    );

    let f = meth(c, "f");
    assert_eq!(f.kind, MethodKind::Method);
    assert_eq!(f.file, "src/T.java");
    let ret = f.ret.as_ref().unwrap();
    assert_eq!(
        (ret.name.as_str(), ret.dims, ret.text.as_str()),
        ("int", 1, "int[]")
    );
    assert_eq!(
        ty(f),
        [
            ("int", 0, false),
            ("String", 1, false),
            ("int", 1, false),
            ("long", 2, false)
        ]
    );
    let names: Vec<_> = f.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["x", "ys", "z", "w"]);
    assert!(f.flags.is_static && f.flags.is_synchronized);
    assert!(!f.flags.is_abstract && !f.flags.is_final && !f.flags.is_native);
    assert!(at(src, f.span).starts_with("@Override\n    public static synchronized int[] f("));
    assert!(at(src, f.span).ends_with("{ return null; }"));
    assert_eq!(at(src, f.body.unwrap()), "{ return null; }");
    assert_eq!(f.span.line, 2);
    assert_eq!(f.span.end_line, 3);
    assert_eq!(f.not_annotatable, None);

    let g = meth(c, "g");
    assert!(g.flags.is_abstract);
    assert_eq!(g.body, None);
    assert_eq!(ty(g), [("String", 1, true)]);
    assert_eq!(g.params[0].name, "names");
    assert_eq!(g.params[0].ty.text, "String");
    assert_eq!(at(src, g.span), "abstract void g(String... names);");

    let n = meth(c, "n");
    assert!(n.flags.is_native && !n.flags.is_abstract);
    assert_eq!(n.body, None);
    assert_eq!(ty(n), [("int", 2, true)]);

    let h = meth(c, "h");
    assert!(h.flags.is_final);
    assert_eq!(h.ret.as_ref().unwrap().name, "java.util.List");
    // The receiver parameter `M this` is not a parameter.
    assert_eq!(ty(h), [("java.util.Map.Entry", 0, false)]);

    let old = meth(c, "old");
    assert_eq!(old.ret.as_ref().unwrap().dims, 1);
    let gen = meth(c, "gen");
    assert_eq!(gen.ret.as_ref().unwrap().name, "T");

    let ctors: Vec<_> = c
        .methods
        .iter()
        .filter(|m| m.kind == MethodKind::Constructor)
        .collect();
    assert_eq!(ctors.len(), 2);
    assert!(ctors.iter().all(|m| m.ret.is_none() && m.name == "M"));
    assert_eq!(ty(ctors[0]), [("int", 0, false)]);
    assert_eq!(at(src, ctors[0].span), "M(int a) { this(); }");
    assert_eq!(at(src, ctors[0].body.unwrap()), "{ this(); }");
    assert!(ctors[1].params.is_empty());
}

#[test]
fn interface_members() {
    let src = r#"interface I {
    int K = 1, L[] = {};
    void abs();
    default void def() { }
    static void st() { }
    private void priv() { }
    private static int ps() { return 0; }
    abstract int explicit();
    class Nested {}
}"#;
    let m = parse(src);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    let i = cls(&m, "I");
    assert_eq!(field_names(i), ["K", "L"]);
    assert!(i.fields.iter().all(|f| f.is_static && f.is_final));
    assert_eq!(field(i, "L").ty.dims, 1);
    assert_eq!(
        method_names(i),
        ["abs", "def", "st", "priv", "ps", "explicit"]
    );
    let abs = meth(i, "abs");
    assert!(abs.flags.is_abstract && abs.body.is_none());
    let def = meth(i, "def");
    assert!(def.flags.is_default && !def.flags.is_abstract);
    assert_eq!(at(src, def.body.unwrap()), "{ }");
    let st = meth(i, "st");
    assert!(st.flags.is_static && !st.flags.is_abstract);
    assert!(!meth(i, "priv").flags.is_abstract);
    assert!(meth(i, "ps").flags.is_static);
    assert!(meth(i, "explicit").flags.is_abstract);
    assert!(cls(&m, "I.Nested").is_static);
}

#[test]
fn enums_constants_bodies_constructors() {
    let src = r#"package p;
public enum Op implements java.util.function.IntBinaryOperator {
    PLUS("+") { public int applyAsInt(int a, int b) { return a + b; } },
    MINUS("-") { public int applyAsInt(int a, int b) { return a - b; } },
    NOP("");
    private final String sym;
    static int count;
    Op(String s) { sym = s; }
    public int applyAsInt(int a, int b) { return 0; }
    enum Inner { X, Y; }
}"#;
    let m = parse(src);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    assert_eq!(
        qnames(&m),
        ["p.Op", "p.Op.Inner"],
        "constant bodies are not classes"
    );
    let op = cls(&m, "p.Op");
    assert_eq!(op.kind, ClassKind::Enum);
    assert_eq!(field_names(op), ["PLUS", "MINUS", "NOP", "sym", "count"]);
    let plus = field(op, "PLUS");
    assert!(plus.is_static && plus.is_final);
    assert_eq!(plus.ty.name, "Op");
    assert_eq!(plus.ty.dims, 0);
    assert!(at(src, plus.span).starts_with("PLUS(\"+\") {"));
    let sym = field(op, "sym");
    assert!(sym.is_final && !sym.is_static);
    assert!(field(op, "count").is_static);
    // Constant-body methods count as the enum's (issue 14: they are instrumented).
    assert_eq!(
        method_names(op),
        ["applyAsInt", "applyAsInt", "Op", "applyAsInt"]
    );
    let ctor = meth(op, "Op");
    assert_eq!(ctor.kind, MethodKind::Constructor);
    assert_eq!(ctor.ret, None);
    assert_eq!(ty(ctor), [("String", 0, false)]);
    let inner = cls(&m, "p.Op.Inner");
    assert!(inner.is_static);
    assert_eq!(field_names(inner), ["X", "Y"]);
    assert_eq!(inner.fields[0].ty.name, "Inner");
}

#[test]
fn records_components_and_compact_constructor() {
    let src = r#"record Point<T>(int x, T[] ys, java.util.List<String> zs, String... rest) {
    static int created;
    Point {
        if (x < 0) throw new IllegalArgumentException();
    }
    Point(int x) { this(x, null, null); }
    public int x() { return x; }
    static Point<?> origin() { return null; }
}"#;
    let m = parse(src);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    let r = cls(&m, "Point");
    assert_eq!(r.kind, ClassKind::Record);
    assert_eq!(r.type_params, ["T"]);
    assert_eq!(field_names(r), ["x", "ys", "zs", "rest", "created"]);
    for name in ["x", "ys", "zs", "rest"] {
        let f = field(r, name);
        assert!(f.is_final && !f.is_static, "{name}");
    }
    assert_eq!(field(r, "ys").ty.dims, 1);
    assert_eq!(field(r, "zs").ty.name, "java.util.List");
    assert_eq!(field(r, "rest").ty.dims, 1);
    assert_eq!(at(src, field(r, "x").span), "int x");
    assert!(field(r, "created").is_static);

    assert_eq!(method_names(r), ["Point", "Point", "x", "origin"]);
    let compact = &r.methods[0];
    assert_eq!(compact.kind, MethodKind::Constructor);
    assert_eq!(compact.ret, None);
    assert_eq!(
        ty(compact),
        [
            ("int", 0, false),
            ("T", 1, false),
            ("java.util.List", 0, false),
            ("String", 1, true)
        ]
    );
    assert!(at(src, compact.span).starts_with("Point {\n"));
    let body = at(src, compact.body.unwrap());
    assert!(body.starts_with("{\n        if (x < 0)") && body.ends_with('}'));
    let canonical = &r.methods[1];
    assert_eq!(ty(canonical), [("int", 0, false)]);
    assert!(meth(r, "origin").flags.is_static);
}

#[test]
fn annotation_types() {
    let src = r#"package p;
@Retention(RUNTIME)
public @interface Info {
    String name() default "";
    int[] values() default {};
    int MAX = 10;
    enum Level { LOW, HIGH }
}"#;
    let m = parse(src);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    let a = cls(&m, "p.Info");
    assert_eq!(a.kind, ClassKind::Annotation);
    assert!(at(src, a.span).starts_with("@Retention(RUNTIME)\npublic @interface Info"));
    assert_eq!(field_names(a), ["MAX"]);
    assert!(a.fields[0].is_static && a.fields[0].is_final);
    assert!(a.methods.is_empty());
    assert!(cls(&m, "p.Info.Level").is_static);
}

#[test]
fn non_ascii_spans_are_byte_offsets() {
    let src = "package ünï;\n/* ☃ */ class Café { String ñ = \"日本\"; void größe() { String s = \"ß→\"; } class Ärger {} }\n";
    let m = parse(src);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    assert_eq!(m.package.as_deref(), Some("ünï"));
    let c = cls(&m, "ünï.Café");
    assert_eq!(c.name, "Café");
    assert!(at(src, c.span).starts_with("class Café {"));
    assert!(at(src, c.span).ends_with("class Ärger {} }"));
    assert!(at(src, c.body).starts_with("{ String ñ"));
    let f = field(c, "ñ");
    assert_eq!(at(src, f.span), "String ñ = \"日本\";");
    let g = meth(c, "größe");
    assert_eq!(at(src, g.span), "void größe() { String s = \"ß→\"; }");
    assert_eq!(at(src, g.body.unwrap()), "{ String s = \"ß→\"; }");
    assert_eq!(g.span.line, 2);
    assert!(at(src, cls(&m, "ünï.Café.Ärger").span).starts_with("class Ärger"));
}

#[test]
fn error_in_method_marks_only_that_method() {
    let src = r#"package a;
class A {
    int x;
    void f() { int y = ; }
    void g() { return; }
    class B { void k() { foo( } void ok() {} }
}"#;
    let m = parse(src);
    let a = cls(&m, "a.A");
    assert_eq!(a.not_annotatable, None);
    assert_eq!(method_names(a), ["f", "g"]);
    assert_eq!(
        meth(a, "f").not_annotatable.as_deref(),
        Some("syntax error at 4:22")
    );
    assert_eq!(meth(a, "g").not_annotatable, None);
    assert_eq!(field_names(a), ["x"]);
    let b = cls(&m, "a.A.B");
    assert_eq!(b.not_annotatable, None);
    assert!(meth(b, "k").not_annotatable.is_some());
    assert_eq!(meth(b, "ok").not_annotatable, None);
    assert!(!m.diagnostics.is_empty());
    let d = &m.diagnostics[0];
    assert_eq!((d.path.as_str(), d.line, d.col), ("src/T.java", 4, 22));
    assert!(d.message.starts_with("syntax error"), "{}", d.message);
    assert!(m.diagnostics.iter().all(|d| d.line == 4 || d.line == 6));
}

#[test]
fn missing_semicolon_diagnostic() {
    let src = "class A {\n    void f() { foo() }\n    void g() { bar(); }\n}\n";
    let m = parse(src);
    let a = cls(&m, "A");
    assert!(meth(a, "f").not_annotatable.is_some());
    assert_eq!(meth(a, "g").not_annotatable, None);
    assert_eq!(a.not_annotatable, None);
    assert_eq!(m.diagnostics.len(), 1, "{:?}", m.diagnostics);
    assert_eq!(m.diagnostics[0].line, 2);
    assert!(m.diagnostics[0].to_string().starts_with("src/T.java:2:"));

    // A field missing its ';' lies in the class body outside any method.
    let src = "class A {\n    int z\n    void h() {}\n}\n";
    let m = parse(src);
    let a = cls(&m, "A");
    assert_eq!(m.diagnostics.len(), 1, "{:?}", m.diagnostics);
    let d = &m.diagnostics[0];
    assert_eq!((d.line, d.col, d.message.as_str()), (2, 10, "missing ';'"));
    assert_eq!(a.not_annotatable.as_deref(), Some("syntax error at 2:10"));
    assert_eq!(meth(a, "h").not_annotatable, None);
    assert_eq!(field_names(a), ["z"]);
}

#[test]
fn error_in_class_body_outside_members() {
    let src = "class A {\n    void f() {}\n    ) \n    void g() {}\n}\nclass B { void h() {} }\n";
    let m = parse(src);
    let a = cls(&m, "A");
    assert_eq!(a.not_annotatable.as_deref(), Some("syntax error at 3:5"));
    assert_eq!(method_names(a), ["f", "g"]);
    assert!(a.methods.iter().all(|m| m.not_annotatable.is_none()));
    let b = cls(&m, "B");
    assert_eq!(b.not_annotatable, None);
    assert_eq!(m.diagnostics.len(), 1, "{:?}", m.diagnostics);
    let d = &m.diagnostics[0];
    assert_eq!(
        (d.line, d.col, d.message.as_str()),
        (3, 5, "syntax error: unexpected ')'")
    );

    // A field without a name: the class, not its methods.
    let src = "class A {\n    void f() {}\n    int = 5;\n    void g() {}\n}\n";
    let m = parse(src);
    let a = cls(&m, "A");
    assert_eq!(a.not_annotatable.as_deref(), Some("syntax error at 3:8"));
    assert!(a.methods.iter().all(|m| m.not_annotatable.is_none()));
    assert_eq!(m.diagnostics[0].message, "missing identifier");
    assert!(a.fields.is_empty(), "a field without a name is not listed");
}

#[test]
fn members_stranded_by_recovery_are_kept() {
    // tree-sitter closes A after f(); g() ends up at top level but belongs to A.
    let src =
        "class A {\n    void f() {}\n    +++ ;\n    void g() {}\n}\nclass B { void h() {} }\n";
    let m = parse(src);
    let a = cls(&m, "A");
    assert_eq!(method_names(a), ["f", "g"]);
    assert!(a.not_annotatable.is_some());
    assert_eq!(at(src, meth(a, "g").span), "void g() {}");
    assert!(a.methods.iter().all(|m| m.not_annotatable.is_none()));
    assert_eq!(method_names(cls(&m, "B")), ["h"]);
    assert_eq!(cls(&m, "B").not_annotatable, None);
    assert!(m.diagnostics.iter().any(|d| d.line == 3));
}

#[test]
fn errors_in_anonymous_class_charge_the_enclosing_method() {
    let src = "class A {\n    void f() {\n        new Object() { void g() { x = ; } };\n    }\n    void h() {}\n}\n";
    let m = parse(src);
    let a = cls(&m, "A");
    assert_eq!(method_names(a), ["f", "h"]);
    assert!(meth(a, "f").not_annotatable.is_some());
    assert_eq!(meth(a, "h").not_annotatable, None);
    assert_eq!(a.not_annotatable, None);
    assert_eq!(m.diagnostics[0].line, 3);
}

#[test]
fn top_level_error_is_diagnostic_only() {
    let src = "package p;\n)))\nclass A { void f() {} }\n";
    let m = parse(src);
    assert!(!m.diagnostics.is_empty());
    assert_eq!(m.diagnostics[0].line, 2);
    let a = cls(&m, "p.A");
    assert_eq!(a.not_annotatable, None);
    assert_eq!(meth(a, "f").not_annotatable, None);
}

#[test]
fn unclosed_method_still_lists_the_class() {
    let src = "class A {\n  void f() {\n    if (x) {\n  }\n  void h() {}\n}\n";
    let m = parse(src);
    assert!(!m.diagnostics.is_empty());
    let a = cls(&m, "A");
    assert!(meth(a, "f").not_annotatable.is_some());
}

#[test]
fn never_panics_on_prefixes_and_garbage() {
    let src = MODERN;
    let mut i = 0;
    while i < src.len() {
        if src.is_char_boundary(i) {
            let m = parse(&src[..i]);
            for c in &m.classes {
                assert!(c.span.start <= c.span.end && c.span.end <= i);
                for mm in &c.methods {
                    assert!(src.is_char_boundary(mm.span.start));
                    assert!(src.is_char_boundary(mm.span.end));
                }
            }
        }
        i += 13;
    }
    for junk in [
        "}}}}",
        "class",
        "class {",
        "enum E { A(, }",
        "record R( {",
        "@interface",
        "interface I extends {",
        "class A extends implements {",
        "\u{0}\u{1}",
        "class A { void f() { class } }",
        "package ;",
        "class A<T extends> {}",
    ] {
        let _ = parse(junk);
    }
}

#[test]
fn deep_nesting_does_not_exhaust_the_stack() {
    let n = 3000;
    let mut src = String::new();
    for i in 0..n {
        src.push_str(&format!("class C{i} {{ "));
    }
    src.push_str(&"} ".repeat(n));
    let m = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || parse(&src))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(m.classes.len(), MAX_NESTING as usize);
    assert!(m.diagnostics[0].message.contains("nested"));
    let long_type = format!("class A {{ {} x; }}", vec!["a"; 2000].join("."));
    let m = parse(&long_type);
    assert_eq!(m.classes[0].fields.len(), 1);
}

#[test]
fn parallel_threads_share_nothing() {
    let handles: Vec<_> = (0..4)
        .map(|_| std::thread::spawn(|| parse(MODERN)))
        .collect();
    let first = parse(MODERN);
    for h in handles {
        assert_eq!(h.join().unwrap(), first);
    }
}

const MODERN: &str = r#"package org.example.shapes;

import java.util.*;
import java.util.function.Function;

/** Sealed hierarchy. */
public sealed interface Shape permits Circle, Square {
    double area();
    default String describe() { return "shape " + area(); }
    static Shape unit() { return new Circle(1); }
}

record Circle(double r) implements Shape {
    Circle {
        if (r < 0) throw new IllegalArgumentException("r");
    }
    public double area() { return Math.PI * r * r; }
}

final class Square implements Shape {
    private final double side;
    Square(double side) { this.side = side; }
    @Override public double area() { return side * side; }
}

abstract class Repo<T extends Comparable<T>, ID> implements Iterable<T> {
    protected final Map<ID, List<T>> store = new HashMap<>();
    static int instances;
    int counter;

    static { instances = 0; }
    { counter = 1; }

    abstract ID idOf(T t);

    @SafeVarargs
    public final void addAll(@Deprecated T... items) {
        for (var it : items) {
            store.computeIfAbsent(idOf(it), k -> new ArrayList<>()).add(it);
        }
    }

    public Iterator<T> iterator() {
        return new Iterator<T>() {
            public boolean hasNext() { return false; }
            public T next() { throw new NoSuchElementException(); }
        };
    }

    class Cursor { int pos; int next() { return pos++; } }
    static class Stats { long hits; }
}

enum Planet {
    MERCURY(3.303e+23) {
        @Override String label() { return "hot"; }
    },
    EARTH(5.976e+24);

    private final double mass;
    Planet(double mass) { this.mass = mass; }
    String label() { return name(); }
}

class Demo {
    static String classify(Object o) {
        if (o instanceof String s && !s.isEmpty()) {
            return "string " + s;
        }
        int code = switch (o.hashCode() % 3) {
            case 0 -> 0;
            case 1 -> { int t = 1; yield t * 2; }
            default -> { yield -1; }
        };
        String block = """
            Hello, "text block" { not a brace }
            """;
        Function<String, Integer> len = String::length;
        Runnable r = () -> System.out.println(block + code);
        r.run();
        class Helper { int twice(int x) { return 2 * x; } }
        return new Helper().twice(len.apply(block)) > 0 ? "other" : "none";
    }

    void ünïcødé(String naïve) { System.out.println("→ " + naïve); }
}
"#;

#[test]
fn modern_java() {
    let src = MODERN;
    let m = parse(src);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    assert_eq!(m.package.as_deref(), Some("org.example.shapes"));
    assert_eq!(
        qnames(&m),
        [
            "org.example.shapes.Shape",
            "org.example.shapes.Circle",
            "org.example.shapes.Square",
            "org.example.shapes.Repo",
            "org.example.shapes.Repo.Cursor",
            "org.example.shapes.Repo.Stats",
            "org.example.shapes.Planet",
            "org.example.shapes.Demo",
            "org.example.shapes.Demo.Helper",
        ]
    );
    let pkg = |s: &str| format!("org.example.shapes.{s}");

    let shape = cls(&m, &pkg("Shape"));
    assert_eq!(shape.kind, ClassKind::Interface);
    assert!(shape.is_abstract && shape.is_static);
    assert!(at(src, shape.span).starts_with("public sealed interface Shape permits"));
    assert_eq!(method_names(shape), ["area", "describe", "unit"]);
    assert!(meth(shape, "area").flags.is_abstract);
    assert!(meth(shape, "describe").flags.is_default);
    assert!(!meth(shape, "describe").flags.is_abstract);
    assert!(meth(shape, "unit").flags.is_static);

    let circle = cls(&m, &pkg("Circle"));
    assert_eq!(circle.kind, ClassKind::Record);
    assert_eq!(circle.interfaces, ["Shape"]);
    assert_eq!(field_names(circle), ["r"]);
    assert_eq!(method_names(circle), ["Circle", "area"]);
    assert_eq!(circle.methods[0].kind, MethodKind::Constructor);
    assert_eq!(ty(&circle.methods[0]), [("double", 0, false)]);

    let square = cls(&m, &pkg("Square"));
    assert_eq!(square.interfaces, ["Shape"]);
    assert!(!square.is_abstract);
    let sq_area = meth(square, "area");
    assert!(at(src, sq_area.span).starts_with("@Override public double area()"));

    let repo = cls(&m, &pkg("Repo"));
    assert!(repo.is_abstract);
    assert_eq!(repo.type_params, ["T extends Comparable<T>", "ID"]);
    assert_eq!(repo.interfaces, ["Iterable"]);
    assert_eq!(field_names(repo), ["store", "instances", "counter"]);
    assert_eq!(field(repo, "store").ty.name, "Map");
    assert_eq!(field(repo, "store").ty.text, "Map<ID, List<T>>");
    assert!(field(repo, "store").is_final);
    assert!(field(repo, "instances").is_static);
    // Initializers, anonymous-class methods and lambdas are not methods.
    assert_eq!(method_names(repo), ["idOf", "addAll", "iterator"]);
    assert!(meth(repo, "idOf").flags.is_abstract);
    assert_eq!(meth(repo, "idOf").body, None);
    let add_all = meth(repo, "addAll");
    assert!(add_all.flags.is_final);
    assert_eq!(ty(add_all), [("T", 1, true)]);
    assert!(at(src, add_all.span).starts_with("@SafeVarargs\n    public final void addAll("));
    assert!(!cls(&m, &pkg("Repo.Cursor")).is_static);
    assert_eq!(method_names(cls(&m, &pkg("Repo.Cursor"))), ["next"]);
    assert!(cls(&m, &pkg("Repo.Stats")).is_static);

    let planet = cls(&m, &pkg("Planet"));
    assert_eq!(field_names(planet), ["MERCURY", "EARTH", "mass"]);
    assert_eq!(method_names(planet), ["label", "Planet", "label"]);
    assert_eq!(planet.methods[1].kind, MethodKind::Constructor);

    let demo = cls(&m, &pkg("Demo"));
    assert_eq!(method_names(demo), ["classify", "ünïcødé"]);
    let classify = meth(demo, "classify");
    assert!(classify.flags.is_static);
    assert!(at(src, classify.body.unwrap()).ends_with("\"other\" : \"none\";\n    }"));
    let uni = meth(demo, "ünïcødé");
    assert_eq!(uni.params[0].name, "naïve");
    assert!(at(src, uni.span).starts_with("void ünïcødé(String naïve)"));
    let helper = cls(&m, &pkg("Demo.Helper"));
    assert!(helper.is_local);
    assert_eq!(helper.outer.as_deref(), Some(pkg("Demo").as_str()));
    assert_eq!(method_names(helper), ["twice"]);
    assert!(m
        .classes
        .iter()
        .flat_map(|c| &c.methods)
        .all(|m| m.not_annotatable.is_none()));
}

/// Debugging aid: `cargo test -p revy java::tests::dump -- --ignored --nocapture`
/// prints the tree and the model of `$REVY_JAVA_DUMP`.
#[test]
#[ignore]
fn dump() {
    let Ok(path) = std::env::var("REVY_JAVA_DUMP") else {
        return;
    };
    let src = std::fs::read_to_string(path).unwrap();
    let tree = kit::parse(Lang::Java, &src, None).unwrap();
    println!("{}", tree.root_node().to_sexp());
    println!("{:#?}", parse(&src));
}

#[test]
fn sealed_generic_constructors_throws_and_abstract_enum_methods() {
    let src = r#"sealed class X permits A, B {}
non-sealed class A extends X {}
final class B extends X { <T> B(T t) {} }
enum E { K { void f() {} }; abstract void f(); }
class Q {
    @SuppressWarnings({"a", "b"}) void m(@A(x = 1) int y) throws java.io.IOException {}
    strictfp double d() { return 0; }
}
"#;
    let m = parse(src);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    assert_eq!(qnames(&m), ["X", "A", "B", "E", "Q"]);
    assert_eq!(cls(&m, "A").supers, ["X"]);
    let b = cls(&m, "B");
    assert_eq!(b.methods[0].kind, MethodKind::Constructor);
    assert_eq!(ty(&b.methods[0]), [("T", 0, false)]);
    let e = cls(&m, "E");
    assert_eq!(field_names(e), ["K"]);
    assert_eq!(method_names(e), ["f", "f"]);
    let abs = e.methods.last().unwrap();
    assert!(abs.flags.is_abstract && abs.body.is_none());
    let q = cls(&m, "Q");
    let mm = meth(q, "m");
    assert_eq!(ty(mm), [("int", 0, false)]);
    assert!(at(src, mm.span).starts_with("@SuppressWarnings({\"a\", \"b\"}) void m("));
    assert_eq!(at(src, mm.body.unwrap()), "{}");
    assert_eq!(meth(q, "d").ret.as_ref().unwrap().name, "double");
}
