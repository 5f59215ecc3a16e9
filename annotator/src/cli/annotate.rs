//! `revy annotate`.

use clap::Args;
use revy::error::{Error, Result};

#[derive(Args)]
pub(crate) struct AnnotateArgs {
    /// Exact message and object sizes (walks arguments at run time). Without --better or
    /// --faster: the manifest's `[annotate] mode` (`better` unless it says otherwise).
    #[arg(long, conflicts_with = "faster")]
    better: bool,
    /// Sampled sizes (static sizes, first element × length).
    #[arg(long)]
    faster: bool,
    /// Build the result with the manifest's build command and withdraw, declaration by
    /// declaration, whatever the compiler rejects.
    #[arg(long)]
    verify: bool,
}

pub(crate) fn cmd_annotate(manifest: &std::path::Path, a: AnnotateArgs) -> Result<()> {
    let m = revy::instrument::manifest::Manifest::load(manifest)?;
    let mode = if a.better {
        revy::instrument::manifest::Mode::Better
    } else if a.faster {
        revy::instrument::manifest::Mode::Faster
    } else {
        m.mode
    };
    let report = revy::instrument::stages::annotate(&m, mode, a.verify).1?;
    let s = &report.summary;
    print_withdrawn(&report.withdrawn);
    if let Some(n) = report.verified_builds {
        println!("verified: the build passes ({n} build(s))");
    }
    for n in &s.notes {
        println!("note: {n}");
    }
    print_skipped(s);
    println!(
        "annotated {} files ({mode} mode): {} classes, {} methods; added {} runtime files",
        s.files, s.classes, s.methods, s.runtime_files
    );
    println!("build and run as usual (or `revy run`); `revy restore` puts the originals back");
    if !report.has_problems() {
        return Ok(());
    }
    Err(Error::Problems(format!(
        "{} selected declarations left alone, {} withdrawn after the build, {} parse problems (see `revy parse`)",
        s.skipped.len(),
        report.withdrawn.len(),
        s.parse_problems
    )))
}

/// `withdrawn: path:line: Class::method — how (compiler: first line)`, one per declaration.
pub(crate) fn print_withdrawn(w: &[revy::instrument::verify::Withdrawal]) {
    for x in w {
        eprintln!(
            "withdrawn: {} — {} (compiler: {})",
            x.decl, x.how, x.compiler
        );
    }
}

pub(crate) fn print_skipped(s: &revy::instrument::annotate::Summary) {
    for k in &s.skipped {
        eprintln!("skipped: {k}");
    }
}
