//! `revy init`.

use std::path::Path;

use revy::error::Result;

pub(crate) fn cmd_init(dir: &Path, manifest: Option<&Path>, force: bool) -> Result<()> {
    let s = revy::instrument::init::init(dir, manifest, force)?;
    let counts: Vec<String> = s
        .files
        .iter()
        .map(|(lang, n)| format!("{n} {}", lang.spec().display))
        .collect();
    println!(
        "wrote {} ({} files)",
        s.manifest.display(),
        counts.join(" and ")
    );
    println!("detected: {}", s.build.system);
    println!("  build = {}", s.build.build);
    println!("  run   = {}", s.build.run);
    println!("check:");
    for n in &s.build.notes {
        println!("  - {n}");
    }
    let m = match manifest {
        Some(_) => format!(" -m {}", s.manifest.display()),
        None => String::new(),
    };
    println!("then `revy{m} profile` (or `revy{m} parse` to see what it finds first)");
    Ok(())
}
