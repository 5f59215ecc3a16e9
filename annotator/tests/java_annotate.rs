//! End-to-end tests of the Java annotator and runtime: annotate a copy of a project in both
//! modes, compile with javac, run, and compare stdout/stderr/exit code with the original;
//! then decode the compact trace and check creations and start/end balance.
//! Skipped (with a message) when no `javac` is on the PATH.

mod common;
use common::gate::Tool;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::trace::{decode, Ev, Trace, CRT, END, START};

use revy::instrument::annotate::{java::JavaAnnotator, Context, LangAnnotator, TraceSettings};
use revy::instrument::edits;
use revy::instrument::manifest::{Manifest, Mode};
use revy::instrument::model::Lang;

fn java_files(dir: &Path) -> Vec<String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "java"))
        .map(|e| e.path().to_string_lossy().into_owned())
        .collect()
}

struct Outcome {
    stdout: String,
    stderr: String,
    code: Option<i32>,
}

fn build_and_run(dir: &Path, main: &str, trace: Option<&Path>) -> Outcome {
    let out = dir.join("build");
    let _ = std::fs::remove_dir_all(&out);
    let st = Command::new("javac")
        .args(["-encoding", "UTF-8", "-nowarn", "-d"])
        .arg(&out)
        .args(java_files(&dir.join("src")))
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "javac failed in {}:\n{}",
        dir.display(),
        String::from_utf8_lossy(&st.stderr)
    );
    let mut cmd = Command::new("java");
    cmd.args(["-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp"])
        .arg(&out)
        .arg(main);
    match trace {
        Some(t) => cmd.env("REVY_TRACE", t),
        None => cmd.env("REVY_TRACE", "off"),
    };
    let r = cmd.output().unwrap();
    Outcome {
        stdout: String::from_utf8_lossy(&r.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&r.stderr).into_owned(),
        code: r.status.code(),
    }
}

