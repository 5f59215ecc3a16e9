//! What an interrupted `revy profile` leaves behind once the sources are restored: the
//! files the build wrote from the annotated sources (programs, classes, objects), which are
//! still instrumented, as running them would show (traces, a slower program).

use std::path::Path;
use std::time::SystemTime;

use crate::instrument::manifest::Manifest;

/// Entries looked at, at most: a huge tree is summarised from what was seen.
const MAX_ENTRIES: usize = 200_000;
/// Folders (or top-level files) named, at most.
const MAX_GROUPS: usize = 6;

/// The files under the project written since `since` that are not its sources nor Revy's
/// state, grouped by their top folder: `build/ (12 files, build/mycpp among them)`.
pub(crate) fn written_since(m: &Manifest, since: SystemTime) -> Vec<String> {
    let sources: std::collections::HashSet<String> =
        m.discover().unwrap_or_default().into_iter().collect();
    let skip = [
        m.state_dir(),
        m.trace_dir(),
        m.root.join(".revy-runtime"),
        m.root.join(".git"),
    ];
    let mut groups: Vec<(String, usize, String)> = Vec::new();
    let walk = walkdir::WalkDir::new(&m.root)
        .into_iter()
        .filter_entry(|e| !skip.iter().any(|s| e.path() == s))
        .take(MAX_ENTRIES)
        .flatten();
    for e in walk.filter(|e| e.file_type().is_file()) {
        let Ok(rel) = e.path().strip_prefix(&m.root) else {
            continue;
        };
        let rel_s = rel.to_string_lossy().replace('\\', "/");
        if e.path() == m.path || sources.contains(&rel_s) || !newer(e.path(), since) {
            continue;
        }
        let top = match rel.components().count() {
            1 => rel_s.clone(),
            _ => format!(
                "{}/",
                rel.components()
                    .next()
                    .map_or("", |c| c.as_os_str().to_str().unwrap_or(""))
            ),
        };
        match groups.iter_mut().find(|g| g.0 == top) {
            Some(g) => {
                g.1 += 1;
                // The example: a program if there is one, else the shallowest file.
                if rank(e.path(), &rel_s) > rank(&m.root.join(&g.2), &g.2) {
                    g.2 = rel_s;
                }
            }
            None => groups.push((top, 1, rel_s)),
        }
    }
    groups.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut out: Vec<String> = (groups.iter().take(MAX_GROUPS))
        .map(|(top, n, example)| match *n {
            1 if top == example => top.clone(),
            1 => example.clone(),
            n => format!("{top} ({n} files, {example} among them)"),
        })
        .collect();
    if groups.len() > MAX_GROUPS {
        out.push(format!("{} more folder(s)", groups.len() - MAX_GROUPS));
    }
    out
}

/// A program first, then compiled code, then fewer folders deep (not CMake's compiler
/// probes, which it builds while configuring).
fn rank(p: &Path, rel: &str) -> (bool, bool, isize) {
    use std::os::unix::fs::PermissionsExt;
    const COMPILED: [&str; 7] = [".o", ".obj", ".class", ".jar", ".a", ".so", ".dll"];
    let exec = std::fs::metadata(p).is_ok_and(|md| md.permissions().mode() & 0o111 != 0);
    // CMake keeps a target's objects in CMakeFiles/<target>.dir/; the rest there is its own.
    let probe =
        rel.contains("CMakeScratch/") || (rel.contains("CMakeFiles/") && !rel.contains(".dir/"));
    let compiled = COMPILED.iter().any(|x| rel.ends_with(x));
    let depth = -(rel.matches('/').count() as isize);
    (exec && !probe, compiled && !probe, depth)
}

fn newer(p: &Path, since: SystemTime) -> bool {
    std::fs::metadata(p)
        .and_then(|md| md.modified())
        .is_ok_and(|t| t >= since)
}
