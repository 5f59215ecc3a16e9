#!/usr/bin/env bash
# Analysis throughput and peak memory on synthetic traces (issue 5).
# Usage: tests/bench/analysis.sh [EVENTS...]   (default: 10000000 100000000)
# Env: FORMS="compact text", THREADS=8, INSTANCES="10000" (a list is an axis, e.g.
#   INSTANCES="10000 100000 1000000" FORMS=compact tests/bench/analysis.sh 10000000),
#   RUNS=1 (more: that many rounds, the instance counts interleaved in each, and the median
#   and minimum CPU time reported — on a shared machine noise only adds time, and one run's
#   figure can be off by 10 %), BENCH_DIR=/tmp/revy-bench, KEEP=1 keeps the traces,
#   REPORT=1 also runs `revy report` once per trace (its time and peak RSS on a line of
#   its own: the report walks the trace twice and holds the whole analysis meanwhile).
# Prints one line per (form, size, instances): events/s, MB/s and peak RSS (from
# /usr/bin/time -v), and the peak RSS per instance; with RUNS > 1 also the CPU minimum and
# each instance count's events per CPU second against the first's (by median and minimum).
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZES=("${@:-10000000 100000000}")
read -r -a SIZES <<<"${SIZES[*]}"
FORMS=${FORMS:-"compact text"}
DIR=${BENCH_DIR:-/tmp/revy-bench}
RUNS=${RUNS:-1}
mkdir -p "$DIR"
cargo build --release --quiet --bin revy --example gen_trace
REVY=target/release/revy
GEN=target/release/examples/gen_trace
# Rates are given per wall-clock second and per CPU second (user+sys): on a shared machine
# the CPU figure is the single-core throughput.
read -r -a INSTS <<<"${INSTANCES:-10000}"

# One timed run of `revy analyze $1`; prints "wall_s cpu_s peak_kB".
timed() {
  local log="$DIR/time.log"
  /usr/bin/time -v "$REVY" analyze "$1" >/dev/null 2>"$log"
  awk -F': ' '
    /Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i] }
    /User time|System time/ { c += $2 }
    /Maximum resident set size/ { r = $2 }
    END { print s, c, r }' "$log"
}

# Median and minimum of the numbers on stdin.
med_min() {
  sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m, v[1] }'
}

printf '%-8s %11s %9s %9s %8s %8s %9s %9s %9s %9s %10s %8s' form events instances MB wall_s cpu_s Mev/s_wall MB/s_wall Mev/s_cpu MB/s_cpu peakRSS_MB B/inst
[ "$RUNS" -gt 1 ] && printf ' %8s %9s %9s' cpu_min rate_med rate_min
printf '\n'
for form in $FORMS; do
  ext=rvt; [ "$form" = text ] && ext=dtf
  for n in "${SIZES[@]}"; do
    for inst in "${INSTS[@]}"; do
      f="$DIR/bench-$n-$inst.$ext"
      [ -s "$f" ] || "$GEN" --events "$n" --instances "$inst" --threads "${THREADS:-8}" --form "$form" -o "$f" 2>/dev/null
      # Read once so the page cache holds the file (we measure parsing, not the disk).
      cat "$f" >/dev/null
      : >"$DIR/runs-$inst"
    done
    # Interleaved: each round runs every instance count once, so a busy spell of the
    # machine falls on all of them alike.
    for _ in $(seq "$RUNS"); do
      for inst in "${INSTS[@]}"; do
        timed "$DIR/bench-$n-$inst.$ext" >>"$DIR/runs-$inst"
      done
    done
    first=""
    for inst in "${INSTS[@]}"; do
      f="$DIR/bench-$n-$inst.$ext"
      bytes=$(stat -c %s "$f")
      read -r secs _ < <(cut -d' ' -f1 "$DIR/runs-$inst" | med_min)
      read -r cpu cpu_min < <(cut -d' ' -f2 "$DIR/runs-$inst" | med_min)
      rss=$(cut -d' ' -f3 "$DIR/runs-$inst" | sort -g | tail -1)
      [ -n "$first" ] || first="$cpu $cpu_min"
      awk -v f="$form" -v n="$n" -v i="$inst" -v b="$bytes" -v s="$secs" -v c="$cpu" -v r="$rss" 'BEGIN{
        printf "%-8s %11d %9d %9.1f %8.2f %8.2f %9.2f %9.1f %9.2f %9.1f %10.1f %8.0f", f, n, i, b/1e6, s, c, n/s/1e6, b/s/1e6, n/c/1e6, b/c/1e6, r/1024, r*1024/i }'
      if [ "$RUNS" -gt 1 ]; then
        # Events per CPU second against the first instance count's (same event count).
        awk -v c="$cpu" -v m="$cpu_min" -v first="$first" 'BEGIN{
          split(first, p, " "); printf " %8.3f %8.1f%% %8.1f%%", m, 100*p[1]/c, 100*p[2]/m }'
      fi
      printf '\n'
      if [ -n "${REPORT:-}" ]; then
        /usr/bin/time -v "$REVY" report -o "$DIR/report.html" "$f" >/dev/null 2>"$DIR/time.log"
        awk -F': ' -v i="$inst" '
          /User time|System time/ { c += $2 }
          /Maximum resident set size/ { r = $2 }
          END { printf "report   %9d instances: cpu_s %.2f peakRSS_MB %.1f B/inst %.0f\n", i, c, r/1024, r*1024/i }' "$DIR/time.log"
        rm -f "$DIR/report.html"
      fi
      [ -n "${KEEP:-}" ] || rm -f "$f"
      rm -f "$DIR/runs-$inst"
    done
  done
done
