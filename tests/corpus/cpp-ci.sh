#!/bin/bash
# CI part of issue 4 (acceptance 3): real C++ projects annotated in each mode, built with their
# unchanged builds, their own tests compared with the original's, traces read back, restore
# byte-identical. Runs tests/corpus/cpp.sh for tinyxml2 (plain g++, -std=c++11) and snappy
# (CMake, -fno-exceptions -fno-rtti) in both modes, then tinyxml2's call counts against gcov's
# in one run: a few minutes on 2 cores. leveldb (CMake,
# ~10 min per mode), jsoncpp, yaml-cpp, cppunit and pugixml run the same way by hand:
#   tests/corpus/cpp.sh leveldb better
# Usage: tests/corpus/cpp-ci.sh [PROJECT...]   (default: tinyxml2 snappy)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
projects=("$@"); [ ${#projects[@]} -gt 0 ] || projects=(tinyxml2 snappy)
declare -A pkg=([tinyxml2]=tinyxml2 [jsoncpp]=libjsoncpp [yaml-cpp]=yaml-cpp [snappy]=snappy [leveldb]=leveldb
  [cppunit]=cppunit [pugixml]=pugixml)
pkgs=(); for p in "${projects[@]}"; do pkgs+=("${pkg[$p]:?unknown project $p}"); done
"$here/fetch.sh" "${pkgs[@]}" > /dev/null || { echo "fetch failed" >&2; exit 2; }
[ -n "${REVY:-}" ] || (cd "$repo" && cargo build --release -q) || exit 2
passed=0; failed=0
for p in "${projects[@]}"; do
  for mode in better faster; do
    if "$here/cpp.sh" "$p" "$mode"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  done
done
# Whole-run statistics against a counter that is not Revy's: tinyxml2 annotated and built with
# gcov's counters too, every method's call count of the run (events and aggregates) compared
# with gcov's count of the same run (tests/corpus/gcov_calls.py, through table.sh GCOV=1).
if [[ " ${projects[*]} " == *" tinyxml2 "* ]]; then
  g=${REVY_SCRATCH:-/tmp/revy-corpus}-gcov
  if SCRATCH=$g GCOV=1 "$here/table.sh" tinyxml2 better > /dev/null; then
    passed=$((passed + 1)); echo "tinyxml2 better: $(sed -n 's/^same run: //p' "$g/tinyxml2/table-better/gcov.txt") (gcov, same run)"
  else
    failed=$((failed + 1)); echo "tinyxml2 better: the gcov check failed:"; cat "$g/tinyxml2/table-better/gcov.txt" 2>/dev/null
  fi
fi
echo "c++ corpus: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
