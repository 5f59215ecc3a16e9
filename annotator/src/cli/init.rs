//! `revy init`.

use revy::error::Result;

pub(crate) fn cmd_init(dir: &std::path::Path, force: bool) -> Result<()> {
    let s = revy::instrument::init::init(dir, force)?;
    let counts: Vec<String> = s
        .files
        .iter()
        .map(|(lang, n)| format!("{n} {}", lang.spec().display))
        .collect();
    println!(
        "wrote {} ({} files); check build/run, then `revy parse`",
        s.manifest.display(),
        counts.join(" and ")
    );
    Ok(())
}
