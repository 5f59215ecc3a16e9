#!/bin/bash
# Annotates all main sources of one real Java project from the corpus (../shared/corpus/),
# builds it and runs its own test suite exactly as the corpus recipe does, and checks that
# the per-test outcomes equal the original's, that a readable trace was written, and that
# `revy restore` gives the tree back byte for byte.
#
# Usage: tests/corpus/java.sh PROJECT MODE
#   PROJECT: jsoup | commons-codec | commons-collections4 | junit4 | commons-lang3 | jackson-core
#   MODE:    better | faster
# Environment:
#   REVY      the revy binary (default: target/release/revy of this repository)
#   CORPUS    where tests/corpus/fetch.sh extracted the sources (default /tmp/corpus)
#   SCRATCH   work folder (default /tmp/revy-corpus); the original's outcomes and times are
#             cached in $SCRATCH/PROJECT/orig and reused (delete it to measure again)
#   MAX_SIZE  the trace size limit written to revy.toml (default 2GiB)
#   TRACE_EXTRA  more lines for revy.toml's [trace] table (e.g. "throttle = false")
#   STRICT_TIMING=1  also fail when a wall-clock test (below) changes outcome
#   RUNTIME_JAVA=DIR  copies DIR/*.java over the runtime files annotate added (measures a
#             runtime edit with a revy built before it)
# Prints one summary line; exits non-zero on any mismatch.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
project=${1:?usage: java.sh PROJECT better|faster}
mode=${2:?usage: java.sh PROJECT better|faster}
case $mode in better | faster) ;; *) echo "bad mode: $mode" >&2; exit 2 ;; esac
REVY=${REVY:-$repo/target/release/revy}
# The scripts change folder: a relative REVY= (or a name on PATH) is made absolute first.
REVY=$(realpath -m -- "$(command -v -- "$REVY" || echo "$REVY")")
C=${CORPUS:-/tmp/corpus}
SCRATCH=${SCRATCH:-/tmp/revy-corpus}
MAX_SIZE=${MAX_SIZE:-2GiB}
J=/usr/share/java
OUTCOMES=$C/outcomes.py
if [ ! -f "$OUTCOMES" ]; then
  . "$here/shared.sh"
  OUTCOMES=$(find_shared)/corpus/outcomes.py || exit 2
fi
[ -x "$REVY" ] || { echo "no revy binary at $REVY (cargo build --release)" >&2; exit 2; }

# Per project: the extracted folder, then the recipe's class paths and flags.
JAVAC_FLAGS=(-nowarn -encoding UTF-8)
MAIN_RES=0
RUNNER=console
JVM_FLAGS=()
EXTRA=()
case $project in
  jsoup)
    dir=jsoup-1.15.3
    CP=$J/jsr305.jar
    TCP=$J/gson.jar:$J/jetty9-server.jar:$J/jetty9-servlet.jar:$J/jetty9-util.jar:$J/jetty9-http.jar:$J/jetty9-io.jar:$J/jetty9-security.jar:$J/servlet-api.jar
    MAIN_CP=$CP
    TEST_JAVAC_CP=$CP:$TCP:$J/junit-platform-console-standalone.jar
    RUN_CP=$CP:$TCP
    ;;
  commons-codec)
    dir=libcommons-codec-java-1.15
    MAIN_RES=1
    MAIN_CP=
    TEST_JAVAC_CP=$J/junit4.jar:$J/hamcrest.jar:$J/commons-lang3.jar
    RUN_CP=$J/hamcrest.jar:$J/commons-lang3.jar
    JVM_FLAGS=(-Xmx1g)
    EXTRA=(--exclude-classname '.*PerformanceTest')
    ;;
  commons-collections4)
    dir=libcommons-collections4-java-4.2
    JAVAC_FLAGS=(--release 8 -nowarn -encoding UTF-8)
    MAIN_CP=
    TCP=$J/junit4.jar:$J/hamcrest.jar:$J/easymock.jar:$J/objenesis.jar:$J/commons-lang3.jar
    TEST_JAVAC_CP=$TCP
    RUN_CP=$TCP
    EXTRA=(--include-classname '.*Test' --exclude-classname '.*\$.*|.*\.TestUtils|.*\.Abstract.*|.*\.BulkTest')
    ;;
  junit4)
    dir=junit4-4.13.2
    MAIN_RES=1
    MAIN_CP=$J/hamcrest.jar
    TEST_JAVAC_CP=$J/hamcrest.jar
    RUN_CP=$J/hamcrest.jar
    RUNNER=junitcore
    ;;
  commons-lang3)
    # Beyond the recipes: fetch.sh drops the tests needing JUnit Pioneer or JMH.
    dir=libcommons-lang3-java-3.12.0
    JAVAC_FLAGS=(--release 8 -nowarn -encoding UTF-8)
    MAIN_CP=
    TEST_JAVAC_CP=$J/jsr305.jar:$J/easymock.jar:$J/hamcrest.jar:$J/junit-platform-console-standalone.jar
    RUN_CP=$J/jsr305.jar:$J/easymock.jar:$J/hamcrest.jar
    ;;
  jackson-core)
    # Beyond the recipes: fetch.sh generates PackageVersion.java, drops perf/ and failing/.
    dir=jackson-core-2.14.1
    MAIN_RES=1
    MAIN_CP=
    TEST_JAVAC_CP=$J/junit4.jar:$J/hamcrest.jar:$J/junit-platform-console-standalone.jar
    RUN_CP=$J/hamcrest.jar
    ;;
  *) echo "unknown project: $project" >&2; exit 2 ;;
