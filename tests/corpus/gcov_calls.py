#!/usr/bin/env python3
"""Compares Revy's per-method call counts with gcov's function entry counts of the SAME run:
the annotated tree built with `--coverage -fprofile-update=atomic` as well (COVERAGE=1 of
cpp.sh), so the counts come from one execution and a suite whose work varies from run to
run (leveldb's background compactions) can still be checked method by method, against a
counter that is not Revy's.

Methods are matched by file, name and first line (the annotated sources keep the original
lines: `#line`; a template's function or one whose return type has a line of its own starts
a line or two later: the first line of the definition with a function of that name); a
template's instantiations are added up, as are a template's specialisations (their own
classes in the trace, the template's in the SAF). A method inlined everywhere (`always_inline`) has
no function for gcov to count: it is listed, not compared. gcov's deleting destructors
(D0: a wrapper that calls the complete-object one and frees) are left out; complete- and
base-object constructors and destructors (C1/C2, D1/D2) are added, as each runs once per
object or subobject made.

Usage: gcov_calls.py ROOT SAF ANALYSIS.json
  ROOT: the annotated tree (every *.gcda under it is read with `gcov --json-format`);
  SAF: its .revy/saf.toml; ANALYSIS.json: `revy analyze --format json` of the run's traces.
Prints what was compared, the verdict line ("same run: N methods equal / M") and the first
differences; exit 1 when a method's counts differ or nothing could be compared."""
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib


def simple_name(demangled):
    """`ns::Cls<T>::op[abi:cxx11](int) const` -> `op` (the ABI tag is there in some
    translation units' names of a function and not in others)."""
    s = re.sub(r'\[abi:[^\]]*\]', '', demangled.strip())
    s = re.sub(r'\s*(const|volatile|&&|&|noexcept)\s*$', '', s)
    if s.endswith(')'):
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            depth += {')': 1, '(': -1}.get(s[i], 0)
            if depth == 0:
                s = s[:i]
                break
    depth, cut = 0, 0
    for i, ch in enumerate(s):
        if ch in '<(':
            depth += 1
        elif ch in '>)':
            depth -= 1
        elif ch == ':' and depth == 0 and s[i:i + 2] == '::':
            cut = i + 2
    name = s[cut:]
    if name.startswith('operator'):
        # `operator=<int>`: a member template's arguments (the operator's own `<` kept).
        op = re.match(r'operator\s*(<<=|>>=|<=>|<<|>>|<=|>=|<|>|\(\)|\[\]|->\*|->|[^<(]*)', name)
        rest = name[op.end():]
        return op.group(0) if rest.startswith('<') and rest.endswith('>') else name
    return re.sub(r'<.*>$', '', name).split(' ')[-1]


def gcov_functions(root):
    """(file relative to root, start line) -> [(simple name, count)] over every .gcda."""
    out = {}
    gcdas = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith('.gcda')]
    with tempfile.TemporaryDirectory() as tmp:
        for g in gcdas:
            r = subprocess.run(['gcov', '--json-format', '--stdout', '-o', os.path.dirname(g), g],
                               cwd=tmp, capture_output=True)
            if r.returncode != 0:
                sys.exit('gcov failed on %s: %s' % (g, r.stderr.decode(errors='replace')[:200]))
            for line in r.stdout.splitlines():
                line = line.strip()
                if not line.startswith(b'{'):
                    continue
                d = json.loads(line)
                cwd = d.get('current_working_directory', root)
                for f in d.get('files', []):
                    path = os.path.relpath(os.path.normpath(os.path.join(cwd, f['file'])), root)
                    for fn in f.get('functions', []):
                        if re.search(r'D0Ev$', fn.get('name', '')):
                            continue
                        k = (path, fn['start_line'])
                        out.setdefault(k, []).append(
                            (simple_name(fn['demangled_name']), fn['execution_count']))
    return out, len(gcdas)


def saf_places(path):
    """(class, method, signature) -> [(file, first line, last line)]: a method defined in
    several places (the branches of an `#if`) has them all."""
    saf = tomllib.load(open(path, 'rb'))
    places = {}
    for c in saf.get('classes', []):
        for m in c.get('methods', []):
            if m.get('file') and m.get('lines'):
                k = (c.get('qname', c['name']), m['name'], m['sgn'])
                places.setdefault(k, []).append((m['file'], m['lines'][0], m['lines'][-1]))
    return places


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    root, saf, analysis = sys.argv[1:]
    funcs, ngcda = gcov_functions(os.path.abspath(root))
    places = saf_places(saf)
    a = json.load(open(analysis))
    # Revy's methods by their SAF entry: an explicit or partial specialisation is its own
    # class in the trace (`C<double>`) and the template's in the SAF, so its counts are
    # added to the template's and compared with all the gcov functions of those lines.
    revy, groups = {}, {}
    for m in a['methods']:
        k = (m['class'], m['method'], m['signature'])
        revy[k] = revy.get(k, 0) + m['calls']
        g = k if k in places else (re.sub(r'<.*>$', '', k[0]),) + k[1:]
        groups.setdefault(g, set()).add(k)
    equal, diff, missing = 0, [], []
    for g, keys in sorted(groups.items()):
        calls = sum(revy[k] for k in keys)
        at = places.get(g, [])
        count, seen = 0, False
        for f, lo, hi in at:
            # By name only (a lambda may start on the method's line); a template's
            # definition starts at `template <...>`, gcov's function at its name.
            want = g[1]
            lines = [line for line in range(lo, hi + 1)
                     if any(n == want for n, _ in funcs.get((f, line), []))]
            if not lines:
                # A conversion operator: Revy names it by its type, gcov `operator T`.
                want = 'operator '
                lines = [line for line in range(lo, hi + 1)
                         if any(n.startswith(want) for n, _ in funcs.get((f, line), []))]
            if not lines:
                continue
            # The first such line: nested functions of the name (a local class's) are not it.
            seen = True
            count += sum(c for n, c in funcs[(f, lines[0])]
                         if n == want or (want == 'operator ' and n.startswith(want)))
        place = ['%s:%d' % (f, lo) for f, lo, _ in at]
        if not seen:
            if calls:
                missing.append((g, calls, place))
            continue
        if count == calls:
            equal += len(keys)
        else:
            diff.append((g, calls, count, place, len(keys)))
    total = sum(revy.values())
    print('%d .gcda files; %d Revy methods with %d calls; compared %d with gcov '
          '(%d with calls but no gcov function at their line)' % (
              ngcda, len(revy), total, equal + sum(d[4] for d in diff), len(missing)))
    print('same run: %d methods equal / %d' % (equal, equal + sum(d[4] for d in diff)))
    for k, calls, count, place, _ in sorted(diff, key=lambda d: -abs(d[1] - d[2]))[:15]:
        print('  %s::%s %s at %s: Revy %d vs gcov %d' % (k[0], k[1], k[2], place, calls, count))
    for k, calls, place in missing[:10]:
        print('  no gcov function: %s::%s %s at %s (Revy %d calls)' % (k[0], k[1], k[2], place, calls))
    sys.exit(1 if diff or equal == 0 else 0)


main()
