//! Hostile and odd trace files (issue 10, items 9 and 11): crafted lengths and ids, names with
//! control characters, empty files, unknown units, and a reader that closes the pipe.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use revy::analyse::trace::compact::{put_var, write_all, MAGIC};
use revy::analyse::trace::{Event, Header, MethodDef, Names, TraceReader, Unit};

mod common;
mod mem;
use common::revy;

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Read every event of `path`; returns (events, peak bytes allocated while reading).
fn read_measured(path: &Path) -> (Result<u64, String>, usize) {
    let (r, peak) = mem::peak_during(|| {
        let mut r = TraceReader::open(path).map_err(|e| e.to_string())?;
        let mut n = 0u64;
        while r.next_event().map_err(|e| e.to_string())?.is_some() {
            n += 1;
        }
        Ok(n)
    });
    (r, peak)
}

fn compact(records: &[&[u8]]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    for r in records {
        out.extend_from_slice(r);
    }
    out
}

fn rec(tag: u8, vars: &[u64], strings: &[&[u8]]) -> Vec<u8> {
    let mut out = vec![tag];
    for &v in vars {
        put_var(&mut out, v);
    }
    for s in strings {
        put_var(&mut out, s.len() as u64);
        out.extend_from_slice(s);
    }
    out
}

/// Item 9: a 17-byte file defining class id 2^32−1 made the reader allocate 96 GiB (abort);
/// 40-byte files with huge block or string lengths took gigabytes. Every allocation is now
/// bounded by the bytes actually in the file.
#[test]
fn crafted_lengths_and_ids_are_bounded_by_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let header = rec(b'H', &[], &[b"unit=ns"]);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "huge-class-id",
            compact(&[
                &rec(b'H', &[], &[b""]),
                &rec(b'C', &[u32::MAX as u64], &[b""]),
            ]),
        ),
        (
            "huge-method-id",
            compact(&[
                &header,
                &rec(b'C', &[0], &[b"A"]),
                &rec(b'M', &[u32::MAX as u64 - 1, 0], &[b"f", b"!!"]),
            ]),
        ),
        (
            "huge-block",
            compact(&[&header, &rec(b'B', &[1, 0, 1 << 40, (1 << 30) - 1], &[])]),
        ),
        (
            "huge-string",
            compact(&[&header, &rec(b'N', &[1, 1 << 20], &[])]),
        ),
        (
            "many-sparse-ids",
            compact(
                &(0..200u64)
                    .map(|i| rec(b'C', &[(i << 24) | 0xffff], &[b"X"]))
                    .collect::<Vec<_>>()
                    .iter()
                    .map(|v| v.as_slice())
                    .collect::<Vec<_>>(),
            ),
        ),
    ];
    assert_eq!(cases[0].1.len(), 17);
    for (name, bytes) in cases {
        let p = tmp.path().join(format!("{name}.rvt"));
        std::fs::write(&p, &bytes).unwrap();
        let (r, peak) = read_measured(&p);
        assert!(
            peak <= mem::bound(bytes.len()),
            "{name}: {peak} bytes allocated for a {}-byte file ({r:?})",
            bytes.len()
        );
        // And through the command line: a warning or a one-line error, never an abort.
        let o = revy(&["trace", "print", p.to_str().unwrap()]);
        assert!(
            matches!(o.status.code(), Some(0 | 2)),
            "{name}: {:?} {}",
            o.status,
            stderr(&o)
        );
    }
}

