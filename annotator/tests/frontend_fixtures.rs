//! Front-end fixtures: each source under tests/fixtures/frontend/ (Java and C++, one
//! construct per file) is parsed by its language's front end and the model's dump
//! (`revy::instrument::frontend::dump`) must equal the `.model` file beside it: classes, fields, methods,
//! signatures, flags, spans, insertion points and diagnostics.
//! Set REVY_BLESS=1 to rewrite the `.model` files after an intended change (then review the diff).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use revy::instrument::frontend::{dump::dump, for_lang};
use revy::instrument::lang::LangSpec;
use revy::instrument::model::Lang;

use common::golden::Goldens;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/frontend")
}

#[test]
fn frontend_models_match_their_dumps() {
    let root = fixtures();
    let mut goldens = Goldens::new();
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
        let model = for_lang(lang).parse(&rel, &src, &Default::default());
        let got = dump(&model, &src);
        let expected = e.path().with_extension(format!(
            "{}.model",
            e.path().extension().unwrap().to_string_lossy()
        ));
        goldens.check(&rel, &expected, &got, None);
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
    goldens.finish();
}
