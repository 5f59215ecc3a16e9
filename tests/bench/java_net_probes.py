#!/usr/bin/env python3
"""Per recorded call of jsoup's eight parser methods: mean duration, recorded descendants' starts,
those times the probe figure (argv[1], the header's probe_ns), and the rest (docs/java-overhead.md).
Usage: revy trace print TRACE | head -40000000 | python3 tests/bench/java_net_probes.py PROBE_NS"""
import collections
import re
import sys

want = {'HtmlTreeBuilder.insert','HtmlTreeBuilder.process','HtmlTreeBuilder.insertNode','HtmlTreeBuilderState.process','HtmlTreeBuilderState.inBodyStartTag','Tokeniser.read','Element.appendChild'}
P = float(sys.argv[1])
stack = []; starts = 0; crts = 0
acc = collections.defaultdict(lambda: [0,0,0,0])
rx = re.compile(r'cls=(\S+) oid=\S+ mth=(\S+) .* t=(\d+)')
for line in sys.stdin:
    c = line[:4]
    if c == '<Msg':
        m = rx.search(line); starts += 1
        stack.append((m.group(1).rsplit('.',1)[-1]+'.'+m.group(2), int(m.group(3)), starts, crts))
    elif c == '</Ms':
        if not stack: continue
        m = rx.search(line)
        k, t0, s0, c0 = stack.pop()
        if k in want:
            a = acc[k]; a[0] += 1; a[1] += int(m.group(3)) - t0; a[2] += starts - s0; a[3] += crts - c0
    elif c == '<Crt':
        crts += 1
    elif line.startswith('#'):
        stack = []
for k, (n, d, s, cr) in sorted(acc.items(), key=lambda kv: -kv[1][0]):
    print('%-40s calls %8d  mean %8.0f ns  rec callee starts %7.1f (x%.1f = %8.0f ns)  Crt %5.1f  net %8.0f' % (k, n, d/n, s/n, P, s/n*P, cr/n, (d - s*P)/n))
