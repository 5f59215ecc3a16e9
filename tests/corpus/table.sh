#!/bin/bash
# One row of docs/results.md's "Whole runs" table for one corpus project and mode: runs the project's
# suite original vs annotated at default settings (1 GiB max_size, throttling on) through
# java.sh / cpp.sh (which also check outcomes, traces and restore), analyses the traces with
# `revy analyze --format json`, and prints the row: test time (wall and CPU) vs original,
# events recorded, calls (recorded %), trace size, truncated?, methods throttled.
# With EXACT=1 it then runs the annotated suite again with throttling off and a max_size the
# run never reaches (every call an event) and checks that every method's call count of the
# default run equals the exact one (tests/corpus/compare_calls.py): "whole run: N equal / M".
#
# Usage: tests/corpus/table.sh PROJECT MODE
#   PROJECT: a project of java.sh or cpp.sh;  MODE: better | faster
# Env: SCRATCH (default /tmp/revy-table), REVY, CORPUS as for java.sh / cpp.sh;
#      MAX_SIZE (default 1GiB), EXACT=1, EXACT_SIZE (default 64GiB), CONTROL=1 (with EXACT=1: a
#      second exact run; methods whose counts differ between the two exact runs are the suite's
#      own variation, e.g. random test data, and are set apart by compare_calls.py),
#      KEEP=1 keeps the traces (by default each is deleted once analysed: they reach GiBs),
#      REUSE=1 takes the default run from an earlier table.sh of the same SCRATCH, PROJECT and
#      MODE (e.g. to add EXACT=1 to a row without running the default suite again),
#      GCOV=1 (C++ only): one more run at default settings, built with gcov's counters too,
#      whose every method's call count (events and aggregates) is compared with gcov's count
#      of the same run (tests/corpus/gcov_calls.py): no run-to-run variation, no exact trace.
# Exit 0 when the runs matched the original and (with EXACT=1) every count is equal.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
P=${1:?usage: table.sh PROJECT better|faster}
MODE=${2:?usage: table.sh PROJECT better|faster}
REVY=${REVY:-$repo/target/release/revy}
# The scripts change folder: a relative REVY= (or a name on PATH) is made absolute first.
REVY=$(realpath -m -- "$(command -v -- "$REVY" || echo "$REVY")")
export REVY
export SCRATCH=${SCRATCH:-/tmp/revy-table}
export REVY_SCRATCH=$SCRATCH
MAX_SIZE=${MAX_SIZE:-1GiB}
case $P in
  jsoup | commons-codec | commons-collections4 | junit4) lang=java ;;
  *) lang=cpp ;;
esac
out=$SCRATCH/$P/table-$MODE
mkdir -p "$out"

# slim: the "trace" and "methods" members of `revy analyze --format json` (pretty-printed,
# two-space indent), as one JSON object, read as a stream.
slim() {
  awk 'BEGIN { print "{" }
    /^  "[a-z_]+": / || /^}$/ {
      if (have) { sub(/,$/, "", last); print last; have = 0 }
      keep = ($1 == "\"trace\":" || $1 == "\"methods\":")
      if (keep && n++) print ","
    }
    keep { if (have) print last; last = $0; have = 1 }
    END { if (have) { sub(/,$/, "", last); print last }; print "}" }'
}

# run SIZE EXTRA TAG: the suite annotated; leaves $out/TAG.line (the script's summary),
# TAG.json (the analysis), TAG.{secs,cpu,osecs,ocpu,check} and returns the script's status.
run() {
  local size=$1 extra=$2 tag=$3 status traces
  if [ $lang = java ]; then
    MAX_SIZE=$size TRACE_EXTRA=$extra nice -n 5 "$here/java.sh" "$P" "$MODE" > "$out/$tag.line" 2> "$out/$tag.log"
    status=$?
    local b=$SCRATCH/$P
    cat "$b/$MODE/out/test.secs" > "$out/$tag.secs"; cat "$b/$MODE/out/test.cpu" > "$out/$tag.cpu"
    cat "$b/orig/test.secs" > "$out/$tag.osecs"; cat "$b/orig/test.cpu" > "$out/$tag.ocpu"
    traces=$(ls "$b/$MODE"/trace.rvt "$b/$MODE"/trace-*.rvt 2> /dev/null)
    cp "$b/$MODE/trace.check" "$out/$tag.check" 2> /dev/null || : > "$out/$tag.check"
  else
    COVERAGE=${COVERAGE_RUN:-0} REVY_MAX_SIZE=$size TRACE_EXTRA=$extra nice -n 5 "$here/cpp.sh" "$P" "$MODE" > "$out/$tag.line" 2> "$out/$tag.log"
    status=$?
    local b=$SCRATCH/$P
    sed -nE 's/.*, tests ([0-9.]+)s vs.*/\1/p' "$out/$tag.line" > "$out/$tag.secs"
    cat "$b/$MODE.test.cpu" > "$out/$tag.cpu"; cat "$b/orig.test.s" > "$out/$tag.osecs"
    cat "$b/orig.test.cpu" > "$out/$tag.ocpu"
    traces=$(find "$b/$MODE/.revy/traces" -name '*.rvt' 2> /dev/null | sort)
    cp "$b/$MODE.traces.txt" "$out/$tag.check" 2> /dev/null || : > "$out/$tag.check"
  fi
  cat "$out/$tag.line" >&2
  if [ -z "$traces" ]; then
    echo '{}' > "$out/$tag.json"
    return 1
  fi
  du -cb $traces | tail -1 | cut -f1 > "$out/$tag.bytes"
  # Only the "trace" and "methods" members are kept: the whole JSON (every instance) of a
  # 300 M-event trace is over 10 GB.
  # shellcheck disable=SC2086
  nice -n 5 /usr/bin/time -f "%e s, %M KB" -o "$out/$tag.analyze.time" \
    "$REVY" analyze --format json $traces 2> "$out/$tag.analyze.err" | slim > "$out/$tag.json"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  [ "${KEEP:-0}" = 1 ] || rm -f $traces
  return $status
}

