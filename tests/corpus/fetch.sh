#!/bin/bash
# Fetches the real-code corpus (Debian source packages, see shared/corpus/README.md) into
# $CORPUS (default /tmp/corpus) and installs the test dependencies. Idempotent.
# Usage: tests/corpus/fetch.sh [package ...]   (default: all of them)
# The shared folder is found going up from here (shared/SPEC.md), or given as SHARED=DIR.
set -euo pipefail
C=${CORPUS:-/tmp/corpus}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/shared.sh"
shared=$(find_shared) || exit 2
mkdir -p "$C/src" "$C/w"
cp "$shared/corpus/outcomes.py" "$C/outcomes.py"
if [ ! -f /etc/apt/sources.list.d/debian-src.sources ]; then
  sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
    > /etc/apt/sources.list.d/debian-src.sources
  apt-get update -qq
fi
need=""
for p in dpkg-dev junit4 junit5 libhamcrest-java libeasymock-java libjsr305-java \
  libgoogle-gson-java libjetty9-java libservlet-api-java libcommons-lang3-java libcommons-io-java \
  libgtest-dev libgmock-dev googletest libbenchmark-dev cmake zlib1g-dev; do
  dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
[ -z "$need" ] || apt-get install -y -qq --no-upgrade $need >/dev/null
declare -A ver=(
  [jsoup]=1.15.3-1 [libcommons-codec-java]=1.15-1 [libcommons-collections4-java]=4.2-1
  [junit4]=4.13.2-3 [tinyxml2]=9.0.0+dfsg-3.1 [libjsoncpp]=1.9.5-4 [yaml-cpp]=0.7.0+dfsg-8
  [snappy]=1.1.9-3 [leveldb]=1.23-4 [cppunit]=1.15.1-4 [pugixml]=1.13-0.2
)
pkgs=("$@"); [ ${#pkgs[@]} -gt 0 ] || pkgs=("${!ver[@]}")
for p in "${pkgs[@]}"; do
  v=${ver[$p]:-}
  if [ -z "$v" ]; then
    v=$(grep -ho "apt-get source --download-only $p=[^ ]*" "$shared"/corpus/recipes/*.sh | head -1 | sed 's/.*=//')
  fi
  dsc=$(ls "$C/src/${p}_"*.dsc 2>/dev/null | head -1 || true)
  if [ -z "$dsc" ]; then
    (cd "$C/src" && apt-get source -qq --download-only "$p=$v" >/dev/null)
    dsc=$(ls "$C/src/${p}_"*.dsc | head -1)
  fi
  dir=$(ls -d "$C/w/$p"-*/ 2>/dev/null | head -1 || true)
  if [ -z "$dir" ]; then
    (cd "$C/w" && dpkg-source -q -x "$dsc" >/dev/null 2>&1)
  fi
done
ls "$C/w"
