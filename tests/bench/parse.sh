#!/bin/bash
# Parse benchmark (issue 2): `revy parse` over every main and test source of the corpus
# projects vs a bare tree-sitter parse of the same files with the same threads.
# Needs the corpus: tests/corpus/fetch.sh. Prints files, lines, wall times and the ratio.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
C=${CORPUS:-/tmp/corpus}/w
cargo build --release -q --manifest-path "$root/Cargo.toml" --bin revy --example bare_parse
bin=$root/target/release
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# One project folder whose sources are symlinks into the corpus.
mkdir -p "$work/p"
for d in "$C"/*/; do ln -s "$d" "$work/p/$(basename "$d")"; done
cat > "$work/p/revy.toml" <<TOML
[project]
name = "corpus"
sources = ["**/*.java", "**/*.cpp", "**/*.cc", "**/*.h", "**/*.hpp"]
exclude = ["**/.pc/**", "**/debian/**"]
TOML
(cd "$work/p" && find -L . \( -path '*/.pc' -o -path '*/debian' \) -prune -o -type f \
   \( -name '*.java' -o -name '*.cpp' -o -name '*.cc' -o -name '*.h' -o -name '*.hpp' \) -print) \
   | sed "s|^\./|$work/p/|" > "$work/files"
files=$(wc -l < "$work/files")
java_lines=$(grep '\.java$' "$work/files" | xargs cat | wc -l)
cpp_lines=$(grep -v '\.java$' "$work/files" | xargs cat | wc -l)
echo "corpus: $files files, $java_lines lines of Java, $cpp_lines lines of C++, threads: $(nproc)"
best() { sort -n | head -1; }
cpu() { { /usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null || true; } | tail -1 | awk '{print $1 + $2}'; }
bare=(); revy=(); bare_cpu=(); revy_cpu=()
for i in 1 2 3 4 5; do
  s=$(date +%s.%N); "$bin/examples/bare_parse" "$work/files" >/dev/null; e=$(date +%s.%N)
  bare+=("$(echo "$e - $s" | bc)")
  s=$(date +%s.%N); (cd "$work/p" && "$bin/revy" parse >/dev/null 2>&1 || true); e=$(date +%s.%N)
  revy+=("$(echo "$e - $s" | bc)")
  bare_cpu+=("$(cpu "$bin/examples/bare_parse" "$work/files")")
  revy_cpu+=("$(cd "$work/p" && cpu "$bin/revy" parse)")
done
b=$(printf '%s\n' "${bare[@]}" | best); r=$(printf '%s\n' "${revy[@]}" | best)
bc_=$(printf '%s\n' "${bare_cpu[@]}" | best); rc=$(printf '%s\n' "${revy_cpu[@]}" | best)
echo "bare tree-sitter parse: wall ${b}s, cpu ${bc_}s (best of 5)"
echo "revy parse (model + SAF written): wall ${r}s, cpu ${rc}s (best of 5)"
echo "ratio: wall $(echo "scale=2; $r / $b" | bc)x, cpu $(echo "scale=2; $rc / $bc_" | bc)x (target <= 1.5x)"
(cd "$work/p" && "$bin/revy" parse 2>/dev/null | head -1 || true)