/// Annotates every Java file of the project copy in `dir`, throttling methods past
/// `throttle_calls` calls (0: never) under 10 µs; returns skipped lines.
fn annotate_with(dir: &Path, mode: Mode, throttle_calls: u64) -> Vec<String> {
    let m = Manifest::load(&dir.join("revy.toml")).unwrap();
    let project = revy::instrument::project::load(&m).unwrap();
    let mut saf = revy::instrument::saf::build::build(&m, &project);
    // Select everything that can be instrumented.
    for c in &mut saf.classes {
        c.selected = true;
        for mm in &mut c.methods {
            mm.selected = true;
        }
    }
    let trace = TraceSettings {
        dir: dir.join(".revy/traces"),
        max_size: 1 << 30,
        project: m.name.clone(),
        throttle_calls,
        throttle_ns: if throttle_calls > 0 { 10_000 } else { 0 },
        build: None,
    };
    let cx = Context::new(mode, &saf, trace, dir.to_path_buf(), None);
    let mut annotated = Vec::new();
    let mut skipped = Vec::new();
    let mut writes = Vec::new();
    for f in project.files.iter().filter(|f| f.lang == Lang::Java) {
        let fe = JavaAnnotator.annotate_file(&cx, &f.model, &f.text);
        skipped.extend(fe.skipped);
        if fe.insertions.is_empty() {
            continue;
        }
        let out = edits::apply(&f.text, &fe.insertions);
        assert_eq!(edits::unapply(&out, &fe.insertions).unwrap(), f.text);
        // Line numbers (stack traces) never move.
        assert_eq!(out.lines().count(), f.text.lines().count(), "{}", f.path);
        writes.push((f.path.clone(), out.into_bytes()));
        annotated.push(&f.model);
    }
    let rt = JavaAnnotator.runtime_files(&cx, &annotated).unwrap();
    for (p, text) in writes.into_iter().chain(rt) {
        let full = dir.join(p);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    // Annotating twice is refused per file.
    let again = project.files[0].path.clone();
    let text = std::fs::read_to_string(dir.join(&again)).unwrap();
    if text.contains("_revy.runtime.Rv.") {
        let model =
            revy::instrument::project::parse_file(&again, &text, &Default::default()).unwrap();
        let fe = JavaAnnotator.annotate_file(&cx, &model, &text);
        assert!(fe.insertions.is_empty() && !fe.skipped.is_empty());
    }
    skipped
}

/// Common trace checks; returns creations per class name.
fn check_trace(t: &Trace, allow_open: &[&str]) -> BTreeMap<String, usize> {
    assert!(
        t.header.starts_with("unit=ns lang=java pid="),
        "{}",
        t.header
    );
    // The runtime's start-up measurements: probe cost, thread handoff (0: the machine was
    // too busy for a batch of round trips in 20 ms) and its batches, what a counted call
    // costs its caller (0: not throttling), in ns.
    for (key, least) in [
        ("probe_ns", f64::MIN_POSITIVE),
        ("handoff_ns", 0.0),
        ("handoff_batches", 0.0),
        ("handoff_p50", 0.0),
        ("counted_ns", 0.0),
    ] {
        let v: Option<f64> = t
            .header
            .split(' ')
            .find_map(|f| f.strip_prefix(key)?.strip_prefix('=')?.parse().ok());
        assert!(
            v.is_some_and(|v| v >= least && v < 1e8),
            "{key} {v:?} in {}",
            t.header
        );
    }
    assert!(t.end.is_some(), "no E record");
    assert!(!t.truncated);
    assert_eq!(t.end.unwrap() as usize, t.events.len());
    // Blocks of different threads interleave in file order, so an object may be used by
    // one thread in a block written before the creator's block: check against all Crt.
    let all_created: HashSet<u64> = t
        .rows()
        .iter()
        .filter(|e| e.1 == CRT)
        .map(|e| e.3)
        .collect();
    let mut created = HashSet::new();
    let mut per_class: BTreeMap<String, usize> = BTreeMap::new();
    let mut stacks: HashMap<u64, Vec<(u64, u64)>> = HashMap::new();
    let mut last_time: HashMap<u64, u64> = HashMap::new();
    for &(tid, kind, id, oid, _size, time) in &t.rows() {
        let lt = last_time.entry(tid).or_insert(0);
        assert!(time >= *lt, "time goes back in thread {tid}");
        *lt = time;
        match kind {
            CRT => {
                assert!(created.insert(oid), "object {oid} created twice");
                *per_class.entry(t.classes[&id].clone()).or_default() += 1;
            }
            START => {
                assert!(
                    oid == 0 || all_created.contains(&oid),
                    "oid {oid} used by {:?} before creation",
                    t.methods[&id]
                );
                stacks.entry(tid).or_default().push((id, oid));
            }
            END => {
                let top = stacks.entry(tid).or_default().pop();
                assert_eq!(top, Some((id, oid)), "unbalanced end in thread {tid}");
            }
            _ => {}
        }
    }
    for (tid, st) in stacks {
        for (mid, _) in st {
            let name = &t.methods[&mid].1;
            assert!(
                allow_open.contains(&name.as_str()),
                "method {name} never ended in thread {tid}"
            );
        }
    }
    per_class
}

fn run_project(src: &Path, main: &str, mode: Mode) -> (Outcome, Outcome, Trace) {
    let (before, after, t, _) = run_project_all(src, main, mode);
    (before, after, t)
}

/// Like `run_project`, plus the traces other processes wrote beside `t.rvt` (`t-PID.rvt`).
fn run_project_all(src: &Path, main: &str, mode: Mode) -> (Outcome, Outcome, Trace, Vec<Trace>) {
    run_project_throttled(src, main, mode, 0)
}

/// [`run_project_all`] with throttling past `throttle_calls` calls (0: off).
fn run_project_throttled(
    src: &Path,
    main: &str,
    mode: Mode,
    throttle_calls: u64,
) -> (Outcome, Outcome, Trace, Vec<Trace>) {
    let tmp = tempfile::tempdir().unwrap();
    let orig = tmp.path().join("orig");
    let ann = tmp.path().join("ann");
    common::copy_tree(src, &orig);
    common::copy_tree(src, &ann);
    let before = build_and_run(&orig, main, None);
    let skipped = annotate_with(&ann, mode, throttle_calls);
    assert!(skipped.is_empty(), "skipped: {skipped:?}");
    let trace_path = tmp.path().join("t.rvt");
    let after = build_and_run(&ann, main, Some(&trace_path));
    let bytes = std::fs::read(&trace_path).unwrap();
    let mut others = Vec::new();
    for e in std::fs::read_dir(tmp.path()).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if name.starts_with("t-") && name.ends_with(".rvt") {
            others.push(decode(&std::fs::read(tmp.path().join(name)).unwrap()));
        }
    }
    (before, after, decode(&bytes), others)
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn account_both_modes() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    for mode in [Mode::Better, Mode::Faster] {
        let (before, after, t) = run_project(&repo().join("projects/account"), "bank.Main", mode);
        assert_eq!(before.stdout, after.stdout);
        assert_eq!(before.stderr, after.stderr);
        assert_eq!(before.code, after.code);
        let per = check_trace(&t, &[]);
        assert_eq!(per.get("bank.Person"), Some(&3));
        assert_eq!(per.get("bank.Account"), Some(&3));
        // transfer(double, Account): 8 + Account's size (16: two fields + one static).
        let transfer = t
            .methods
            .iter()
            .find(|(_, m)| m.1 == "transfer")
            .map(|(id, _)| *id)
            .unwrap();
        let sizes: HashSet<u64> = t
            .rows()
            .iter()
            .filter(|e| e.1 == START && e.2 == transfer)
            .map(|e| e.4)
            .collect();
        assert_eq!(sizes, HashSet::from([24]), "{mode}");
    }
}

