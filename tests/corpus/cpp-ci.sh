#!/bin/bash
# CI part of issue 4 (acceptance 3): real C++ projects annotated in each mode, built with their
# unchanged builds, their own tests compared with the original's, traces read back, restore
# byte-identical. Runs tests/corpus/cpp.sh for tinyxml2 (plain g++, -std=c++11) and snappy
# (CMake, -fno-exceptions -fno-rtti) in both modes: a few minutes on 2 cores. leveldb (CMake,
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
echo "c++ corpus: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
