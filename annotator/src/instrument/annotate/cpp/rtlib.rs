//! The C++ runtime's implementation, compiled once per annotation instead of in every
//! translation unit: `librevy_runtime.so`, built from `revy_runtime_impl.hpp` and the config
//! with the project's own compiler, loaded by the header on the program's first call
//! (`dlopen`, in libc since glibc 2.34). Where that cannot work — a static link, a cross
//! compiler, no compiler, `dlopen` needing `-ldl` — the header includes the implementation
//! itself (header-only form), as `REVY_CPP_RUNTIME=header` asks too.
//!
//! The config carries a stamp (a hash of the config, the runtime sources and the compiler)
//! that the library must match, so a program never loads a library of another annotation;
//! libraries are cached under `.revy/cache/` by stamp, so annotating the same tree again
//! compiles nothing.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use sha2::{Digest, Sha256};

use super::super::Context;
use crate::instrument::cppdefs::{compile_flags, is_cxx_compiler};
use crate::instrument::model::Lang;

pub const LIB: &str = "librevy_runtime.so";

/// The runtime's form for this annotation: the config text, and the library's bytes when it
/// is shared (`None`: header-only).
pub struct Form {
    pub config: String,
    pub lib: Option<Vec<u8>>,
}

/// Renders `revy_config.hpp`: given the stamp and library path for the shared form.
pub type ConfigFn<'a> = dyn Fn(Option<(&str, &Path)>) -> String + 'a;

/// Chooses the form and builds (or finds in the cache) the library.
pub fn form(cx: &Context, runtime_dir: &Path, config: &ConfigFn) -> Form {
    match shared(cx, runtime_dir, config) {
        Some((config, lib)) => Form {
            config,
            lib: Some(lib),
        },
        None => Form {
            config: config(None),
            lib: None,
        },
    }
}

fn shared(cx: &Context, runtime_dir: &Path, config: &ConfigFn) -> Option<(String, Vec<u8>)> {
    if !cfg!(target_os = "linux") || std::env::var("REVY_CPP_RUNTIME").as_deref() == Ok("header") {
        return None;
    }
    let flags = compile_flags(&cx.root);
    let build = cx.trace.build.as_deref().unwrap_or("");
    let env_static = ["LDFLAGS", "CXXFLAGS"]
        .iter()
        .any(|v| std::env::var(v).is_ok_and(|f| has_static(&f)));
    if flags.static_link || has_static(build) || env_static {
        return None;
    }
    let cxx = compiler(flags.compiler.as_deref(), build);
    let machine = run(Command::new(&cxx).arg("-dumpmachine"))?;
    // A cross compiler builds for another machine: the library would not load here.
    if !machine.trim().starts_with(std::env::consts::ARCH) {
        return None;
    }
    let lib_path = runtime_dir.join(LIB);
    let stamp = stamp(&config(None), &cxx, &machine);
    let text = config(Some((&stamp, &lib_path)));
    let cached = cx.root.join(".revy/cache").join(format!("{stamp}-{LIB}"));
    if let Ok(bytes) = std::fs::read(&cached) {
        return Some((text, bytes));
    }
    let bytes = compile(&cxx, &text)?;
    if std::fs::create_dir_all(cached.parent()?).is_ok() {
        let _ = std::fs::write(&cached, &bytes);
    }
    Some((text, bytes))
}

fn has_static(flags: &str) -> bool {
    flags.split_whitespace().any(|w| w == "-static")
}

/// `CXX`, else the compiler of `compile_commands.json`, else the build command's first word
/// when it is a compiler, else `c++`.
fn compiler(from_db: Option<&str>, build: &str) -> String {
    if let Ok(c) = std::env::var("CXX") {
        if !c.trim().is_empty() {
            return c.trim().to_string();
        }
    }
    let first = build
        .split_whitespace()
        .next()
        .filter(|w| is_cxx_compiler(w));
    from_db.or(first).unwrap_or("c++").to_string()
}

fn stamp(config: &str, cxx: &str, machine: &str) -> String {
    let mut h = Sha256::new();
    h.update(config);
    for (_, text) in Lang::Cpp.spec().runtime {
        h.update(text);
    }
    h.update(cxx);
    h.update(machine);
    let d = h.finalize();
    d.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// Stdout of a command that succeeded.
fn run(cmd: &mut Command) -> Option<String> {
    let out = cmd.stderr(Stdio::null()).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Compiles the library in a scratch folder, and checks that a program links `dlopen`
/// without `-ldl`; `None` when either fails.
fn compile(cxx: &str, config: &str) -> Option<Vec<u8>> {
    let tmp = tempfile::tempdir().ok()?;
    let dir = tmp.path();
    for (name, text) in Lang::Cpp.spec().runtime {
        std::fs::write(dir.join(name), text).ok()?;
    }
    std::fs::write(dir.join(super::super::cpp::CONFIG_HEADER), config).ok()?;
    let lib = dir.join(LIB);
    let src = "#define REVY_RUNTIME_BUILDING_LIB 1\n#include \"revy_runtime_impl.hpp\"\n";
    let built = compile_stdin(
        cxx,
        dir,
        src,
        &[
            "-O2",
            "-fPIC",
            "-shared",
            "-pthread",
            "-fvisibility=hidden",
            "-o",
        ],
        &lib,
    );
    let probe = "#include <dlfcn.h>\nint main() { return dlopen(0, RTLD_NOW) == 0; }\n";
    let links = compile_stdin(cxx, dir, probe, &["-o"], &dir.join("probe"));
    if !(built && links) {
        return None;
    }
    std::fs::read(lib).ok()
}

fn compile_stdin(cxx: &str, dir: &Path, src: &str, args: &[&str], out: &PathBuf) -> bool {
    let child = Command::new(cxx)
        .current_dir(dir)
        .args(["-x", "c++", "-", "-I."])
        .args(args)
        .arg(out)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else { return false };
    let wrote = child
        .stdin
        .take()
        .is_some_and(|mut i| i.write_all(src.as_bytes()).is_ok());
    child.wait().is_ok_and(|s| s.success()) && wrote
}
