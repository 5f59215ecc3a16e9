#!/usr/bin/env bash
# Probe effect of the Java runtime: a loop calling a trivial instrumented method N times,
# plain vs annotated (better and faster modes). Prints ns added per call (start+end) and
# trace bytes per call. Usage: tests/bench/java_probe.sh [N]   (default 50,000,000)
# Needs javac/java and a built revy (cargo build); uses target/debug/revy unless REVY is set.
# THROTTLE=on keeps `[trace]` throttling at its default (the method is throttled after 100,000
# calls: the loop measures the aggregated path); default off (every call recorded);
# THROTTLE=none writes no throttle key (for revy builds before it existed).
set -euo pipefail
N=${1:-50000000}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
REVY=${REVY:-$HERE/target/debug/revy}
case ${THROTTLE:-off} in
off) throttle_line='throttle = false' ;;
on | none) throttle_line='' ;;
*) echo "THROTTLE must be off, on or none" >&2; exit 2 ;;
esac
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

mkdir -p "$WORK/proj/src/bench"
cat > "$WORK/proj/revy.toml" <<TOML
[project]
name = "probe"
sources = ["src/**/*.java"]
[annotate]
include = ["bench.Counter"]
[trace]
$throttle_line
TOML
cat > "$WORK/proj/src/bench/Counter.java" <<'JAVA'
package bench;

public class Counter {
    private long total;

    public void add(int x) {
        total += x;
    }

    public long total() {
        return total;
    }
}
JAVA
cat > "$WORK/proj/src/bench/Main.java" <<'JAVA'
package bench;

public class Main {
    public static void main(String[] args) {
        long n = Long.parseLong(args[0]);
        Counter c = new Counter();
        for (int i = 0; i < 2_000_000; i++) { // warm-up (JIT)
            c.add(1);
        }
        long t0 = System.nanoTime();
        for (long i = 0; i < n; i++) {
            c.add((int) i);
        }
        long t1 = System.nanoTime();
        System.out.println((t1 - t0) / (double) n + " " + c.total());
    }
}
JAVA

run() { # dir -> ns/call (best of 3)
    local best=""
    for _ in 1 2 3; do
        rm -f "$WORK/t.rvt"
        local ns
        ns=$(REVY_TRACE="$WORK/t.rvt" java -cp "$1/build" bench.Main "$N" | cut -d' ' -f1)
        if [ -z "$best" ] || awk "BEGIN{exit !($ns < $best)}"; then best=$ns; fi
    done
    echo "$best"
}
build() { (cd "$1" && rm -rf build && mkdir build && javac -encoding UTF-8 -d build $(find src -name '*.java')); }

cp -r "$WORK/proj" "$WORK/plain"
build "$WORK/plain"
plain=$(run "$WORK/plain")
printf 'plain:  %.2f ns/call\n' "$plain"
for mode in better faster; do
    rm -rf "$WORK/$mode"
    cp -r "$WORK/proj" "$WORK/$mode"
    (cd "$WORK/$mode" && "$REVY" parse >/dev/null && "$REVY" annotate --$mode >/dev/null)
    build "$WORK/$mode"
    ns=$(run "$WORK/$mode")
    bytes=$(stat -c %s "$WORK/t.rvt")
    calls=$((N + 2000000))
    awk -v m="$mode" -v ns="$ns" -v p="$plain" -v b="$bytes" -v c="$calls" \
        'BEGIN{printf "%s: %.2f ns/call, +%.2f ns added per call, %.2f trace bytes per call\n", m, ns, ns-p, b/c}'
    # What the runtime measured for itself at start-up (the header the analysis subtracts).
    echo "$mode: header $(grep -a -o 'probe_ns=[0-9.]*' "$WORK/t.rvt" | head -1) per start+end pair"
done
