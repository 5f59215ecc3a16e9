//! `revy run`: the manifest's build command, then its run command, in the manifest folder,
//! with tracing on; finds the trace files the run wrote.

pub mod budget;
pub mod profile;
pub mod stale;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::{Error, Result};
use crate::instrument::manifest::Manifest;

/// Outcome of one build + run.
#[derive(Debug)]
pub struct RunOutcome {
    /// Exit code of the run command (None: killed by a signal).
    pub exit_code: Option<i32>,
    /// Trace files that appeared during the run, oldest first.
    pub traces: Vec<PathBuf>,
    /// The last lines the program wrote to standard error (also shown as they came).
    pub stderr_tail: Vec<String>,
}

impl RunOutcome {
    /// Why there is no trace, when the program failed: it ended badly before writing any,
    /// so most likely it did not start (a wrong main class or path), with its last words.
    pub fn failed_to_start(&self) -> Option<String> {
        let how = match self.exit_code {
            Some(0) => return None,
            Some(c) => format!("exit code {c}"),
            None => "killed by a signal".to_string(),
        };
        let mut s = format!(
            "the program failed before its first traced call, most likely at start ({how})"
        );
        if self.stderr_tail.is_empty() {
            s.push_str("; it wrote nothing to standard error");
        } else {
            s.push_str("; the end of its standard error:");
            for l in &self.stderr_tail {
                s.push_str("\n  ");
                s.push_str(l);
            }
        }
        s.push_str("\ncheck the manifest's run command");
        Some(s)
    }
}

fn traces_in(dir: &std::path::Path) -> BTreeSet<PathBuf> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| crate::analyse::trace::is_trace_file(p))
                .collect()
        })
        .unwrap_or_default()
}

fn cannot_start(m: &Manifest, what: &str, cmd: &str, e: std::io::Error) -> Error {
    Error::input(format!(
        "{}: cannot start the {what} command `{cmd}`: {e}",
        m.path.display()
    ))
}

/// Lines of a run's standard error kept for the message when it fails.
const TAIL_LINES: usize = 12;

/// Runs the run command with its standard error passed through and its last lines kept.
fn run_program(
    m: &Manifest,
    cmd: &str,
    env: &[(&str, &Path)],
) -> Result<(std::process::ExitStatus, Vec<String>)> {
    let mut c = Command::new("sh");
    c.arg("-c").arg(cmd).current_dir(&m.root);
    c.envs(env.iter().copied()).stderr(Stdio::piped());
    let mut tee = None;
    let st = crate::util::signals::status_with(&mut c, &mut |child| {
        tee = child
            .stderr
            .take()
            .map(|e| std::thread::spawn(move || tee_tail(e)));
    })
    .map_err(|e| cannot_start(m, "run", cmd, e))?;
    let tail = tee.and_then(|t| t.join().ok()).unwrap_or_default();
    Ok((st, tail))
}

/// Copies the child's standard error to revy's as it comes, keeping its last lines.
fn tee_tail(mut from: std::process::ChildStderr) -> Vec<String> {
    use std::io::{Read, Write};
    let mut buf = [0u8; 8192];
    let mut kept: Vec<u8> = Vec::new();
    let mut err = std::io::stderr();
    while let Ok(n) = from.read(&mut buf) {
        if n == 0 {
            break;
        }
        let _ = err.write_all(&buf[..n]);
        kept.extend_from_slice(&buf[..n]);
        if kept.len() > 64 * 1024 {
            kept.drain(..kept.len() - 16 * 1024);
        }
    }
    let text = String::from_utf8_lossy(&kept);
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[lines.len().saturating_sub(TAIL_LINES)..].to_vec()
}

/// The folder and stem (`t` for `t.rvt`) of the file `REVY_TRACE` names, relative to the
/// manifest's folder where the run command runs.
fn named_trace(m: &Manifest) -> Option<(PathBuf, String)> {
    let p = std::env::var("REVY_TRACE")
        .ok()
        .filter(|p| !p.is_empty() && p != "off")?;
    let p = m.root.join(p);
    let name = p.file_name()?.to_str()?;
    let stem = name.strip_suffix(".rvt").unwrap_or(name).to_string();
    Some((p.parent()?.to_path_buf(), stem))
}

