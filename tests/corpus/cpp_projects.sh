#!/bin/bash
# What tests/corpus/cpp.sh and tests/bench/cpp_build.sh share about the C++ corpus projects
# (sourced, not run): `project P` sets src (the pristine tree under $C), sources and exclude
# (the manifest's globs: the library's main sources); `build` runs the recipe's exact build
# commands in the project's root (env: P, JOBS, COV); cpu_mark/cpu_secs time children's CPU.
# `many` is the generated project of many small files (tests/bench/many_files.py; its tree is
# made under $C/w on first use).

project() {
  local here
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  case $1 in
  tinyxml2) src=$C/w/tinyxml2-9.0.0+dfsg
    sources='["tinyxml2.cpp", "tinyxml2.h"]'; exclude='[]' ;;
  jsoncpp) src=$C/w/libjsoncpp-1.9.5
    sources='["src/lib_json/*.cpp", "src/lib_json/*.h", "src/lib_json/*.inl", "include/json/*.h"]'
    exclude='[]' ;;
  yaml-cpp) src=$C/w/yaml-cpp-0.7.0+dfsg
    sources='["src/**/*.cpp", "src/**/*.h", "include/**/*.h"]'; exclude='[]' ;;
  snappy) src=$C/w/snappy-1.1.9
    sources='["snappy.cc", "snappy.h", "snappy-internal.h", "snappy-sinksource.cc", "snappy-sinksource.h", "snappy-stubs-internal.cc", "snappy-stubs-internal.h", "snappy-c.cc", "snappy-c.h"]'
    exclude='[]' ;;
  leveldb) src=$C/w/leveldb-1.23
    sources='["db/*.cc", "db/*.h", "table/*.cc", "table/*.h", "util/*.cc", "util/*.h", "helpers/memenv/*.cc", "helpers/memenv/*.h", "include/leveldb/*.h", "port/*.h"]'
    exclude='["**/*_test.cc", "**/*_bench.cc", "util/testutil.*", "util/testharness.*", "db/leveldbutil.cc", "util/env_windows*", "util/windows_logger.h", "port/port_example.h"]' ;;
  cppunit) src=$C/w/cppunit-1.15.1  # multiple inheritance (TestCase), explicit specialisations
    sources='["src/cppunit/*.cpp", "include/cppunit/**/*.h"]'
    exclude='["src/cppunit/DllMain.cpp", "include/cppunit/config/config-msvc6.h", "include/cppunit/config/config-bcb5.h", "include/cppunit/config/config-evc4.h", "include/cppunit/plugin/*.h", "src/cppunit/*PlugIn*.cpp", "src/cppunit/Win32*.cpp", "src/cppunit/*DynamicLibraryManager*.cpp"]' ;;
  pugixml) src=$C/w/pugixml-1.13  # xml_document_struct : xml_node_struct, xml_allocator; wchar_selector<2>/<4>
    sources='["src/pugixml.cpp", "src/pugixml.hpp", "src/pugiconfig.hpp"]'; exclude='[]' ;;
  many) src=$C/w/many-files-200
    [ -d "$src" ] || python3 "$here/../bench/many_files.py" 200 "$src" || return 2
    sources='["src/*.cpp", "src/*.h"]'; exclude='[]' ;;
  *) echo "unknown project $1" >&2; return 2 ;;
  esac
  [ -d "$src" ] || { echo "$src missing: run tests/corpus/fetch.sh" >&2; return 2; }
}

