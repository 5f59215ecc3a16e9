#!/bin/bash
# Build cost of the C++ annotation on corpus projects: the recipe's own build (tests/corpus/
# cpp_projects.sh) of the original tree and of the same tree annotated (all main sources, every
# class and method, MODE), from clean, interleaved original / annotated ROUNDS times. Prints
# per project the build's CPU seconds (user + sys of all its processes), min and median of the
# rounds, and the ratio of the minima and of the medians; `revy annotate`'s own CPU (once, the
# runtime library's compile included) is shown apart.
#
# Usage: tests/bench/cpp_build.sh [PROJECT ...]   (default: tinyxml2 many pugixml yaml-cpp leveldb)
# Env: REVY (default target/release/revy), CORPUS (default /tmp/corpus; tests/corpus/fetch.sh),
#      SCRATCH (default /tmp/revy-build-bench), ROUNDS (3), JOBS (2), MODE (better),
#      REVY_CPP_RUNTIME=header (the header-only form, for a before/after of the runtime split).
# Target: annotated / original <= 1.3x. Runs under `nice -n 10`; one build at a time.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
REVY=${REVY:-$repo/target/release/revy}
C=${CORPUS:-/tmp/corpus}
SCRATCH=${SCRATCH:-/tmp/revy-build-bench}
ROUNDS=${ROUNDS:-3}
JOBS=${JOBS:-2}
MODE=${MODE:-better}
[ -x "$REVY" ] || { echo "no revy at $REVY (cargo build --release)" >&2; exit 2; }
. "$here/../corpus/cpp_projects.sh"
renice -n 10 $$ > /dev/null 2>&1 || true

# annotate P DIR: a fresh copy of the pristine tree in DIR, annotated in MODE.
annotate() {
  rm -rf "$2" && cp -a "$src" "$2"
  P=$1 manifest "$2" "$MODE"
  # `revy parse` exits 1 when it reports syntax problems (pugixml, yaml-cpp) and still
  # writes the SAF: annotate anyway, as tests/corpus/cpp.sh does; a tree without the runtime
  # folder afterwards was not annotated (its build would be timed as the original's).
  (cd "$2" && "$REVY" parse) > "$2.annotate.log" 2>&1
  [ $? -le 1 ] || return 1
  (cd "$2" && "$REVY" annotate --"$MODE") >> "$2.annotate.log" 2>&1
  [ $? -le 1 ] && [ -d "$2/.revy-runtime" ]
}

mkdir -p "$SCRATCH"
projects=("$@"); [ ${#projects[@]} -gt 0 ] || projects=(tinyxml2 many pugixml yaml-cpp leveldb)
rows=()
for P in "${projects[@]}"; do
  project "$P" || exit 2
  orig=$SCRATCH/$P-orig ann=$SCRATCH/$P-$MODE
  rm -rf "$orig" && cp -a "$src" "$orig"
  cpu_mark "$SCRATCH/a0"
  annotate "$P" "$ann" || { echo "$P: revy annotate failed ($ann.annotate.log)" >&2; exit 1; }
  cpu_mark "$SCRATCH/a1"
  acpu=$(cpu_secs "$SCRATCH/a0" "$SCRATCH/a1")
  o=() a=()
  for r in $(seq "$ROUNDS"); do
    t=$(timed_build "$orig" "$SCRATCH") || { echo "$P: original build failed ($orig.build.log)" >&2; exit 1; }
    o+=("$t")
    t=$(timed_build "$ann" "$SCRATCH") || { echo "$P: annotated build failed ($ann.build.log)" >&2; exit 1; }
    a+=("$t")
    echo "$P round $r: original ${o[-1]} s, annotated ${a[-1]} s" >&2
  done
  read -r omin omed <<< "$(stats "${o[@]}")"
  read -r amin amed <<< "$(stats "${a[@]}")"
  rows+=("$(awk -v p="$P" -v om="$omin" -v od="$omed" -v am="$amin" -v ad="$amed" -v ac="$acpu" \
    'BEGIN { printf "| %s | %.1f / %.1f | %.1f / %.1f | %.2fx / %.2fx | %.1f |", p, om, od, am, ad, am / om, ad / od, ac }')")
done
echo "| project | original build CPU s, min / median | annotated ($MODE) | ratio min / median | annotate CPU s |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
