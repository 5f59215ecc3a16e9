#!/usr/bin/env bash
# Export sizes, times and peak memory on a synthetic trace (issue 12).
# Usage: tests/bench/export.sh [EVENTS]   (default: 10000000)
# Env: THREADS=8, INSTANCES=10000, BENCH_DIR=/tmp/revy-bench, TOP=100000, MIN_TIME=200,
#      ONLY=folded (run only the exports whose name contains it), KEEP=1 (keep the trace)
# One line per export: output MB, wall and CPU seconds, peak RSS (from /usr/bin/time -v).
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-10000000}
DIR=${BENCH_DIR:-/tmp/revy-bench}
mkdir -p "$DIR"
cargo build --release --quiet --bin revy --example gen_trace
REVY=target/release/revy
GEN=target/release/examples/gen_trace
f="$DIR/export-$N.rvt"
[ -s "$f" ] || "$GEN" --events "$N" --instances "${INSTANCES:-10000}" --threads "${THREADS:-8}" --form compact -o "$f" 2>/dev/null
cat "$f" >/dev/null
printf 'trace: %s events, %.1f MB\n' "$N" "$(awk -v b="$(stat -c %s "$f")" 'BEGIN{print b/1e6}')"
printf '%-34s %10s %8s %8s %10s\n' export out_MB wall_s cpu_s peakRSS_MB
run() { # name, output file, revy export arguments...
  local name=$1 out=$2; shift 2
  [[ -z "${ONLY:-}" || "$name" == *"$ONLY"* ]] || return 0
  local log="$DIR/export-time.log"
  /usr/bin/time -v "$REVY" export "$f" "$@" 2>"$log" >/dev/null
  grep '^revy: .*kept\|^revy: .*all ' "$log" | sed 's/^/    /' || true
  local secs cpu rss
  secs=$(awk -F': ' '/Elapsed \(wall clock\)/{n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}' "$log")
  cpu=$(awk -F': ' '/User time|System time/{s+=$2} END{print s}' "$log")
  rss=$(awk -F': ' '/Maximum resident set size/{print $2}' "$log")
  awk -v n="$name" -v b="$(stat -c %s "$out")" -v s="$secs" -v c="$cpu" -v r="$rss" 'BEGIN{
    printf "%-34s %10.1f %8.2f %8.2f %10.1f\n", n, b/1e6, s, c, r/1024 }'
  rm -f "$out"
}
run "perfetto (protobuf)" "$DIR/t.pftrace" --perfetto "$DIR/t.pftrace"
run "chrome json" "$DIR/t.json" --chrome "$DIR/t.json"
run "chrome json --top ${TOP:-100000}" "$DIR/t.json" --chrome "$DIR/t.json" --top "${TOP:-100000}"
run "chrome json --min-time ${MIN_TIME:-200}" "$DIR/t.json" --chrome "$DIR/t.json" --min-time "${MIN_TIME:-200}"
run "folded (Class.method)" "$DIR/t.txt" --folded "$DIR/t.txt"
run "folded --by-instance" "$DIR/t.txt" --folded "$DIR/t.txt" --by-instance
run "dot" "$DIR/t.dot" --dot "$DIR/t.dot"
run "dot --top 500" "$DIR/t.dot" --dot "$DIR/t.dot" --top 500
[ -n "${KEEP:-}" ] || rm -f "$f"
