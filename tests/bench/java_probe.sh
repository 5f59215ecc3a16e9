#!/usr/bin/env bash
# Probe effect of the Java runtime: a loop calling a trivial instrumented method N times, in
# batches of 100,000 calls; the fastest batch of a run is its figure (a batch preempted or
# slowed by a neighbour does not count). Variants, run interleaved ROUNDS times:
#   plain      the original;
#   nanotime   the original with two System.nanoTime() reads around each call (the target:
#              a recorded call costs at most 1.1x these two reads);
#   better / faster   annotated in that mode;
#   newplain / newbetter   the loop creates a Counter instead (original / better mode: a
#              tagged class, whose creation takes an object ID and logs a Crt event).
# Prints per variant the min and median over rounds of ns per call, ns added over plain,
# trace bytes per call and the header's probe_ns= (what the analysis subtracts); then the
# ratios the targets name: a recorded call's added ns over the nanotime variant's (two
# System.nanoTime() reads), and a creation's added ns over a recorded call's.
# Usage: tests/bench/java_probe.sh [N] [ROUNDS]   (default 20,000,000 and 5)
# Needs javac/java and a built revy (cargo build); uses target/debug/revy unless REVY is set.
# THROTTLE=on keeps `[trace]` throttling at its default (the method is throttled after 100,000
# calls: the loop measures the counted path); default off (every call recorded);
# THROTTLE=none writes no throttle key (for revy builds before it existed).
# Each run has its own size budget (REVY_BUDGET=off): the runs of one shell command line
# would otherwise share one max_size, and later runs record nothing.
# BASE_RUNTIME=DIR adds the variant better0: better mode with the runtime's .java files taken
# from DIR (e.g. an older commit's runtime-java/src/_revy/runtime), run in the same rounds, so
# a runtime change is measured A/B; the ratios then print for it too. DIR0:DIR1:... adds
# better0, better1, ... (variants of the runtime, each changed in one place, in one run).
# BASE_REVY=PATH adds the variant basebetter: better mode annotated by that revy (another
# commit's: its generated code and its runtime), so a change of the annotator's output is
# measured A/B in the same rounds (an absolute path, like REVY).
set -euo pipefail
N=${1:-20000000}
ROUNDS=${2:-5}
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
main() { # $1: the loop's body
    cat <<JAVA
package bench;

public class Main {
    static long sink;
    static Object keep;

    public static void main(String[] args) {
        long n = Long.parseLong(args[0]);
        Counter c = new Counter();
        for (int k = 0; k < 2_000_000; k++) { // warm-up (JIT)
            $1
        }
        long batch = 100_000, best = Long.MAX_VALUE;
        for (long i = 0; i < n; i += batch) {
            long b0 = System.nanoTime();
            for (int k = 0; k < batch; k++) {
                $1
            }
            best = Math.min(best, System.nanoTime() - b0);
        }
        System.out.println(best / (double) batch + " " + c.total() + " " + sink);
    }
}
JAVA
}
build() { (cd "$1" && rm -rf build && mkdir build && javac -nowarn -encoding UTF-8 -d build $(find src -name '*.java')); }

