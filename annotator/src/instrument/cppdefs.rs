//! The project context the front ends parse in (`frontend::ProjectContext`): the project's
//! C++ macros, that is the `#define`s of its sources, of headers they include through
//! `compile_commands.json` include paths, and that file's `-D` flags.

use std::path::{Path, PathBuf};

use crate::instrument::frontend::cpp::defines::Defines;
use crate::instrument::frontend::ProjectContext;
use crate::instrument::manifest::Manifest;
use crate::instrument::model::Lang;

/// Defines and include paths from `compile_commands.json` at the manifest folder or build/.
#[derive(Debug, Default)]
pub struct CompileFlags {
    pub defines: Vec<String>,
    pub includes: Vec<PathBuf>,
    /// The first C++ entry's compiler (its first word), when it names one.
    pub compiler: Option<String>,
    /// Some entry links statically (`-static`): the C++ runtime stays header-only.
    pub static_link: bool,
}

pub fn compile_flags(root: &Path) -> CompileFlags {
    let mut out = CompileFlags::default();
    for cand in [
        root.join("compile_commands.json"),
        root.join("build/compile_commands.json"),
    ] {
        let Ok(text) = std::fs::read_to_string(&cand) else {
            continue;
        };
        let Ok(serde_json::Value::Array(entries)) = serde_json::from_str(&text) else {
            continue;
        };
        for e in &entries {
            let dir = PathBuf::from(e.get("directory").and_then(|d| d.as_str()).unwrap_or("."));
            let args: Vec<String> = match (e.get("arguments"), e.get("command")) {
                (Some(serde_json::Value::Array(a)), _) => a
                    .iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect(),
                (_, Some(serde_json::Value::String(c))) => {
                    c.split_whitespace().map(String::from).collect()
                }
                _ => continue,
            };
            if out.compiler.is_none() {
                out.compiler = args.first().filter(|c| is_cxx_compiler(c)).cloned();
            }
            out.static_link |= args.iter().any(|a| a == "-static");
            flags_of(&args, &dir, &mut out);
        }
        break;
    }
    out
}

/// `g++`, `clang++-17`, `/usr/bin/c++`, `x86_64-linux-gnu-g++-12`: a C++ compiler driver.
pub fn is_cxx_compiler(word: &str) -> bool {
    let name = word.rsplit('/').next().unwrap_or(word);
    name.contains("++") || name == "cxx"
}

fn flags_of(args: &[String], dir: &Path, out: &mut CompileFlags) {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (flag, val) = match a.as_str() {
            "-D" | "-I" | "-isystem" => (a.as_str(), it.next().cloned()),
            _ if a.starts_with("-D") => ("-D", Some(a[2..].to_string())),
            _ if a.starts_with("-I") => ("-I", Some(a[2..].to_string())),
            _ => continue,
        };
        let Some(v) = val else { continue };
        if flag == "-D" {
            if !out.defines.contains(&v) {
                out.defines.push(v);
            }
        } else {
            let p = dir.join(v);
            if !out.includes.contains(&p) {
                out.includes.push(p);
            }
        }
    }
}

/// The context every file of the project is parsed in, from its sources' `(path, text)`.
pub fn context<'a>(
    manifest: &Manifest,
    files: impl Iterator<Item = (&'a str, &'a str)>,
) -> ProjectContext {
    ProjectContext {
        defines: project_defines(manifest, files),
    }
}

/// The macros every C++ file of the project is parsed with.
fn project_defines<'a>(
    manifest: &Manifest,
    files: impl Iterator<Item = (&'a str, &'a str)>,
) -> Defines {
    let flags = compile_flags(&manifest.root);
    let mut defs = Defines::default();
    for d in &flags.defines {
        defs.add_flag(d);
    }
    let files: Vec<(&str, &str)> = files
        .filter(|(path, _)| Lang::of_path(path) == Some(Lang::Cpp))
        .collect();
    // A source file's own macros are its own (its front end adds them): fmt's
    // module unit `fmt.cc` redefines core.h's namespace macros for itself only. Unless
    // another file includes it.
    let included: std::collections::HashSet<String> = (files.iter())
        .flat_map(|(_, text)| includes_of(text))
        .filter_map(|inc| inc.rsplit('/').next().map(String::from))
        .collect();
    let shared = |path: &str| {
        let name = path.rsplit('/').next().unwrap_or(path);
        !is_source_file(name) || included.contains(name)
    };
    let mut seen = std::collections::HashSet::new();
    for &(path, text) in &files {
        if shared(path) {
            defs.scan(text);
        }
        // Headers outside the sources, found through the include paths.
        for inc in includes_of(text) {
            for dir in &flags.includes {
                let p = dir.join(&inc);
                if seen.insert(p.clone()) {
                    let text = std::fs::read(&p).ok();
                    if let Some(t) = text.and_then(|b| crate::util::srctext::decode(b).ok()) {
                        defs.scan(&t);
                    }
                }
            }
        }
    }
    defs
}

/// A translation unit's own file (`.cc`, `.cpp`, …) rather than a header.
fn is_source_file(name: &str) -> bool {
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    ["c", "cc", "cpp", "cxx", "c++", "C", "cp", "CPP"].contains(&ext)
}

