#!/usr/bin/env python3
"""Compares per-method call counts of two `revy analyze --format json` outputs: a run at
default settings (events up to max_size and throttling, the rest aggregated) against an
exact run (throttle = false, a max_size the run never reaches). Prints one summary line and
the first differences; exit 1 when any method's count differs.
With a second exact run (CONTROL.json), methods whose counts differ between the two exact
runs are the suite's own variation (random test data, timing): they are listed apart and
only the others decide the verdict.
Usage: compare_calls.py DEFAULT.json EXACT.json [CONTROL.json]"""
import json
import sys


def calls(path):
    a = json.load(open(path))
    out = {}
    for m in a['methods']:
        k = (m['class'], m['method'], m['signature'])
        out[k] = out.get(k, 0) + m['calls']
    return a, out


def show(k, *counts):
    print('  %s.%s %s: %s' % (k[0], k[1], k[2], ' vs '.join(str(c.get(k, 0)) for c in counts)))


da, d = calls(sys.argv[1])
ea, e = calls(sys.argv[2])
c = calls(sys.argv[3])[1] if len(sys.argv) > 3 else e
keys = set(d) | set(e)
unstable = {k for k in keys | set(c) if e.get(k, 0) != c.get(k, 0)}
diff = sorted((k for k in keys if d.get(k, 0) != e.get(k, 0) and k not in unstable),
              key=lambda k: -abs(d.get(k, 0) - e.get(k, 0)))
cov = da['trace'].get('coverage', {})
print('%d methods, %d calls default (%d recorded, %d aggregated, %d throttled) vs %d exact: '
      '%d methods differ, %d calls apart' % (
          len(keys), sum(d.values()), cov.get('recorded_calls', 0),
          cov.get('aggregated_calls', 0), len(cov.get('throttled', [])), sum(e.values()),
          len(diff), sum(abs(d.get(k, 0) - e.get(k, 0)) for k in diff)))
if unstable:
    print('whole run: %d methods equal / %d (%d more vary between the two exact runs too)' % (
        len(keys - unstable) - len(diff), len(keys - unstable), len(unstable)))
else:
    print('whole run: %d methods equal / %d' % (len(keys) - len(diff), len(keys)))
for k in diff[:10]:
    show(k, d, e)
if unstable:
    print('vary between exact runs (default vs exact vs control):')
    for k in sorted(unstable, key=lambda k: -abs(e.get(k, 0) - c.get(k, 0)))[:10]:
        show(k, d, e, c)
sys.exit(1 if diff else 0)
