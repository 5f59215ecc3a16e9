//! `revy init`'s reading of a project's build: Make, CMake (and `compile_commands.json`),
//! Meson, Maven, Gradle and Ant, else the language's plain compiler command. Only files are
//! read; nothing is run. A build tool missing from `PATH`, or Maven/Gradle (whose
//! dependencies come from the network), falls back to a compiler command that works offline,
//! and the notes say so.

use std::collections::BTreeSet;
use std::path::Path;

use crate::instrument::model::Lang;
use crate::instrument::starter::{self, javac, sh_quote, Found};

/// The build `revy init` writes, and what the user should check.
#[derive(Debug, Default)]
pub struct Detected {
    /// What was recognised (`Make`, `CMake`, `Maven layout`, `plain sources`, …).
    pub system: String,
    pub build: String,
    pub run: String,
    /// Lines for the user: what the commands rely on and what to check.
    pub notes: Vec<String>,
    /// Source globs to use instead of every folder's (Maven/Gradle: the main sources only).
    pub sources: Option<Vec<String>>,
}

/// Reads the build files in `dir` for a project whose sources are mostly `lang`.
pub fn detect(dir: &Path, name: &str, lang: Lang, f: &Found) -> Detected {
    let has = |file: &str| dir.join(file).is_file();
    let detected = match lang {
        Lang::Cpp if has("CMakeLists.txt") && on_path("cmake") => Some(cmake(dir, name)),
        Lang::Cpp if has("meson.build") && on_path("meson") => Some(meson(dir, name)),
        Lang::Java if has("pom.xml") => Some(maven(dir, f)),
        Lang::Java if gradle_file(dir).is_some() => Some(gradle(dir, f)),
        Lang::Java if has("build.xml") && on_path("ant") => Some(ant(dir, f)),
        _ => None,
    };
    if let Some(d) = detected {
        return d;
    }
    if let Some(mk) = ["GNUmakefile", "makefile", "Makefile"]
        .into_iter()
        .find(|m| has(m))
    {
        return make(dir, mk, name, lang, f);
    }
    let mut d = plain(dir, name, lang, f);
    for (file, tool) in [
        ("CMakeLists.txt", "cmake"),
        ("meson.build", "meson"),
        ("build.xml", "ant"),
    ] {
        if has(file) && !on_path(tool) {
            d.notes.push(format!(
                "{file} found but `{tool}` is not installed: wrote a plain compiler command instead"
            ));
        }
    }
    d
}

