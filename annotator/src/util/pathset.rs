//! A set of path globs that stays fast and small with hundreds of thousands of globs
//! (`[project] exclude` lists written by tools).
//!
//! One `GlobSet` compiles every wildcard glob into one automaton up front — about 10 KB a
//! glob. Here globs that start with a literal folder (`src/gen/*.java`) are grouped by that
//! folder and compiled only when a path under it is first asked about; globs without one
//! share an ordinary `GlobSet`.

use std::collections::HashMap;
use std::sync::Mutex;

use globset::{Glob, GlobSet, GlobSetBuilder};

#[derive(Debug)]
pub struct PathSet {
    rest: GlobSet,
    /// Globs by their literal folder prefix (`src/gen`), not compiled yet.
    by_dir: HashMap<String, Vec<Glob>>,
    compiled: Mutex<HashMap<String, GlobSet>>,
}

impl Clone for PathSet {
    fn clone(&self) -> Self {
        PathSet {
            rest: self.rest.clone(),
            by_dir: self.by_dir.clone(),
            compiled: Mutex::new(self.compiled.lock().map(|c| c.clone()).unwrap_or_default()),
        }
    }
}

/// The literal leading folders of a glob (`src/gen` of `src/gen/*.java`), if any.
fn literal_dir(glob: &str) -> Option<&str> {
    let meta = |s: &str| s.contains(['*', '?', '[', ']', '{', '}', '\\']);
    let mut end = None;
    let mut at = 0;
    for part in glob.split('/') {
        let next = at + part.len();
        if next >= glob.len() || meta(part) || part.is_empty() || part == "." || part == ".." {
            break;
        }
        end = Some(next);
        at = next + 1;
    }
    end.map(|e| &glob[..e])
}

impl PathSet {
    /// Builds the set from parsed globs (their texts were checked by the caller).
    pub fn new(globs: Vec<Glob>) -> Result<PathSet, globset::Error> {
        let mut rest = GlobSetBuilder::new();
        let mut by_dir: HashMap<String, Vec<Glob>> = HashMap::new();
        for g in globs {
            match literal_dir(g.glob()) {
                Some(d) => by_dir.entry(d.to_string()).or_default().push(g),
                None => {
                    rest.add(g);
                }
            }
        }
        Ok(PathSet {
            rest: rest.build()?,
            by_dir,
            compiled: Mutex::new(HashMap::new()),
        })
    }

    /// Whether any glob matches `rel` (a `/`-separated path relative to the root).
    pub fn is_match(&self, rel: &str) -> bool {
        if self.rest.is_match(rel) {
            return true;
        }
        let mut compiled = self.compiled.lock().unwrap_or_else(|p| p.into_inner());
        // Each folder the path lies in may hold globs.
        for (i, _) in rel.match_indices('/') {
            let dir = &rel[..i];
            let Some(globs) = self.by_dir.get(dir) else {
                continue;
            };
            let set = compiled.entry(dir.to_string()).or_insert_with(|| {
                let mut b = GlobSetBuilder::new();
                for g in globs {
                    b.add(g.clone());
                }
                b.build().unwrap_or_else(|_| GlobSet::empty())
            });
            if set.is_match(rel) {
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(globs: &[&str]) -> PathSet {
        PathSet::new(globs.iter().map(|g| Glob::new(g).unwrap()).collect()).unwrap()
    }

    #[test]
    fn grouped_globs_match_like_a_globset() {
        let globs = [
            "src/gen/*.java",
            "src/a/B.java",
            "**/T*.java",
            "*.cpp",
            "lib/**",
        ];
        let s = set(&globs);
        let mut all = GlobSetBuilder::new();
        for g in globs {
            all.add(Glob::new(g).unwrap());
        }
        let all = all.build().unwrap();
        for p in [
            "src/gen/X.java",
            "src/gen/sub/X.java",
            "src/a/B.java",
            "src/a/C.java",
            "x/Test.java",
            "m.cpp",
            "d/m.cpp",
            "lib/x/y.h",
            "libx/y.h",
            "src/X.java",
        ] {
            assert_eq!(s.is_match(p), all.is_match(p), "{p}");
        }
        assert_eq!(literal_dir("src/gen/*.java"), Some("src/gen"));
        assert_eq!(literal_dir("src/a/B.java"), Some("src/a"));
        assert_eq!(literal_dir("*.cpp"), None);
        assert_eq!(literal_dir("**/x"), None);
    }
}
