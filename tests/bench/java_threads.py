#!/usr/bin/env python3
# java_threads.py PARENT: CPU seconds (user + sys) of the threads of the `java` process that
# PARENT starts, summed by thread name without its trailing number ("C2 CompilerThread0" and
# "1" are "C2_CompilerThre"), from /proc/PID/task every 0.2 s; the last values seen before
# the JVM exits are printed (it misses under 0.2 s of each thread).
import os, sys, time, collections, re
parent = sys.argv[1]; hz = os.sysconf('SC_CLK_TCK')
seen = {}
def kids():
    out = []
    for p in os.listdir('/proc'):
        if p.isdigit():
            try:
                st = open('/proc/%s/stat' % p).read()
                if st.split(') ')[1].split()[1] == parent and '(java)' in st: out.append(p)
            except Exception: pass
    return out
pid = None
for _ in range(100):
    k = kids()
    if k: pid = k[0]; break
    time.sleep(0.05)
while pid and os.path.exists('/proc/%s' % pid):
    try:
        for t in os.listdir('/proc/%s/task' % pid):
            try:
                st = open('/proc/%s/task/%s/stat' % (pid, t)).read()
                comm = st[st.index('(')+1:st.rindex(')')]
                f = st[st.rindex(')')+2:].split()
                seen[t] = (comm, (int(f[11]) + int(f[12])) / hz)
            except Exception: pass
    except Exception: pass
    time.sleep(0.2)
g = collections.Counter()
for comm, c in seen.values():
    g[re.sub(r'\d+$', '', comm).strip()] += c
print(' '.join('%s=%.1f' % (k.replace(' ', '_'), v) for k, v in g.most_common(6)))
