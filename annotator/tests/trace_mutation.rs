//! Seeded mutation of real traces (issue 10, "must show"): 1,600 damaged copies of traces the
//! Java and C++ runtimes wrote, in both forms, each read and analysed with a memory bound.
//! No panic, no abort, never more memory than a small multiple of the file; a damaged file
//! is either an error naming it or analysed up to the damage.

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};

use revy::analyse::analysis::{analyze_path, Options};
use revy::analyse::trace::TraceReader;

mod mem;

/// xorshift64*: deterministic and dependency-free, so every failure replays from its seed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Bytes that make readers work hard: varint continuations, huge numbers, record tags,
/// separators and control characters.
const NASTY: &[&[u8]] = &[
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
    b"\xff\xff\xff\xff\x0f",
    b"\x80",
    b"B",
    b"C",
    b"M",
    b"H",
    b"T",
    b"E",
    b"\n",
    b">",
    b" ",
    b"=",
    b"\x1b[2J",
    b"99999999999999999999999",
    b"18446744073709551615",
    b"unit=fortnight",
    b"</Msg",
    b"<Crt cls=",
    b"#####",
];

/// One random damage to `b`.
fn mutate(rng: &mut Rng, b: &mut Vec<u8>) {
    let len = b.len().max(1);
    let at = rng.below(len).min(b.len());
    match rng.below(8) {
        0 => {
            if !b.is_empty() {
                let i = at.min(b.len() - 1);
                b[i] ^= 1 << rng.below(8);
            }
        }
        1 => {
            if !b.is_empty() {
                let i = at.min(b.len() - 1);
                b[i] = rng.next() as u8;
            }
        }
        2 => {
            let end = (at + 1 + rng.below(16)).min(b.len());
            b.drain(at..end);
        }
        3 => b.truncate(at),
        4 => {
            let s = NASTY[rng.below(NASTY.len())];
            b.splice(at..at, s.iter().copied());
        }
        5 => {
            // Overwrite with a nasty sequence.
            let s = NASTY[rng.below(NASTY.len())];
            for (k, &x) in s.iter().enumerate() {
                if let Some(y) = b.get_mut(at + k) {
                    *y = x;
                }
            }
        }
        6 => {
            // Duplicate a stretch (records and lines repeated, ids redefined).
            let end = (at + 1 + rng.below(64)).min(b.len());
            let copy: Vec<u8> = b[at..end].to_vec();
            let to = rng.below(b.len() + 1);
            b.splice(to..to, copy);
        }
        _ => {
            let n = 1 + rng.below(8);
            for _ in 0..n {
                let i = rng.below(b.len() + 1);
                b.insert(i, rng.next() as u8);
            }
        }
    }
}

/// Reads and analyses `path`; panics are caught and reported with the case.
fn check(path: &Path, case: &str) -> bool {
    let len = std::fs::metadata(path).unwrap().len() as usize;
    let (r, peak) = mem::peak_during(|| {
        std::panic::catch_unwind(AssertUnwindSafe(|| {
            let Ok(mut r) = TraceReader::open(path) else {
                return false;
            };
            while let Ok(Some(_)) = r.next_event() {}
            true
        }))
    });
    let opened = r.unwrap_or_else(|_| panic!("{case}: the reader panicked"));
    assert!(
        peak <= mem::bound(len),
        "{case}: the reader allocated {peak} bytes for a {len}-byte file"
    );
    let (a, peak) = mem::peak_during(|| {
        std::panic::catch_unwind(AssertUnwindSafe(|| {
            analyze_path(path, &Options::default()).map_err(|e| e.to_string())
        }))
    });
    let a = a.unwrap_or_else(|_| panic!("{case}: the analysis panicked"));
    // A refusal is an error naming the file.
    if let Err(e) = &a {
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(
            e.contains(&*name),
            "{case}: the error does not name the file: {e}"
        );
    }
    let analysed = a.is_ok();
    assert!(
        peak <= mem::bound(len) + (4 << 20),
        "{case}: the analysis allocated {peak} bytes for a {len}-byte file"
    );
    assert_eq!(
        opened, analysed,
        "{case}: the reader and the analysis disagree"
    );
    opened
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/traces")
        .join(name)
}

#[test]
fn mutated_real_traces_never_panic_or_balloon() {
    let tmp = tempfile::tempdir().unwrap();
    let sources = [
        "account-cpp.rvt",
        "account-java.rvt",
        "account-cpp.dtf",
        "account-java.dtf",
    ];
    let per_source = 400;
    let (mut read, mut refused) = (0, 0);
    for (s, name) in sources.iter().enumerate() {
        let original = std::fs::read(fixture(name)).unwrap();
        assert!(
            check(&fixture(name), name),
            "{name}: the original must read"
        );
        for i in 0..per_source {
            let seed = 0x5eed_0000 + (s * per_source + i) as u64;
            let mut rng = Rng(seed);
            let mut b = original.clone();
            for _ in 0..1 + rng.below(4) {
                mutate(&mut rng, &mut b);
            }
            let p = tmp.path().join(format!("m{i}-{name}"));
            std::fs::write(&p, &b).unwrap();
            if check(&p, &format!("{name} seed {seed:#x}")) {
                read += 1;
            } else {
                refused += 1;
            }
            std::fs::remove_file(&p).unwrap();
        }
    }
    // Most damage is read up to the damage (a warning); some is refused (an error).
    assert!(read > 0 && refused > 0, "read {read}, refused {refused}");
    eprintln!("mutated traces: {read} read, {refused} refused");
}
