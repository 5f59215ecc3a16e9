//! One annotate/restore/profile at a time per project: an advisory lock on `.revy/lock`,
//! which holds the holder's PID for the message others get.
//!
//! The OS drops the lock when its holder dies, so a lock left by a killed revy is taken
//! over without asking. The lock is re-entrant within a process, per project (`revy
//! profile` holds it while its annotate and restore take it again). Keyed by project: one
//! process-wide count let a library caller holding project X "re-enter" for project Y without
//! locking Y, and kept X locked until Y's guard dropped — a `revy annotate` of X started
//! meanwhile was refused with "another revy" (seen in the parallel cpp_annotate tests).

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::PathBuf;
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::instrument::manifest::Manifest;

/// (lock file path, open lock file, holders in this process), one entry per locked project.
static HELD: Mutex<Vec<(PathBuf, File, usize)>> = Mutex::new(Vec::new());

/// Holds the project lock until dropped.
#[must_use = "the lock is released when the guard is dropped"]
pub struct Guard(PathBuf);

impl Drop for Guard {
    fn drop(&mut self) {
        let mut held = HELD.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = held.iter().position(|(p, _, _)| *p == self.0) {
            held[i].2 -= 1;
            if held[i].2 == 0 {
                // Closing the file releases the lock. The file stays: removing it would let
                // a waiter lock a deleted inode while a newcomer locks a new one.
                held.swap_remove(i);
            }
        }
    }
}

/// Takes the project lock, or says which process holds it.
pub fn acquire(m: &Manifest) -> Result<Guard> {
    crate::instrument::safepath::check_state_dir(&m.root, &m.state_dir())?;
    let dir = m.state_dir();
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    // The same project reached by two spellings of its root is one lock.
    let path = std::fs::canonicalize(&dir)
        .map_err(|e| Error::io(&dir, e))?
        .join("lock");
    let mut held = HELD.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(h) = held.iter_mut().find(|(p, _, _)| *p == path) {
        h.2 += 1;
        return Ok(Guard(path));
    }
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| Error::io(&path, e))?;
    match f.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut pid = String::new();
            let _ = f.read_to_string(&mut pid);
            let who = match pid.trim() {
                "" => "another revy".to_string(),
                p => format!("another revy (pid {p})"),
            };
            return Err(Error::input(format!(
                "{}: {who} is annotating, restoring or profiling this project; \
                 wait for it to finish, then try again",
                path.display()
            )));
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(&path, e)),
    }
    // The PID only serves messages: a full disk must not stop a restore here.
    let pid = std::process::id().to_string();
    let _ = f
        .set_len(0)
        .and_then(|_| f.rewind())
        .and_then(|_| f.write_all(pid.as_bytes()));
    held.push((path.clone(), f, 1));
    Ok(Guard(path))
}