# manifest DIR MODE: DIR/revy.toml annotating every source of project $P (sources, exclude)
# in MODE; the build runs outside Revy. Callers append their own sections.
manifest() {
  cat > "$1/revy.toml" <<EOF
[project]
name = "$P"
sources = $sources
exclude = $exclude
build = "true"
run = "true"

[annotate]
mode = "$2"
include = ["*"]
EOF
}

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
# cpu_mark FILE: saves this shell's `times` (not in a subshell: it must see the finished
# children); cpu_secs A B: the children's CPU seconds (user + sys) between two marks.
# CPU_DIGITS (default 1): decimals of cpu_secs and stats.
cpu_mark() { times > "$1"; }
cpu_secs() { awk -v d="${CPU_DIGITS:-1}" 'FNR == 2 { for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t[FILENAME] += a[1] * 60 + a[2] } }
  END { printf "%.*f", d, t[ARGV[2]] - t[ARGV[1]] }' "$1" "$2"; }
# timed_build DIR MARKS: CPU seconds of a clean build in DIR (prints them; fails with the
# build), its `times` marks kept in the folder MARKS.
timed_build() {
  rm -rf "$1/build"
  cpu_mark "$2/t0"
  (cd "$1" && build) > "$1.build.log" 2>&1 || return 1
  cpu_mark "$2/t1"
  cpu_secs "$2/t0" "$2/t1"
}
# stats NUMBER...: "min median".
stats() {
  printf '%s\n' "$@" | sort -g | awk -v d="${CPU_DIGITS:-1}" '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.*f %.*f", d, v[1], d, m }'
}

# ---- the recipes' exact build and test commands (run in the project's root) ---------------
# COV: extra compiler and linker flags, empty but for the annotated build with COVERAGE=1;
# cmake gets them as cache entries only then, so the recipes' commands are otherwise as given.
export COV=
build() {
  local covargs=()
  [ -z "$COV" ] || covargs=("-DCMAKE_CXX_FLAGS=$COV" "-DCMAKE_C_FLAGS=$COV" "-DCMAKE_EXE_LINKER_FLAGS=$COV")
  case $P in
  tinyxml2) mkdir -p build && g++ -std=c++11 -O0 -g -Wall $COV -o build/xmltest tinyxml2.cpp xmltest.cpp ;;
  jsoncpp) mkdir -p build
    LIB="src/lib_json/json_reader.cpp src/lib_json/json_value.cpp src/lib_json/json_writer.cpp"
    FLAGS="-std=c++11 -O0 -g -Iinclude -Isrc/lib_json $COV"
    g++ $FLAGS -o build/jsoncpp_test $LIB src/test_lib_json/jsontest.cpp src/test_lib_json/fuzz.cpp src/test_lib_json/main.cpp &&
      g++ $FLAGS -o build/jsontestrunner $LIB src/jsontestrunner/main.cpp ;;
  yaml-cpp) mkdir -p build/obj build/reports
    export CXXFLAGS="-std=c++11 -O0 -g -Iinclude -Isrc -Itest $COV"
    printf '%s\n' src/*.cpp src/contrib/*.cpp test/*.cpp test/integration/*.cpp test/node/*.cpp |
      xargs -P"$JOBS" -I{} sh -c 'g++ $CXXFLAGS -c "{}" -o "build/obj/$(echo "{}" | tr / _).o"' &&
      g++ $COV -o build/yaml-cpp-tests build/obj/*.o -lgmock -lgtest -pthread ;;
  snappy) cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug -DSNAPPY_BUILD_TESTS=ON -DSNAPPY_BUILD_BENCHMARKS=OFF \
      -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "${covargs[@]}" > build.cfg.log &&
      make -C build -j"$JOBS" snappy_unittest > build.log ;;
  leveldb) cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug -DLEVELDB_BUILD_TESTS=ON -DLEVELDB_BUILD_BENCHMARKS=OFF \
      -DBUILD_SHARED_LIBS=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "${covargs[@]}" > build.cfg.log &&
      make -C build -j"$JOBS" > build.log ;;
  cppunit) [ -f include/cppunit/config-auto.h ] || ./configure -q --disable-doxygen > build.cfg.log
    # The library and its own test suite (examples/cppunittest), as the Makefiles list them.
    mkdir -p build/obj
    lib=$(sed -n '/^libcppunit_la_SOURCES/,/^$/p' src/cppunit/Makefile.am | grep -o '[A-Za-z_]*\.cpp' | sed 's|^|src/cppunit/|')
    tst=$(sed -n '/^cppunittestmain_SOURCES/,/^$/p' examples/cppunittest/Makefile.am | grep -o '[A-Za-z_]*\.cpp' | sed 's|^|examples/cppunittest/|')
    printf '%s\n' $lib $tst | xargs -P"$JOBS" -I{} sh -c \
      'g++ -std=c++11 -O0 -g -Wall $COV -Iinclude -Iexamples/cppunittest -c "{}" -o "build/obj/$(echo "{}" | tr / _).o"' &&
      g++ $COV -o build/cppunittestmain build/obj/*.o -ldl ;;
  pugixml) cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug -DPUGIXML_BUILD_TESTS=ON \
      -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "${covargs[@]}" > build.cfg.log &&
      make -C build -j"$JOBS" pugixml-check > build.log ;;
  many) make -j"$JOBS" > build.log ;;
  esac
}