#[test]
fn corpus_features_both_modes() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    for mode in [Mode::Better, Mode::Faster] {
        let (before, after, t) = run_project(
            &repo().join("tests/java-corpus/features"),
            "corpus.Main",
            mode,
        );
        assert_eq!(before.stdout, after.stdout, "{mode}");
        assert_eq!(before.stderr, after.stderr, "{mode}");
        assert_eq!(before.code, Some(3));
        assert_eq!(before.code, after.code);
        // main ends in System.exit: its frame stays open.
        let per = check_trace(&t, &["main"]);
        // a recorded call's end carries only its time (kind 7): the ends balanced above
        // are mostly those, paired with their starts by the decoder
        let ends = t.events.iter().filter(|e| e.2.kind() == END).count() as u64;
        assert!(t.bare_ends * 2 > ends, "{mode}: {} of {ends}", t.bare_ends);
        assert_eq!(per.get("corpus.Chain"), Some(&2), "{per:?}");
        assert_eq!(per.get("corpus.Sub"), Some(&1), "{per:?}");
        assert_eq!(per.get("corpus.Sub2"), Some(&1), "{per:?}");
        assert_eq!(per.get("corpus.Planet"), Some(&3), "{per:?}");
        assert_eq!(per.get("corpus.Op"), Some(&2), "{per:?}");
        assert_eq!(per.get("corpus.Threads"), Some(&1), "{per:?}");
        assert_eq!(per.get("corpus.Rect"), Some(&2), "{per:?}");
        // Records get non-intrusive IDs, logged on first sight.
        assert_eq!(per.get("corpus.Point"), Some(&5), "{per:?}");
        // Methods of enum-constant bodies (`PLUS { int apply(…) {…} }`) are instrumented.
        let apply: HashSet<u64> = t
            .methods
            .iter()
            .filter(|(_, m)| m.1 == "apply")
            .map(|(id, _)| *id)
            .collect();
        let applied = t
            .events
            .iter()
            .filter(|e| matches!(e.2, Ev::Start { mth, .. } if apply.contains(&mth)))
            .count();
        assert_eq!(applied, 2, "{mode}: PLUS.apply and TIMES.apply");
        // A clone and a deserialised copy are new objects with IDs of their own.
        assert_eq!(per.get("corpus.Sheep"), Some(&3), "{per:?}");
        let name = method_id(&t, "name");
        let receivers: HashSet<u64> = t
            .events
            .iter()
            .filter_map(|e| match e.2 {
                Ev::Start { mth, oid, .. } if mth == name => Some(oid),
                _ => None,
            })
            .collect();
        assert_eq!(
            receivers.len(),
            3,
            "{mode}: dolly, her clone and her thawed copy"
        );
        // The synchronized counter ran in 4 worker threads, each balanced.
        let inc = t
            .methods
            .iter()
            .find(|(_, m)| m.1 == "inc")
            .map(|(id, _)| *id)
            .unwrap();
        let tids: HashSet<u64> = t
            .rows()
            .iter()
            .filter(|e| e.1 == START && e.2 == inc)
            .map(|e| e.0)
            .collect();
        assert_eq!(tids.len(), 4);
        assert!(t.threads.values().any(|n| n == "worker-0"));
        let incs = t.rows().iter().filter(|e| e.1 == END && e.2 == inc).count();
        assert_eq!(incs, 8000);
    }
}

/// Writes a small project (`revy.toml` + `src/…`) into a new temporary folder.
fn small_project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("revy.toml"),
        "[project]\nname = \"small\"\nsources = [\"src/**/*.java\"]\n\n[annotate]\nmode = \"better\"\ninclude = [\"*\"]\n",
    )
    .unwrap();
    for (path, text) in files {
        let full = tmp.path().join("src").join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    tmp
}

fn method_id(t: &Trace, name: &str) -> u64 {
    t.methods
        .iter()
        .find(|(_, m)| m.1 == name)
        .map(|(id, _)| *id)
        .unwrap_or_else(|| panic!("no method {name}"))
}

/// A superclass's constructor calling an overridden method (`TreeMap(Map)` calls `put` for
/// each entry) runs it before the subclass's ID field is set: that call takes a
/// non-intrusive ID with its creation entry, and the field's initialiser must take the same
/// ID — one object, one ID, one creation (it gave a second of each before).
#[test]
fn methods_called_by_the_superclass_constructor_share_the_object_id() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let p = small_project(&[(
        "early/Main.java",
        r#"package early;
import java.util.*;
public class Main {
    static final class Counting extends TreeMap<String, Integer> {
        int puts;
        Counting(Map<String, Integer> m) { super(m); }
        @Override public Integer put(String k, Integer v) { puts++; return super.put(k, v); }
        int total() { return size() + puts; }
    }
    public static void main(String[] args) {
        Map<String, Integer> m = new HashMap<>();
        m.put("a", 1);
        m.put("b", 2);
        long s = 0;
        for (int i = 0; i < 3; i++) { Counting c = new Counting(m); c.put("c", i); s += c.total(); }
        System.out.println(s);
    }
}
"#,
    )]);
    let (before, after, t) = run_project(p.path(), "early.Main", Mode::Better);
    assert_eq!(before.stdout, after.stdout);
    assert_eq!(before.stdout.trim(), "18");
    let created = check_trace(&t, &[]);
    assert_eq!(created.get("early.Main.Counting"), Some(&3), "{created:?}");
    let rows = t.rows();
    let oids = |m: u64| -> HashSet<u64> {
        rows.iter()
            .filter(|e| e.1 == START && e.2 == m)
            .map(|e| e.3)
            .collect()
    };
    let (put, total) = (oids(method_id(&t, "put")), oids(method_id(&t, "total")));
    assert_eq!(total.len(), 3, "{total:?}");
    assert_eq!(put, total, "put's receivers against total's");
}

