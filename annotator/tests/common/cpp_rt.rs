//! A one-method C++ program against the real runtime header: the config header and build
//! step that the runtime-file and multi-process tests share.

use std::path::Path;
use std::process::{Command, Output};

/// `revy_config.hpp` for a program with one class `P` and one method `work` (id 1), faster
/// mode, no throttling.
const CONFIG: &str = r#"#ifndef REVY_CONFIG_HPP_INCLUDED
#define REVY_CONFIG_HPP_INCLUDED
#include <cstdint>
namespace _revy_rt { namespace config {
inline const char* project() { return "PROJECT"; }
inline const char* trace_dir() { return "traces"; }
constexpr std::uint64_t max_size = MAX_SIZEull;
constexpr std::uint64_t throttle_calls = 0;
constexpr std::uint64_t throttle_ns = 0;
inline const char* mode() { return "faster"; }
constexpr bool better = false;
constexpr std::uint64_t collection_sample = 8;
constexpr std::uint64_t system_size = 32;
constexpr std::uint32_t class_count = 1;
inline const char* const* class_names() { static const char* const t[] = {"", "P"}; return t; }
struct Method { std::uint32_t cls; const char* name; const char* sgn; };
constexpr std::uint32_t method_count = 1;
inline const Method* methods() { static const Method t[] = {{0, "", ""}, {1, "work", "!int^0!"}}; return t; }
}}
#endif
"#;

pub fn sh(dir: &Path, cmd: &str, env: &[(&str, &str)]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Writes the config, the runtime header and `program` as `t.cpp` into `dir` and builds `t`
/// with the runtime's strictest flags.
pub fn build_one_method(dir: &Path, project: &str, max_size: u64, program: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let config = CONFIG
        .replace("PROJECT", project)
        .replace("MAX_SIZE", &max_size.to_string());
    std::fs::write(dir.join("revy_config.hpp"), config).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    for f in ["revy_runtime.hpp", "revy_runtime_impl.hpp"] {
        std::fs::copy(repo.join("runtime-cpp").join(f), dir.join(f)).unwrap();
    }
    std::fs::write(dir.join("t.cpp"), program).unwrap();
    let b = sh(
        dir,
        "g++ -std=c++11 -Wall -Wextra -Werror -fno-exceptions -fno-rtti -O1 -pthread -o t t.cpp",
        &[],
    );
    assert!(b.status.success(), "{}", text(&b.stderr));
}
