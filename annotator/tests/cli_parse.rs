//! CLI behaviour of `revy init` and `revy parse`: the happy path, bad input and exit codes
//! (0 ok, 1 problems found, 2 bad input), one-line errors naming file and position.

mod common;
use common::revy_in as revy;

use std::path::Path;
use std::process::Output;

fn write(dir: &Path, rel: &str, text: &[u8]) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn one_error_line(o: &Output) -> String {
    let e = stderr(o);
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines.len(), 1, "want one error line, got:\n{e}");
    assert!(!e.contains("panicked"), "{e}");
    lines[0].to_string()
}

#[test]
fn init_writes_a_manifest_that_parse_accepts() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "src/app/Main.java", b"package app;\npublic class Main { public static void main(String[] a) { new Main().go(1); } void go(int x) {} }\n");
    write(
        t.path(),
        "src/app/Util.java",
        b"package app;\nclass Util { static int twice(int x) { return 2 * x; } }\n",
    );
    let o = revy(t.path(), &["init"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let manifest = std::fs::read_to_string(t.path().join("revy.toml")).unwrap();
    assert!(manifest.contains("src/**/*.java"), "{manifest}");
    assert!(manifest.contains("java -cp build app.Main"), "{manifest}");
    // A second init refuses to overwrite.
    let o = revy(t.path(), &["init"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(one_error_line(&o).contains("already exists"));

    let o = revy(t.path(), &["parse"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("parsed 2 files: 2 classes"), "{out}");
    assert!(out.contains("3 methods (3 selected"), "{out}");
    let saf = std::fs::read_to_string(t.path().join(".revy/saf.toml")).unwrap();
    assert!(saf.contains("qname = \"app.Util\""));
    assert!(saf.contains("sgn = \"!int^0!\""));
}

#[test]
fn init_runs_on_cpp_and_refuses_empty_folders() {
    let t = tempfile::tempdir().unwrap();
    let o = revy(t.path(), &["init"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(one_error_line(&o).contains("no .java/.cpp"));
    write(
        t.path(),
        "lib/a.h",
        b"struct A { int f() const { return 1; } };\n",
    );
    write(
        t.path(),
        "lib/a.cpp",
        b"#include \"a.h\"\nint main() { return A().f() - 1; }\n",
    );
    assert_eq!(revy(t.path(), &["init"]).status.code(), Some(0));
    let o = revy(t.path(), &["parse"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn missing_and_broken_manifests_are_exit_2_with_position() {
    let t = tempfile::tempdir().unwrap();
    let o = revy(t.path(), &["parse"]);
    assert_eq!(o.status.code(), Some(2));
    let e = one_error_line(&o);
    assert!(e.contains("revy.toml") && e.contains("revy init"), "{e}");

    write(
        t.path(),
        "revy.toml",
        b"[project]\nname = \"x\"\nsources = [\"**/*.java\"]\n\n[annotate]\nmood = \"better\"\n",
    );
    let e = one_error_line(&revy(t.path(), &["parse"]));
    assert!(e.contains("revy.toml:6:1") && e.contains("mood"), "{e}");

    write(
        t.path(),
        "revy.toml",
        b"[project]\nname = \"x\"\nsources = [\"src/{a\"]\n",
    );
    let e = one_error_line(&revy(t.path(), &["parse"]));
    assert!(e.contains("revy.toml:3:12") && e.contains("glob"), "{e}");

    write(
        t.path(),
        "revy.toml",
        b"[project]\nname = \"x\"\nsources = [\"src/**/*.java\"]\n",
    );
    let o = revy(t.path(), &["parse"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(one_error_line(&o).contains("matches no"), "empty project");
}

/// A source with bytes that are not UTF-8 (a Latin-1 string, muparser's Latin-1 comment)
/// was refused whole ("not UTF-8; convert the file"): now it is parsed and annotated, the
/// bytes kept where they were, and restored byte for byte.
#[test]
fn non_utf8_source_is_annotated_and_restored_byte_for_byte() {
    let t = tempfile::tempdir().unwrap();
    write(
        t.path(),
        "revy.toml",
        b"[project]\nname = \"x\"\nsources = [\"*.java\"]\n",
    );
    let original =
        b"class A {\n  String s = \"caf\xe9\";\n  int f() { return s.length(); } // na\xefve\n}\n";
    write(t.path(), "A.java", original);
    let o = revy(t.path(), &["parse"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = revy(t.path(), &["annotate", "--better"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let annotated = std::fs::read(t.path().join("A.java")).unwrap();
    assert_ne!(&annotated[..], &original[..], "not annotated");
    for raw in [&b"\"caf\xe9\""[..], b"// na\xefve\n"] {
        assert!(
            annotated.windows(raw.len()).any(|w| w == raw),
            "{:?} lost: {}",
            String::from_utf8_lossy(raw),
            String::from_utf8_lossy(&annotated)
        );
    }
    let o = revy(t.path(), &["restore"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read(t.path().join("A.java")).unwrap(), original);
}

/// The characters that carry such bytes cannot also be the file's own: refused, naming
/// the line and column, before anything is written.
#[test]
fn source_holding_the_carrying_characters_is_exit_2_naming_line_and_column() {
    let t = tempfile::tempdir().unwrap();
    write(
        t.path(),
        "revy.toml",
        b"[project]\nname = \"x\"\nsources = [\"*.java\"]\n",
    );
    write(
        t.path(),
        "A.java",
        "class A {\n  String s = \"\u{10FFE9}\";\n}\n".as_bytes(),
    );
    let o = revy(t.path(), &["parse"]);
    assert_eq!(o.status.code(), Some(2));
    let e = one_error_line(&o);
    assert!(e.contains("A.java:2:15") && e.contains("U+10FF80"), "{e}");
    assert!(!t.path().join(".revy/saf.toml").exists(), "no partial SAF");
}

#[test]
fn syntax_errors_are_reported_and_exit_1_with_the_rest_parsed() {
    let t = tempfile::tempdir().unwrap();
    write(
        t.path(),
        "revy.toml",
        b"[project]\nname = \"x\"\nsources = [\"*.java\", \"*.h\"]\n",
    );
    write(
        t.path(),
        "A.java",
        b"class A {\n  void ok() {}\n  void bad() { int x = ; }\n  void alsoOk() {}\n}\n",
    );
    write(t.path(), "B.h", b"class B {\n  DISALLOW_COPY(B)\n public:\n  int get() const { return 1; }\n  void set(int v) { v_ = v; }\n  int v_;\n};\n");
    let o = revy(t.path(), &["parse"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("A.java:3:"), "{e}");
    let saf = std::fs::read_to_string(t.path().join(".revy/saf.toml")).unwrap();
    let saf = revy::instrument::saf::Saf::from_toml(Path::new("saf"), &saf).unwrap();
    let a = saf.class("A").unwrap();
    let ann = |n: &str| a.methods.iter().find(|m| m.name == n).unwrap().annotatable;
    assert!(ann("ok") && ann("alsoOk") && !ann("bad"));
    let b = saf.class("B").unwrap();
    assert!(b.annotatable);
    assert!(
        b.methods.iter().filter(|m| m.annotatable).count() == 2,
        "{b:?}"
    );
}

#[test]
fn parse_is_deterministic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/account");
    let t = tempfile::tempdir().unwrap();
    for f in [
        "revy.toml",
        "src/bank/Main.java",
        "src/bank/Person.java",
        "src/bank/Account.java",
    ] {
        write(t.path(), f, &std::fs::read(dir.join(f)).unwrap());
    }
    assert_eq!(revy(t.path(), &["parse"]).status.code(), Some(0));
    let a = std::fs::read(t.path().join(".revy/saf.toml")).unwrap();
    assert_eq!(revy(t.path(), &["parse"]).status.code(), Some(0));
    let b = std::fs::read(t.path().join(".revy/saf.toml")).unwrap();
    assert_eq!(a, b);
    let text = String::from_utf8(a).unwrap();
    // The thesis's static sizes: Account 16 (int, int, double), Person 56 (+String 32, Account 16).
    assert!(text.contains("qname = \"bank.Account\"\nname = \"Account\""));
    let saf = revy::instrument::saf::Saf::from_toml(Path::new("saf"), &text).unwrap();
    assert_eq!(saf.class("bank.Account").unwrap().static_size, 16);
    assert_eq!(saf.class("bank.Person").unwrap().static_size, 56);
    assert!(!saf.class("bank.Main").unwrap().selected);
}

/// Every flag and value of the commands a newcomer reads first has a description, and the
/// summaries name what the commands do (Perfetto, Parquet; annotate's default mode).
#[test]
fn help_texts_describe_every_flag() {
    let t = tempfile::tempdir().unwrap();
    let help = |args: &[&str]| text_of(&revy(t.path(), args).stdout);
    let top = help(&["--help"]);
    assert!(top.contains("Perfetto") && top.contains("Parquet"), "{top}");
    let export = help(&["export", "--help"]);
    for flag in ["--chrome <CHROME>", "--dot <DOT>", "--folded <FOLDED>"] {
        let lines: Vec<&str> = export.lines().collect();
        let i = lines.iter().position(|l| l.contains(flag)).unwrap();
        let rest = lines[i].split(flag).nth(1).unwrap_or_default().trim();
        let next = lines.get(i + 1).map_or("", |l| l.trim());
        let described = !rest.is_empty() || !(next.is_empty() || next.starts_with('-'));
        assert!(described, "{flag} has no description:\n{export}");
    }
    for cmd in ["analyze", "whatif", "estimate"] {
        let h = help(&[cmd, "--help"]);
        assert!(
            h.contains("text: A summary for people") && h.contains("json: Every figure"),
            "{cmd}:\n{h}"
        );
    }
    let annotate = help(&["annotate", "--help"]);
    assert!(
        annotate.contains("Without --better or --faster: the manifest's `[annotate] mode`"),
        "{annotate}"
    );
    // --handoff names where its default comes from, as whatif's output does: the project's
    // kept figure, else the trace header's.
    let replay = help(&["analyze", "--help"]);
    assert!(
        replay.contains(".revy/machine.toml") && replay.contains("the trace header's"),
        "{replay}"
    );
}

fn text_of(b: &[u8]) -> String {
    String::from_utf8_lossy(b).replace("\n          ", " ")
}