fn run_command(m: &Manifest) -> Result<&str> {
    m.run.as_deref().ok_or_else(|| {
        Error::input(format!(
            "{}: project.run is not set; add the command that runs your program",
            m.path.display()
        ))
    })
}

/// Runs the build (if any), then the run command. A failing build is an error (exit 2);
/// the program's own exit code is reported in the outcome.
pub fn run(m: &Manifest) -> Result<RunOutcome> {
    run_command(m)?;
    if let Some(build) = m.build.as_deref() {
        let b = crate::instrument::build_log::build_logged(m, "building", build)?;
        if !b.status.success() {
            return Err(b.failure(m, build));
        }
    }
    run_built(m)
}

/// This run's identity (`run=` in every trace header its processes write, so the traces
/// of different runs are never read as one): its start time, this process's id and a
/// random. None when the user's `REVY_RUN` names one.
fn run_id() -> Option<String> {
    if std::env::var_os("REVY_RUN").is_some_and(|v| !v.is_empty()) {
        return None;
    }
    use std::hash::{BuildHasher, Hasher};
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    // RandomState is seeded from the OS's random source once per process.
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(now);
    Some(format!(
        "{now:x}-{}-{:08x}",
        std::process::id(),
        h.finish() as u32
    ))
}

/// This run's own size budget (annotator/trace/FORMAT.md, "The run's budget"): a fresh counter
/// file in the trace folder that every process of the run shares, removed after the run.
/// None when the user's `REVY_BUDGET` names one (or is `off`).
fn run_budget(dir: &std::path::Path) -> Result<Option<tempfile::TempPath>> {
    if std::env::var_os("REVY_BUDGET").is_some_and(|v| !v.is_empty()) {
        return Ok(None);
    }
    let made = std::fs::create_dir_all(dir).and_then(|_| {
        tempfile::Builder::new()
            .prefix(".revy-run-")
            .suffix(".budget")
            .tempfile_in(dir)
    });
    made.map(|f| Some(f.into_temp_path())).map_err(|e| {
        Error::input(format!(
            "{}: cannot create the run's trace budget file there: {e}; check the folder's permissions or set [trace].path",
            dir.display()
        ))
    })
}

/// Runs the run command of a tree that is already built (`revy profile` after verifying).
pub(crate) fn run_built(m: &Manifest) -> Result<RunOutcome> {
    let run_cmd = run_command(m)?;
    let dir = m.trace_dir();
    budget::prune_stale(&dir);
    let before = traces_in(&dir);
    let named = named_trace(m);
    let named_before = named
        .as_ref()
        .map(|(d, _)| traces_in(d))
        .unwrap_or_default();
    let budget = run_budget(&dir)?;
    let run = run_id();
    let mut env: Vec<(&str, &std::path::Path)> =
        budget.iter().map(|b| ("REVY_BUDGET", b.as_ref())).collect();
    if let Some(id) = &run {
        env.push(("REVY_RUN", std::path::Path::new(id)));
    }
    let step = crate::util::progress::Step::start(
        format!(
            "running `{}`",
            crate::util::progress::short_command(run_cmd)
        ),
        false,
    );
    let (st, stderr_tail) = run_program(m, run_cmd, &env)?;
    step.finish(&match st.code() {
        Some(c) => format!("exit code {c}"),
        None => "killed by a signal".to_string(),
    });
    drop(budget);
    let mut found: BTreeSet<PathBuf> = traces_in(&dir).difference(&before).cloned().collect();
    if let Some((d, stem)) = &named {
        // The named file, or `NAME-PID.rvt` beside it when it existed (an earlier run) or
        // several processes named it.
        found.extend(
            traces_in(d)
                .difference(&named_before)
                .filter(|p| {
                    p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                        n == format!("{stem}.rvt") || n.starts_with(&format!("{stem}-"))
                    })
                })
                .cloned(),
        );
    }
    let mut traces: Vec<PathBuf> = found.into_iter().collect();
    traces.sort_by_key(|p| std::fs::metadata(p).and_then(|md| md.modified()).ok());
    Ok(RunOutcome {
        exit_code: st.code(),
        traces,
        stderr_tail,
    })
}
