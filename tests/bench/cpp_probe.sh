#!/bin/bash
# Probe effect of the C++ annotation: a loop calling a trivial member function N times
# (defined in another translation unit, so every variant really calls it), built at -O2:
#   plain      — the original code;
#   better / faster — annotated by `revy annotate` in that mode (trace to a file);
#   hook       — the original with `g++ -finstrument-functions` and a minimal hook recording
#                (function address, TSC timestamp) into a thread-local ring buffer (no I/O).
# All variants run in the same invocation, interleaved, ROUNDS times; the best round counts.
# Prints ns per call, ns added per call over plain, and trace bytes per call.
# Usage: tests/bench/cpp_probe.sh [N] [ROUNDS]    (default N=30000000, ROUNDS=3)
# THROTTLE=on keeps `[trace]` throttling at its default (the method is throttled after 100,000
# calls and the rest of the loop measures the aggregated path); default off (every call is
# recorded); THROTTLE=none writes no throttle key (for revy builds before it existed).
# The annotated variants use the runtime's shared form (the library `revy annotate` builds);
# HEADER_ONLY=1 adds better-h / faster-h, the same annotated with REVY_CPP_RUNTIME=header (the
# implementation compiled into the program, as before the runtime split).
# REVY_B=<another revy> adds better-b / faster-b, the same annotated by that revy (e.g. main's,
# for a runtime change's A/B in one run).
# Targets: recorded ≤ 1.0× the hook; counted (THROTTLE=on) ≤ 5 ns added per call.
set -euo pipefail
N=${1:-30000000}
ROUNDS=${2:-3}
case ${THROTTLE:-off} in
off) throttle_line='throttle = false' ;;
on | none) throttle_line='' ;;
*) echo "THROTTLE must be off, on or none" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
REVY=${REVY:-$repo/target/release/revy}
[ -x "$REVY" ] || (cd "$repo" && cargo build --release -q)
tmp=$(mktemp -d /tmp/revy-probe.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/src"
cat > "$tmp/src/counter.h" <<'EOF'
#ifndef COUNTER_H
#define COUNTER_H
class Counter {
public:
    Counter() : v_(0) {}
    void inc(int k);
    long get() const { return v_; }

private:
    long v_;
};
#endif
EOF
cat > "$tmp/src/counter.cc" <<'EOF'
#include "counter.h"
void Counter::inc(int k) { v_ += k; }
EOF
cat > "$tmp/src/bench.cc" <<'EOF'
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include "counter.h"
int main(int argc, char** argv) {
    long n = argc > 1 ? std::atol(argv[1]) : 1000;
    Counter c;
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) c.inc(static_cast<int>(i & 7));
    auto t1 = std::chrono::steady_clock::now();
    double ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
    std::printf("%.3f %ld\n", ns / n, c.get());
    return 0;
}
EOF
cat > "$tmp/hook.cc" <<'EOF'
#include <cstdint>
#include <x86intrin.h>
namespace {
struct Rec { void* fn; std::uint64_t t; };
thread_local Rec ring[1 << 16];
thread_local unsigned next;
}
extern "C" {
__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void* fn, void*) {
    Rec& r = ring[next++ & 0xffff];
    r.fn = fn;
    r.t = __rdtsc();
}
__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void* fn, void*) {
    Rec& r = ring[next++ & 0xffff];
    r.fn = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(fn) | 1);
    r.t = __rdtsc();
}
}
EOF
CXX="g++ -std=c++17 -O2"
$CXX -o "$tmp/plain" "$tmp/src/bench.cc" "$tmp/src/counter.cc"
$CXX -finstrument-functions -finstrument-functions-exclude-file-list=/usr/include \
  -o "$tmp/hook" "$tmp/src/bench.cc" "$tmp/src/counter.cc" "$tmp/hook.cc"
variants="plain hook better faster"
builds="better faster"
if [ -n "${HEADER_ONLY:-}" ]; then
  variants="$variants better-h faster-h"
  builds="$builds better-h faster-h"
fi
if [ -n "${REVY_B:-}" ]; then
  variants="$variants better-b faster-b"
  builds="$builds better-b faster-b"
fi
for v in $builds; do
  mode=${v%-[hb]}
  rv=$REVY
  [ "$v" = "$mode-b" ] && rv=$REVY_B
  d=$tmp/$v
  cp -r "$tmp/src" "$d"
  cat > "$d/revy.toml" <<EOF
[project]
name = "probe"
sources = ["counter.h", "counter.cc"]
build = "true"
run = "true"
[annotate]
mode = "$mode"
include = ["*"]
[trace]
path = ".revy/traces"
max_size = "8GiB"
$throttle_line
EOF
  form=shared
  [ "$v" = "$mode-h" ] && form=header
  (cd "$d" && "$rv" parse > /dev/null && REVY_CPP_RUNTIME=$form "$rv" annotate --$mode > /dev/null)
  $CXX -o "$tmp/$v.bin" "$d/bench.cc" "$d/counter.cc"
done

declare -A all
for r in $(seq "$ROUNDS"); do
  for v in $variants; do
    case $v in
    plain | hook) out=$("$tmp/$v" "$N") ;;
    *) rm -f "$tmp/$v.rvt"; out=$(REVY_TRACE=$tmp/$v.rvt "$tmp/$v.bin" "$N") ;;
    esac
    all[$v]="${all[$v]:-} ${out%% *}"
  done
done
# min and median of a variant's rounds
stat_of() { tr ' ' '\n' <<< "${all[$1]}" | grep . | sort -g | awk '{ a[NR] = $1 } END { printf "%s %s", a[1], (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
read -r plain plain_med <<< "$(stat_of plain)"
read -r hook hook_med <<< "$(stat_of hook)"
printf 'N=%d calls, %d interleaved rounds (-O2), load %s\n' "$N" "$ROUNDS" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-9s %9s %9s %10s %10s %9s %11s\n' variant min-ns med-ns added-min added-med xhook-min bytes/call
for v in $variants; do
  case $v in
  plain) bpc=- ;;
  hook) bpc="(32 in RAM)" ;;
  *) bpc=$(awk -v s="$(stat -c %s "$tmp/$v.rvt")" -v n="$N" 'BEGIN { printf "%.2f", s / n }') ;;
  esac
  read -r mn md <<< "$(stat_of "$v")"
  awk -v mn="$mn" -v md="$md" -v p="$plain" -v pm="$plain_med" -v h="$hook" -v v="$v" -v b="$bpc" \
    'BEGIN { printf "%-9s %9.2f %9.2f %10.2f %10.2f %9.2f %11s\n", v, mn, md, mn - p, md - pm, (h > p ? (mn - p) / (h - p) : 0), b }'
done
