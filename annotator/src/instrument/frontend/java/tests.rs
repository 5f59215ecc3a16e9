use super::*;
use pretty_assertions::assert_eq;

fn parse(src: &str) -> FileModel {
    JavaFrontend.parse("src/T.java", src, &Default::default())
}

fn qnames(m: &FileModel) -> Vec<&str> {
    m.classes.iter().map(|c| c.qname.as_str()).collect()
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

/// A file of modern Java (also a front-end fixture, whose model dump it has).
const MODERN: &str = include_str!("../../../../../tests/fixtures/frontend/java/modern_java.java");

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
    println!(
        "{}",
        crate::instrument::frontend::dump::dump(&parse(&src), &src)
    );
}
