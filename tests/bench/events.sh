#!/usr/bin/env bash
# Cost of following [[events]] in `revy analyze` (issue 38): the same synthetic trace
# analysed without and with one event definition, interleaved RUNS times; prints each
# side's minimum and median CPU time (user+sys; on a shared machine noise only adds time),
# peak RSS and the ratio, then the tracker's `peak_waiting` and `late_records`.
# Usage: tests/bench/events.sh [EVENTS]   (default 2000000)
# Env: RUNS=5, THREADS=8, INSTANCES=10000, BENCH_DIR=/tmp/revy-bench-events,
#   REVY=target/debug/revy and GEN=target/debug/examples/gen_trace (build them first;
#   release binaries give the product's figures, debug ones what CI builds);
#   REVY_B=another revy binary: A/B, its runs interleaved with REVY's, reported after.
set -euo pipefail
cd "$(dirname "$0")/../.."
EVENTS=${1:-2000000}
RUNS=${RUNS:-5}
DIR=${BENCH_DIR:-/tmp/revy-bench-events}
A=$(realpath "${REVY:-target/debug/revy}")
GEN=$(realpath "${GEN:-target/debug/examples/gen_trace}")
BINS=("$A")
[[ -n "${REVY_B:-}" ]] && BINS+=("$(realpath "$REVY_B")")
mkdir -p "$DIR/without" "$DIR/with"
T="$DIR/t.rvt"
"$GEN" --events "$EVENTS" --instances "${INSTANCES:-10000}" --threads "${THREADS:-8}" -o "$T" 2>/dev/null
base='[project]
name = "bench"
sources = ["*.java"]'
printf '%s\n' "$base" >"$DIR/without/revy.toml"
printf '%s\n[[events]]\nname = "r"\nmethod = "Class1.m0"\n' "$base" >"$DIR/with/revy.toml"
rm -f "$DIR"/*.times
for ((i = 0; i < RUNS; i++)); do
    for b in "${!BINS[@]}"; do
        for side in without with; do
            (cd "$DIR/$side" && /usr/bin/time -f "%U %S %M" "${BINS[$b]}" analyze "$T" --no-proposals \
                >/dev/null 2>>"$DIR/$b-$side.times")
        done
    done
done
stats() { # min, median CPU seconds and max peak RSS (MB) of a side
    awk '{print $1 + $2, $3}' "$DIR/$1.times" | sort -n |
        awk '{c[NR] = $1; if ($2 > m) m = $2} END {printf "%.2f %.2f %.0f", c[1], c[int((NR + 1) / 2)], m / 1024}'
}
echo "events=$EVENTS runs=$RUNS"
for b in "${!BINS[@]}"; do
    read -r a_min a_med a_mb <<<"$(stats "$b-without")"
    read -r b_min b_med b_mb <<<"$(stats "$b-with")"
    echo "${BINS[$b]}"
    echo "  without: cpu min ${a_min}s median ${a_med}s, peak ${a_mb} MB"
    echo "  with:    cpu min ${b_min}s median ${b_med}s, peak ${b_mb} MB"
    awk -v a="$a_min" -v b="$b_min" -v c="$a_med" -v d="$b_med" \
        'BEGIN {printf "  overhead: %+.0f %% (min), %+.0f %% (median)\n", (b / a - 1) * 100, (d / c - 1) * 100}'
    (cd "$DIR/with" && "${BINS[$b]}" analyze "$T" --no-proposals --format json) |
        python3 -c 'import json,sys; e=json.load(sys.stdin)["events"]; print("  peak_waiting", e.get("peak_waiting"), "late_records", e.get("late_records"), "events", e["types"][0]["count"], "work", e["types"][0]["work"]["total"])'
done
rm -f "$DIR"/*.times "$T"
