#!/bin/bash
# Scaling benchmark (issue 10, item 8): `revy annotate` time on one generated Java file of
# 1, 2 and 5 MB (should grow linearly), and `revy parse` time and peak memory with 200k
# exclude globs in the manifest ([project] exclude and [annotate] exclude).
# Prints one line per run. Needs GNU time (/usr/bin/time).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cargo build --release -q --manifest-path "$root/Cargo.toml" --bin revy
revy=$root/target/release/revy
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

gen_java() { # MB FILE: classes of 20 small methods each, until the file has MB megabytes
  python3 - "$1" "$2" <<'PY'
import sys
target, out, parts, size, c = int(float(sys.argv[1]) * 1048576), sys.argv[2], ["package p;\n"], 11, 0
while size < target:
    body = "class C%d {\n  int v;\n" % c + "".join(
        "  public int m%d(int a, String s) { if (a > 0) { return a + v; } v += a; return s.length(); }\n" % m
        for m in range(20)) + "}\n"
    parts.append(body); size += len(body); c += 1
open(out, "w").write("".join(parts))
PY
}

for mb in 1 2 5; do
  d=$work/j$mb; mkdir -p "$d/src/p"; gen_java "$mb" "$d/src/p/Big.java"
  printf '[project]\nname = "s"\nsources = ["src/**/*.java"]\n' > "$d/revy.toml"
  cd "$d"; "$revy" parse >/dev/null 2>&1 || true
  # CPU time too: wall time on a shared machine says more about the neighbours.
  /usr/bin/time -f "annotate ${mb} MB Java file: %es wall, %Us user + %Ss sys, %M KiB peak" \
    "$revy" annotate 2>&1 >/dev/null | tail -1
  "$revy" restore >/dev/null
done

d=$work/g; mkdir -p "$d/src"; printf 'class A { void f() {} }\n' > "$d/src/A.java"
for kind in project annotate; do
  python3 - "$kind" "$d/revy.toml" <<'PY'
import sys
kind, out = sys.argv[1], sys.argv[2]
n = 200000
if kind == "project":   # half literal paths, half wildcards under their own folders
    ex = ['"src/gen/F%d.java"' % i for i in range(n // 2)] + ['"src/d%d/*.java"' % i for i in range(n // 2)]
    text = '[project]\nname = "g"\nsources = ["src/**/*.java"]\nexclude = [%s]\n' % ",".join(ex)
else:                   # class names, half literal, half with wildcards
    ex = ['"pkg.C%d"' % i for i in range(n // 2)] + ['"pkg.D%d.get*"' % i for i in range(n // 2)]
    text = '[project]\nname = "g"\nsources = ["src/**/*.java"]\n[annotate]\nexclude = [%s]\n' % ",".join(ex)
open(out, "w").write(text)
PY
  cd "$d"; /usr/bin/time -f "parse with 200k [$kind] exclude globs: %es wall, %Us user, %M KiB peak" "$revy" parse 2>&1 >/dev/null | tail -1
done
