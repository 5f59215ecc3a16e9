#!/bin/bash
# Build cost of a change to the C++ runtime header, A/B: each project (tests/corpus/
# cpp_projects.sh) is annotated once by REVY; the annotated tree is copied and its
# `.revy-runtime/revy_runtime.hpp` replaced by HEADER. The original, the annotated tree with
# REVY's header (a) and the one with HEADER (b) are built from clean, interleaved (a and b
# swapping places every round), ROUNDS times;
# prints each build's CPU seconds (user + sys of its processes) and the load, then per variant
# min / median and the ratio to the original's.
#
# Usage: tests/bench/cpp_header_ab.sh [PROJECT ...]   (default: tinyxml2 many)
# Env: REVY (default target/release/revy: the header before), HEADER (default
#      runtime-cpp/revy_runtime.hpp: the header after), CORPUS, SCRATCH
#      (/tmp/revy-header-ab), ROUNDS (3), JOBS (2), MODE (better). Runs under `nice -n 10`.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
REVY=${REVY:-$repo/target/release/revy}
HEADER=${HEADER:-$repo/runtime-cpp/revy_runtime.hpp}
C=${CORPUS:-/tmp/corpus}
S=${SCRATCH:-/tmp/revy-header-ab}
ROUNDS=${ROUNDS:-3}
JOBS=${JOBS:-2}
MODE=${MODE:-better}
[ -x "$REVY" ] || { echo "no revy at $REVY (cargo build --release)" >&2; exit 2; }
. "$here/../corpus/cpp_projects.sh"
renice -n 10 $$ > /dev/null 2>&1 || true
mkdir -p "$S"
export CPU_DIGITS=3
projects=("$@"); [ ${#projects[@]} -gt 0 ] || projects=(tinyxml2 many)
for P in "${projects[@]}"; do
  project "$P" || exit 2
  o=$S/$P-orig a=$S/$P-a b=$S/$P-b
  rm -rf "$o" "$a" "$b"
  cp -a "$src" "$o"
  cp -a "$src" "$a"
  manifest "$a" "$MODE"
  # `revy parse` exits 1 when it reports syntax problems and still writes the SAF (cpp_build.sh).
  (cd "$a" && "$REVY" parse; [ $? -le 1 ] && "$REVY" annotate --"$MODE") > "$a.annotate.log" 2>&1
  [ -d "$a/.revy-runtime" ] || { echo "$P: revy annotate failed ($a.annotate.log)" >&2; exit 1; }
  cp -a "$a" "$b"
  cp "$HEADER" "$b/.revy-runtime/revy_runtime.hpp"
  declare -A t=()
  for r in $(seq "$ROUNDS"); do
    # a and b swap places every round: in a fixed order the later one paid 4-7 % more at
    # load 15-21 (tinyxml2, 2026-11-29), against its own instruction counts.
    order="o a b"; [ $((r % 2)) = 1 ] || order="o b a"
    for v in $order; do
      eval "d=\$$v"
      x=$(timed_build "$d" "$S") || { echo "$P: build $v failed ($d.build.log)" >&2; exit 1; }
      t[$v]="${t[$v]:-} $x"
      echo "$P round $r $v: $x s (load $(cut -d' ' -f1 /proc/loadavg))" >&2
    done
  done
  read -r omin omed <<< "$(stats ${t[o]})"
  for v in o a b; do
    read -r mn md <<< "$(stats ${t[$v]})"
    awk -v p="$P" -v v="$v" -v mn="$mn" -v md="$md" -v om="$omin" -v od="$omed" \
      'BEGIN { printf "%s %s: %.3f / %.3f s, %.2fx / %.2fx the original\n", p, v, mn, md, mn / om, md / od }'
  done
done