esac
src=$C/w/$dir
[ -d "$src/src/main/java" ] || { echo "no sources at $src (run tests/corpus/fetch.sh)" >&2; exit 2; }

base=$SCRATCH/$project
mkdir -p "$base"
log() { echo "[$project $mode] $*" >&2; }
now() { date +%s.%N; }
secs() { python3 -c "print('%.1f' % ($2 - $1))"; }

# For junit4: a listener that prints per-test outcomes in outcomes.py's format while the
# recipe's JUnitCore text output still goes to the log. Compiled outside the tree.
harness() {
  local h=$base/harness
  [ -f "$h/RevyOutcomes.class" ] && return 0
  mkdir -p "$h"
  cat > "$h/RevyOutcomes.java" <<'EOF'
import java.io.*;
import java.util.*;
import org.junit.internal.TextListener;
import org.junit.runner.*;
import org.junit.runner.notification.*;

/** JUnitCore.main(args) plus one "class::method<TAB>PASS|FAIL|SKIP" line per test to args[0]. */
public class RevyOutcomes extends RunListener {
    final TreeMap<String, Integer> rows = new TreeMap<>();
    String status;
    public void testStarted(Description d) { status = "PASS"; }
    public void testFailure(Failure f) { status = "FAIL"; if (!f.getDescription().isTest() || f.getDescription().getMethodName() == null) add(f.getDescription(), "FAIL"); }
    public void testAssumptionFailure(Failure f) { status = "SKIP"; }
    public void testIgnored(Description d) { add(d, "SKIP"); }
    public void testFinished(Description d) { add(d, status); }
    void add(Description d, String st) { rows.merge(d.getClassName() + "::" + d.getMethodName() + "\t" + st, 1, Integer::sum); }
    public static void main(String[] args) throws Exception {
        JUnitCore core = new JUnitCore();
        core.addListener(new TextListener(System.out));
        RevyOutcomes me = new RevyOutcomes();
        core.addListener(me);
        List<Class<?>> classes = new ArrayList<>();
        for (int i = 1; i < args.length; i++) classes.add(Class.forName(args[i]));
        Result r = core.run(classes.toArray(new Class<?>[0]));
        try (PrintWriter w = new PrintWriter(new FileWriter(args[0]))) {
            for (Map.Entry<String, Integer> e : me.rows.entrySet())
                w.println(e.getKey() + (e.getValue() == 1 ? "" : "\tx" + e.getValue()));
        }
        System.exit(r.wasSuccessful() ? 0 : 1);
    }
}
EOF
  javac -nowarn -d "$h" -cp "$J/junit4.jar" "$h/RevyOutcomes.java"
}

