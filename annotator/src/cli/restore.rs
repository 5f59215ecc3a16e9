//! `revy restore`.

use revy::error::Result;

/// `kept` is the line for a file whose edits were kept, with `{}` for its path.
pub(crate) fn print_restored(s: &revy::instrument::store::RestoreSummary, kept: &str) {
    for k in &s.kept_edits {
        println!("{}", kept.replace("{}", k));
    }
    for mv in &s.moved {
        println!("restored a moved file where it is now: {mv}");
    }
    println!(
        "restored {} files, removed {} runtime files",
        s.restored, s.runtime_removed
    );
}

pub(crate) fn cmd_restore(manifest: &std::path::Path) -> Result<()> {
    let m = revy::instrument::manifest::Manifest::load(manifest)?;
    let s = revy::instrument::store::restore(&m)?;
    // The counters runs outside `revy run` left (one per command line), once they are over.
    revy::analyse::trace::budget::prune_stale(&m.trace_dir());
    print_restored(&s, "kept your edits in {} (removed only Revy's insertions)");
    Ok(())
}
