#!/bin/bash
# Acceptance on a real C++ project of the corpus (../shared/corpus/recipes, section 7-12):
# annotate every class and member function of the library's main sources in MODE, build with
# the recipe's UNCHANGED build commands, run its own tests, compare the per-test outcomes with
# the original's, check the traces read back, restore, and check the tree is byte-identical.
#
# Usage: tests/corpus/cpp.sh PROJECT MODE
#   PROJECT: tinyxml2 | jsoncpp | yaml-cpp | snappy | leveldb | cppunit | pugixml | many (200
#   generated small files, tests/bench/many_files.py);  MODE: better | faster
# Env: REVY (default target/release/revy), CORPUS (default /tmp/corpus, fetched by
#      tests/corpus/fetch.sh), REVY_SCRATCH (default /tmp/revy-corpus), JOBS (default 2),
#      REVY_MAX_SIZE (default 512MiB), TRACE_EXTRA (more [trace] lines, e.g. "throttle = false"),
#      LEVELDB_CTEST (more ctest arguments for leveldb, e.g. "-E ^(db_test|issue178_test)$" to
#      leave out its longest tests; use a scratch folder of its own, the original is cached),
#      COVERAGE=1 (the annotated build also with `--coverage -fprofile-update=atomic`: gcov's
#      call counts of the same run, for tests/corpus/gcov_calls.py; the original is not).
# The original is built and tested once per scratch folder (cached: delete $REVY_SCRATCH/P/orig
# to redo). Prints one summary line; exit 0 only when everything matched.
set -uo pipefail
P=${1:?usage: cpp.sh PROJECT better|faster}
MODE=${2:?usage: cpp.sh PROJECT better|faster}
case $MODE in better | faster) ;; *) echo "bad mode $MODE" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
REVY=${REVY:-$repo/target/release/revy}
# The scripts change folder: a relative REVY= (or a name on PATH) is made absolute first.
REVY=$(realpath -m -- "$(command -v -- "$REVY" || echo "$REVY")")
C=${CORPUS:-/tmp/corpus}
SCR=${REVY_SCRATCH:-/tmp/revy-corpus}/$P
JOBS=${JOBS:-2}
OUTCOMES=$C/outcomes.py
if [ ! -f "$OUTCOMES" ]; then
  . "$here/shared.sh"
  OUTCOMES=$(find_shared)/corpus/outcomes.py || exit 2
fi
[ -x "$REVY" ] || { echo "no revy at $REVY (cargo build --release)" >&2; exit 2; }

. "$here/cpp_projects.sh"
project "$P" || exit 2