# build_and_test TREE OUT: the recipe's build and test run with classes under OUT; writes
# OUT/outcomes.txt, OUT/build.secs, OUT/test.secs, OUT/test.log.
build_and_test() {
  local tree=$1 out=$2
  rm -rf "$out"
  mkdir -p "$out/classes" "$out/test-classes"
  (cd "$tree" && find src/main/java -name '*.java' > "$out/main.list" &&
    find src/test/java -name '*.java' > "$out/test.list")
  local t0 t1 t2
  t0=$(now)
  (cd "$tree" && javac "${JAVAC_FLAGS[@]}" -d "$out/classes" ${MAIN_CP:+-cp "$MAIN_CP"} @"$out/main.list") \
    > "$out/javac.log" 2>&1 || { log "main sources do not compile:"; head -40 "$out/javac.log" >&2; return 1; }
  [ $MAIN_RES = 0 ] || cp -r "$tree/src/main/resources/." "$out/classes/"
  (cd "$tree" && javac "${JAVAC_FLAGS[@]}" -d "$out/test-classes" -cp "$out/classes:$TEST_JAVAC_CP" @"$out/test.list") \
    >> "$out/javac.log" 2>&1 || { log "test sources do not compile:"; head -40 "$out/javac.log" >&2; return 1; }
  [ ! -d "$tree/src/test/resources" ] || cp -r "$tree/src/test/resources/." "$out/test-classes/"
  t1=$(now)
  if [ $RUNNER = console ]; then
    (cd "$tree" && /usr/bin/time -f "%U %S" -o "$out/test.time" java "${JVM_FLAGS[@]}" -jar $J/junit-platform-console-standalone.jar \
      -cp "$out/test-classes:$out/classes:$RUN_CP" --scan-classpath "$out/test-classes" "${EXTRA[@]}" \
      --disable-banner --details=summary --reports-dir "$out/reports") > "$out/test.log" 2>&1 || true
    t2=$(now)
    python3 "$OUTCOMES" "$out/reports" > "$out/outcomes.txt" 2> "$out/totals.txt"
  else
    harness
    (cd "$tree" && /usr/bin/time -f "%U %S" -o "$out/test.time" java "${JVM_FLAGS[@]}" -cp "$out/test-classes:$out/classes:$RUN_CP:$base/harness" \
      RevyOutcomes "$out/outcomes.txt" org.junit.tests.AllTests) > "$out/test.log" 2>&1 || true
    t2=$(now)
    python3 - "$out/outcomes.txt" > "$out/totals.txt" <<'EOF'
import sys, collections
t = collections.Counter()
for l in open(sys.argv[1]):
    f = l.rstrip('\n').split('\t')
    t[f[1]] += int(f[2][1:]) if len(f) > 2 else 1
print('# total=%d pass=%d fail=%d skip=%d' % (sum(t.values()), t['PASS'], t['FAIL'], t['SKIP']))
EOF
  fi
  secs "$t0" "$t1" > "$out/build.secs"
  secs "$t1" "$t2" > "$out/test.secs"
  # CPU seconds (user + sys) of the test JVM: steadier than wall time on a shared machine.
  awk 'END { printf "%.1f\n", $1 + $2 }' "$out/test.time" > "$out/test.cpu" 2>/dev/null || true
}

pfs() { sed -E 's/.*pass=([0-9]+) fail=([0-9]+) skip=([0-9]+).*/\1\/\2\/\3/' "$1"; }

# 1. The original, once per project.
orig=$base/orig
if [ ! -f "$orig/outcomes.txt" ] || [ ! -f "$orig/test.secs" ] || [ ! -f "$orig/test.cpu" ]; then
  log "building and testing the original"
  rm -rf "$base/orig-tree"
  cp -a "$src" "$base/orig-tree"
  build_and_test "$base/orig-tree" "$orig"
  rm -rf "$base/orig-tree" "$orig/classes" "$orig/test-classes"
fi

# 2. Annotate a fresh copy.
tree=$base/$mode/tree
out=$base/$mode/out
rm -rf "$base/$mode"
mkdir -p "$base/$mode"
cp -a "$src" "$tree"
trace=$base/$mode/trace.rvt
cat > "$tree/revy.toml" <<EOF
[project]
name = "$project"
sources = ["src/main/java/**/*.java"]

[annotate]
mode = "$mode"
include = ["*"]