/// Whether `tool` is an executable file in a folder of `PATH`.
fn on_path(tool: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH").is_some_and(|p| {
        std::env::split_paths(&p).any(|d| {
            std::fs::metadata(d.join(tool))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read(dir.join(file))
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

// ---- C++ ---------------------------------------------------------------------------------

fn cmake(dir: &Path, name: &str) -> Detected {
    let text = read(dir, "CMakeLists.txt");
    let target = first_call_arg(&text, "add_executable");
    let run = format!("./build/{}", sh_quote(target.as_deref().unwrap_or(name)));
    let mut notes = vec![
        "build: configures into build/ and exports build/compile_commands.json, which `revy parse` reads for include paths and defines".to_string(),
    ];
    notes.push(match &target {
        Some(t) => {
            format!("run: the first add_executable target, `{t}`; check it, and add its arguments")
        }
        None => "run: no add_executable found; set the path of your program".to_string(),
    });
    Detected {
        system: "CMake".into(),
        build: "cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_EXPORT_COMPILE_COMMANDS=ON && cmake --build build -j \"$(nproc)\"".into(),
        run,
        notes,
        sources: None,
    }
}

fn meson(dir: &Path, name: &str) -> Detected {
    let text = read(dir, "meson.build");
    let target = first_call_arg(&text, "executable");
    Detected {
        system: "Meson".into(),
        build: "{ [ -d build ] || meson setup build; } && meson compile -C build".into(),
        run: format!("./build/{}", sh_quote(target.as_deref().unwrap_or(name))),
        notes: vec![match &target {
            Some(t) => {
                format!("run: the first executable(), `{t}`; check it, and add its arguments")
            }
            None => "run: no executable() found; set the path of your program".to_string(),
        }],
        sources: None,
    }
}

/// The first argument of the first `call(` in a CMake or Meson file, unquoted, when it is a
/// plain name (not a variable).
fn first_call_arg(text: &str, call: &str) -> Option<String> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    text.lines()
        .map(|l| l.split('#').next().unwrap_or_default())
        .find_map(|l| {
            let (at, _) = l.match_indices(call).find(|&(at, _)| {
                let before_ok = !l[..at].ends_with(word);
                before_ok && l[at + call.len()..].trim_start().starts_with('(')
            })?;
            let rest = l[at + call.len()..].trim_start().strip_prefix('(')?;
            let arg = rest.split([',', ' ', ')', '\t']).find(|a| !a.is_empty())?;
            let arg = arg.trim_matches(|c| c == '\'' || c == '"');
            let plain = !arg.is_empty() && !arg.contains(['$', '@']);
            plain.then(|| arg.to_string())
        })
}

/// `make`, with the program read from the Makefile: a TARGET/PROG/BIN-like variable, else
/// the first prerequisite of `all`, else the first rule's target.
fn make(dir: &Path, file: &str, name: &str, lang: Lang, f: &Found) -> Detected {
    let text = read(dir, file);
    let program = make_program(&text);
    let fallback = plain(dir, name, lang, f).run;
    let (run, note) = match &program {
        Some(p) if lang == Lang::Cpp => {
            let p = if p.contains('/') {
                p.clone()
            } else {
                format!("./{p}")
            };
            (
                sh_quote(&p),
                format!("run: `{p}`, read from the {file}; check it, and add its arguments"),
            )
        }
        _ => (fallback, format!("run: not found in the {file}; check it")),
    };
    let build = if file == "Makefile" {
        "make".to_string()
    } else {
        format!("make -f {file}")
    };
    Detected {
        system: "Make".into(),
        build,
        run,
        notes: vec![
            note,
            "build: your own Makefile; it must rebuild what changed (Revy rewrites sources in place)".into(),
        ],
        sources: None,
    }
}

fn make_program(text: &str) -> Option<String> {
    let mut vars: Vec<(String, String)> = Vec::new();
    let mut rules: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if line.starts_with('\t') || line.trim_start().starts_with('#') {
            continue;
        }
        let line = line.split('#').next().unwrap_or_default();
        if let Some((k, v)) = line.split_once('=') {
            if !k.contains(':') || k.ends_with(':') || k.ends_with("::") {
                let k = k.trim_end_matches([':', '?', '+', ' ']).trim();
                vars.push((k.to_string(), v.trim().to_string()));
                continue;
            }
        }
        if let Some((targets, deps)) = line.split_once(':') {
            let t = targets.trim();
            if !t.is_empty() && !t.starts_with('.') && !t.contains('%') {
                rules.push((t.to_string(), deps.trim().to_string()));
            }
        }
    }
    let expand = |s: &str| expand_make(s, &vars);
    const NAMES: [&str; 12] = [
        "TARGET",
        "TARGETS",
        "PROG",
        "PROGRAM",
        "BIN",
        "BINARY",
        "EXE",
        "EXEC",
        "EXECUTABLE",
        "APP",
        "OUT",
        "OUTPUT",
    ];
    let by_var = NAMES.iter().find_map(|n| {
        let v = vars.iter().rev().find(|(k, _)| k == n)?;
        expand(&v.1).split_whitespace().next().map(str::to_string)
    });
    let plain_word = |w: &str| !w.is_empty() && !w.contains(['$', '%']) && !w.ends_with(".o");
    by_var.filter(|w| plain_word(w)).or_else(|| {
        let (t, deps) = rules.first()?;
        let first = if expand(t) == "all" {
            expand(deps).split_whitespace().next()?.to_string()
        } else {
            expand(t).split_whitespace().next()?.to_string()
        };
        (plain_word(&first) && !["clean", "install", "test"].contains(&first.as_str()))
            .then_some(first)
    })
}

/// `$(X)` and `${X}` replaced by the variable's last value (one level deep is enough for
/// `TARGET = $(BUILD)/app`, twice to be safe).
fn expand_make(s: &str, vars: &[(String, String)]) -> String {
    let mut out = s.to_string();
    for _ in 0..2 {
        for (k, v) in vars.iter().rev() {
            out = out
                .replace(&format!("$({k})"), v)
                .replace(&format!("${{{k}}}"), v);
        }
    }
    out
}

// ---- Java ------------------------------------------------------------------------------

/// The project's jars: under `lib/`, `libs/`, `target/dependency/` and `build/libs` folders'
/// dependency copies, sorted.
fn project_jars(dir: &Path) -> Vec<String> {
    let mut jars = BTreeSet::new();
    for sub in ["lib", "libs", "target/dependency", "build/dependency"] {
        let walker = walkdir::WalkDir::new(dir.join(sub)).sort_by_file_name();
        for e in walker.into_iter().flatten() {
            if e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "jar") {
                if let Ok(rel) = e.path().strip_prefix(dir) {
                    jars.insert(rel.to_string_lossy().replace('\\', "/"));
                }
            }
        }
    }
    jars.into_iter().collect()
}

