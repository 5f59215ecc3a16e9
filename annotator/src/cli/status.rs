//! `revy status`.

use revy::error::Result;

pub(crate) fn cmd_status(manifest: &std::path::Path) -> Result<()> {
    use revy::instrument::store::{FileState, Phase};
    let m = revy::instrument::manifest::Manifest::load(manifest)?;
    let Some((state, rows)) = revy::instrument::store::status(&m)? else {
        println!("not annotated");
        return Ok(());
    };
    let phase = match state.phase {
        Phase::Complete => "",
        Phase::Writing => " (interrupted: run `revy restore`)",
    };
    println!("annotated, {} mode{phase}", state.mode);
    let (mut edited, mut refused) = (0, 0);
    for (path, st) in rows {
        let what = match st {
            FileState::Annotated => "annotated",
            FileState::Original => "original",
            FileState::EditedSince => {
                edited += 1;
                "annotated, edited since"
            }
            FileState::EditedRefused => {
                refused += 1;
                "edited, restore refuses"
            }
            FileState::Missing => "missing",
        };
        println!("  {what:<24} {path}");
    }
    for r in &state.runtime {
        println!("  {:<24} {}", "runtime", r.path);
    }
    if edited > 0 {
        println!("{edited} file(s) edited since annotation: `revy restore` keeps those edits");
    }
    if refused > 0 {
        println!(
            "{refused} file(s) edited in ways that touch Revy's insertions: `revy restore` \
             refuses until those edits are undone (originals are in {})",
            m.state_dir().join("backup").display()
        );
    }
    Ok(())
}
