//! `revy export --parquet`: the tables hold every message in several row groups, and the
//! DuckDB queries of docs/parquet.md reproduce `revy analyze`'s top instances and methods.

use std::path::Path;
use std::process::Command;

use parquet::file::reader::{FileReader, SerializedFileReader};
use revy::analyse::analysis::{analyze_path, Options};
use revy::analyse::trace::synth::{generate, Spec};
use revy::analyse::trace::Form;

mod common;
use common::revy;

fn export(trace: &Path, dir: &Path) {
    let out = revy(&[
        "export",
        trace.to_str().unwrap(),
        "--parquet",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The `sql` block of docs/parquet.md that starts with `-- NAME`, reading from `dir`.
fn doc_query(name: &str, dir: &Path) -> String {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/parquet.md"))
        .unwrap();
    let start = doc
        .find(&format!("```sql\n-- {name}\n"))
        .expect("query in docs/parquet.md");
    let body = &doc[start + 7..];
    let body = &body[..body.find("```").unwrap()];
    body.replace("'out/", &format!("'{}/", dir.display()))
}

/// Rows of a DuckDB query as tab-separated lines, or None (after a SKIP line, or failing in
/// the full tier) when Python's duckdb is missing.
fn duckdb(query: &str) -> Option<Vec<String>> {
    let script = "import duckdb, sys\n\
                  for r in duckdb.sql(sys.stdin.read()).fetchall():\n    \
                  print('\\t'.join(str(x) for x in r))\n";
    if !common::gate::needs(&[common::gate::Tool::Duckdb]) {
        return None;
    }
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(query.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(String::from)
            .collect(),
    )
}

#[test]
fn tables_hold_every_message_and_duckdb_reproduces_the_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.rvt");
    let spec = Spec {
        events: 600_000,
        instances: 500,
        ..Spec::default()
    };
    generate(&spec, Form::Compact, std::fs::File::create(&trace).unwrap()).unwrap();
    let out = dir.path().join("pq");
    export(&trace, &out);
    let a = analyze_path(&trace, &Options::default()).unwrap();

    // Every table is there, nothing half-written is left, messages came in row groups.
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "instances.parquet",
            "messages.parquet",
            "methods.parquet",
            "threads.parquet"
        ]
    );
    let r = SerializedFileReader::new(std::fs::File::open(out.join("messages.parquet")).unwrap())
        .unwrap();
    let md = r.metadata();
    assert_eq!(md.file_metadata().num_rows() as u64, a.totals.messages);
    assert!(
        md.num_row_groups() >= 2,
        "{} row groups",
        md.num_row_groups()
    );

    let Some(got) = duckdb(&doc_query("top instances", &out)) else {
        return;
    };
    let mut inst: Vec<_> = a.instances.iter().filter(|i| i.received > 0).collect();
    inst.sort_by(|x, y| y.active_time.cmp(&x.active_time).then(x.id.cmp(&y.id)));
    let want: Vec<String> = inst
        .iter()
        .take(15)
        .map(|i| format!("{}\t{}\t{}", i.label, i.active_time, i.received))
        .collect();
    assert_eq!(got, want);

    let got = duckdb(&doc_query("top methods", &out)).unwrap();
    let mut meth: Vec<_> = a.methods.iter().filter(|m| m.calls > 0).collect();
    meth.sort_by(|x, y| {
        y.net_time
            .total
            .cmp(&x.net_time.total)
            .then(x.id.cmp(&y.id))
    });
    let want: Vec<String> = meth
        .iter()
        .take(15)
        .map(|m| {
            let n = &m.net_time;
            format!(
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                m.class,
                m.method,
                m.signature,
                m.calls,
                n.total,
                n.min,
                n.max,
                m.aggregate_time.total
            )
        })
        .collect();
    assert_eq!(got, want);
}

#[test]
fn a_bad_trace_writes_no_tables() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("bad.rvt");
    std::fs::write(&trace, b"not a trace at all\n").unwrap();
    let out = dir.path().join("pq");
    let o = revy(&[
        "export",
        trace.to_str().unwrap(),
        "--parquet",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let left = std::fs::read_dir(&out).map(|d| d.count()).unwrap_or(0);
    assert_eq!(left, 0);
}