/// Item 11: names come from the traced program (and from whoever wrote the file). Escape
/// sequences must not reach the terminal, and a newline in a name must not forge DTF lines.
#[test]
fn names_are_escaped_in_print_and_analyze() {
    let tmp = tempfile::tempdir().unwrap();
    let mut names = Names::default();
    names.classes.push("Evil\x1b[2J\x1b]0;pwned\x07".into());
    names.methods.push(MethodDef {
        class: 0,
        name: "f\n<Msg cls=Forged oid=9 mth=x sgn=!! size=0 tid=1 t=1>".into(),
        signature: "!!\r\u{202e}".into(),
    });
    names.threads.insert(1, "main\x1b[31m".into());
    let ev = [
        Event::Create {
            tid: 1,
            class: 0,
            oid: 7,
            size: Some(8),
            t: Some(1),
        },
        Event::Start {
            tid: 1,
            method: 0,
            oid: 7,
            size: 0,
            t: 2,
        },
        Event::End {
            tid: 1,
            method: 0,
            oid: 7,
            t: 5,
            cpu: None,
        },
    ];
    let h = Header {
        unit: Unit::Ns,
        fields: vec![("lang".into(), "cpp\x1b[1m".into())],
        raw: None,
    };
    let p = tmp.path().join("evil.rvt");
    let mut bytes = Vec::new();
    write_all(&mut bytes, &h, &names, &ev).unwrap();
    std::fs::write(&p, bytes).unwrap();

    let o = revy(&["trace", "print", p.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "control characters printed: {text:?}"
    );
    let entries: Vec<&str> = text.lines().filter(|l| l.starts_with('<')).collect();
    assert_eq!(entries.len(), 3, "{text}");
    assert!(!text.contains("\n<Msg cls=Forged"), "{text}");
    assert!(text.contains("Evil\\u{1b}[2J"), "{text}");
    // The printed text reads back as the same three entries.
    let back = tmp.path().join("back.dtf");
    std::fs::write(&back, &text).unwrap();
    let (n, _) = read_measured(&back);
    assert_eq!(n, Ok(3));

    for format in ["text", "json"] {
        let o = revy(&["analyze", p.to_str().unwrap(), "--format", format]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(out.contains("Evil"), "{out}");
        assert!(
            !out.chars().any(|c| c.is_control() && c != '\n'),
            "{format}: control characters printed: {out:?}"
        );
    }
}

/// Each (file name, bytes, what the error says): `trace print` and `analyze` exit 2 with one
/// line naming the file.
fn one_line_errors(dir: &Path, cases: Vec<(&str, Vec<u8>, &str)>) {
    for (name, bytes, says) in cases {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        for args in [&["trace", "print"][..], &["analyze"][..]] {
            let mut a = args.to_vec();
            a.push(p.to_str().unwrap());
            let o = revy(&a);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{name} {args:?}: {err}");
            assert!(err.contains(name) && err.contains(says), "{name}: {err}");
            assert_eq!(err.lines().count(), 1, "{err}");
        }
    }
}

/// Item 11: a 0-byte file was read as an empty text trace (exit 0), `unit=fortnight` as
/// milliseconds. Both are errors naming the file.
#[test]
fn empty_files_and_unknown_units_are_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let mut fortnight = MAGIC.to_vec();
    fortnight.extend(rec(b'H', &[], &[b"unit=fortnight lang=cpp"]));
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.rvt", Vec::new(), "empty file"),
        ("blank.dtf", b"\n\n  \n".to_vec(), "not a Revy trace"),
        (
            "fortnight.dtf",
            b"##### revy-trace 1 unit=fortnight\n<Crt cls=A oid=1 tid=1 t=0>\n".to_vec(),
            "unit=fortnight",
        ),
        ("fortnight.rvt", fortnight, "unit=fortnight"),
    ];
    one_line_errors(tmp.path(), cases);
}

