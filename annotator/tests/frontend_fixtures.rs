//! Front-end fixtures: each source under tests/fixtures/frontend/ (Java and C++, one
//! construct per file) is parsed by its language's front end and the model's dump
//! (`revy::instrument::frontend::dump`) must equal the `.model` file beside it: classes, fields, methods,
//! signatures, flags, spans, insertion points and diagnostics.
//! Set REVY_BLESS=1 to rewrite the `.model` files after an intended change (then review the diff).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use revy::instrument::frontend::{dump::dump, for_lang};
use revy::instrument::lang::LangSpec;
use revy::instrument::model::Lang;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/frontend")
}

/// The first differing lines of two dumps, for the failure message.
fn diff(got: &str, want: &str) -> String {
    let (g, w): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
    let mut out = Vec::new();
    for i in 0..g.len().max(w.len()) {
        let (a, b) = (g.get(i).copied(), w.get(i).copied());
        if a != b {
            out.push(format!(
                "  line {}: got  {}\n           want {}",
                i + 1,
                a.unwrap_or("<end>"),
                b.unwrap_or("<end>")
            ));
        }
        if out.len() == 6 {
            break;
        }
    }
    out.join("\n")
}

#[test]
fn frontend_models_match_their_dumps() {
    let bless = std::env::var_os("REVY_BLESS").is_some();
    let root = fixtures();
    let mut failures = Vec::new();
    let mut count: BTreeMap<Lang, usize> = BTreeMap::new();
    for e in walkdir::WalkDir::new(&root).sort_by_file_name() {
        let e = e.unwrap();
        let rel = e
            .path()
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let Some(lang) = Lang::of_path(&rel) else {
            continue;
        };
        *count.entry(lang).or_default() += 1;
        let src = std::fs::read_to_string(e.path()).unwrap();
        let model = for_lang(lang).parse(&rel, &src);
        let got = dump(&model, &src);
        let expected = e.path().with_extension(format!(
            "{}.model",
            e.path().extension().unwrap().to_string_lossy()
        ));
        if bless {
            std::fs::write(&expected, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&expected).unwrap_or_default();
        if got != want {
            failures.push(format!(
                "{rel}: model differs from {}\n{}",
                expected.file_name().unwrap().to_string_lossy(),
                diff(&got, &want)
            ));
        }
    }
    for spec in LangSpec::all() {
        let n = count.get(&spec.lang).copied().unwrap_or(0);
        assert!(
            n >= 5,
            "{} {} fixtures under {}: every language needs its own",
            n,
            spec.display,
            root.display()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
