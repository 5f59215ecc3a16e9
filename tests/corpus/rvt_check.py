#!/usr/bin/env python3
"""Reads compact Revy traces (annotator/trace/FORMAT.md) completely and checks them: magic, header
first, every record well formed, definitions before use, balanced messages per thread,
Crt/Dst pairing; aggregate (A) and throttle (X) records name defined methods, and the calls
they count are reported (recorded + aggregated = every call of the run). Prints one summary line per file; exit 1 if any file is unreadable.
Events are decoded in the first DEEP bytes of block data (env RVT_DEEP, default 64 MiB; 0 =
everything); past that, records are walked structurally (block headers and lengths, definitions).
RVT_COUNTS=1 also prints, per file, the decoded creations per class and the starts with oid 0 per
method of a class that has instances (its static methods, and a constructor whose start never got
its object's ID), for comparing two runs (issue 34).
Usage: rvt_check.py FILE..."""
import os
import sys


DEEP = int(os.environ.get('RVT_DEEP', str(64 << 20)))
COUNTS = os.environ.get('RVT_COUNTS') == '1'


class Bad(Exception):
    pass


def check(path):
    data = open(path, 'rb').read()
    if data[:8] != b'RVYTRC\x00\x01':
        raise Bad('bad magic')
    pos = 8

    def v():
        nonlocal pos
        r = s = 0
        while True:
            if pos >= len(data):
                raise EOFError
            b = data[pos]
            pos += 1
            r |= (b & 0x7f) << s
            s += 7
            if b < 0x80:
                return r

    def z():
        n = v()
        return (n >> 1) ^ -(n & 1)

    def st():
        nonlocal pos
        n = v()
        if pos + n > len(data):
            raise EOFError
        t = data[pos:pos + n].decode('utf-8')
        pos += n
        return t

    classes, methods, threads = {}, {}, {}
    stacks = {}
    live = {}
    by_class, zero_starts = {}, {}
    header = None
    events = crt = dst = msgs = 0
    agg_calls = 0
    throttled = set()
    end = None
    truncated = False
    complete_to = pos
    deep_done = skipped = 0
    try:
        while pos < len(data):
            tag = data[pos]
            pos += 1
            if header is None and tag != ord('H'):
                raise Bad('first record is not the header')
            if tag == ord('H'):
                header = st()
            elif tag == ord('C'):
                c = v()
                classes[c] = st()
            elif tag == ord('M'):
                m = v()
                c = v()
                if c not in classes:
                    raise Bad('method %d of undefined class %d' % (m, c))
                methods[m] = (c, st(), st())
            elif tag == ord('N'):
                t = v()
                threads[t] = st()
            elif tag == ord('B'):
                tid, _base, count, length = v(), v(), v(), v()
                stop = pos + length
                if stop > len(data):
                    raise EOFError
                if tid not in threads:
                    raise Bad('block of unnamed thread %d' % tid)
                stack = stacks.setdefault(tid, [])
                if DEEP and deep_done >= DEEP:
                    pos = stop
                    skipped += count
                    count = 0
                deep_done += length
                for _ in range(count):
                    kind = data[pos]
                    pos += 1
                    if kind == 1:
                        c, o, _s = v(), v(), v()
                        if c not in classes:
                            raise Bad('Crt of undefined class %d' % c)
                        if o in live:
                            raise Bad('oid %d created twice' % o)
                        live[o] = c
                        crt += 1
                        by_class[c] = by_class.get(c, 0) + 1
                    elif kind == 2:
                        c, o = v(), v()
                        if c not in classes:
                            raise Bad('Dst of undefined class %d' % c)
                        live.pop(o, None)
                        dst += 1
                    elif kind == 3:
                        m, o, _s = v(), v(), v()
                        if m not in methods:
                            raise Bad('message of undefined method %d' % m)
                        stack.append((m, o))
                        msgs += 1
                        if o == 0:
                            zero_starts[m] = zero_starts.get(m, 0) + 1
                    elif kind in (4, 5):
                        m, o = v(), v()
                        if kind == 5:
                            v()  # the call's on-CPU time
                        if stack and stack[-1] == (m, o):
                            stack.pop()
                        else:
                            raise Bad('unbalanced end of method %d on thread %d' % (m, tid))
                    elif kind == 6:
                        # a key a message carries across threads or processes
                        m, _key = v(), v()
                        if m not in methods:
                            raise Bad('key of undefined method %d' % m)
                    elif kind == 7:
                        # a bare end: the end of the thread's innermost open start
                        if not stack:
                            raise Bad('bare end with no open start on thread %d' % tid)
                        stack.pop()
                    else:
                        raise Bad('bad event kind %d at %d' % (kind, pos - 1))
                    z()
                    events += 1
                if pos != stop:
                    raise Bad('block length mismatch at %d' % pos)
            elif tag == ord('T'):
                v()
                truncated = True
            elif tag == ord('X'):
                _tid, m, _t, _calls, _total = v(), v(), v(), v(), v()
                if m not in methods:
                    raise Bad('X record of undefined method %d' % m)
                throttled.add(m)
            elif tag == ord('A'):
                _tid, _last = v(), v()
                for _ in range(v()):
                    m = v()
                    if m not in methods:
                        raise Bad('A record of undefined method %d' % m)
                    agg_calls += v()
                    v(), z()
                    for _ in range(7):
                        v()
                for _ in range(v()):
                    s = v()
                    if s and s - 1 not in methods:
                        raise Bad('A record edge from undefined method %d' % (s - 1))
                    v()
                    if v() not in methods:
                        raise Bad('A record edge to an undefined method')
                    v(), v(), v(), z(), v()
                v(), v()
            elif tag == ord('F'):
                _tid = v()
                for _ in range(v()):
                    m = v()
                    if m not in methods:
                        raise Bad('F record of undefined method %d' % m)
                    v(), v(), v()
            elif tag == ord('O'):
                _tid = v()
                for _ in range(v()):
                    c = v()
                    if c not in classes:
                        raise Bad('O record of undefined class %d' % c)
                    v(), v(), v(), v()
            elif tag == ord('S'):
                _tid, m = v(), v()
                if m not in methods:
                    raise Bad('S record of undefined method %d' % m)
                v(), v(), v(), v(), v()
            elif tag == ord('E'):
                end = v()
            else:
                raise Bad('bad record tag %d at %d' % (tag, pos - 1))
            complete_to = pos
    except EOFError:
        pass
    if header is None:
        raise Bad('no header')
    if end is not None and end != events + skipped:
        raise Bad('E says %d events, read %d' % (end, events + skipped))
    status = ('truncated at max_size, ' if truncated else '') + (
        'end' if end is not None else 'no end mark (killed?) after byte %d' % complete_to)
    if COUNTS:
        for c in sorted(by_class, key=lambda c: classes[c]):
            print('%s: created %s %d' % (path, classes[c], by_class[c]))
        for m in sorted(zero_starts, key=lambda m: (classes[methods[m][0]], methods[m][1:])):
            if methods[m][0] in by_class:
                print('%s: oid-0 starts %s.%s%s %d' % (path, classes[methods[m][0]],
                                                        methods[m][1], methods[m][2],
                                                        zero_starts[m]))
    # The trailing key=value pairs are what tests/corpus/java.sh reads.
    return ('%s: %d bytes, %d events (%d decoded: %d messages, %d Crt, %d Dst), %d classes, '
            '%d methods, %d threads, %s; events=%d truncated=%s aggregated=%d throttled=%d'
            % (path, len(data), events + skipped, events, msgs, crt, dst, len(classes),
               len(methods), len(threads), status, events + skipped,
               'yes' if truncated else 'no', agg_calls, len(throttled)))


bad = 0
for f in sys.argv[1:]:
    try:
        print(check(f))
    except (Bad, UnicodeDecodeError) as e:
        print('%s: UNREADABLE: %s' % (f, e))
        bad += 1
sys.exit(1 if bad else 0)
