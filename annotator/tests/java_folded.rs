//! Issue 40: past a thread's instance-level edge table (4,096 keys) the Java runtime sums a
//! call on a new object into its folded edge (sender method × receiver method) and the
//! method's statistics, in a small table of its own. Two sender classes call methods of many
//! new objects, on a thread that ends (its aggregates written when it is reaped) and on the
//! main thread, with runs of alike calls (added as one) and static-to-static calls (a key of
//! oid 0 is not a fold): every call is counted, on the right edge, and each thread's method
//! rows equal the sums of their edges.

mod common;
use common::gate::Tool;
use common::{ok, revy_in, Lang};

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

const MAIN: &str = r#"package w;

public class Main {
    public static void main(String[] args) throws Exception {
        final int n = 6000;
        final long[] w = new long[2];
        Thread t = new Thread(new Runnable() {
            public void run() {
                w[0] = new Left().send(n);
                w[1] = spin(n);
            }
        });
        t.start();
        t.join();
        long s = w[0] + w[1] + new Left().send(n) + new Right().send(n) + spin(n);
        System.out.println("hit=" + Cell.HIT + " twice=" + Cell.TWICE + " made=" + Cell.MADE
                + " left=" + Left.SENT + " right=" + Right.SENT + " s=" + s);
    }

    static long spin(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += Cell.twice(i);
        }
        return s;
    }
}

class Left {
    static long SENT;

    long send(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            Cell c = new Cell(i);
            // three alike calls on one new object: a run of counted calls
            s += c.hit(i & 7) + c.hit(i & 7) + c.hit(i & 7);
            SENT += 4;
        }
        return s;
    }
}

class Right {
    static long SENT;

    long send(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += new Cell(i).hit(i % 5);
            SENT += 2;
        }
        return s;
    }
}

class Cell {
    static long HIT, TWICE, MADE;
    final int v;

    Cell(int v) {
        this.v = v;
        MADE++;
    }

    long hit(int k) {
        HIT++;
        long x = v;
        for (int i = 0; i < k; i++) {
            x = x * 31 + i;
        }
        return x;
    }

    static long twice(int k) {
        TWICE++;
        return 2L * k;
    }
}
"#;

const JAVA: Lang = Lang {
    name: "java",
    sources: "src/**/*.java",
    build: "rm -rf build && mkdir -p build && javac -encoding UTF-8 -d build $(find src -name '*.java')",
    run: "java -cp build w.Main",
    files: &[("src/w/Main.java", MAIN)],
};

fn sh(dir: &Path, cmd: &str, trace: &Path) -> String {
    let o = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .env("REVY_TRACE", trace)
        .env("REVY_BUDGET", "off")
        .output()
        .unwrap();
    ok(&o, cmd)
}

/// Annotates, runs with `trace` as the `[trace]` table; the program's counters, the
/// analysis and the trace's text form.
fn profile(trace: &str, tmp: &Path) -> (BTreeMap<String, u64>, Value, String) {
    let dir = tmp.join("p");
    let _ = std::fs::remove_dir_all(&dir);
    common::write_project(&dir, &JAVA, JAVA.run, trace);
    ok(&revy_in(&dir, &["parse"]), "revy parse");
    ok(&revy_in(&dir, &["annotate"]), "revy annotate");
    let rvt = tmp.join("t.rvt");
    let _ = std::fs::remove_file(&rvt);
    sh(&dir, JAVA.build, &rvt);
    let out = sh(&dir, JAVA.run, &rvt);
    let rvt = rvt.to_str().unwrap();
    let json = ok(
        &revy_in(&dir, &["analyze", rvt, "--format", "json"]),
        "revy analyze",
    );
    let text = ok(&revy_in(&dir, &["trace", "print", rvt]), "revy trace print");
    let counters = out
        .split_whitespace()
        .filter_map(|w| w.split_once('='))
        .filter_map(|(k, v)| Some((k.to_string(), v.parse().ok()?)))
        .collect();
    (counters, serde_json::from_str(&json).unwrap(), text)
}

