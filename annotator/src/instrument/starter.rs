//! `revy init`'s starters: the build and run commands written for a language's sources when
//! no build file says how (javac over the source folders, one g++ command over the units),
//! and what `revy init` learned of the sources. The build-file readers (`buildsys.rs`) fall
//! back to these and share `javac` and `sh_quote`.

use std::collections::BTreeSet;
use std::path::Path;

use crate::instrument::model::Lang;

/// A language's part of `revy init`.
pub struct Starter {
    /// Extensions of files compiled on their own (the rest are headers).
    pub units: &'static [&'static str],
    /// Finds the program's entry point in a source file, if the run command names one.
    pub entry: Option<fn(&Path) -> Option<String>>,
    /// Build and run commands for the project in `dir` named `name`.
    pub commands: fn(dir: &Path, name: &str, found: &Found) -> (String, String),
}

/// A language's starter (one arm per language, like the language table).
pub fn of(lang: Lang) -> &'static Starter {
    match lang {
        Lang::Java => &JAVA,
        Lang::Cpp => &CPP,
    }
}

static JAVA: Starter = Starter {
    units: &["java"],
    entry: Some(java_main),
    commands: java_commands,
};

static CPP: Starter = Starter {
    units: &["cpp", "cc", "cxx"],
    entry: None,
    commands: cpp_commands,
};

/// What `revy init` learned of one language's sources under the folder; the language's
/// [`Starter`] turns it into build and run commands.
#[derive(Default)]
pub struct Found {
    pub files: usize,
    /// Top-level folders holding its files (`.` for files at the top).
    pub top_dirs: BTreeSet<String>,
    /// Files compiled on their own (the starter's `units` extensions), relative paths.
    pub units: Vec<String>,
    /// Folders holding its other files (C++ headers), for include paths.
    pub header_dirs: BTreeSet<String>,
    /// The program's entry point, if the starter looks for one (Java: the main class).
    pub entry: Option<String>,
}

/// `s` as one POSIX shell word: plain names as they are, anything else in single quotes
/// (so `$(…)`, spaces and globs in file names are never interpreted).
pub fn sh_quote(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./+,:@%=".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Java's starter: javac over every source folder into `build/`, then `java` on the class
/// holding `main`.
fn java_commands(_dir: &Path, _name: &str, f: &Found) -> (String, String) {
    let roots: Vec<String> = f.top_dirs.iter().cloned().collect();
    let main = f.entry.as_deref().unwrap_or("Main");
    javac(&roots, "build", &[], main, None)
}

/// C++'s starter: g++ over its units, with every folder holding headers (and
/// `compile_commands.json`'s include paths and defines) on the command line.
fn cpp_commands(dir: &Path, name: &str, f: &Found) -> (String, String) {
    let run = format!("./build/{}", sh_quote(name));
    let flags = crate::instrument::cppdefs::compile_flags(dir);
    let mut args: Vec<String> = Vec::new();
    let mut includes: Vec<String> = f.header_dirs.iter().cloned().collect();
    for p in &flags.includes {
        let rel = p
            .strip_prefix(dir)
            .unwrap_or(p)
            .to_string_lossy()
            .into_owned();
        let rel = if rel.is_empty() { ".".into() } else { rel };
        if !includes.contains(&rel) {
            includes.push(rel);
        }
    }
    args.extend(includes.iter().map(|i| format!("-I{}", sh_quote(i))));
    args.extend(flags.defines.iter().map(|d| sh_quote(&format!("-D{d}"))));
    args.extend(f.units.iter().map(|u| sh_quote(u)));
    (
        format!(
            "mkdir -p build && g++ -std=c++17 -O1 -pthread -o build/{} {}",
            sh_quote(name),
            args.join(" ")
        ),
        run,
    )
}

/// The qualified name of the class in `path` that declares `static void main(`, if any.
fn java_main(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    let text = String::from_utf8_lossy(&bytes); // a Latin-1 comment must not hide `main`
    if !text.contains("static void main(") {
        return None;
    }
    let class = path.file_stem()?.to_string_lossy().into_owned();
    let package = text.lines().find_map(|l| {
        l.trim()
            .strip_prefix("package ")
            .map(|p| p.trim_end_matches(';').trim().to_string())
    });
    Some(match package {
        Some(p) => format!("{p}.{class}"),
        None => class,
    })
}

/// A javac build of the given source roots into `out`, then `java` on `main`, with the
/// project's jars on the class path.
pub fn javac(
    roots: &[String],
    out: &str,
    jars: &[String],
    main: &str,
    resources: Option<&str>,
) -> (String, String) {
    let roots: Vec<String> = roots.iter().map(|d| sh_quote(d)).collect();
    let out_q = sh_quote(out);
    let cp_build = if jars.is_empty() {
        String::new()
    } else {
        format!(" -cp {}", sh_quote(&jars.join(":")))
    };
    // `find -exec … {} +` hands the names over as arguments: no word splitting.
    let mut build = format!(
        "mkdir -p {out_q} && find {} -name '*.java' -exec javac -encoding UTF-8 -d {out_q}{cp_build} {{}} +",
        roots.join(" ")
    );
    if let Some(r) = resources {
        build.push_str(&format!(" && cp -R {}/. {out_q}/", sh_quote(r)));
    }
    let mut cp = vec![out.to_string()];
    cp.extend(jars.iter().cloned());
    (
        build,
        format!("java -cp {} {}", sh_quote(&cp.join(":")), sh_quote(main)),
    )
}