# Runs the tests; writes build/outcomes.txt (one `name<TAB>PASS|FAIL|SKIP` line per test, in a
# stable order). Timing lines of the output are not compared.
run_tests() {
  case $P in
  tinyxml2) ./build/xmltest > build/test.log 2>&1; echo "exit=$?" > build/exit.txt
    grep -E '^\[(pass|fail)\]' build/test.log |
      sed -E 's/^\[pass\] (.*)$/\1\tPASS/; s/^\[fail\] (.*)$/\1\tFAIL/' > build/outcomes.txt ;;
  jsoncpp) ./build/jsoncpp_test > build/unit.log 2>&1; echo "unit exit=$?" > build/exit.txt
    (cd test && python3 runjsontests.py ../build/jsontestrunner data > ../build/data.log 2>&1; echo "data exit=$?" >> ../build/exit.txt)
    (cd test && python3 runjsontests.py --with-json-checker ../build/jsontestrunner data > ../build/checker.log 2>&1; echo "checker exit=$?" >> ../build/exit.txt)
    { grep -E '^Testing ' build/unit.log | sed -E 's/^Testing (.*): (OK|FAILED)$/\1\t\2/; s/\tOK$/\tPASS/; s/\tFAILED$/\tFAIL/'
      grep -E '^(All|Test results|[0-9]+ of|Failed)' build/data.log | sed 's/^/data::/; s/$/\tPASS/'
      grep -E '^(All|Test results|[0-9]+ of|Failed)' build/checker.log | sed 's/^/checker::/; s/$/\tPASS/'
    } > build/outcomes.txt ;;
  yaml-cpp) mkdir -p build/reports; rm -f build/reports/*.xml
    ./build/yaml-cpp-tests --gtest_output=xml:build/reports/yaml-cpp-tests.xml > build/test.log 2>&1
    echo "exit=$?" > build/exit.txt
    python3 "$OUTCOMES" build/reports > build/outcomes.txt 2>/dev/null ;;
  snappy) mkdir -p build/reports; rm -f build/reports/*.xml
    build/snappy_unittest --gtest_output=xml:build/reports/snappy_unittest.xml > build/test.log 2>&1
    echo "exit=$?" > build/exit.txt
    python3 "$OUTCOMES" build/reports > build/outcomes.txt 2>/dev/null ;;
  leveldb) mkdir -p build/reports; rm -f build/reports/*.xml
    read -r -a more <<< "${LEVELDB_CTEST:-}"
    # Its tests' databases go to $TEST_TMPDIR (default /tmp/leveldbtest-UID, shared by every
    # run on the machine): each run gets a folder of its own, so two runs can coexist.
    rm -rf build/testtmp && mkdir -p build/testtmp
    (cd build && TEST_TMPDIR=$PWD/testtmp GTEST_OUTPUT=xml:$PWD/reports/ ctest -j"$JOBS" "${more[@]}" --output-junit ctest.xml > ctest.log 2>&1; echo "exit=$?" > exit.txt)
    python3 "$OUTCOMES" build/reports > build/outcomes.txt 2>/dev/null ;;
  cppunit) ./build/cppunittestmain > build/test.log 2>&1; echo "exit=$?" > build/exit.txt
    grep -E ' : (OK|assertion|error)' build/test.log | sed -E 's/^Running //' |
      sed -E 's/^(.*) : OK$/\1\tPASS/; s/^(.*) : [a-z]+.*$/\1\tFAIL/' | sort > build/outcomes.txt ;;
  pugixml) # Its runner prints failures only: the tests are the compiled test_runner_NAME classes
    # (test_runner_helper_NAME are TEST_FIXTURE's wrappers; a test that hits an allocation
    # failure runs again as "NAME (throw)": either failing fails NAME), plus the total line.
    ./build/pugixml-check > build/test.log 2>&1; echo "exit=$?" > build/exit.txt
    { nm -C build/pugixml-check | grep -oE 'test_runner_[A-Za-z0-9_]+::run\(\)' |
        sed -E 's/^test_runner_(.*)::run\(\)$/\1/' | grep -v '^helper_' | sort -u | while read -r t; do
          if grep -qE "^Test $t( \(throw\))? failed" build/test.log; then printf '%s\tFAIL\n' "$t"
          else printf '%s\tPASS\n' "$t"; fi
        done
      grep -E '^(Success|FAILURE):' build/test.log | sed 's/^/total::/; s/$/\tPASS/'
    } > build/outcomes.txt ;;
  many) ./build/many > build/test.log 2>&1; echo "exit=$?" > build/exit.txt
    sed -E 's/^(mod_[0-9]+)\t(.*)$/\1=\2\tPASS/' build/test.log > build/outcomes.txt ;;
  esac
}

summary() {  # outcomes file -> "N tests (P pass, F fail, S skip)"
  awk -F'\t' '{ n++; if ($2 == "PASS") p++; else if ($2 == "FAIL") f++; else if ($2 == "SKIP") s++ }
    END { printf "%d (%d pass, %d fail, %d skip)", n, p, f, s }' "$1"
}

# Differences between the pristine tree and DIR, ignoring files only DIR has (build output).
noise() { (cd "$1" && diff -rq "$src" . 2>&1 | grep -v '^Only in \.' | sed "s#$src#SRC#g" | sort); }

# ---- the original, once ---------------------------------------------------------------------
mkdir -p "$SCR"
orig=$SCR/orig
if [ ! -f "$SCR/orig.done" ] || [ ! -f "$SCR/orig.test.cpu" ]; then
  rm -rf "$orig" && cp -a "$src" "$orig"
  t0=$(now); (cd "$orig" && build) > "$SCR/orig.build.log" 2>&1 || { echo "$P: original build failed (see $SCR/orig.build.log)" >&2; exit 1; }
  t1=$(now); cpu_mark "$SCR/cpu.0"; (cd "$orig" && run_tests); t2=$(now); cpu_mark "$SCR/cpu.1"
  secs "$t0" "$t1" > "$SCR/orig.build.s"; secs "$t1" "$t2" > "$SCR/orig.test.s"
  cpu_secs "$SCR/cpu.0" "$SCR/cpu.1" > "$SCR/orig.test.cpu"
  cp "$orig/build/outcomes.txt" "$SCR/orig.outcomes"; cp "$orig/build/exit.txt" "$SCR/orig.exit"
  noise "$orig" > "$SCR/orig.noise"
  touch "$SCR/orig.done"
fi

# ---- annotated ------------------------------------------------------------------------------
work=$SCR/$MODE
rm -rf "$work" && cp -a "$src" "$work"
log=$SCR/$MODE.log
: > "$log"
fail() { echo "$P $MODE: FAILED: $* (log: $log)"; exit 1; }
manifest "$work" "$MODE"
cat >> "$work/revy.toml" <<EOF

[trace]
path = ".revy/traces"
max_size = "${REVY_MAX_SIZE:-512MiB}"
${TRACE_EXTRA:-}
EOF
(cd "$work" && "$REVY" parse) >> "$log" 2>&1
[ $? -le 1 ] || fail "revy parse"
(cd "$work" && "$REVY" annotate --"$MODE") >> "$log" 2>&1
[ $? -le 1 ] || fail "revy annotate"
[ "${COVERAGE:-0}" = 1 ] && COV="--coverage -fprofile-update=atomic"
t0=$(now); (cd "$work" && build) >> "$log" 2>&1 || fail "annotated build (compiler errors in $log$( [ -f "$work/build.log" ] && echo " and $work/build.log"))"
t1=$(now); cpu_mark "$SCR/cpu.0"; (cd "$work" && run_tests); t2=$(now); cpu_mark "$SCR/cpu.1"
bs=$(secs "$t0" "$t1"); ts=$(secs "$t1" "$t2")
cpu_secs "$SCR/cpu.0" "$SCR/cpu.1" > "$SCR/$MODE.test.cpu"
status=0
if ! diff "$SCR/orig.outcomes" "$work/build/outcomes.txt" > "$SCR/$MODE.outcomes.diff"; then
  status=1; echo "outcomes differ: $SCR/$MODE.outcomes.diff" >> "$log"
fi
if ! diff "$SCR/orig.exit" "$work/build/exit.txt" >> "$log"; then status=1; fi
[ -s "$work/build/outcomes.txt" ] || { status=1; echo "no test outcomes" >> "$log"; }

# Traces: every file read back completely.
traces=$(find "$work/.revy/traces" -name '*.rvt' 2>/dev/null | sort)
ntr=$(printf '%s' "$traces" | grep -c . || true)
bytes=0
if [ "$ntr" -eq 0 ]; then
  status=1; echo "no trace written" >> "$log"
else
  bytes=$(du -cb $traces | tail -1 | cut -f1)
  if ! python3 "$here/rvt_check.py" $traces > "$SCR/$MODE.traces.txt" 2>&1; then
    status=1; echo "unreadable traces: $SCR/$MODE.traces.txt" >> "$log"
  fi
fi

# Restore: the tree as the original's after the same build and tests.
(cd "$work" && "$REVY" restore) >> "$log" 2>&1 || { status=1; echo "restore failed" >> "$log"; }
[ ! -e "$work/.revy-runtime" ] || { status=1; echo ".revy-runtime left behind" >> "$log"; }
noise "$work" > "$SCR/$MODE.noise"
if ! diff "$SCR/orig.noise" "$SCR/$MODE.noise" > "$SCR/$MODE.restore.diff"; then
  status=1; echo "tree differs after restore: $SCR/$MODE.restore.diff" >> "$log"
fi

mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
# Events, truncation, aggregated calls and throttled methods over the process traces.
counts=$(awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "=");
    if (kv[1] == "events") e += kv[2]; if (kv[1] == "aggregated") a += kv[2];
    if (kv[1] == "throttled") th += kv[2]; if ($i == "truncated=yes") tr++ } }
  END { printf "%.0f events, %d truncated, %.0f calls aggregated, %d method verdicts throttled", e, tr, a, th }' \
  "$SCR/$MODE.traces.txt" 2>/dev/null)
verdict=$([ $status -eq 0 ] && echo ok || echo MISMATCH)
echo "$P $MODE: tests $(summary "$work/build/outcomes.txt") vs original $(summary "$SCR/orig.outcomes"), build ${bs}s vs $(cat "$SCR/orig.build.s")s, tests ${ts}s vs $(cat "$SCR/orig.test.s")s (cpu $(cat "$SCR/$MODE.test.cpu")s vs $(cat "$SCR/orig.test.cpu")s), trace ${mb} MB in $ntr file(s) (${counts:-?}), restore $([ -s "$SCR/$MODE.restore.diff" ] && echo DIFFERS || echo identical): $verdict"
exit $status
