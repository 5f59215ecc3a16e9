#!/usr/bin/env python3
"""Checks the record structure of a compact Revy trace (docs/trace-format.md) without
decoding events: blocks are skipped by their byte length. Prints
"records=R blocks=B events=N threads=T truncated=yes|no end=yes|no"; exits 1 when the file
is not a well-formed compact trace."""
import sys

def main(path):
    with open(path, 'rb') as f:
        data = memoryview(f.read())
    if bytes(data[:8]) != b'RVYTRC\x00\x01':
        sys.exit('%s: not a compact Revy trace (magic %r)' % (path, bytes(data[:8])))
    p = 8
    n = len(data)

    def v():
        nonlocal p
        x = s = 0
        while True:
            b = data[p]
            p += 1
            x |= (b & 0x7f) << s
            s += 7
            if b < 0x80:
                return x

    def skip_str():
        nonlocal p
        k = v()
        p += k

    records = blocks = events = threads = 0
    truncated = False
    end = None
    first = True
    try:
        while p < n:
            tag = chr(data[p])
            p += 1
            if first != (tag == 'H'):
                raise ValueError('H must be the first record')
            first = False
            if tag == 'H':
                skip_str()
            elif tag == 'C':
                v(); skip_str()
            elif tag == 'M':
                v(); v(); skip_str(); skip_str()
            elif tag == 'N':
                v(); skip_str(); threads += 1
            elif tag == 'B':
                v(); v(); events += v(); k = v(); p += k; blocks += 1
            elif tag == 'T':
                v(); truncated = True
            elif tag == 'E':
                end = v()
            else:
                raise ValueError('bad tag 0x%02x' % ord(tag))
            records += 1
            if p > n:
                raise ValueError('record runs past the end')
    except (ValueError, IndexError) as e:
        sys.exit('%s: malformed at byte %d: %s' % (path, p, e))
    if end is not None and end != events:
        sys.exit('%s: E says %d events, blocks hold %d' % (path, end, events))
    print('records=%d blocks=%d events=%d threads=%d truncated=%s end=%s' % (
        records, blocks, events, threads, 'yes' if truncated else 'no', 'yes' if end is not None else 'no'))

main(sys.argv[1])
