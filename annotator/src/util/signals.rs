//! Signals for `revy profile`: SIGINT, SIGTERM and SIGHUP only record which signal came, so
//! the sources are always restored; a build or run child gets its own process group (unless
//! revy is a terminal's foreground job), which is ended (SIGTERM, then SIGKILL) when a signal
//! arrives.
//!
//! Handlers, not SIG_IGN: an ignored disposition would be inherited by the child, a handler
//! is reset on exec.

use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The signal that arrived (0: none).
static CAUGHT: std::sync::OnceLock<Arc<AtomicUsize>> = std::sync::OnceLock::new();
/// Set once the sources are restored: later signals act as usual (end the process).
static SAFE: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
static INSTALLED: AtomicBool = AtomicBool::new(false);

const SIGNALS: [i32; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// Installs the handlers (once per process). Returns an error text if that failed.
pub fn catch() -> Result<(), String> {
    let flag = CAUGHT.get_or_init(|| Arc::new(AtomicUsize::new(0)));
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return Ok(());
    }
    let safe = SAFE.get_or_init(|| Arc::new(AtomicBool::new(false)));
    for sig in SIGNALS {
        // The default action is registered first so it runs before the flag is recorded.
        signal_hook::flag::register_conditional_default(sig, Arc::clone(safe))
            .and_then(|_| signal_hook::flag::register_usize(sig, Arc::clone(flag), sig as usize))
            .map_err(|e| format!("cannot catch signal {sig}: {e}"))?;
    }
    Ok(())
}

/// The sources are back: from now on SIGINT, SIGTERM and SIGHUP end revy as usual (say,
/// while it writes the report). A signal that came before is still reported by [`caught`].
pub fn sources_safe() {
    if let Some(s) = SAFE.get() {
        s.store(true, Ordering::SeqCst);
    }
}

/// The signal caught so far, if any.
pub fn caught() -> Option<i32> {
    match CAUGHT.get().map_or(0, |f| f.load(Ordering::SeqCst)) {
        0 => None,
        s => Some(s as i32),
    }
}

/// The exit code shells report for a signal: 128 + its number.
pub fn exit_code(sig: i32) -> u8 {
    (128 + sig).clamp(0, 255) as u8
}

/// A signal's name for messages.
pub fn name(sig: i32) -> &'static str {
    match sig {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// Runs `cmd` to completion. With handlers installed it runs in its own process group,
/// which is ended once a signal has arrived; otherwise it is a plain `status()`. When revy
/// is a terminal's foreground job the child stays in revy's group instead: a background
/// group would be stopped (SIGTTIN) as soon as the program reads the terminal, and Ctrl-C
/// from the terminal reaches the whole foreground group anyway.
pub fn status(cmd: &mut Command) -> std::io::Result<ExitStatus> {
    status_with(cmd, &mut |_| {})
}

/// [`status`], with `spawned` called on the child once it runs (to take its piped output).
pub fn status_with(
    cmd: &mut Command,
    spawned: &mut dyn FnMut(&mut std::process::Child),
) -> std::io::Result<ExitStatus> {
    if !INSTALLED.load(Ordering::SeqCst) {
        let mut child = cmd.spawn()?;
        spawned(&mut child);
        return child.wait();
    }
    use std::os::unix::process::CommandExt;
    let own_group = !terminal_foreground();
    if own_group {
        cmd.process_group(0);
    }
    let mut child = cmd.spawn()?;
    spawned(&mut child);
    loop {
        if let Some(st) = child.try_wait()? {
            return Ok(st);
        }
        if caught().is_some() {
            // Negative: the child's whole group; positive: the child alone.
            let target = child.id() as i32;
            return end_child(&mut child, if own_group { -target } else { target });
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether standard input is a terminal whose foreground process group is revy's.
fn terminal_foreground() -> bool {
    // SAFETY: isatty, tcgetpgrp and getpgrp only read process and descriptor state.
    unsafe { libc::isatty(0) == 1 && libc::tcgetpgrp(0) == libc::getpgrp() }
}

/// SIGTERM to `target` (a pid, or minus a process group), a grace period, then SIGKILL to
/// whatever is left.
fn end_child(child: &mut std::process::Child, target: i32) -> std::io::Result<ExitStatus> {
    // SAFETY: kill only sends a signal; a vanished process or group gives ESRCH, which is fine.
    unsafe { libc::kill(target, libc::SIGTERM) };
    let until = Instant::now() + Duration::from_secs(3);
    while Instant::now() < until {
        if let Some(st) = child.try_wait()? {
            // Grandchildren may outlive the child: a group goes either way. A reaped pid
            // may already belong to another process, so a lone child is left alone.
            if target < 0 {
                unsafe { libc::kill(target, libc::SIGKILL) };
            }
            return Ok(st);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    unsafe { libc::kill(target, libc::SIGKILL) };
    child.wait()
}
