#!/usr/bin/env bash
# The runtimes' start-up calibration under load (issue 34): a small annotated program (Java,
# then C++) is run
# RUNS times quiet and RUNS times beside 2 CPU hogs per core; prints each run's header
# probe_ns= and the loaded runs' ratio to the quiet median, and counts the runs within 1.5x.
# FIELD=handoff_ns or FIELD=fault_ns reads that header field instead (fault_ns: C++ only);
# RUNTIMES="cpp" runs one runtime.
# Usage: tests/bench/probe_load.sh [RUNS]   (default 20). Needs javac/java and a built revy
# (target/debug/revy unless REVY is set). The hogs are killed on exit. RT=DIR copies the Java
# runtime sources in DIR over the annotated ones, RT_CPP=FILE the C++ runtime's
# revy_runtime_impl.hpp (A/B of runtimes without rebuilding revy). EXTRA="handoff_p50" also
# prints those header fields of each run.
set -euo pipefail
RUNS=${1:-20}
FIELD=${FIELD:-probe_ns}
RUNTIMES=${RUNTIMES:-java cpp}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
REVY=${REVY:-$HERE/target/debug/revy}
WORK=$(mktemp -d)
HOGS=()
cleanup() {
    for p in "${HOGS[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$WORK/java/src/bench"
printf '[project]\nname = "load"\nsources = ["src/**/*.java"]\n[annotate]\ninclude = ["bench.Counter"]\n' \
    >"$WORK/java/revy.toml"
cat >"$WORK/java/src/bench/Counter.java" <<'JAVA'
package bench;
public class Counter {
    private long total;
    public void add(int x) { total += x; }
    public static void main(String[] args) {
        Counter c = new Counter();
        for (int i = 0; i < 2000000; i++) c.add(i);
        System.out.println(c.total);
    }
}
JAVA
(cd "$WORK/java" && "$REVY" parse >/dev/null && "$REVY" annotate --better >/dev/null)
if [ -n "${RT:-}" ]; then cp "$RT"/*.java "$WORK/java/src/_revy/runtime/"; fi
(cd "$WORK/java" && mkdir build && javac -nowarn -encoding UTF-8 -d build $(find src -name '*.java'))

mkdir -p "$WORK/cpp"
printf '[project]\nname = "load"\nsources = ["counter.cc"]\nbuild = "true"\nrun = "true"\n[annotate]\ninclude = ["*"]\n' \
    >"$WORK/cpp/revy.toml"
cat >"$WORK/cpp/counter.cc" <<'CPP'
#include <cstdio>
struct Counter {
    long total = 0;
    void add(int x) { total += x; }
};
int main() {
    Counter c;
    for (int i = 0; i < 2000000; i++) c.add(i);
    std::printf("%ld\n", c.total);
}
CPP
(cd "$WORK/cpp" && "$REVY" parse >/dev/null && REVY_CPP_RUNTIME=header "$REVY" annotate --better >/dev/null)
if [ -n "${RT_CPP:-}" ]; then
    for f in $(find "$WORK/cpp" -name revy_runtime_impl.hpp); do cp "$RT_CPP" "$f"; done
fi
g++ -std=c++17 -O2 -pthread -o "$WORK/cpp/counter" "$WORK/cpp/counter.cc"

probe() { # $1: java or cpp; one run -> its header's $FIELD
    rm -f "$WORK"/t*.rvt
    case $1 in
    java) REVY_BUDGET=off REVY_TRACE="$WORK/t.rvt" java -cp "$WORK/java/build" bench.Counter >/dev/null ;;
    cpp) REVY_BUDGET=off REVY_TRACE="$WORK/t.rvt" "$WORK/cpp/counter" >/dev/null ;;
    esac
    local h
    h=$(head -c 800 "$WORK/t.rvt" | tr ' ' '\n')
    echo "$h" | grep -a "^$FIELD=" | cut -d= -f2
    for x in ${EXTRA:-}; do echo "$h" | grep -a "^$x=" | sed 's/^/  /' >&2; done
}
series() { for _ in $(seq "$RUNS"); do probe "$1"; done; }

hogs=$((2 * $(nproc)))
for rt in $RUNTIMES; do
    quiet=$(series $rt)
    for _ in $(seq "$hogs"); do
        (while :; do :; done) &
        HOGS+=($!)
    done
    loaded=$(series $rt)
    for p in "${HOGS[@]}"; do kill "$p" 2>/dev/null || true; done
    HOGS=()
    median=$(echo "$quiet" | sort -g | awk '{a[NR]=$1} END{print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
    echo "$rt $FIELD, $RUNS runs quiet (median $median) and $RUNS beside $hogs CPU hogs"
    echo "quiet:  $(echo $quiet)"
    echo "loaded: $(echo $loaded)"
    echo "$loaded" | awk -v m="$median" '{r=$1/m; if (r<=1.5 && r>=1/1.5) ok++; if (r>max) max=r; if (min==""||r<min) min=r}
        END{printf "loaded/quiet median: %.2f..%.2f; within 1.5x: %d of %d\n", min, max, ok, NR}'
done