/// Calls on the analysis's edges from instances of `from` to instances of `to`.
fn edge_calls(a: &Value, from: &str, to: &str) -> u64 {
    let inst = a["instances"].as_array().unwrap();
    let class = |e: &Value, k: &str| inst[e[k].as_u64().unwrap() as usize]["class"].clone();
    a["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| class(e, "sender") == from && class(e, "receiver") == to)
        .map(|e| e["calls"].as_u64().unwrap())
        .sum()
}

fn fields(line: &str) -> BTreeMap<&str, &str> {
    line.split_whitespace()
        .filter_map(|w| w.split_once('='))
        .collect()
}

fn num(f: &BTreeMap<&str, &str>, k: &str) -> i128 {
    f[k].parse().unwrap_or_else(|_| panic!("{k} in {f:?}"))
}

/// Per thread and method, the `aggregate-method` row equals the sums of its `aggregate-edge`
/// rows (no call dropped here), and its minima and maxima bound its means and every
/// single-call instance edge. Returns the number of folded calls the records state.
fn check_rows(text: &str, what: &str) -> i128 {
    let mut sums: BTreeMap<(String, String), [i128; 4]> = BTreeMap::new();
    let mut singles: BTreeMap<(String, String), Vec<i128>> = BTreeMap::new();
    let key =
        |f: &BTreeMap<&str, &str>| (f["tid"].to_string(), format!("{}.{}", f["cls"], f["mth"]));
    let stats = ["calls", "agg", "net", "size"];
    let mut folded = 0;
    for l in text.lines() {
        if let Some(rest) = l.strip_prefix("##### aggregate-edge ") {
            let f = fields(rest);
            let s = sums.entry(key(&f)).or_default();
            for (k, name) in stats.iter().enumerate() {
                s[k] += num(&f, name);
            }
            if f["calls"] == "1" && f["oid"] != "*" {
                singles.entry(key(&f)).or_default().push(num(&f, "agg"));
            }
        } else if let Some(rest) = l.strip_prefix("##### aggregate ") {
            let f = fields(rest);
            assert_eq!(f["dropped"], "0", "{what}: {l}");
            folded += num(&f, "folded");
        }
    }
    let mut rows = 0;
    for l in text.lines() {
        let Some(rest) = l.strip_prefix("##### aggregate-method ") else {
            continue;
        };
        rows += 1;
        let f = fields(rest);
        let s = sums.remove(&key(&f)).unwrap_or_default();
        for (k, name) in stats.iter().enumerate() {
            assert_eq!(num(&f, name), s[k], "{what}: {name} of {l}");
        }
        let calls = num(&f, "calls");
        if calls == 0 {
            continue;
        }
        for x in ["agg", "net", "size"] {
            let (lo, hi) = (num(&f, &format!("{x}_min")), num(&f, &format!("{x}_max")));
            let sum = num(&f, x);
            assert!(
                lo <= hi && lo * calls <= sum && sum <= hi * calls,
                "{what}: {l}"
            );
        }
        for a in singles.get(&key(&f)).into_iter().flatten() {
            assert!(
                num(&f, "agg_min") <= *a && *a <= num(&f, "agg_max"),
                "{what}: a call of {a} ns outside {l}"
            );
        }
    }
    assert!(rows > 0, "{what}: no aggregate-method record");
    assert!(
        sums.is_empty(),
        "{what}: edges without a method row: {sums:?}"
    );
    folded
}

fn check(trace: &str, what: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let (c, a, text) = profile(trace, tmp.path());
    assert_eq!(
        (c["hit"], c["twice"]),
        (7 * 6000, 2 * 6000),
        "{what}: {c:?}"
    );
    for m in ["hit", "twice"] {
        assert_eq!(common::method_calls(&a, m), c[m], "{what}: calls of {m}");
    }
    assert_eq!(
        common::method_calls(&a, "Cell"),
        c["made"],
        "{what}: constructions"
    );
    assert_eq!(
        edge_calls(&a, "w.Left", "w.Cell"),
        c["left"],
        "{what}: Left to Cell"
    );
    assert_eq!(
        edge_calls(&a, "w.Right", "w.Cell"),
        c["right"],
        "{what}: Right to Cell"
    );
    assert_eq!(
        edge_calls(&a, "w.Main", "w.Cell"),
        c["twice"],
        "{what}: Main to Cell"
    );
    let folded = check_rows(&text, what);
    let cov = &a["trace"]["coverage"];
    assert_eq!(
        cov["folded_calls"].as_u64().unwrap() as i128,
        folded,
        "{what}: {cov}"
    );
    // Most calls on new objects folded (2 keys a Cell: 2,048 Cells fill a thread's table).
    assert!(folded > 4 * 6000, "{what}: {folded} folded");
    for t in ["Left", "Right"] {
        assert!(
            text.lines().any(|l| l.starts_with("##### aggregate-edge ")
                && l.contains(&format!("from_cls=w.{t} from_oid=* "))
                && l.contains(" mth=hit ")
                && l.contains(" oid=* ")),
            "{what}: no folded {t} edge"
        );
    }
}

#[test]
fn java_folded_edges_count_exactly_throttled() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    // counted calls (no clock): a throttled method's
    check("throttle_calls = 100\nthrottle_us = 1000", "throttled");
}

#[test]
fn java_folded_edges_count_exactly_past_max_size() {
    if !common::gate::needs(&[Tool::Java]) {
        return;
    }
    // timed calls, not recorded past the limit
    check("max_size = \"16KiB\"\nthrottle = false", "max_size 16KiB");
}