/// The same, nested: while `TreeMap(Map)` runs an override of the outer object, the override
/// builds an inner object whose own superclass constructor runs an override too. Both early
/// IDs must wait for their initialisers (one remembered per thread let the inner one push
/// the outer's out: the outer got a second ID and creation).
#[test]
fn nested_early_constructions_keep_one_id_each() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let p = small_project(&[(
        "nest/Main.java",
        r#"package nest;
import java.util.*;
public class Main {
    static final class Inner extends TreeMap<String, Integer> {
        int puts;
        Inner(Map<String, Integer> m) { super(m); }
        @Override public Integer put(String k, Integer v) { puts++; return super.put(k, v); }
        int count() { return puts; }
    }
    static final class Outer extends TreeMap<String, Integer> {
        int puts;
        Inner inner;
        Outer(Map<String, Integer> m) { super(m); }
        @Override public Integer put(String k, Integer v) {
            puts++;
            if (inner == null) inner = new Inner(Collections.singletonMap(k, v));
            return super.put(k, v);
        }
        int total() { return size() + puts + inner.count(); }
    }
    public static void main(String[] args) {
        Map<String, Integer> m = new HashMap<>();
        m.put("a", 1);
        m.put("b", 2);
        long s = 0;
        for (int i = 0; i < 3; i++) { Outer o = new Outer(m); o.put("c", i); s += o.total(); }
        System.out.println(s);
    }
}
"#,
    )]);
    let (before, after, t) = run_project(p.path(), "nest.Main", Mode::Better);
    assert_eq!(before.stdout, after.stdout);
    assert_eq!(before.stdout.trim(), "21");
    let created = check_trace(&t, &[]);
    assert_eq!(created.get("nest.Main.Outer"), Some(&3), "{created:?}");
    assert_eq!(created.get("nest.Main.Inner"), Some(&3), "{created:?}");
    let rows = t.rows();
    let oids = |class: &str, name: &str| -> HashSet<u64> {
        let (&m, _) = t
            .methods
            .iter()
            .find(|(_, m)| m.1 == name && t.classes[&m.0] == class)
            .unwrap_or_else(|| panic!("no {class}.{name}"));
        rows.iter()
            .filter(|e| e.1 == START && e.2 == m)
            .map(|e| e.3)
            .collect()
    };
    let total = oids("nest.Main.Outer", "total");
    assert_eq!(total.len(), 3, "{total:?}");
    assert_eq!(
        oids("nest.Main.Outer", "put"),
        total,
        "outer put's receivers"
    );
    let count = oids("nest.Main.Inner", "count");
    assert_eq!(count.len(), 3, "{count:?}");
    assert_eq!(
        oids("nest.Main.Inner", "put"),
        count,
        "inner put's receivers"
    );
}

/// jsoup: every parser call passes a node whose parent links reach the whole document, so
/// an unbounded better-mode size walk made each call cost the document (the suite ran 50×
/// slower). The walk now stops after a budget of objects; and a collection argument's
/// iteration runs no user code.
#[test]
fn better_mode_size_walk_is_bounded() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let p = small_project(&[(
        "walk/Main.java",
        r#"package walk;
import java.util.*;
public class Main {
    static final class Node { Node next; Node prev; int v; }
    static long sum;
    static void visit(Node n) { sum += n.v; }
    static void all(List<Node> l) { sum += l.size(); }
    public static void main(String[] args) {
        Node head = null;
        List<Node> list = new ArrayList<>();
        for (int i = 0; i < 40000; i++) { Node n = new Node(); n.v = i; n.next = head; if (head != null) head.prev = n; head = n; list.add(n); }
        for (Node n = head; n != null; n = n.next) visit(n);
        for (int i = 0; i < 1000; i++) all(list);
        System.out.println(sum);
    }
}
"#,
    )]);
    let (before, after, t) = run_project(p.path(), "walk.Main", Mode::Better);
    assert_eq!(before.stdout, after.stdout);
    assert_eq!(before.code, after.code);
    check_trace(&t, &[]);
    // Unbounded, this walked 40000 nodes per call (1.6e9 field reads): the sizes show the
    // walk's bound.
    let visit = method_id(&t, "visit");
    let max = t
        .rows()
        .iter()
        .filter(|e| e.1 == START && e.2 == visit)
        .map(|e| e.4)
        .max()
        .unwrap();
    // Node: two references and an int; the walk stops after 256 objects.
    assert!((20..=256 * 20 + 64).contains(&max), "{max}");
    let all = method_id(&t, "all");
    let sizes: HashSet<u64> = t
        .rows()
        .iter()
        .filter(|e| e.1 == START && e.2 == all)
        .map(|e| e.4)
        .collect();
    // 40000 elements: the first 255 walked, the rest a pointer each.
    assert_eq!(sizes.len(), 1, "{sizes:?}");
    let s = *sizes.iter().next().unwrap();
    assert!((40000 * 8..40000 * 8 + 256 * 20 + 64).contains(&s), "{s}");
}

/// Better mode caches an object's walked size and re-walks it after a number of reuses that
/// grows while the size stays put: a growing argument must still show every size it had,
/// each within 64 calls of the change, and never a size it has not reached yet.
#[test]
fn better_mode_size_cache_sees_every_change_soon() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let p = small_project(&[(
        "grow/Main.java",
        r#"package grow;
import java.util.*;
public class Main {
    static final class Item { int a; long b; }
    static final class Bag { List<Item> items = new ArrayList<>(); int n; }
    static long sum;
    static void touch(Bag b) { sum += b.n; }
    public static void main(String[] args) {
        Bag bag = new Bag();
        for (int i = 0; i < 15000; i++) {
            if (i % 500 == 0) { bag.items.add(new Item()); bag.n++; }
            touch(bag);
        }
        System.out.println(sum);
    }
}
"#,
    )]);
    let (before, after, t) = run_project(p.path(), "grow.Main", Mode::Better);
    assert_eq!(before.stdout, after.stdout);
    check_trace(&t, &[]);
    let touch = method_id(&t, "touch");
    let sizes: Vec<u64> = t
        .events
        .iter()
        .filter_map(|e| match e.2 {
            Ev::Start { mth, size, .. } if mth == touch => Some(size),
            _ => None,
        })
        .collect();
    assert_eq!(sizes.len(), 15000);
    assert!(sizes.windows(2).all(|w| w[0] <= w[1]), "sizes only grow");
    let mut firsts = Vec::new();
    for (i, w) in sizes.windows(2).enumerate() {
        if w[1] != w[0] {
            firsts.push(i + 1);
        }
    }
    assert_eq!(
        firsts.len(),
        29,
        "every one of the 30 sizes is seen: {firsts:?}"
    );
    for (k, &i) in firsts.iter().enumerate() {
        let changed = (k + 1) * 500;
        assert!(
            (changed..=changed + 64).contains(&i),
            "size {k} seen at call {i}"
        );
    }
    // The bag with one item more costs the same each time: the sizes are exact, not guesses.
    let steps: HashSet<u64> = firsts.iter().map(|&i| sizes[i] - sizes[i - 1]).collect();
    assert_eq!(steps.len(), 1, "{steps:?}");
}