/// Issue 13 item 2: aggregate records (`A`, `X`, `##### aggregate…`) are input like the rest:
/// one naming an undefined method, or with a value that is not a number, is a one-line error
/// naming the file and position (before, the compact record stopped the reading as an
/// unknown tag and the text line was ignored: both "succeeded" with wrong statistics).
#[test]
fn garbled_aggregate_records_are_one_line_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let head = [
        rec(b'H', &[], &[b"unit=ns"]),
        rec(b'C', &[1], &[b"A"]),
        rec(b'M', &[1, 1], &[b"f", b"!!"]),
    ];
    // f on oid 5 starts at 0 and ends at 1 on thread 1.
    let mut block = rec(b'B', &[1, 0, 2, 9], &[]);
    block.extend([3u8, 1, 5, 0, 0, 4, 1, 5, 2]);
    // A: tid 1, last_t 9, one method entry naming method id 7 (never defined).
    let bad_method = rec(b'A', &[1, 9, 1, 7, 1, 1, 2, 0, 1, 1, 1, 1, 0, 0], &[]);
    // X: tid 1, method id 9 (never defined).
    let bad_throttle = rec(b'X', &[1, 9, 5, 100, 10], &[]);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "agg-method.rvt",
            compact(&[&head[0], &head[1], &head[2], &block, &bad_method]),
            "aggregate record names method id 7",
        ),
        (
            "throttle.rvt",
            compact(&[&head[0], &head[1], &head[2], &block, &bad_throttle]),
            "aggregate record names method id 9",
        ),
        (
            "agg-method.dtf",
            b"##### revy-trace 1 unit=ns\n<Msg cls=A oid=5 mth=f sgn=!! size=0 tid=1 t=0>\n</Msg cls=A oid=5 mth=f sgn=!! tid=1 t=1>\n##### aggregate-method tid=1 cls=A mth=f sgn=!! calls=x agg=1 net=1 size=0 agg_min=1 agg_max=1 net_min=1 net_max=1 size_min=0 size_max=0\n".to_vec(),
            "agg-method.dtf:4: `aggregate-method` line: calls=x is not a number",
        ),
        (
            "agg-edge.dtf",
            b"##### revy-trace 1 unit=ns\n##### aggregate-edge tid=1 cls=A mth=f sgn=!! oid=5 calls=1 agg=1 net=1 size=0\n".to_vec(),
            "agg-edge.dtf:2: `aggregate-edge` line without from_cls= or from=root",
        ),
    ];
    one_line_errors(tmp.path(), cases);
}

/// Issue 11 (page faults): the `F` record and the `##### faults` line are input like the
/// rest: one naming an undefined method or with a value that is not a number is a one-line
/// error; a valid one prints as its text line and an old trace without any still reads.
#[test]
fn fault_records_are_read_and_garbled_ones_are_one_line_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let head = [
        rec(b'H', &[], &[b"unit=ns fault_ns=900"]),
        rec(b'C', &[1], &[b"A"]),
        rec(b'M', &[1, 1], &[b"f", b"!!"]),
    ];
    let mut block = rec(b'B', &[1, 0, 2, 9], &[]);
    block.extend([3u8, 1, 5, 0, 0, 4, 1, 5, 2]);
    // F: tid 1, one entry: method id 1 on oid 5, 2 calls measured, 7 faults.
    let good = rec(b'F', &[1, 1, 1, 5, 2, 7], &[]);
    let p = tmp.path().join("faults.rvt");
    std::fs::write(&p, compact(&[&head[0], &head[1], &head[2], &block, &good])).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_revy"))
        .args(["trace", "print", p.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("##### faults tid=1 cls=A mth=f sgn=!! oid=5 calls=2 faults=7"),
        "{text}"
    );
    let bad = rec(b'F', &[1, 1, 9, 5, 2, 7], &[]);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "fault-method.rvt",
            compact(&[&head[0], &head[1], &head[2], &block, &bad]),
            "aggregate record names method id 9",
        ),
        (
            "faults.dtf",
            b"##### revy-trace 1 unit=ns\n<Msg cls=A oid=5 mth=f sgn=!! size=0 tid=1 t=0>\n</Msg cls=A oid=5 mth=f sgn=!! tid=1 t=1>\n##### faults tid=1 cls=A mth=f sgn=!! oid=5 calls=2 faults=x\n".to_vec(),
            "faults.dtf:4: `faults` line: faults=x is not a number",
        ),
    ];
    one_line_errors(tmp.path(), cases);
}

/// Objects counted past `max_size` (`O`, `##### aggregate-class`) are input like the rest: a
/// record naming an undefined class, or a line with a value that is not a number or without
/// its class, is a one-line error naming the file and position (before, `O` was an unknown
/// tag: the reading stopped there with a warning, and the text line was ignored).
#[test]
fn garbled_object_records_are_one_line_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let head = [rec(b'H', &[], &[b"unit=ns"]), rec(b'C', &[1], &[b"A"])];
    // A created at 0 on thread 1.
    let mut block = rec(b'B', &[1, 0, 1, 5], &[]);
    block.extend([1u8, 1, 5, 8, 0]);
    // O: tid 1, one entry naming class id 7 (never defined): 3 created, 1 destroyed.
    let bad_class = rec(b'O', &[1, 1, 7, 3, 1, 24, 8], &[]);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "objs.rvt",
            compact(&[&head[0], &head[1], &block, &bad_class]),
            "byte 31: object record names class id 7",
        ),
        (
            "objs.dtf",
            b"##### revy-trace 1 unit=ns\n<Crt cls=A oid=5 size=8 tid=1 t=0>\n##### aggregate-class tid=1 cls=A created=3 destroyed=x size=24 size_max=8\n".to_vec(),
            "objs.dtf:3: `aggregate-class` line: destroyed=x is not a number",
        ),
        (
            "objs-nocls.dtf",
            b"##### revy-trace 1 unit=ns\n##### aggregate-class tid=1 created=3 destroyed=0 size=24 size_max=8\n".to_vec(),
            "objs-nocls.dtf:2: `aggregate-class` line without cls=",
        ),
    ];
    one_line_errors(tmp.path(), cases);
}

