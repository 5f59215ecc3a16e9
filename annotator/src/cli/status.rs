//! `revy status`.

use revy::error::Result;
use revy::util::escape::escape_name;

pub(crate) fn cmd_status(manifest: &std::path::Path) -> Result<()> {
    use revy::instrument::store::{FileState, Phase};
    let m = revy::instrument::manifest::Manifest::load(manifest)?;
    let Some((state, rows)) = revy::instrument::store::status(&m)? else {
        if revy::instrument::store::revy_code_left(&m).is_empty() {
            println!("not annotated");
            return Ok(());
        }
        // Revy's code without a journal: exit 2 with the way back.
        return Err(revy::instrument::store::ensure_not_annotated(&m).expect_err("code left"));
    };
    if let Some((copy, _)) = revy::instrument::store::copied_state(&m) {
        println!(
            "the journal .revy/ was deleted (by the build?); its copy in {} still knows the \
             files below: `revy restore` puts the originals back",
            copy.display()
        );
    }
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
        // A file name may hold a newline or escapes: shown escaped, one line per file.
        println!("  {what:<24} {}", escape_name(path.as_bytes()));
    }
    for r in &state.runtime {
        println!("  {:<24} {}", "runtime", escape_name(r.path.as_bytes()));
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