/// commons-collections4's `ReferenceIdentityMapTest.testPurgeValues` failed annotated: the
/// better-mode size walk kept its last walk's objects in its seen-set until the next walk,
/// so a weakly held argument was never collected. A walk now drops them when it ends.
#[test]
fn better_mode_size_walk_keeps_no_argument_alive() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let p = small_project(&[(
        "weak/Main.java",
        r#"package weak;
import java.lang.ref.WeakReference;
public class Main {
    static final class Box { int a; Object more = new int[4]; }
    static long sum;
    static void take(Box b) { sum += b.a; }
    static WeakReference<Box> make() {
        Box b = new Box();
        take(b);
        return new WeakReference<Box>(b);
    }
    public static void main(String[] args) {
        WeakReference<Box> r = make();
        for (int i = 0; i < 50 && r.get() != null; i++) {
            System.gc();
        }
        System.out.println(r.get() == null ? "collected" : "kept alive");
    }
}
"#,
    )]);
    let (before, after, t) = run_project(p.path(), "weak.Main", Mode::Better);
    assert!(before.stdout.contains("collected"), "{}", before.stdout);
    assert_eq!(before.stdout, after.stdout);
    check_trace(&t, &[]);
}

/// junit4: a test starts a child JVM that inherits REVY_TRACE; the child truncated and
/// overwrote the file the parent was writing (a hole of zeros, a malformed trace). The
/// child now finds the file locked and writes `NAME-PID.rvt` beside it.
#[test]
fn child_jvm_with_the_same_revy_trace_gets_its_own_file() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let p = small_project(&[(
        "fork/Main.java",
        r#"package fork;
import java.io.File;
public class Main {
    int n;
    void work(int k) { for (int i = 0; i < k; i++) n += i; }
    public static void main(String[] args) throws Exception {
        Main m = new Main();
        m.work(10);
        if (args.length == 0) {
            String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
            Process c = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "fork.Main", "child")
                .inheritIO().start();
            System.out.println("child " + c.waitFor());
            for (int i = 0; i < 20000; i++) m.work(3);
        } else {
            for (int i = 0; i < 5000; i++) m.work(2);
        }
        System.out.println(m.n);
    }
}
"#,
    )]);
    let (before, after, t, others) = run_project_all(p.path(), "fork.Main", Mode::Faster);
    assert_eq!(before.stdout, after.stdout);
    assert_eq!(before.code, after.code);
    // decode() checked the structure; the parent's calls are all there.
    check_trace(&t, &[]);
    let work = method_id(&t, "work");
    let n = t
        .rows()
        .iter()
        .filter(|e| e.1 == START && e.2 == work)
        .count();
    assert_eq!(n, 20001);
    assert_eq!(others.len(), 1, "the child's trace");
    check_trace(&others[0], &[]);
    let work = method_id(&others[0], "work");
    let n = others[0]
        .rows()
        .iter()
        .filter(|e| e.1 == START && e.2 == work)
        .count();
    assert_eq!(n, 5001);
}

/// commons-collections4: tests interrupt threads; writing the trace through a FileChannel
/// (interruptible) closed it on the first flush by an interrupted thread ("cannot write the
/// trace: ClosedByInterruptException", the trace cut mid-record).
#[test]
fn interrupted_threads_do_not_close_the_trace() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let p = small_project(&[(
        "intr/Main.java",
        r#"package intr;
public class Main {
    int n;
    void work(int k) { n += k; }
    public static void main(String[] args) throws Exception {
        Thread t = new Thread(() -> {
            // opens the trace with the interrupt status set
            Thread.currentThread().interrupt();
            Main m = new Main();
            for (int i = 0; i < 50000; i++) m.work(i);
            System.out.println("worker " + Thread.interrupted() + " " + m.n);
        });
        t.start();
        t.join();
        Main m = new Main();
        m.work(1);
        Thread.currentThread().interrupt();
        // buffer flushes by an interrupted thread
        for (int i = 0; i < 50000; i++) m.work(i);
        System.out.println("main " + Thread.interrupted() + " " + m.n);
    }
}
"#,
    )]);
    let (before, after, t) = run_project(p.path(), "intr.Main", Mode::Faster);
    assert_eq!(before.stdout, after.stdout);
    assert_eq!(before.stderr, after.stderr);
    check_trace(&t, &[]);
    let work = method_id(&t, "work");
    let n = t
        .rows()
        .iter()
        .filter(|e| e.1 == START && e.2 == work)
        .count();
    assert_eq!(n, 100001);
}

