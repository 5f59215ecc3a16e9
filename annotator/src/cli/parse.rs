//! `revy parse`.

use revy::error::{Error, Result};

pub(crate) fn cmd_parse(manifest: &std::path::Path) -> Result<()> {
    let m = revy::instrument::manifest::Manifest::load(manifest)?;
    let p = revy::instrument::stages::parse(&m)?;
    print_diagnostics(&p);
    println!(
        "parsed {} files: {} classes ({} selected), {} methods ({} selected and instrumentable) in {:.2}s",
        p.files, p.classes, p.selected_classes, p.methods, p.selected_methods, p.seconds
    );
    println!("wrote {}", p.saf_path.display());
    match p.problems() {
        0 => Ok(()),
        n => Err(Error::Problems(format!(
            "{n} problem(s) found; the declarations they spoil are marked not annotatable"
        ))),
    }
}

pub(crate) fn print_diagnostics(p: &revy::instrument::stages::ParseReport) {
    for d in &p.diagnostics {
        eprintln!("{d}");
    }
}
