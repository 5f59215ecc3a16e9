#!/usr/bin/env python3
"""The structure figures ARCHITECTURE.md quotes, recounted from the sources.

    python3 tests/arch/measure.py          # pub items and lines per folder/crate
    python3 tests/arch/measure.py --items  # also list every reachable pub item

Reachable pub items: from annotator/src/lib.rs, follow `pub mod` declarations (never
`pub(crate) mod` or private ones); in every file reached, count the declarations marked
plain `pub` (fn, struct, enum, trait, type, const, static, use, mod, union; methods in impl
blocks included; fields and `#[cfg(test)]` modules not). These are what the binary, the
tests, the examples and other crates can name. revy-trace (annotator/trace) is a crate of
its own whose API is public by design and is not counted.
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
ITEM = re.compile(r'^\s*pub\s+(?:(?:unsafe|async|const|extern\s+"C")\s+)*'
                  r'(fn|struct|enum|trait|type|const|static|use|mod|union)\b\s*(\w+)?')
PUB_MOD = re.compile(r"^\s*pub\s+mod\s+(\w+)\s*;")
TEST_MOD = re.compile(r"(pub(\(\w+\))?\s+)?mod\s+\w+\s*\{")


def child(path, name):
    folder = os.path.dirname(path)
    if os.path.basename(path) not in ("lib.rs", "mod.rs", "main.rs"):
        folder = path[:-3]
    for cand in (os.path.join(folder, name + ".rs"), os.path.join(folder, name, "mod.rs")):
        if os.path.exists(cand):
            return cand
    return None


def pub_items(lib):
    """(file, kind, name) of every pub item reachable from `lib`."""
    items, todo = [], [lib]
    while todo:
        path = todo.pop()
        depth, skip_at, cfg_test = 0, None, False
        for line in open(path, encoding="utf-8"):
            s = line.strip()
            if s.startswith("#[cfg(test)]"):
                cfg_test = True
                continue
            if skip_at is None and cfg_test and TEST_MOD.match(s):
                skip_at = depth
            cfg_test = cfg_test and s.startswith("#[")
            skipping = skip_at is not None
            depth += line.count("{") - line.count("}")
            if skipping:
                if depth <= skip_at:
                    skip_at = None
                continue
            m = PUB_MOD.match(line)
            if m and child(path, m.group(1)):
                todo.append(child(path, m.group(1)))
            m = ITEM.match(line)
            if m:
                items.append((os.path.relpath(path, ROOT), m.group(1), m.group(2) or ""))
    return items


FOLDERS = [
    ("annotator/src/cli", (".rs",)),
    ("annotator/src/run", (".rs",)),
    ("annotator/src/analyse", (".rs", ".js", ".html", ".css")),
    ("annotator/src/instrument", (".rs",)),
    ("annotator/src/util", (".rs",)),
    ("annotator/trace (crate revy-trace)", (".rs",)),
    ("runtime-java", (".java",)),
    ("runtime-cpp", (".hpp",)),
    ("annotator/tests", (".rs",)),
]


def lines(folder, exts):
    total = 0
    for base, _, files in os.walk(os.path.join(ROOT, folder.split(" ")[0])):
        if "/target" in base or "/fixtures" in base:
            continue
        for f in files:
            if f.endswith(exts):
                with open(os.path.join(base, f), "rb") as fh:
                    total += fh.read().count(b"\n")
    return total


def main():
    items = pub_items(os.path.join(ROOT, "annotator/src/lib.rs"))
    if "--items" in sys.argv:
        for path, kind, name in items:
            print(f"{path}: {kind} {name}")
    print(f"pub items reachable from annotator/src/lib.rs: {len(items)}")
    print("\n| folder / crate | lines |\n| --- | ---: |")
    for folder, exts in FOLDERS:
        print(f"| `{folder}` | {lines(folder, exts):,} |")


if __name__ == "__main__":
    main()