/// Java 21 syntax tree-sitter-java 0.23 mis-parses (`case final T x ->`, qualified record
/// patterns in generic records): the declarations are reported and left alone byte for
/// byte, never mis-instrumented; the rest of the file is instrumented.
#[test]
fn java21_misparses_are_reported_and_left_alone() {
    let src = r#"package p;

sealed interface Shape permits Circle, Box {}
record Circle(double r) implements Shape {}
record Box(double w, double h) implements Shape {}
record Pair<A, B>(A first, B second) {}

class Shapes {
    static double area(Shape s) {
        return switch (s) {
            case final Circle c -> 3 * c.r() * c.r();
            case Box(double w, double h) -> w * h;
        };
    }

    static String pair(Object o) {
        if (o instanceof Pair<?, ?>(p.Circle(var r), var b)) {
            return "circle " + r + b;
        }
        return "other";
    }

    static int plain(int x) {
        return x + 1;
    }
}
"#;
    let t = small_project(&[("p/Shapes.java", src)]);
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_revy"))
            .args(args)
            .current_dir(t.path())
            .output()
            .unwrap()
    };
    let p = run(&["parse"]);
    let err = String::from_utf8_lossy(&p.stderr).into_owned();
    assert_eq!(p.status.code(), Some(1), "{err}");
    assert!(
        err.contains("src/p/Shapes.java:11:31: syntax error"),
        "{err}"
    );
    assert!(err.contains("src/p/Shapes.java:17:"), "{err}");
    let a = run(&["annotate"]);
    let log = String::from_utf8_lossy(&a.stderr).into_owned();
    assert_eq!(a.status.code(), Some(1), "{log}");
    assert!(log.contains("Shapes.area — syntax error at 11:31"), "{log}");
    assert!(log.contains("Shapes.pair — syntax error at 17:36"), "{log}");
    let out = std::fs::read_to_string(t.path().join("src/p/Shapes.java")).unwrap();
    let body = |s: &str, name: &str| {
        let from = s.find(name).unwrap();
        let to = s[from..].find("\n    }\n").unwrap();
        s[from..from + to].to_string()
    };
    assert_eq!(body(&out, "double area("), body(src, "double area("));
    assert_eq!(body(&out, "String pair("), body(src, "String pair("));
    assert!(out[out.find("int plain(").unwrap()..].contains("_revy.runtime.Rv.enter("));
}

/// Issue 37 item 6: `super.clone()` in a string literal (and a comment) inside `clone()` was
/// rewritten, so the program printed Revy's call; only the call node is wrapped now, and the
/// clone still gets an ID of its own.
#[test]
fn text_that_spells_super_clone_is_left_alone() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let p = small_project(&[(
        "cl/Main.java",
        r#"package cl;
public class Main {
    static final class Sheep implements Cloneable {
        String note = "none";
        @Override protected Sheep clone() {
            try {
                // made by super.clone() here
                Sheep s = (Sheep) super.clone();
                s.note = "made by super.clone() here";
                return s;
            } catch (CloneNotSupportedException e) { throw new AssertionError(e); }
        }
        String note() { return note; }
    }
    public static void main(String[] args) {
        Sheep dolly = new Sheep();
        System.out.println(dolly.clone().note());
    }
}
"#,
    )]);
    let (before, after, t) = run_project(p.path(), "cl.Main", Mode::Better);
    assert_eq!(before.stdout.trim(), "made by super.clone() here");
    assert_eq!(after.stdout, before.stdout, "{}", after.stderr);
    let created = check_trace(&t, &[]);
    assert_eq!(created.get("cl.Main.Sheep"), Some(&2), "{created:?}");
}

/// Issue 34: calls of long methods (a call of ≥ 50 µs seen lately) end with their on-CPU
/// time, so the analysis tells work from waiting: a call asleep 20 ms shows almost none, a
/// spinning one some and never more than its wall time; short methods never read the clock.
#[test]
fn long_calls_end_with_their_cpu_time() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let p = small_project(&[(
        "cpu/Main.java",
        r#"package cpu;
public class Main {
    static long sink;
    static void sleepy() throws InterruptedException { Thread.sleep(20); }
    static void spin() { long t = System.nanoTime(); while (System.nanoTime() - t < 3000000L) sink++; }
    static int tiny(int i) { return i + 1; }
    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 6; i++) { sleepy(); spin(); }
        int s = 0;
        for (int i = 0; i < 20000; i++) s = tiny(s);
        System.out.println(s);
    }
}
"#,
    )]);
    let (before, after, t) = run_project(p.path(), "cpu.Main", Mode::Faster);
    assert_eq!(before.stdout, after.stdout);
    check_trace(&t, &[]);
    // (wall, cpu) of every call of a method, in order
    let calls = |name: &str| -> Vec<(u64, Option<u64>)> {
        let m = method_id(&t, name);
        let mut open = Vec::new();
        let mut out = Vec::new();
        for &(_, time, e) in &t.events {
            match e {
                Ev::Start { mth, .. } if mth == m => open.push(time),
                Ev::End { mth, cpu, .. } if mth == m => out.push((time - open.pop().unwrap(), cpu)),
                _ => {}
            }
        }
        out
    };
    let sleepy = calls("sleepy");
    assert_eq!(sleepy.len(), 6);
    // the first long call makes the method measured: the later ones carry their CPU time
    assert!(sleepy[1..].iter().all(|c| c.1.is_some()), "{sleepy:?}");
    assert!(
        sleepy.iter().all(|&(w, c)| c.unwrap_or(0) < w / 2),
        "{sleepy:?}"
    );
    let spin = calls("spin");
    assert!(
        spin[1..].iter().all(|c| c.1.is_some_and(|c| c > 0)),
        "{spin:?}"
    );
    // the thread CPU clock may tick coarser than nanoTime: 1 ms of slack
    assert!(
        spin.iter().all(|&(w, c)| c.unwrap_or(0) <= w + 1_000_000),
        "{spin:?}"
    );
    let tiny = calls("tiny");
    assert_eq!(tiny.len(), 20000);
    // a short method is measured only for its 8 calls after a long one (its first,
    // interpreted, calls; a preemption): a few, never most
    let measured = tiny.iter().filter(|c| c.1.is_some()).count();
    assert!(measured < 200, "{measured} of 20000 short calls measured");
}