/// Maven/Gradle's main source folder when it exists, else every folder with Java files.
fn main_roots(dir: &Path, f: &Found) -> (Vec<String>, Option<Vec<String>>) {
    if dir.join("src/main/java").is_dir() {
        (
            vec!["src/main/java".into()],
            Some(vec!["src/main/java/**/*.java".into()]),
        )
    } else {
        (f.top_dirs.iter().cloned().collect(), None)
    }
}

/// The text between `<tag>` and `</tag>`, first occurrence.
fn xml_tag(text: &str, tag: &str) -> Option<String> {
    let start = text.find(&format!("<{tag}>"))? + tag.len() + 2;
    let len = text[start..].find(&format!("</{tag}>"))?;
    Some(text[start..start + len].trim().to_string()).filter(|s| !s.is_empty() && !s.contains("${"))
}

fn offline_java(dir: &Path, f: &Found, system: &str, out: &str, main: Option<String>) -> Detected {
    let (roots, sources) = main_roots(dir, f);
    let jars = project_jars(dir);
    let resources = dir
        .join("src/main/resources")
        .is_dir()
        .then_some("src/main/resources");
    let main_known = main.is_some();
    let main = main
        .or_else(|| f.entry.clone())
        .unwrap_or_else(|| "Main".into());
    let (build, run) = javac(&roots, out, &jars, &main, resources);
    let mut notes = vec![format!(
        "build: javac over {} into {out}, which works offline ({system} would fetch its dependencies from the network); with them in your local repository you may use {system} instead",
        roots.join(" ")
    )];
    notes.push(if jars.is_empty() {
        "class path: no jars found under lib/, libs/ or target/dependency/; add your dependencies' jars if the build needs any".into()
    } else {
        format!("class path: the {} jar(s) found ({}); check it lists every dependency", jars.len(), jars.join(", "))
    });
    notes.push(if main_known {
        format!("run: main class `{main}` from the build file")
    } else if f.entry.is_some() {
        format!("run: `{main}`, the first class with a main method; check it")
    } else {
        "run: no main method found; set the main class".into()
    });
    Detected {
        system: format!("{system} layout"),
        build,
        run,
        notes,
        sources,
    }
}

fn maven(dir: &Path, f: &Found) -> Detected {
    let pom = read(dir, "pom.xml");
    let main = xml_tag(&pom, "mainClass").or_else(|| xml_tag(&pom, "exec.mainClass"));
    offline_java(dir, f, "Maven", "target/classes", main)
}

fn gradle_file(dir: &Path) -> Option<&'static str> {
    [
        "build.gradle",
        "build.gradle.kts",
        "settings.gradle",
        "settings.gradle.kts",
    ]
    .into_iter()
    .find(|g| dir.join(g).is_file())
}

fn gradle(dir: &Path, f: &Found) -> Detected {
    let text = gradle_file(dir).map(|g| read(dir, g)).unwrap_or_default();
    let build_file = read(dir, "build.gradle") + &read(dir, "build.gradle.kts");
    let main = gradle_main(&build_file).or_else(|| gradle_main(&text));
    offline_java(dir, f, "Gradle", "build/classes/java/main", main)
}

/// `mainClass = 'x'`, `mainClass.set("x")` or `mainClassName = "x"`.
fn gradle_main(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let rest = &l[l.find("mainClass")? + "mainClass".len()..];
        let rest = rest.strip_prefix("Name").unwrap_or(rest);
        let q = rest.find(['"', '\''])?;
        let quote = rest[q..].chars().next()?;
        let body = &rest[q + 1..];
        let end = body.find(quote)?;
        Some(body[..end].to_string()).filter(|s| !s.is_empty() && !s.contains('$'))
    })
}

fn ant(dir: &Path, f: &Found) -> Detected {
    let xml = read(dir, "build.xml");
    let props = ant_properties(&xml);
    let attr = |tag: &str, name: &str| {
        let at = xml.find(&format!("<{tag}"))?;
        let rest = &xml[at..];
        let rest = &rest[..rest.find('>')?];
        let key = format!("{name}=\"");
        let s = rest.find(&key)? + key.len();
        let v = &rest[s..];
        Some(expand_ant(&v[..v.find('"')?], &props))
    };
    let classes = attr("javac", "destdir").unwrap_or_else(|| "build/classes".into());
    let main = attr("java", "classname")
        .or_else(|| f.entry.clone())
        .unwrap_or_else(|| "Main".into());
    Detected {
        system: "Ant".into(),
        build: "ant".into(),
        run: format!("java -cp {} {}", sh_quote(&classes), sh_quote(&main)),
        notes: vec![format!(
            "run: class path `{classes}` (the javac task's destdir) and `{main}`; add your jars and check them"
        )],
        sources: None,
    }
}

