#!/usr/bin/env bash
# The Java runtime's aggregate table alone: RvAgg.put of calls on folded edges (the case of
# 98 % of a jsoup suite's aggregated calls), called directly in the runtime's package. The
# instance table is filled first (5,000 instance keys), then 2^20 puts per round on newer
# objects over EDGES sender x receiver method pairs (half of the puts on a sixteenth of
# them; EDGES / 64 senders a receiver, at least one), timed in thread CPU time; the best of
# ROUNDS rounds is the figure, in ns a put. Variants run interleaved: `now` (this
# repository's runtime) and, with BASE_RUNTIME=DIR (the .java files of another runtime,
# e.g. main's runtime-java/src/_revy/runtime), `base`.
# Usage: tests/bench/java_agg_put.sh [EDGES] [ROUNDS] [PAIRS]   (default 200 30 2)
set -euo pipefail
EDGES=${1:-200}
ROUNDS=${2:-30}
PAIRS=${3:-2}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cat > "$WORK/RvTable.java" <<'JAVA'
package _revy.runtime;

final class RvTable {
    static final String PROJECT = "bench", DIR = "/nonexistent";
    static final long MAX_SIZE = 1L << 30, THROTTLE_CALLS = 100000L, THROTTLE_NS = 10000L;
    static final boolean BETTER = true;
    static final long POINTER = 8L, SYSTEM = 32L, SAMPLE = 8L;
    static final int CLASSES = 0, METHODS = 0;
    static final String[] DATA = {};
}
JAVA
cat > "$WORK/PutBench.java" <<'JAVA'
package _revy.runtime;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public class PutBench {
    public static void main(String[] a) {
        int edges = Integer.parseInt(a[0]);
        int rounds = Integer.parseInt(a[1]);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        RvAgg g = new RvAgg();
        long oid = 1;
        for (int i = 0; i < 5000; i++) {
            g.put(1 + (i & 15), 1L, 100 + (i & 31), oid++, 1L, 40L, 40L, 8L);
        }
        int[] s = new int[1 << 16], r = new int[1 << 16];
        java.util.Random rnd = new java.util.Random(7);
        int senders = Math.max(1, edges / 64);
        for (int i = 0; i < s.length; i++) {
            int e = rnd.nextInt(edges);
            if (rnd.nextBoolean()) {
                e = e / 16;
            }
            s[i] = 1 + e % senders;
            r[i] = 200 + e / senders;
        }
        long best = Long.MAX_VALUE;
        for (int k = 0; k < rounds; k++) {
            long t0 = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < 1 << 20; i++) {
                int j = i & 0xffff;
                g.put(s[j], 2L, r[j], oid++, 1L, 40L + (i & 3), 40L, 8L);
            }
            best = Math.min(best, mx.getCurrentThreadCpuTime() - t0);
        }
        System.out.printf("%.2f%n", best / (double) (1 << 20));
    }
}
JAVA
build() { # NAME RUNTIME_DIR
  mkdir -p "$WORK/$1/src" "$WORK/$1/cls"
  cp "$2"/Rv*.java "$WORK/$1/src/"
  cp "$WORK/RvTable.java" "$WORK/PutBench.java" "$WORK/$1/src/"
  javac -nowarn -d "$WORK/$1/cls" "$WORK/$1/src"/*.java
}
variants=(now)
build now "$HERE/runtime-java/src/_revy/runtime"
if [ -n "${BASE_RUNTIME:-}" ]; then
  build base "$BASE_RUNTIME"
  variants=(base now)
fi
for p in $(seq 1 "$PAIRS"); do
  for v in "${variants[@]}"; do
    echo "edges=$EDGES pair=$p $v $(java -cp "$WORK/$v/cls" _revy.runtime.PutBench "$EDGES" "$ROUNDS") ns/put"
  done
done
echo "load: $(uptime | sed 's/.*average: //')"