/// Item 11: `revy analyze … | head -1` panicked on the closed pipe (exit 101).
#[test]
fn a_closed_stdout_pipe_is_quiet() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("t.dtf");
    std::fs::write(
        &p,
        "##### revy-trace 1 unit=ns\n<Msg cls=A oid=1 mth=f sgn=!! size=0 tid=1 t=1>\n\
         </Msg cls=A oid=1 mth=f sgn=!! tid=1 t=9>\n##### end events=2\n",
    )
    .unwrap();
    for format in ["text", "json"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_revy"))
            .args(["analyze", p.to_str().unwrap(), "--format", format])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // the reader is gone before anything is written
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let st = child.wait().unwrap();
        assert_eq!(st.code(), Some(0), "{format}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn header_pid_and_anchor_accessors() {
    let h = Header::from_pairs(
        "unit=us lang=java pid=4242 anchor_wall_ns=1795000000123456789 anchor_t=17",
    )
    .unwrap();
    assert_eq!(h.unit, Unit::Us);
    assert_eq!(h.pid(), Some(4242));
    let a = h.anchor().unwrap();
    assert_eq!((a.wall_ns, a.t), (1_795_000_000_123_456_789, 17));
    let h = Header::from_pairs("unit=ns pid=x anchor_t=3").unwrap();
    assert_eq!((h.pid(), h.anchor()), (None, None));
    assert!(Header::from_pairs("unit=fortnight").is_err());
}

// ---- issue 37 ----

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/traces")
        .join(name)
}

