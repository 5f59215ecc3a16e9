#!/usr/bin/env python3
"""Compares per-method call counts of two `revy analyze --format json` outputs: a run at
default settings (events up to max_size and throttling, the rest aggregated) against an
exact run (throttle = false, a max_size the run never reaches). Prints one summary line and
the first differences; exit 1 when any method's count differs.
Usage: compare_calls.py DEFAULT.json EXACT.json"""
import json
import sys


def calls(path):
    a = json.load(open(path))
    out = {}
    for m in a['methods']:
        k = (m['class'], m['method'], m['signature'])
        out[k] = out.get(k, 0) + m['calls']
    return a, out


da, d = calls(sys.argv[1])
ea, e = calls(sys.argv[2])
keys = set(d) | set(e)
diff = sorted((k for k in keys if d.get(k, 0) != e.get(k, 0)),
              key=lambda k: -abs(d.get(k, 0) - e.get(k, 0)))
cov = da['trace'].get('coverage', {})
print('%d methods, %d calls default (%d recorded, %d aggregated, %d throttled) vs %d exact: '
      '%d methods differ, %d calls apart' % (
          len(keys), sum(d.values()), cov.get('recorded_calls', 0),
          cov.get('aggregated_calls', 0), len(cov.get('throttled', [])), sum(e.values()),
          len(diff), sum(abs(d.get(k, 0) - e.get(k, 0)) for k in diff)))
print('whole run: %d methods equal / %d' % (len(keys) - len(diff), len(keys)))
for k in diff[:10]:
    print('  %s.%s %s: %d vs %d' % (k[0], k[1], k[2], d.get(k, 0), e.get(k, 0)))
sys.exit(1 if diff else 0)