[trace]
path = ".revy/traces"
max_size = "$MAX_SIZE"
${TRACE_EXTRA:-}
EOF
cd "$tree"
t0=$(now)
"$REVY" parse > "$base/$mode/parse.log" 2>&1 || { log "revy parse failed:"; cat "$base/$mode/parse.log" >&2; exit 1; }
t1=$(now)
"$REVY" annotate --$mode > "$base/$mode/annotate.log" 2>&1 || { log "revy annotate failed:"; tail -20 "$base/$mode/annotate.log" >&2; exit 1; }
t2=$(now)
log "parse $(secs "$t0" "$t1")s, annotate $(secs "$t1" "$t2")s: $(tail -1 "$base/$mode/annotate.log")"
if [ -n "${RUNTIME_JAVA:-}" ]; then
  rt=$(find "$tree" -path '*/_revy/runtime/Rv.java' | head -1)
  [ -n "$rt" ] || { log "no runtime files to replace"; exit 1; }
  cp "$RUNTIME_JAVA"/*.java "$(dirname "$rt")/"
fi
grep -i "skipped\|—" "$base/$mode/annotate.log" | head -20 >&2 || true

# 3. Build and test the annotated tree, tracing to one file.
rm -f "$trace" "$base/$mode"/trace-*.rvt
export REVY_TRACE=$trace
build_and_test "$tree" "$out"
unset REVY_TRACE
fail=0
# Tests that assert a wall-clock bound on work Revy instruments: a profiled run is slower by
# design, so their outcome is reported but compared only with STRICT_TIMING=1.
case $project in
  jsoup) timing='org.jsoup.parser.HtmlParserTest::handlesManyChildren()' ;; # parse < 1000 ms
  *) timing= ;;
esac
if [ -n "$timing" ] && [ "${STRICT_TIMING:-0}" != 1 ]; then
  printf '%s\n' $timing > "$base/$mode/timing-tests.txt"
  for t in $timing; do
    was=$(grep -F "$t" "$orig/outcomes.txt" | cut -f2 || true)
    now=$(grep -F "$t" "$out/outcomes.txt" | cut -f2 || true)
    [ "$was" = "$now" ] || log "wall-clock test $t: $was -> $now (asserts a time bound; not compared, STRICT_TIMING=1 to compare)"
  done
  grep -vF -f "$base/$mode/timing-tests.txt" "$orig/outcomes.txt" > "$base/$mode/orig-outcomes.txt" || true
  grep -vF -f "$base/$mode/timing-tests.txt" "$out/outcomes.txt" > "$base/$mode/new-outcomes.txt" || true
else
  cp "$orig/outcomes.txt" "$base/$mode/orig-outcomes.txt"
  cp "$out/outcomes.txt" "$base/$mode/new-outcomes.txt"
fi
if ! diff "$base/$mode/orig-outcomes.txt" "$base/$mode/new-outcomes.txt" > "$base/$mode/outcomes.diff"; then
  log "per-test outcomes differ from the original:"
  head -40 "$base/$mode/outcomes.diff" >&2
  fail=1
fi

# 4. The trace: written, readable, truncated or not.
trace_mb=0
events=0
truncated=no
if [ ! -s "$trace" ]; then
  log "no trace written at $trace"
  fail=1
else
  trace_mb=$(python3 -c "import os; print('%.1f' % (os.path.getsize('$trace') / 1048576))")
  # Structure (every record, block lengths, T and E records) by the independent checker.
  if ! check=$(python3 "$here/rvt_check.py" "$trace" 2>&1); then
    log "the trace is malformed: $check"
    fail=1
  fi
  echo "$check" > "$base/$mode/trace.check"
  grep -q 'truncated=yes' <<< "$check" && truncated=yes
  events=$(sed -n 's/.*events=\([0-9]*\).*/\1/p' <<< "$check")
  aggregated=$(sed -n 's/.*aggregated=\([0-9]*\).*/\1/p' <<< "$check")
  throttled=$(sed -n 's/.*throttled=\([0-9]*\).*/\1/p' <<< "$check")
  # Processes the tests start inherit REVY_TRACE and write trace-PID.rvt beside it.
  children=0
  for t in "$base/$mode"/trace-*.rvt; do
    [ -e "$t" ] || continue
    children=$((children + 1))
    python3 "$here/rvt_check.py" "$t" > /dev/null || { log "child trace $t is malformed"; fail=1; }
  done
  [ $children = 0 ] || log "$children child process trace(s) beside the main one, all well-formed"
  # And by revy itself, when this build has the trace reader.
  first=$("$REVY" trace print "$trace" 2> "$base/$mode/print.err" | head -3 || true)
  if grep -q 'not available' "$base/$mode/print.err"; then
    log "revy trace print is not in this build: checked the compact form only ($check)"
  elif ! grep -q '^#####' <<< "$first"; then
    log "revy trace print cannot read the trace: $(head -3 "$base/$mode/print.err")"
    fail=1
  fi
fi

# 5. Restore, and compare with the extracted sources byte for byte.
cd "$tree"
"$REVY" restore > "$base/$mode/restore.log" 2>&1 || { log "revy restore failed"; cat "$base/$mode/restore.log" >&2; fail=1; }
if ! diff -r -q -x revy.toml -x .revy "$src" "$tree" > "$base/$mode/restore.diff" 2>&1; then
  log "the restored tree differs from the original:"
  head -20 "$base/$mode/restore.diff" >&2
  fail=1
fi

echo "$project $mode: tests $(pfs "$out/totals.txt") vs original $(pfs "$orig/totals.txt"), build $(cat "$out/build.secs")s vs $(cat "$orig/build.secs")s, tests $(cat "$out/test.secs")s vs $(cat "$orig/test.secs")s (cpu $(cat "$out/test.cpu" 2>/dev/null || echo ?)s vs $(cat "$orig/test.cpu" 2>/dev/null || echo ?)s), trace $trace_mb MB, ${events:-0} events$([ "$truncated" = yes ] && echo " (truncated at $MAX_SIZE)"), ${aggregated:-0} calls aggregated, ${throttled:-0} methods throttled$([ $fail = 0 ] || echo " MISMATCH")"
exit $fail
