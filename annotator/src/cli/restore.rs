//! `revy restore`.

use revy::error::Result;

/// `kept` is the line for a file whose edits were kept, with `{}` for its path.
pub(crate) fn print_restored(s: &revy::instrument::store::RestoreSummary, kept: &str) {
    if let Some(copy) = &s.revived_from {
        println!(
            "the journal .revy/ was deleted (by the build?); restored from its copy in {}",
            copy.display()
        );
    }
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

pub(crate) fn cmd_restore(manifest: &std::path::Path, rebuild: bool) -> Result<()> {
    let m = revy::instrument::manifest::Manifest::load(manifest)?;
    let s = revy::instrument::store::restore(&m)?;
    // The counters runs outside `revy run` left (one per command line), once they are over.
    revy::run::budget::prune_stale(&m.trace_dir());
    print_restored(&s, "kept your edits in {} (removed only Revy's insertions)");
    print_rebuild(&revy::run::profile::rebuild(&m, rebuild));
    Ok(())
}

/// Says whether the build outputs are the originals' again, loudly when they are not.
pub(crate) fn print_rebuild(r: &revy::run::profile::Rebuild) {
    use revy::run::profile::Rebuild;
    let still = "revy: warning: the build outputs are STILL INSTRUMENTED: running them writes traces and runs slower";
    match r {
        Rebuild::Done => {
            println!("rebuilt the restored sources: the build outputs are the originals'")
        }
        Rebuild::Failed(e) => eprintln!("{e}\n{still}; fix the build and run it again"),
        Rebuild::Skipped => {
            eprintln!("{still} (--no-rebuild); run the build command to replace them")
        }
        Rebuild::NoCommand => eprintln!(
            "{still}, if you built them while annotated; rebuild them (project.build would let revy do it)"
        ),
    }
}
