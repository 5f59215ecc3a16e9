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
  [libcommons-lang3-java]=3.12.0-2+deb12u1 [libjackson2-core-java]=2.14.1-2~deb12u1
)
# Source packages (their .dsc and folder) not named after the binary package.
declare -A folder=([libjackson2-core-java]=jackson-core)
# What Maven would do before compiling, for the projects beyond the recipes (tried on
# 2026-11-27; see docs/results.md): tests needing jars Debian lacks (JUnit Pioneer, JMH) go, and
# jackson-core's PackageVersion is generated from its template.
prepare() {
  local p=$1 d=$2
  case $p in
    libcommons-lang3-java)
      grep -rlE 'junitpioneer|openjdk\.jmh' "$d/src/test/java" | xargs -r rm
      rm -f "$d/src/test/java/org/apache/commons/lang3/time/FastDateFormat_PrinterTest.java" ;;
    libjackson2-core-java)
      local v=$d/src/main/java/com/fasterxml/jackson/core/json/PackageVersion
      sed -e 's/@package@/com.fasterxml.jackson.core.json/; s/@projectversion@/2.14.1/' \
        -e 's/@projectgroupid@/com.fasterxml.jackson.core/; s/@projectartifactid@/jackson-core/' \
        "$v.java.in" > "$v.java"
      rm -rf "$d/src/test/java/perf" "$d/src/test/java/com/fasterxml/jackson/failing" ;;
  esac
}
pkgs=("$@"); [ ${#pkgs[@]} -gt 0 ] || pkgs=("${!ver[@]}")
for p in "${pkgs[@]}"; do
  v=${ver[$p]:-}
  if [ -z "$v" ]; then
    v=$(grep -ho "apt-get source --download-only $p=[^ ]*" "$shared"/corpus/recipes/*.sh | head -1 | sed 's/.*=//')
  fi
  dsc=$(ls "$C/src/${folder[$p]:-$p}_"*.dsc 2>/dev/null | head -1 || true)
  if [ -z "$dsc" ]; then
    (cd "$C/src" && apt-get source -qq --download-only "$p=$v" >/dev/null)
    dsc=$(ls "$C/src/${folder[$p]:-$p}_"*.dsc | head -1)
  fi
  dir=$(ls -d "$C/w/${folder[$p]:-$p}"-*/ 2>/dev/null | head -1 || true)
  if [ -z "$dir" ]; then
    (cd "$C/w" && dpkg-source -q -x "$dsc" >/dev/null 2>&1)
    prepare "$p" "$(ls -d "$C/w/${folder[$p]:-$p}"-*/ | head -1)"
  fi
done
ls "$C/w"