/// The quoted and angled `#include` names of `text`.
fn includes_of(text: &str) -> Vec<String> {
    (text.lines())
        .filter_map(|l| l.trim_start().strip_prefix('#'))
        .filter_map(|l| l.trim_start().strip_prefix("include"))
        .filter_map(|l| {
            let l = l.trim();
            let (open, close) = match l.chars().next()? {
                '"' => ('"', '"'),
                '<' => ('<', '>'),
                _ => return None,
            };
            let rest = l.strip_prefix(open)?;
            Some(rest[..rest.find(close)?].to_string())
        })
        .collect()
}

/// [`context`] over the manifest's sources as on disk, or as in `originals` (the user's text
/// while an annotation is in place).
pub fn for_manifest(
    manifest: &Manifest,
    originals: Option<&std::collections::HashMap<String, String>>,
) -> ProjectContext {
    let paths = manifest.discover().unwrap_or_default();
    let texts: Vec<(String, String)> = (paths.into_iter())
        .filter(|p| Lang::of_path(p) == Some(Lang::Cpp))
        .filter_map(|p| {
            let t = match originals.and_then(|o| o.get(&p)) {
                Some(t) => t.clone(),
                None => crate::instrument::manifest::read_source(manifest, &p).ok()?,
            };
            Some((p, t))
        })
        .collect();
    context(
        manifest,
        texts.iter().map(|(p, t)| (p.as_str(), t.as_str())),
    )
}

/// `compile_commands.json` in DIR or DIR/build, as a path relative to DIR.
pub fn compile_commands(dir: &Path) -> Option<&'static str> {
    ["compile_commands.json", "build/compile_commands.json"]
        .into_iter()
        .find(|c| dir.join(c).is_file())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instrument::frontend::Frontend;

    #[test]
    fn compile_commands_give_defines_and_include_paths() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join("build")).unwrap();
        std::fs::create_dir_all(root.join("inc/lib")).unwrap();
        std::fs::write(
            root.join("inc/lib/api.h"),
            "#define LIB_API __attribute__((x))\n",
        )
        .unwrap();
        let cc = format!(
            r#"[{{"directory": "{}", "file": "a.cpp",
                "arguments": ["g++", "-DLIB_EXPORT=", "-D", "NS_BEGIN=namespace n {{", "-Iinc", "-c", "a.cpp"]}},
               {{"directory": "{}", "file": "b.cpp", "command": "g++ -DFLAG -I inc -c b.cpp"}}]"#,
            root.display(),
            root.display()
        );
        std::fs::write(root.join("build/compile_commands.json"), cc).unwrap();
        let f = compile_flags(root);
        assert_eq!(f.defines, ["LIB_EXPORT=", "NS_BEGIN=namespace n {", "FLAG"]);
        assert_eq!(f.includes, [root.join("inc")]);
        let toml =
            "[project]\nname = \"t\"\nsources = [\"*.cpp\"]\nbuild = \"true\"\nrun = \"true\"\n";
        std::fs::write(root.join("revy.toml"), toml).unwrap();
        let m = Manifest::load(&root.join("revy.toml")).unwrap();
        let src = "#include <lib/api.h>\n";
        let d = project_defines(&m, [("a.cpp", src)].into_iter());
        assert_eq!(d.get("LIB_EXPORT").unwrap().body, "");
        assert_eq!(d.get("NS_BEGIN").unwrap().body, "namespace n {");
        assert!(
            d.get("LIB_API").is_some(),
            "define from a header found through -I"
        );
    }

    /// fmt 9.1: its module unit `src/fmt.cc` redefines core.h's detail-namespace macros as
    /// `} namespace detail {` / `} export {` for itself. Taken for the project's, they
    /// nested core.h's classes as `detail::detail::…`; a source file's macros are its own.
    #[test]
    fn a_source_files_macros_stay_its_own() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let toml = "[project]\nname = \"t\"\nsources = [\"**/*.h\", \"**/*.cc\"]\n";
        std::fs::write(root.join("revy.toml"), toml).unwrap();
        let m = Manifest::load(&root.join("revy.toml")).unwrap();
        let core = "#define NSB namespace detail {\n#define NSE }\nNSB\nstruct Buf { int n() { return 1; } };\nNSE\n";
        let module =
            "#define NSB } namespace detail {\n#define NSE } export {\n#define ONLY_HERE 1\n";
        let unity = "#define FROM_UNITY inline\n";
        let files = [
            ("src/fmt.cc", module),
            ("include/core.h", core),
            ("src/part.cc", unity),
            ("src/all.cc", "#include \"part.cc\"\n"),
        ];
        let d = project_defines(&m, files.into_iter());
        assert_eq!(d.get("NSB").unwrap().body, "namespace detail {");
        assert_eq!(d.get("NSE").unwrap().body, "}");
        assert!(!d.has("ONLY_HERE"));
        assert!(
            d.has("FROM_UNITY"),
            "a source file another includes shares its macros"
        );
        let cx = ProjectContext { defines: d };
        let cpp = crate::instrument::frontend::cpp::CppFrontend;
        let model = cpp.parse("include/core.h", core, &cx);
        assert_eq!(model.classes[0].qname, "detail::Buf");
        // In its own file, its own reading wins.
        let own = cpp.parse("src/fmt.cc", module, &cx);
        assert!(own.diagnostics.is_empty(), "{:?}", own.diagnostics);
    }
}
