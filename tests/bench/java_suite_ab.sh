#!/usr/bin/env bash
# The jsoup suite in interleaved triples: the original, annotated (better mode, defaults,
# 1 GiB) by revy A, annotated by revy B, one JVM each, the recipe's JUnit console line
# (tests/corpus/java.sh's) on classes built once. Prints per run the CPU seconds of the test
# JVM, its threads' (java_threads.py: the test thread `java`, C2 and C1 compiler threads)
# and the outcome totals; the outcomes are compared with the first original's (but for the
# wall-clock test handlesManyChildren).
# Usage: REVY_A=/abs/revy REVY_B=/abs/revy tests/bench/java_suite_ab.sh [ROUNDS] [WORK]
#   (default 3 rounds, WORK /tmp/revy-suite-ab); the order of A and B alternates by round.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROUNDS=${1:-3}
W=${2:-/tmp/revy-suite-ab}
C=${CORPUS:-/tmp/corpus}
SRC=$C/w/jsoup-1.15.3
J=/usr/share/java
CP=$J/jsr305.jar
TCP=$J/gson.jar:$J/jetty9-server.jar:$J/jetty9-servlet.jar:$J/jetty9-util.jar:$J/jetty9-http.jar:$J/jetty9-io.jar:$J/jetty9-security.jar:$J/servlet-api.jar
OUTCOMES=$C/outcomes.py
[ -d "$SRC" ] || { echo "no jsoup sources at $SRC (tests/corpus/fetch.sh)" >&2; exit 2; }
mkdir -p "$W"
build() { # TREE OUT
    rm -rf "$2" && mkdir -p "$2/classes" "$2/test-classes"
    (cd "$1" && find src/main/java -name '*.java' > "$2/main.list" && find src/test/java -name '*.java' > "$2/test.list" &&
        javac -nowarn -encoding UTF-8 -d "$2/classes" -cp "$CP" @"$2/main.list" &&
        javac -nowarn -encoding UTF-8 -d "$2/test-classes" -cp "$2/classes:$CP:$TCP:$J/junit-platform-console-standalone.jar" @"$2/test.list" &&
        cp -r src/test/resources/. "$2/test-classes/")
}
prepare() { # NAME [REVY]
    local t=$W/$1-tree
    rm -rf "$t" && cp -a "$SRC" "$t"
    if [ -n "${2:-}" ]; then
        printf '[project]\nname = "jsoup"\nsources = ["src/main/java/**/*.java"]\n\n[annotate]\nmode = "better"\ninclude = ["*"]\n\n[trace]\npath = ".revy/traces"\nmax_size = "1GiB"\n' > "$t/revy.toml"
        (cd "$t" && "$2" parse > /dev/null && "$2" annotate --better > /dev/null)
    fi
    build "$t" "$W/$1"
}
run() { # NAME TAG
    local o=$W/$1
    rm -rf "$o/reports-$2" "$o"/trace-"$2"*.rvt
    (cd "$W/$1-tree" && sleep 0.3 && REVY_TRACE=$o/trace-$2.rvt REVY_BUDGET=off exec /usr/bin/time -f "%U %S %e" -o "$o/time-$2" \
        java -jar $J/junit-platform-console-standalone.jar -cp "$o/test-classes:$o/classes:$CP:$TCP" \
        --scan-classpath "$o/test-classes" --disable-banner --details=summary --reports-dir "$o/reports-$2" > "$o/log-$2" 2>&1) &
    local p=$!
    local th
    th=$(python3 "$HERE/java_threads.py" $p)
    wait $p || true
    python3 "$OUTCOMES" "$o/reports-$2" > "$o/outcomes-$2.txt" 2> "$o/totals-$2.txt"
    local same=same
    if [ -f "$W/orig/outcomes-o1.txt" ] && ! diff -q <(grep -v handlesManyChildren "$W/orig/outcomes-o1.txt") \
        <(grep -v handlesManyChildren "$o/outcomes-$2.txt") > /dev/null; then same=DIFFERENT; fi
    echo "$2 $(awk 'END {printf "cpu=%.1f wall=%.1f", $1 + $2, $3}' "$o/time-$2") $th $(cat "$o/totals-$2.txt") outcomes=$same load=$(cut -d' ' -f1 /proc/loadavg)"
}
prepare orig
prepare a "${REVY_A:?REVY_A=/abs/path/revy}"
prepare b "${REVY_B:?REVY_B=/abs/path/revy}"
for r in $(seq "$ROUNDS"); do
    run orig o$r
    if [ $((r % 2)) = 1 ]; then run a a$r; run b b$r; else run b b$r; run a a$r; fi
done