# row TAG [EXACT-CELL]: the original's row and the mode's row, from the files of one tag.
row() {
  local tag=$1
  python3 - "$out" "$tag" "$P" "$MODE" "${2:-not run (EXACT=1)}" <<'EOF'
import json, sys
out, tag, p, mode, exact = sys.argv[1:]
r = lambda n: open('%s/%s.%s' % (out, tag, n)).read().strip()
a = json.load(open('%s/%s.json' % (out, tag)))
cov = a.get('trace', {}).get('coverage', {})
calls = sum(m['calls'] for m in a.get('methods', []))
rec = cov.get('recorded_calls', 0)
ev = tr = 0
thr = 0
for l in open('%s/%s.check' % (out, tag)):
    for kv in l.split():
        k, eq, v = kv.partition('=')
        if not eq: continue
        if k == 'events': ev += int(v)
        if k == 'truncated' and v == 'yes': tr += 1
        if k == 'throttled': thr += int(v)
secs, cpu, osecs, ocpu = (float(r(n)) for n in ('secs', 'cpu', 'osecs', 'ocpu'))
# Times are read to 0.1 s: a suite under that is shown as such, without a ratio.
x = lambda a, b: ' (%.1f×)' % (a / b) if b > 0 else ''
t = lambda v: '%.1f s' % v if v > 0 else '< 0.1 s'
n = lambda v: '%.1f M' % (v / 1e6) if v >= 1e5 else '{:,}'.format(v)
mb = int(r('bytes')) / 1048576
print('| %s | original | %s CPU, %s wall | — | — | — | — | — |' % (p, t(ocpu), t(osecs)))
print('| %s | %s | %s CPU%s, %s wall%s | %s | %s (%.0f %%) | %s MB '
      '| %s / %d methods | %s |' % (
          p, mode, t(cpu), x(cpu, ocpu), t(secs), x(secs, osecs), n(ev), n(calls),
          100.0 * rec / calls if calls else 0, '%.0f' % mb if mb >= 1 else '%.1f' % mb,
          'yes' if tr else 'no', thr, exact))
EOF
}

ok=0
if [ "${REUSE:-0}" = 1 ] && [ -s "$out/default.json" ] && [ -s "$out/default.status" ]; then
  echo "$P $MODE: reusing the default run in $out (REUSE=1)" >&2
  [ "$(cat "$out/default.status")" = 0 ] || ok=1
else
  run "$MAX_SIZE" "" default
  st=$?
  echo $st > "$out/default.status"
  [ $st = 0 ] || ok=1
fi
if ! grep -q "^$P $MODE: tests" "$out/default.line"; then
  echo "$P $MODE: the suite did not run:" >&2
  tail -5 "$out/default.log" >&2
  exit 1
fi
cell=
if [ "${EXACT:-0}" = 1 ]; then
  run "${EXACT_SIZE:-64GiB}" "throttle = false" exact || ok=1
  echo "exact run: $(cat "$out/exact.line") (analyze $(cat "$out/exact.analyze.time"))"
  control=
  if [ "${CONTROL:-0}" = 1 ]; then
    run "${EXACT_SIZE:-64GiB}" "throttle = false" control || ok=1
    control=$out/control.json
  fi
  if python3 "$here/compare_calls.py" "$out/default.json" "$out/exact.json" $control > "$out/compare.txt"; then
    cell="yes: $(sed -n 's/^whole run: //p' "$out/compare.txt")"
  else
    ok=1
    cell="NO: $(sed -n 's/^whole run: //p' "$out/compare.txt")"
  fi
  cat "$out/compare.txt"
fi
if [ "${GCOV:-0}" = 1 ]; then
  [ $lang = cpp ] || { echo "GCOV=1 is for the C++ projects" >&2; exit 2; }
  COVERAGE_RUN=1 run "$MAX_SIZE" "" counted || ok=1
  echo "counted run: $(cat "$out/counted.line")"
  w=$SCRATCH/$P/$MODE
  verdict=yes
  python3 "$here/gcov_calls.py" "$w" "$w/.revy/saf.toml" "$out/counted.json" > "$out/gcov.txt" || { ok=1; verdict=NO; }
  cat "$out/gcov.txt"
  cell="${cell:+$cell; }$verdict: $(sed -n 's/^same run: //p' "$out/gcov.txt") against gcov in the same run"
fi
row default "$cell" | tee "$out/row.txt"
exit $ok