/// `revy ARGS` through bash (process substitution, ulimit), its stdout and stderr.
fn bash(script: &str, env: &[(&str, &str)]) -> std::process::Output {
    let mut c = Command::new("bash");
    c.arg("-c")
        .arg(script)
        .env("REVY", env!("CARGO_BIN_EXE_revy"));
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// Item 4: `/dev/zero` grew one text line until a 4 GiB allocation aborted. Under a 3 GiB
/// address-space limit each command now stops with a one-line error.
#[test]
fn an_endless_line_is_a_bounded_one_line_error() {
    let out = tempfile::tempdir().unwrap();
    let report = out.path().join("r.html");
    for cmd in [
        "analyze /dev/zero".to_string(),
        "trace print /dev/zero".to_string(),
        "estimate /dev/zero".to_string(),
        format!("report /dev/zero --output {}", report.display()),
        "analyze <(head -c 40000000 /dev/zero)".to_string(),
    ] {
        let o = bash(&format!("ulimit -v 3145728; \"$REVY\" {cmd}"), &[]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{cmd}: {e}");
        assert!(
            e.contains("not a Revy trace") && e.contains("16 MiB"),
            "{cmd}: {e}"
        );
        assert_eq!(e.trim_end().lines().count(), 1, "{cmd}: {e}");
    }
}

/// Items 13 and 14: a trace from a pipe was "empty file, not a trace" (opened twice) and
/// `estimate` said 0.0 B; a FIFO with no writer hung forever.
#[test]
fn a_trace_from_a_pipe_is_read_once_and_sized() {
    let t = fixture("account-java.rvt");
    let direct = revy(&["analyze", t.to_str().unwrap()]);
    let want = String::from_utf8_lossy(&direct.stdout).into_owned();
    let events = want
        .lines()
        .next()
        .unwrap()
        .split_once("):")
        .unwrap()
        .1
        .to_string();
    for cmd in [
        "analyze",
        "report --output /dev/null",
        "trace print",
        "estimate",
    ] {
        let o = bash(&format!("\"$REVY\" {cmd} <(cat '{}')", t.display()), &[]);
        assert_eq!(o.status.code(), Some(0), "{cmd}: {}", stderr(&o));
        let got = String::from_utf8_lossy(&o.stdout).into_owned();
        if cmd == "analyze" {
            assert!(got.lines().next().unwrap().ends_with(&events), "{got}");
        }
        if cmd == "estimate" {
            let file = revy(&["estimate", t.to_str().unwrap()]);
            let first = |s: &str| s.lines().next().unwrap().to_string();
            assert_eq!(first(&got), first(&String::from_utf8_lossy(&file.stdout)));
            assert!(got.contains("647.0 B"), "{got}");
        }
    }
    // A FIFO nothing writes to: refused after the wait, not a hang.
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("t.rvt");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_revy"))
        .args(["analyze", fifo.to_str().unwrap()])
        .env("REVY_TEST_PIPE_WAIT_MS", "300")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A hang guard, not a timing assertion: a fixed build answers within the 300 ms wait.
    let mut waited = 0;
    while child.try_wait().unwrap().is_none() && waited < 600 {
        std::thread::sleep(std::time::Duration::from_millis(100));
        waited += 1;
    }
    let _ = child.kill();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("nothing wrote to"), "{}", stderr(&o));
}

/// Item 17 and "also seen": another format version is named as such, in both forms, and a
/// trace joined to another is analysed up to the join with a warning that says so.
#[test]
fn format_versions_and_joined_traces_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let rvt = std::fs::read(fixture("account-java.rvt")).unwrap();
    let dtf = std::fs::read_to_string(fixture("account-cpp.dtf")).unwrap();
    let mut v2 = rvt.clone();
    v2[7] = 2;
    let cases = [
        (
            "v2.rvt",
            v2,
            "v2.rvt: trace format version 2; this revy reads 1",
        ),
        (
            "v2.dtf",
            dtf.replacen("revy-trace 1", "revy-trace 2", 1).into_bytes(),
            "v2.dtf:1: trace format version 2; this revy reads 1",
        ),
    ];
    for (name, bytes, want) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        let o = revy(&["analyze", p.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{name}: {}", stderr(&o));
    }
    let joined = [
        ("cc.rvt", [rvt.clone(), rvt].concat()),
        ("cc.dtf", format!("{dtf}{dtf}").into_bytes()),
    ];
    for (name, bytes) in joined {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        let o = revy(&["analyze", p.to_str().unwrap()]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{name}: {:?} {}",
            o.status,
            stderr(&o)
        );
        // The text summary carries the trace's warnings.
        let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
        assert!(
            all.contains("warning: ")
                && all.contains("a second trace begins")
                && all.contains("separate files"),
            "{name}: {all}"
        );
    }
}

/// A bare end (kind 7: the end of its thread's innermost open start, the Java runtime's
/// usual end) with no open start left is a damaged trace: `analyze` warns naming the file,
/// the byte and why, and analyses what came before (the start and the end it did close).
#[test]
fn a_bare_end_without_an_open_start_is_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let events = [3, 2, 5, 8, 2, 7, 6, 7, 2]; // start of method 2 on oid 5, two bare ends
    let mut block = rec(b'B', &[1, 100, 3, events.len() as u64], &[]);
    block.extend(events);
    let bytes = compact(&[
        &rec(b'H', &[], &[b"unit=ns lang=java ends=bare"]),
        &rec(b'C', &[1], &[b"A"]),
        &rec(b'M', &[2, 1], &[b"f", b"!!"]),
        &rec(b'N', &[1], &[b"main"]),
        &block,
        &rec(b'E', &[3], &[]),
    ]);
    let p = tmp.path().join("bare.rvt");
    std::fs::write(&p, &bytes).unwrap();
    let o = revy(&["analyze", p.to_str().unwrap()]);
    // the report states the warning (stdout), or stderr does
    let err = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("bare.rvt") && err.contains("byte 56") && err.contains("no open start"),
        "{err}"
    );
    let o = revy(&["trace", "print", p.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("</Msg cls=A oid=5 mth=f sgn=!! tid=1 t=104>"),
        "{out}"
    );
}