fn ant_properties(xml: &str) -> Vec<(String, String)> {
    let mut props = Vec::new();
    for chunk in xml.split("<property").skip(1) {
        let head = &chunk[..chunk.find('>').unwrap_or(chunk.len())];
        let get = |k: &str| {
            let key = format!("{k}=\"");
            let s = head.find(&key)? + key.len();
            Some(head[s..s + head[s..].find('"')?].to_string())
        };
        if let (Some(n), Some(v)) = (get("name"), get("location").or_else(|| get("value"))) {
            props.push((n, v));
        }
    }
    props
}

fn expand_ant(s: &str, props: &[(String, String)]) -> String {
    let mut out = s.to_string();
    for _ in 0..2 {
        for (k, v) in props {
            out = out.replace(&format!("${{{k}}}"), v);
        }
    }
    out
}

// ---- no build system -----------------------------------------------------------------------

fn plain(dir: &Path, name: &str, lang: Lang, f: &Found) -> Detected {
    let (build, run) = (starter::of(lang).commands)(dir, name, f);
    let mut notes = Vec::new();
    if let Some(cc) = crate::instrument::cppdefs::compile_commands(dir) {
        notes.push(format!("include paths and defines: taken from {cc}"));
    } else if !f.header_dirs.is_empty() {
        notes.push(format!(
            "include paths: every folder holding headers ({})",
            f.header_dirs.iter().cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    notes.push(match (lang, &f.entry) {
        (Lang::Java, Some(e)) => {
            format!("run: `{e}`, the first class with a main method; check it")
        }
        (Lang::Java, None) => "run: no main method found; set the main class".into(),
        _ => "build: one compiler command over every source file; check the flags and libraries"
            .into(),
    });
    Detected {
        system: "plain sources".into(),
        build,
        run,
        notes,
        sources: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn makefile_programs() {
        let m = "CXX = g++\nBUILD := build\nTARGET = $(BUILD)/lru\n\nall: $(TARGET)\n\t@echo\n";
        assert_eq!(make_program(m).as_deref(), Some("build/lru"));
        let m =
            "CXXFLAGS=-O2\n.PHONY: all clean\nall: demo tool\ndemo: main.o\n\t$(CXX) -o $@ $^\n";
        assert_eq!(make_program(m).as_deref(), Some("demo"));
        let m = "app: main.cpp\n\tg++ -o app main.cpp\nclean:\n\trm app\n";
        assert_eq!(make_program(m).as_deref(), Some("app"));
        assert_eq!(make_program("%.o: %.cpp\n\tg++ -c $<\n"), None);
    }

    #[test]
    fn build_files_name_targets_and_main_classes() {
        let c = "cmake_minimum_required(VERSION 3.10)\nproject(x CXX)\n# add_executable(old a.cpp)\nadd_executable(lru src/main.cpp)\n";
        assert_eq!(first_call_arg(c, "add_executable").as_deref(), Some("lru"));
        assert_eq!(
            first_call_arg("add_executable(${PROJECT_NAME} a.cpp)", "add_executable"),
            None
        );
        let m = "project('p', 'cpp')\nexe = executable('tool', 'main.cpp')\n";
        assert_eq!(first_call_arg(m, "executable").as_deref(), Some("tool"));
        assert_eq!(
            gradle_main("application {\n  mainClass = 'app.Main'\n}").as_deref(),
            Some("app.Main")
        );
        assert_eq!(
            gradle_main("application { mainClass.set(\"a.B\") }").as_deref(),
            Some("a.B")
        );
        assert_eq!(
            gradle_main("mainClassName = \"c.D\"").as_deref(),
            Some("c.D")
        );
        let pom =
            "<project><properties><exec.mainClass>w.Main</exec.mainClass></properties></project>";
        assert_eq!(xml_tag(pom, "exec.mainClass").as_deref(), Some("w.Main"));
        let ant = "<project><property name=\"out\" location=\"bin\"/><target><javac srcdir=\"src\" destdir=\"${out}/classes\"/><java classname=\"z.App\"/></target></project>";
        assert_eq!(
            expand_ant("${out}/classes", &ant_properties(ant)),
            "bin/classes"
        );
    }
}