/// Issue 34: the runtime keeps timing 1 in 1,024 counted calls of a throttled Java method, so
/// a phase change shows: `work` becomes a hundred times slower half-way (after `phase()`, a
/// recorded call that marks the time), and a later `S` record follows it. Before the change
/// no estimate rises past 3× the verdict's: the samples time the compiled method, not code
/// the JIT deoptimised at the verdict (they once measured ~40x the real call); one may fall
/// (the JIT compiling the method after a verdict taken on a loaded machine). Counts stay
/// exact. (Before, the verdict's estimate held for the whole run.)
#[test]
fn throttled_estimate_follows_a_phase_change() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let p = small_project(&[(
        "phase/Main.java",
        r#"package phase;
public class Main {
    static long sink;
    static void work(int n) { long x = sink; for (int i = 0; i < n; i++) x = x * 31 + i; sink = x; }
    static void phase() { sink++; }
    public static void main(String[] args) {
        for (int i = 0; i < 250000; i++) work(200);
        phase();
        for (int i = 0; i < 100000; i++) work(20000);
        System.out.println(sink != 42);
    }
}
"#,
    )]);
    let (before, after, t, _) =
        run_project_throttled(p.path(), "phase.Main", Mode::Faster, 100_000);
    assert_eq!(before.stdout, after.stdout);
    let work = method_id(&t, "work");
    assert_eq!(t.throttled, [work]);
    let rows = t.rows();
    let phase = method_id(&t, "phase");
    let at = |k: u8| rows.iter().find(|e| e.1 == k && e.2 == phase).map(|e| e.5);
    let (from, to) = (at(START).expect("phase() recorded"), at(END).unwrap());
    let est: Vec<_> = t.estimates.iter().filter(|e| e.1 == work).collect();
    // the verdict's (the latest 256 timed calls)
    assert_eq!(est[0].4, 256, "{est:?}");
    let early: Vec<_> = est.iter().filter(|e| e.2 < from).collect();
    let late: Vec<_> = est.iter().filter(|e| e.2 >= from).collect();
    assert!(
        early.iter().all(|e| e.3 <= 3 * est[0].3.max(1)),
        "an estimate rose before the phase change ({from}..{to}): {est:?}"
    );
    // then the sampled calls' median (the latest 32): 100× slower, asserted as ≥ 5×. A new
    // estimate needs the old one outside the samples' p10..p90, so most of the 32 must be
    // new: ~98 samples after the change leave room for one outlier-led step (a CI run with
    // ~39 stopped at 1,442 ns, a preempted old sample, against a 20 µs call)
    let pace = early[early.len() - 1].3.max(1);
    assert!(
        late.iter().any(|e| e.4 == 32 && e.3 >= 5 * pace),
        "no estimate followed the phase change at {to}: {est:?}"
    );
    let recorded = rows.iter().filter(|e| e.1 == START && e.2 == work).count() as u64;
    assert_eq!(recorded + t.aggregated, 350_000);
}

/// Issue 34: a throttled method's estimate is the median of its latest timed calls (an `S`
/// record with its spread), not a mean one slow call dominates. Counts stay exact.
#[test]
fn throttled_estimate_is_the_median_of_timed_calls() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let p = small_project(&[(
        "phase/Main.java",
        r#"package phase;
public class Main {
    static long sink;
    static void step(int n) { long x = sink; for (int i = 0; i < n; i++) x = x * 31 + i; sink = x; }
    public static void main(String[] args) {
        for (int i = 0; i < 300000; i++) step(1);
        for (int i = 0; i < 300000; i++) step(3000);
        System.out.println(sink != 42);
    }
}
"#,
    )]);
    let (before, after, t, _) =
        run_project_throttled(p.path(), "phase.Main", Mode::Faster, 100_000);
    assert_eq!(before.stdout, after.stdout);
    let step = method_id(&t, "step");
    assert_eq!(t.throttled, [step]);
    let est: Vec<_> = t.estimates.iter().filter(|e| e.1 == step).collect();
    assert!(!est.is_empty(), "{est:?}");
    // at the verdict: the median of the latest 256 timed calls
    assert_eq!(est[0].4, 256);
    let recorded = t
        .rows()
        .iter()
        .filter(|e| e.1 == START && e.2 == step)
        .count() as u64;
    assert_eq!(recorded + t.aggregated, 600_000);
}

