//! Traces given as pipes (`revy analyze <(zcat t.rvt.gz)`, a FIFO): the commands read a
//! trace more than once (header, walk, proposals' replay), and a pipe can be read only
//! once, so it is copied into a temp file first. A FIFO nothing writes to is waited for a
//! bounded time, then refused. The copies live until [`cleanup`] (the end of the command).

use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, Result};

static SPOOLED: Mutex<Vec<tempfile::TempPath>> = Mutex::new(Vec::new());

/// How long a FIFO may go without a writer (`REVY_TEST_PIPE_WAIT_MS`: tests only).
fn wait_ms() -> i32 {
    std::env::var("REVY_TEST_PIPE_WAIT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30_000)
}

/// A line a trace cannot have: a pipe without a newline or the compact magic this far in
/// is not a trace (`<(cat /dev/zero)` would otherwise fill the disk).
const HEAD_LIMIT: usize = super::text::MAX_LINE;

/// `path` itself, or for a pipe the temp file holding what it carried.
pub fn materialize(path: &Path) -> Result<PathBuf> {
    let is_pipe = std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo());
    if !is_pipe {
        return Ok(path.to_path_buf());
    }
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    await_writer(path, &f)?;
    // Data or a closed writer: read the rest blocking.
    let fd = f.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function owns.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
    }
    let mut tmp = tempfile::Builder::new()
        .prefix(".revy-pipe-")
        .suffix(".trace")
        .tempfile()
        .map_err(|e| Error::io(std::env::temp_dir(), e))?;
    copy_checked(path, &mut f, tmp.as_file_mut())?;
    let p = tmp.path().to_path_buf();
    SPOOLED.lock().unwrap().push(tmp.into_temp_path());
    Ok(p)
}

/// Waits (bounded) until the FIFO has data or its writer closed.
fn await_writer(path: &Path, f: &std::fs::File) -> Result<()> {
    let mut pfd = libc::pollfd {
        fd: f.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    let n = unsafe { libc::poll(&mut pfd, 1, wait_ms()) };
    if n < 0 {
        return Err(Error::io(path, std::io::Error::last_os_error()));
    }
    if n == 0 {
        return Err(Error::input(format!(
            "{}: a pipe that nothing wrote to for {} s; start the program writing it first",
            path.display(),
            wait_ms() / 1000
        )));
    }
    Ok(())
}

/// Copies the pipe, refusing early what cannot be a trace.
fn copy_checked(path: &Path, from: &mut std::fs::File, to: &mut std::fs::File) -> Result<()> {
    use std::io::Write;
    let mut buf = vec![0u8; 1 << 16];
    let (mut total, mut plausible) = (0usize, false);
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(path, e)),
        };
        if !plausible {
            plausible = buf[..n].contains(&b'\n')
                || (total == 0 && n >= 6 && buf[..6] == super::compact::MAGIC[..6]);
            if !plausible && total + n > HEAD_LIMIT {
                return Err(Error::input(format!(
                    "{}: no line break in its first {} MiB: not a Revy trace",
                    path.display(),
                    HEAD_LIMIT >> 20
                )));
            }
        }
        total += n;
        to.write_all(&buf[..n])
            .map_err(|e| Error::io(std::env::temp_dir(), e))?;
    }
    Ok(())
}

/// Removes the temp copies (called when the command ends).
pub fn cleanup() {
    SPOOLED.lock().unwrap().clear();
}
