#!/usr/bin/env bash
# Java start-up calibration against the probe cost it finds (issue 34): a 1,000-call annotated
# program run ROUNDS times per runtime, interleaved, quiet and then beside 4 CPU hogs; per
# runtime and condition prints the min / median / max of the header's calib_us= (what the
# program's main thread waited for the calibrations at start-up) and of probe_ns= (after the
# exit re-check).
# Usage: tests/bench/java_startup.sh [ROUNDS]   (default 10). Needs javac/java and a built revy
# (target/debug/revy unless REVY is set). RT_A=DIR, RT_B=DIR: runtime sources copied over the
# annotated ones (A/B without rebuilding revy; a runtime without calib_us= prints "-").
set -euo pipefail
ROUNDS=${1:-10}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
REVY=${REVY:-$HERE/target/debug/revy}
WORK=$(mktemp -d)
HOGS=()
cleanup() {
    for p in "${HOGS[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/p/src/bench"
printf '[project]\nname = "startup"\nsources = ["src/**/*.java"]\n[annotate]\ninclude = ["bench.Counter"]\n' \
    >"$WORK/p/revy.toml"
cat >"$WORK/p/src/bench/Counter.java" <<'JAVA'
package bench;
public class Counter {
    private long total;
    public void add(int x) { total += x; }
    public static void main(String[] args) {
        Counter c = new Counter();
        for (int i = 0; i < 1000; i++) c.add(i);
        System.out.println(c.total);
    }
}
JAVA
(cd "$WORK/p" && "$REVY" parse >/dev/null && "$REVY" annotate --better >/dev/null)
VARIANTS=()
for v in A B; do
    rt_var="RT_$v"
    [ "$v" = B ] && [ -z "${RT_B:-}" ] && continue
    mkdir -p "$WORK/$v"
    cp -r "$WORK/p/src" "$WORK/$v/src"
    if [ -n "${!rt_var:-}" ]; then cp "${!rt_var}"/*.java "$WORK/$v/src/_revy/runtime/"; fi
    mkdir "$WORK/$v/build"
    javac -nowarn -encoding UTF-8 -d "$WORK/$v/build" $(find "$WORK/$v/src" -name '*.java')
    VARIANTS+=("$v")
done
field() { tr ' ' '\n' <"$1" | grep -a "^$2=" | cut -d= -f2 | head -1; }
one() { # $1 variant, $2 condition: appends "calib_us probe_ns"
    rm -f "$WORK/t.rvt"
    REVY_BUDGET=off REVY_TRACE="$WORK/t.rvt" java -cp "$WORK/$1/build" bench.Counter >/dev/null
    head -c 1000 "$WORK/t.rvt" >"$WORK/h"
    echo "$(field "$WORK/h" calib_us) $(field "$WORK/h" probe_ns)" >>"$WORK/$1-$2"
}
stat() { # column $2 of file $1: min median max
    awk -v c="$2" '{print $c}' "$1" | grep -v '^$' | sort -g |
        awk '{a[NR]=$1} END{if (NR==0) {print "-"; exit} printf "%g / %g / %g", a[1], a[int((NR+1)/2)], a[NR]}'
}
for cond in quiet loaded; do
    if [ "$cond" = loaded ]; then
        for _ in 1 2 3 4; do
            (while :; do :; done) &
            HOGS+=($!)
        done
    fi
    for _ in $(seq "$ROUNDS"); do
        for v in "${VARIANTS[@]}"; do one "$v" "$cond"; done
    done
done
for v in "${VARIANTS[@]}"; do
    for cond in quiet loaded; do
        echo "$v $cond ($ROUNDS runs): calib_us min/median/max $(stat "$WORK/$v-$cond" 1); probe_ns $(stat "$WORK/$v-$cond" 2)"
    done
done