/// Issue 40: the generated code is small. javac copies a `finally` to every exit, so each
/// copy is one `iload` and one `invokestatic` (`Rv.exit(token)`), and the entry one call that
/// reads the receiver's ID and sizes the arguments in the runtime: an annotated getter stays
/// within HotSpot's 35-byte inlining limit for cold call sites (37 bytes with a start, an
/// ID local and `Rv.end(MID, OID)` at each exit). The sizes the runtime computes from the
/// arguments it is given are those the generated expression gave: up to three reference
/// arguments passed to `Rv.enter`, four summed in the generated code.
#[test]
fn generated_code_is_small_and_sizes_its_arguments() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let p = small_project(&[(
        "g/Main.java",
        r#"package g;
public class Main {
    private String name = "x";
    public String name() { return name; }
    static long pair(String s, int[] v, long k) { return s.length() + v.length + k; }
    static long quad(String a, String b, String c, String d) { return a.length() + b.length() + c.length() + d.length(); }
    long three(String a, int[] b, char[] c, int k) { if (k == 1) { return 1; } if (k == 2) { return 2; } return a.length() + b.length + c.length + k; }
    public static void main(String[] args) {
        Main m = new Main();
        long s = pair("abc", new int[5], 7L) + quad("a", "bb", "ccc", "dddd") + m.three("ab", new int[2], new char[3], 4);
        System.out.println(m.name() + s);
    }
}
"#,
    )]);
    let tmp = tempfile::tempdir().unwrap();
    let ann = tmp.path().join("ann");
    common::copy_tree(p.path(), &ann);
    assert!(annotate_with(&ann, Mode::Better, 0).is_empty());
    let trace_path = tmp.path().join("t.rvt");
    let after = build_and_run(&ann, "g.Main", Some(&trace_path));
    assert_eq!(
        (after.stdout.trim(), after.code),
        ("x36", Some(0)),
        "{}",
        after.stderr
    );
    let t = decode(&std::fs::read(&trace_path).unwrap());
    let size_of = |name: &str| {
        let id = method_id(&t, name);
        (t.events.iter())
            .find_map(|e| match e.2 {
                Ev::Start { mth, size, .. } if mth == id => Some(size),
                _ => None,
            })
            .unwrap()
    };
    // 2 bytes a char, 4 an int, 8 a long
    assert_eq!(size_of("pair"), 6 + 20 + 8);
    assert_eq!(size_of("quad"), 2 + 4 + 6 + 8);
    assert_eq!(size_of("three"), 4 + 8 + 6 + 4);
    let javap = Command::new("javap")
        .args(["-c", "-p", "-cp"])
        .arg(ann.join("build"))
        .arg("g.Main")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&javap.stdout);
    let getter = &text[text.find("java.lang.String name();").unwrap()..];
    let getter = &getter[..getter.find("Exception table").unwrap()];
    // the offset of its last instruction (`athrow`, one byte): the code's length less one
    let last = (getter.lines())
        .filter_map(|l| l.trim().split(':').next()?.parse::<usize>().ok())
        .max()
        .unwrap();
    assert!(last < 35, "the getter is {} bytes:\n{getter}", last + 1);
}

/// Bytecode length of each method of `class` under `dir` whose javap line contains `name(`
/// (the offset of its last instruction plus one, a close bound: returns are one byte).
fn method_lengths(dir: &Path, class: &str, name: &str) -> Vec<(String, usize)> {
    let javap = Command::new("javap")
        .args(["-c", "-p", "-cp"])
        .arg(dir)
        .arg(class)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&javap.stdout);
    let mut out: Vec<(String, usize)> = Vec::new();
    for l in text.lines() {
        if l.starts_with("  ") && !l.starts_with("   ") && l.ends_with(';') {
            out.push((l.trim().to_string(), 0));
        } else if let Some(off) = l
            .trim()
            .split(':')
            .next()
            .and_then(|s| s.parse::<usize>().ok())
        {
            if let Some(last) = out.last_mut() {
                last.1 = last.1.max(off + 1);
            }
        }
    }
    out.retain(|(sig, _)| sig.contains(&format!(" {name}(")));
    out
}

#[test]
fn entry_and_exit_are_never_inlined() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    let p = small_project(&[(
        "g/Main.java",
        "package g;\npublic class Main {\n    public static void main(String[] args) { System.out.println(args.length); }\n}\n",
    )]);
    let tmp = tempfile::tempdir().unwrap();
    let ann = tmp.path().join("ann");
    common::copy_tree(p.path(), &ann);
    // the default throttling: with it off, javac folds the counted paths away (a constant
    // of RvTable) and the exit, small enough to inline, is a timed end's call
    assert!(annotate_with(&ann, Mode::Better, 100_000).is_empty());
    let out = build_and_run(&ann, "g.Main", None);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let build = ann.join("build");
    // C2 inlines a callee at a hot site up to FreqInlineSize (325 bytes of bytecode), and
    // counts what it inlines against a compile's budget (DesiredMethodLimit): the entries
    // and the exit the generated code calls only pass their arguments on, to one method
    // each that is too big to inline, so a probed method brings no runtime into a compile
    let enters = method_lengths(&build, "_revy.runtime.Rv", "enter");
    assert_eq!(enters.len(), 9, "{enters:?}");
    for (sig, len) in &enters {
        assert!(*len <= 20, "{sig} is {len} bytes");
    }
    let exits = method_lengths(&build, "_revy.runtime.Rv", "exit");
    assert!(exits.len() == 1 && exits[0].1 <= 32, "{exits:?}");
    for (class, name) in [
        ("_revy.runtime.Rv", "enterAny"),
        ("_revy.runtime.RvBuf", "exit"),
    ] {
        let big = method_lengths(&build, class, name);
        assert_eq!(big.len(), 1, "{class}.{name}: {big:?}");
        assert!(
            big[0].1 > 325,
            "{class}.{name} is {} bytes: C2 would inline it",
            big[0].1
        );
    }
}
