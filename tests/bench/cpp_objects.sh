#!/bin/bash
# Cost of C++ object identity per object (issue 14): objects created and destroyed N times in a
# loop, built at -O2, plain and annotated (better mode, trace to a file), interleaved, ROUNDS
# times (the best round counts). Shapes:
#   single — one class whose constructor has an initialiser (Tag, constructor start before it);
#   chain  — Leaf : Mid : Base, single inheritance (SubTags: one Crt patched in place);
#   multi  — Doc : Node, Allocator (JoinTag: the second part's Crt taken back, its events
#            relabelled in the thread's buffer).
# Prints ns per object (plain, annotated, added) and trace bytes per object.
# Usage: tests/bench/cpp_objects.sh [N] [ROUNDS]    (default N=2000000, ROUNDS=5)
# CALLGRIND=1 prints instructions per object instead (valgrind's callgrind: the runs of N and 2N
# objects, their difference divided by N, so start-up and the first 100,000 recorded
# constructor calls cancel out; N=200000 is enough); throttling then goes by the call count
# alone, as it does natively (under callgrind every call is ~50x slower than the 10 us rule).
set -euo pipefail
N=${1:-2000000}
ROUNDS=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
REVY=${REVY:-$repo/target/release/revy}
[ -x "$REVY" ] || (cd "$repo" && cargo build --release -q)
tmp=$(mktemp -d /tmp/revy-objects.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/src"
cat > "$tmp/src/shapes.h" <<'EOF'
#ifndef SHAPES_H
#define SHAPES_H
struct Single {
    explicit Single(int v) : v_(v) {}
    int v_;
};
struct Base {
    Base() : b(1) {}
    int b;
};
struct Mid : Base {
    Mid() : m(2) {}
    int m;
};
struct Leaf : Mid {
    Leaf() : l(3) {}
    int l;
};
struct Node {
    Node() : depth(0) {}
    int depth;
};
struct Allocator {
    Allocator() : used(0) {}
    int used;
};
struct Doc : Node, Allocator {
    Doc() : pages(4) {}
    int pages;
};
#endif
EOF
cat > "$tmp/src/bench.cc" <<'EOF'
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "shapes.h"
template <class T>
double run(long n, long& sink) {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) {
        T* t = new T();
        sink += *reinterpret_cast<volatile int*>(t);
        delete t;
    }
    auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / n;
}
struct SingleD : Single {
    SingleD() : Single(1) {}
};
int main(int argc, char** argv) {
    long n = std::atol(argv[1]);
    long sink = 0;
    double ns = 0;
    if (!std::strcmp(argv[2], "single")) ns = run<SingleD>(n, sink);
    if (!std::strcmp(argv[2], "chain")) ns = run<Leaf>(n, sink);
    if (!std::strcmp(argv[2], "multi")) ns = run<Doc>(n, sink);
    std::printf("%.2f %ld\n", ns, sink);
    return 0;
}
EOF
cat > "$tmp/revy.toml" <<'EOF'
[project]
name = "objects"
sources = ["src/shapes.h"]
[annotate]
include = ["*"]
exclude = ["SingleD", "SingleD.*"]
[trace]
path = ".revy/traces"
EOF
[ -z "${CALLGRIND:-}" ] || echo 'throttle_us = 100000000' >> "$tmp/revy.toml"
cd "$tmp"
g++ -std=c++11 -O2 -o plain src/bench.cc
"$REVY" parse > /dev/null
"$REVY" annotate --better > /dev/null 2>&1 || true
grep -q JoinTag src/shapes.h || { echo "Doc was not joined" >&2; exit 1; }
g++ -std=c++11 -O2 -o annotated src/bench.cc
if [ -n "${CALLGRIND:-}" ]; then
  # the instructions of one run
  ir() { rm -f t*.rvt; REVY_TRACE="$tmp/t.rvt" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 | awk '/Collected/ { print $NF }'; }
  printf '%-7s %10s %10s %10s\n' shape plain_Ir annot_Ir added_Ir
  for shape in single chain multi; do
    p1=$(ir ./plain "$N" "$shape"); p2=$(ir ./plain $((2 * N)) "$shape")
    a1=$(ir ./annotated "$N" "$shape"); a2=$(ir ./annotated $((2 * N)) "$shape")
    echo "$shape $p1 $p2 $a1 $a2 $N" |
      awk '{ p = ($3 - $2) / $6; a = ($5 - $4) / $6; printf "%-7s %10.0f %10.0f %10.0f\n", $1, p, a, a - p }'
  done
  exit 0
fi
printf '%-7s %10s %10s %10s %12s\n' shape plain_ns annot_ns added_ns trace_B/obj
for shape in single chain multi; do
  best_p=1e18; best_a=1e18; bytes=0
  for _ in $(seq "$ROUNDS"); do
    p=$(./plain "$N" "$shape" | cut -d' ' -f1)
    rm -f t*.rvt
    a=$(REVY_TRACE="$tmp/t.rvt" ./annotated "$N" "$shape" | cut -d' ' -f1)
    bytes=$(stat -c %s "$tmp/t.rvt")
    best_p=$(echo "$p $best_p" | awk '{print ($1 < $2) ? $1 : $2}')
    best_a=$(echo "$a $best_a" | awk '{print ($1 < $2) ? $1 : $2}')
  done
  echo "$shape $best_p $best_a $bytes $N" |
    awk '{printf "%-7s %10.1f %10.1f %10.1f %12.1f\n", $1, $2, $3, $3 - $2, $4 / $5}'
done
