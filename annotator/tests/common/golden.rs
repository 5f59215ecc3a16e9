//! Expected outputs kept as files under tests/fixtures/ (goldens): the one mechanism behind
//! the snapshot tests (annotated sources, SAFs, front-end models, analysis JSON).
//!
//! A test collects every comparison in a [`Goldens`] and calls [`Goldens::finish`], which
//! fails once, listing every file that differs with its first differing lines.
//! `REVY_BLESS=1` rewrites the files from what the code produces instead; review the diff
//! (`git diff tests/fixtures`) before committing it.

use std::path::Path;

/// Whether this run rewrites the goldens.
pub fn blessing() -> bool {
    std::env::var_os("REVY_BLESS").is_some()
}

#[derive(Default)]
pub struct Goldens {
    failures: Vec<String>,
    written: usize,
}

impl Goldens {
    pub fn new() -> Self {
        Self::default()
    }

    /// `got` must equal the file at `path`. With `absent = Some(text)`, a missing file
    /// stands for `text` and blessing `text` removes the file; with `None` a missing file
    /// is a failure.
    pub fn check(&mut self, what: &str, path: &Path, got: &str, absent: Option<&str>) {
        if blessing() {
            if absent == Some(got) {
                let _ = std::fs::remove_file(path);
            } else {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, got).unwrap();
                self.written += 1;
            }
            return;
        }
        let want = match (std::fs::read_to_string(path), absent) {
            (Ok(s), _) => s,
            (Err(_), Some(a)) => a.to_string(),
            (Err(e), None) => {
                self.fail(format!("{what}: cannot read {}: {e}", path.display()));
                return;
            }
        };
        if got != want {
            self.fail(format!(
                "{what}: differs from {} ({} lines, want {})\n{}",
                path.display(),
                got.lines().count(),
                want.lines().count(),
                first_differences(got, &want, 6)
            ));
        }
    }

    /// A failure that is not a file comparison (an exit code, a restore).
    pub fn fail(&mut self, msg: String) {
        self.failures.push(msg);
    }

    /// Fails the test with every failure collected; says how many files a bless wrote.
    pub fn finish(self) {
        if blessing() {
            eprintln!("REVY_BLESS: wrote {} golden file(s)", self.written);
        }
        assert!(
            self.failures.is_empty(),
            "{} golden(s) differ (REVY_BLESS=1 rewrites them after an intended change):\n\n{}",
            self.failures.len(),
            self.failures.join("\n\n")
        );
    }
}

/// The first `n` lines that differ between `got` and `want`, numbered.
pub fn first_differences(got: &str, want: &str, n: usize) -> String {
    let (g, w): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
    (0..g.len().max(w.len()))
        .filter(|&i| g.get(i) != w.get(i))
        .take(n)
        .map(|i| {
            format!(
                "  line {}:\n    got  {}\n    want {}",
                i + 1,
                g.get(i).unwrap_or(&"<end>"),
                w.get(i).unwrap_or(&"<end>")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
