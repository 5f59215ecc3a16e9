//! Typed errors of the library; the CLI maps them to messages and exit codes.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input or usage: exit code 2.
    #[error("{0}")]
    Input(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The job ran but found problems (e.g. some files not annotatable): exit code 1.
    #[error("{0}")]
    Problems(String),
    /// SIGINT, SIGTERM or SIGHUP (the number) stopped the job after it cleaned up: exit code
    /// 128 + the signal, as shells report it.
    #[error("interrupted ({}); sources restored", crate::util::signals::name(*.0))]
    Interrupted(i32),
}

impl Error {
    pub fn input(msg: impl Into<String>) -> Self {
        Error::Input(msg.into())
    }
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
    /// The process exit code this error stands for.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Problems(_) => 1,
            Error::Interrupted(sig) => crate::util::signals::exit_code(*sig) as i32,
            _ => 2,
        }
    }
}

impl From<revy_trace::Error> for Error {
    fn from(e: revy_trace::Error) -> Self {
        match e {
            revy_trace::Error::Input(m) => Error::Input(m),
            revy_trace::Error::Io { path, source } => Error::Io { path, source },
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
