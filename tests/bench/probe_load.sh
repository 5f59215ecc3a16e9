#!/usr/bin/env bash
# The runtimes' start-up calibration under load (issue 34): a small annotated program is run
# RUNS times quiet and RUNS times beside 2 CPU hogs per core; prints each run's header
# probe_ns= and the loaded runs' ratio to the quiet median, and counts the runs within 1.5x.
# Usage: tests/bench/probe_load.sh [RUNS]   (default 20). Needs javac/java and a built revy
# (target/debug/revy unless REVY is set). The hogs are killed on exit. RT=DIR copies the Java
# runtime sources in DIR over the annotated ones (A/B of runtimes without rebuilding revy).
set -euo pipefail
RUNS=${1:-20}
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
if [ -n "${RT:-}" ]; then cp "$RT"/*.java "$WORK/java/src/revy/runtime/"; fi
(cd "$WORK/java" && mkdir build && javac -nowarn -encoding UTF-8 -d build $(find src -name '*.java'))

probe() { # one run -> its header's probe_ns
    rm -f "$WORK"/t*.rvt
    REVY_BUDGET=off REVY_TRACE="$WORK/t.rvt" java -cp "$WORK/java/build" bench.Counter >/dev/null
    head -c 600 "$WORK/t.rvt" | tr ' ' '\n' | grep -a '^probe_ns=' | cut -d= -f2
}
series() { for _ in $(seq "$RUNS"); do probe; done; }

quiet=$(series)
hogs=$((2 * $(nproc)))
for _ in $(seq "$hogs"); do
    (while :; do :; done) &
    HOGS+=($!)
done
loaded=$(series)
for p in "${HOGS[@]}"; do kill "$p" 2>/dev/null || true; done
HOGS=()

median=$(echo "$quiet" | sort -g | awk '{a[NR]=$1} END{print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
echo "java probe_ns, $RUNS runs quiet (median $median) and $RUNS beside $hogs CPU hogs"
echo "quiet:  $(echo $quiet)"
echo "loaded: $(echo $loaded)"
echo "$loaded" | awk -v m="$median" '{r=$1/m; if (r<=1.5 && r>=1/1.5) ok++; if (r>max) max=r; if (min==""||r<min) min=r}
    END{printf "loaded/quiet median: %.2f..%.2f; within 1.5x: %d of %d\n", min, max, ok, NR}'
