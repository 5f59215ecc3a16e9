//! The two test tiers and the outside tools the tests use.
//!
//! Plain `cargo test` is the fast tier: nothing is compiled with javac or g++ and no browser
//! is started. `REVY_FULL_TESTS=1 cargo test --workspace` is the full tier, what `.ci/run`
//! runs. A test that needs a tool asks [`needs`] first. Skips are never silent: they are
//! written straight to the terminal (past the test harness's capture) as `SKIP` lines. A
//! tool missing in the full tier fails the test, naming the package to install and the
//! `REVY_SKIP_*` variable that skips it on purpose.

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The variable that selects the full tier.
pub const FULL: &str = "REVY_FULL_TESTS";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// javac and java: annotated Java programs are compiled and run (full tier only).
    Java,
    /// g++: annotated C++ programs are compiled and run (full tier only).
    Cpp,
    /// Headless Chromium: the report's browser tests (full tier only).
    Browser,
    /// Graphviz `dot`: checks the DOT export's syntax.
    Dot,
    /// Python's duckdb: runs docs/parquet.md's queries on the Parquet export.
    Duckdb,
    /// Python's perfetto package: decodes the Perfetto export with Perfetto's own protos.
    Perfetto,
    /// util-linux `script`: gives `revy profile` a terminal.
    Script,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Java => "javac/java",
            Tool::Cpp => "g++",
            Tool::Browser => "chromium",
            Tool::Dot => "Graphviz dot",
            Tool::Duckdb => "Python duckdb",
            Tool::Perfetto => "Python perfetto",
            Tool::Script => "script",
        }
    }

    /// The variable that skips the tests needing this tool on purpose.
    pub fn skip_var(self) -> &'static str {
        match self {
            Tool::Java => "REVY_SKIP_JAVA",
            Tool::Cpp => "REVY_SKIP_CPP",
            Tool::Browser => "REVY_SKIP_BROWSER",
            Tool::Dot => "REVY_SKIP_DOT",
            Tool::Duckdb => "REVY_SKIP_DUCKDB",
            Tool::Perfetto => "REVY_SKIP_PERFETTO",
            Tool::Script => "REVY_SKIP_SCRIPT",
        }
    }

    fn install(self) -> &'static str {
        match self {
            Tool::Java => "apt-get install openjdk-17-jdk-headless",
            Tool::Cpp => "apt-get install g++",
            Tool::Browser => "apt-get install chromium",
            Tool::Dot => "apt-get install graphviz",
            Tool::Duckdb => "pip install duckdb",
            Tool::Perfetto => "pip install perfetto",
            Tool::Script => "apt-get install util-linux",
        }
    }

    /// Compiles or drives a browser: too slow for the fast tier.
    fn heavy(self) -> bool {
        matches!(self, Tool::Java | Tool::Cpp | Tool::Browser)
    }

    fn present(self) -> bool {
        static FOUND: [OnceLock<bool>; 7] = [const { OnceLock::new() }; 7];
        *FOUND[self as usize].get_or_init(|| match self {
            Tool::Java => runs("javac", &["-version"]) && runs("java", &["-version"]),
            Tool::Cpp => runs("g++", &["--version"]),
            Tool::Browser => chromium().is_some(),
            Tool::Dot => runs("dot", &["-V"]),
            Tool::Duckdb => runs("python3", &["-c", "import duckdb"]),
            Tool::Perfetto => runs(
                "python3",
                &[
                    "-c",
                    "import perfetto.protos.perfetto.trace.perfetto_trace_pb2",
                ],
            ),
            Tool::Script => runs("script", &["--version"]),
        })
    }
}

fn runs(cmd: &str, args: &[&str]) -> bool {
    Command::new(cmd)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `REVY_CHROMIUM`, else Debian's headless Chromium, if installed.
pub fn chromium() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("REVY_CHROMIUM") {
        return Some(p.into());
    }
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(std::path::PathBuf::from)
        .find(|p| p.exists())
}

/// Whether the full tier was asked for.
pub fn full_tier() -> bool {
    std::env::var(FULL).is_ok_and(|v| v == "1")
}

fn set(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| v == "1")
}

/// A `SKIP` line on the terminal, not in the harness's captured output.
fn skip(why: &str) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("?");
    let _ = writeln!(std::io::stderr().lock(), "SKIP {test}: {why}");
}

/// Whether the calling test (or the part of it that uses these tools) may run. `false`
/// after a `SKIP` line: in the fast tier for a compiler or the browser, for a tool whose
/// `REVY_SKIP_*` is 1, and in the fast tier for a missing optional tool. Panics when a
/// tool is missing in the full tier or a compiler or browser is missing at all.
pub fn needs(tools: &[Tool]) -> bool {
    if let Some(t) = tools.iter().find(|t| t.heavy()) {
        if !full_tier() {
            skip(&format!(
                "full tier only, uses {} ({FULL}=1 runs it)",
                t.name()
            ));
            return false;
        }
    }
    for &t in tools {
        if set(t.skip_var()) {
            skip(&format!("{}=1 skips what uses {}", t.skip_var(), t.name()));
            return false;
        }
        if t.present() {
            continue;
        }
        if full_tier() || t.heavy() {
            panic!(
                "{} not found: `{}`, or set {}=1 to skip what needs it",
                t.name(),
                t.install(),
                t.skip_var()
            );
        }
        skip(&format!(
            "{} not found (`{}`); {FULL}=1 fails without it",
            t.name(),
            t.install()
        ));
        return false;
    }
    true
}
