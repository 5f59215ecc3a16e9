#!/usr/bin/env bash
# Analysis throughput and peak memory on synthetic traces (issue 5).
# Usage: tests/bench/analysis.sh [EVENTS...]   (default: 10000000 100000000)
# Env: FORMS="compact text", THREADS=8, INSTANCES="10000" (a list is an axis, e.g.
#   INSTANCES="10000 100000 1000000" FORMS=compact tests/bench/analysis.sh 10000000),
#   BENCH_DIR=/tmp/revy-bench
# Prints one line per (form, size, instances): events/s, MB/s and peak RSS (from
# /usr/bin/time -v), and the peak RSS per instance.
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZES=("${@:-10000000 100000000}")
read -r -a SIZES <<<"${SIZES[*]}"
FORMS=${FORMS:-"compact text"}
DIR=${BENCH_DIR:-/tmp/revy-bench}
mkdir -p "$DIR"
cargo build --release --quiet --bin revy --example gen_trace
REVY=target/release/revy
GEN=target/release/examples/gen_trace
# Rates are given per wall-clock second and per CPU second (user+sys): on a shared machine
# the CPU figure is the single-core throughput.
read -r -a INSTS <<<"${INSTANCES:-10000}"
printf '%-8s %11s %9s %9s %8s %8s %9s %9s %9s %9s %10s %8s\n' form events instances MB wall_s cpu_s Mev/s_wall MB/s_wall Mev/s_cpu MB/s_cpu peakRSS_MB B/inst
for form in $FORMS; do
  for n in "${SIZES[@]}"; do
  for inst in "${INSTS[@]}"; do
    ext=rvt; [ "$form" = text ] && ext=dtf
    f="$DIR/bench-$n-$inst.$ext"
    [ -s "$f" ] || "$GEN" --events "$n" --instances "$inst" --threads "${THREADS:-8}" --form "$form" -o "$f" 2>/dev/null
    bytes=$(stat -c %s "$f")
    # Read once so the page cache holds the file (we measure parsing, not the disk).
    cat "$f" >/dev/null
    log="$DIR/time-$form-$n.log"
    /usr/bin/time -v "$REVY" analyze "$f" >/dev/null 2>"$log"
    secs=$(awk -F': ' '/Elapsed \(wall clock\)/{n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}' "$log")
    cpu=$(awk -F': ' '/User time|System time/{s+=$2} END{print s}' "$log")
    rss=$(awk -F': ' '/Maximum resident set size/{print $2}' "$log")
    awk -v f="$form" -v n="$n" -v i="$inst" -v b="$bytes" -v s="$secs" -v c="$cpu" -v r="$rss" 'BEGIN{
      printf "%-8s %11d %9d %9.1f %8.2f %8.2f %9.2f %9.1f %9.2f %9.1f %10.1f %8.0f\n", f, n, i, b/1e6, s, c, n/s/1e6, b/s/1e6, n/c/1e6, b/c/1e6, r/1024, r*1024/i }'
    [ -n "${KEEP:-}" ] || rm -f "$f"
  done
  done
done