IFS=: read -r -a BASES <<<"${BASE_RUNTIME:-}"
VARIANTS="plain nanotime better faster newplain newbetter"
for k in "${!BASES[@]}"; do VARIANTS="$VARIANTS better$k"; done
[ -z "${BASE_REVY:-}" ] || VARIANTS="$VARIANTS basebetter"
for v in $VARIANTS; do
    cp -r "$WORK/proj" "$WORK/$v"
    case $v in
    nanotime) main 'long a = System.nanoTime(); c.add(k); sink += System.nanoTime() - a;' ;;
    new*) main 'keep = new Counter();' ;;
    *) main 'c.add(k);' ;;
    esac >"$WORK/$v/src/bench/Main.java"
    case $v in better | faster) (cd "$WORK/$v" && "$REVY" parse >/dev/null && "$REVY" annotate --$v >/dev/null) ;; esac
    if [[ $v == better[0-9]* ]]; then
        (cd "$WORK/$v" && "$REVY" parse >/dev/null && "$REVY" annotate --better >/dev/null)
        rt=$(dirname "$(find "$WORK/$v/src" -name RvTable.java)")
        for f in "${BASES[${v#better}]}"/*.java; do [ "$(basename "$f")" = RvTable.java ] || cp "$f" "$rt/"; done
    fi
    [ $v = basebetter ] && (cd "$WORK/$v" && "$BASE_REVY" parse >/dev/null && "$BASE_REVY" annotate --better >/dev/null)
    [ $v = newbetter ] && (cd "$WORK/$v" && "$REVY" parse >/dev/null && "$REVY" annotate --better >/dev/null)
    build "$WORK/$v"
done
for r in $(seq "$ROUNDS"); do
    for v in $VARIANTS; do
        rm -f "$WORK"/t*.rvt
        ns=$(REVY_BUDGET=off REVY_TRACE="$WORK/t.rvt" java -cp "$WORK/$v/build" bench.Main "$N" | cut -d' ' -f1)
        echo "$ns" >>"$WORK/$v.ns"
        if [ -f "$WORK/t.rvt" ]; then
            stat -c %s "$WORK/t.rvt" >>"$WORK/$v.bytes"
            head -c 600 "$WORK/t.rvt" | tr ' ' '\n' | grep -a '^probe_ns=' | cut -d= -f2 >>"$WORK/$v.probe" || true
        fi
    done
done
minmed() { sort -g "$1" | awk '{a[NR]=$1} END{printf "%.2f %.2f", a[1], (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
echo "ns per call (new*: per creation), min / median of $ROUNDS interleaved rounds (each the fastest"
echo "batch of 100,000), and ns added over plain (new*: over newplain):"
for v in $VARIANTS; do
    case $v in new*) base=newplain ;; *) base=plain ;; esac
    read -r pmin pmed <<<"$(minmed "$WORK/$base.ns")"
    read -r min med <<<"$(minmed "$WORK/$v.ns")"
    extra=""
    if [ -f "$WORK/$v.bytes" ]; then
        bytes=$(sort -g "$WORK/$v.bytes" | head -1)
        extra=$(awk -v b="$bytes" -v c=$((N + 2000000)) 'BEGIN{printf ", %.2f trace bytes per call", b/c}')
        extra="$extra, header probe_ns $(sort -g "$WORK/$v.probe" | tr '\n' ' ')"
    fi
    awk -v v="$v" -v a="$min" -v b="$med" -v pa="$pmin" -v pb="$pmed" -v x="$extra" \
        'BEGIN{printf "%-9s %7.2f / %7.2f  (+%.2f / +%.2f)%s\n", v, a, b, a-pa, b-pb, x}'
done
added() { # $1 variant, $2 its baseline: "min median" of ns added
    read -r a b <<<"$(minmed "$WORK/$1.ns")"
    read -r pa pb <<<"$(minmed "$WORK/$2.ns")"
    echo "$a $pa $b $pb" | awk '{printf "%.2f %.2f", $1 - $2, $3 - $4}'
}
read -r tmin tmed <<<"$(added nanotime plain)"
read -r rmin rmed <<<"$(added better plain)"
read -r nmin nmed <<<"$(added newbetter newplain)"
for k in "${!BASES[@]}"; do
    read -r omin omed <<<"$(added better$k plain)"
    awk -v k="$k" -v a="$omin" -v b="$omed" -v c="$tmin" -v d="$tmed" \
        'BEGIN{printf "better%s (BASE_RUNTIME) ÷ two nanoTime reads: %.2f min / %.2f median\n", k, a/c, b/d}'
done
if [ -n "${BASE_REVY:-}" ]; then
    read -r omin omed <<<"$(added basebetter plain)"
    awk -v a="$omin" -v b="$omed" -v c="$tmin" -v d="$tmed" \
        'BEGIN{printf "basebetter (BASE_REVY) ÷ two nanoTime reads: %.2f min / %.2f median\n", a/c, b/d}'
fi
awk -v a="$rmin" -v b="$rmed" -v c="$tmin" -v d="$tmed" -v e="$nmin" -v f="$nmed" 'BEGIN{
    printf "better ÷ two nanoTime reads (added ns): %.2f min / %.2f median\n", a/c, b/d
    printf "new (better) ÷ a better call (added ns): %.2f min / %.2f median\n", e/a, f/b }'
