package revy.runtime;

import java.lang.ref.WeakReference;

/**
 * One thread's event buffer. Only the owning thread appends; a flush (by the owner when the
 * buffer is full, or by the exit hook for every thread) holds this object's monitor.
 */
final class RvBuf {
    static final int CAP = 64 * 1024;
    /** Largest event: kind + 5 + 10 + 10 + 10 bytes. */
    private static final int LIMIT = CAP - 40;

    static final ThreadLocal<RvBuf> TL = new ThreadLocal<RvBuf>() {
        @Override
        protected RvBuf initialValue() {
            return RvTrace.newBuffer(Thread.currentThread());
        }
    };

    final byte[] b = new byte[CAP];
    /** Bytes used; written by the owner after an event's bytes are complete. */
    int n;
    int count;
    long base;
    long last;
    final long tid;
    /** Above 0 while a size helper runs on this thread: its calls into user code are not logged. */
    int quiet;
    /**
     * Objects whose own ID field was still 0 when one of their methods ran (called by their
     * superclass's constructor, before the field's initialiser), and the non-intrusive IDs
     * they got then: the initialiser ({@link Rv#created}) takes that ID instead of a second
     * one. Several, as such a method may construct another such object (nested); the oldest
     * is dropped past {@link #EARLY} (e.g. objects whose construction threw).
     */
    private Object[] early;
    private long[] earlyOid;
    private int earlyN;
    static final int EARLY = 8;
    final WeakReference<Thread> thread;
    /**
     * The owning thread, for {@link Rv#buf}'s check; weakly held while it is not the last
     * caller: cleared when the buffer is flushed as a dead thread's ({@link #release}).
     */
    Thread owner;

    RvBuf(Thread t) {
        this.tid = t.getId();
        this.thread = new WeakReference<Thread>(t);
        this.owner = t;
    }

    /** The thread is gone: its buffer no longer keeps it. */
    void release() {
        owner = null;
    }

    /** Remembers {@code o}'s early ID until its initialiser takes it. */
    void early(Object o, long oid) {
        if (early == null) {
            early = new Object[EARLY];
            earlyOid = new long[EARLY];
        }
        if (earlyN == EARLY) {
            System.arraycopy(early, 1, early, 0, EARLY - 1);
            System.arraycopy(earlyOid, 1, earlyOid, 0, EARLY - 1);
            earlyN--;
        }
        early[earlyN] = o;
        earlyOid[earlyN++] = oid;
    }

    /** The early ID of {@code o} (forgotten now), or 0: the newest first, as they nest. */
    long takeEarly(Object o) {
        for (int i = earlyN - 1; i >= 0; i--) {
            if (early[i] == o) {
                long oid = earlyOid[i];
                System.arraycopy(early, i + 1, early, i, earlyN - 1 - i);
                System.arraycopy(earlyOid, i + 1, earlyOid, i, earlyN - 1 - i);
                early[--earlyN] = null;
                return oid;
            }
        }
        return 0L;
    }

    /** Event kinds of the compact trace form (annotator/trace/FORMAT.md); END_CPU: with on-CPU time. */
    static final int CRT = 1, DST = 2, START = 3, END = 4, END_CPU = 5;

    // The shadow stack of open calls: which are recorded as events, and the time of their
    // callees, so what is not recorded is aggregated with its sender and net time.
    int depth;
    int[] fMid = new int[32];
    long[] fOid = new long[32];
    long[] fT = new long[32];
    long[] fChild = new long[32];
    long[] fHidden = new long[32];
    long[] fSize = new long[32];
    boolean[] fRec = new boolean[32];
    /** A recorded call's thread CPU time at its start (-1: its CPU time is not measured). */
    long[] fCpu = new long[32];
    /** Untimed calls of throttled methods (their time is estimated). */
    boolean[] fEst = new boolean[32];
    /** Per method id: calls, their total time on this thread (the throttle rule), and the total at half-way. */
    private long[] tc = new long[0];
    /** The probe-cost measurement's buffer: never throttles. */
    boolean scratch;
    /** Created at the first unrecorded call. */
    RvAgg agg;
    long lastT;
    /** Estimated (untimed) calls were counted: the A record's last time is taken when written. */
    boolean untimed;

    /**
     * A call starts: counted (a throttled method: no clock), else timed (below). Small, so
     * that the JIT inlines it into the generated code: the counted path is a frame push.
     */
    void start(int mid, long oid, long size) {
        int d = depth;
        if (RvTable.THROTTLE_CALLS > 0L && d < fMid.length && RvTrace.estimate.get(mid) != 0L
                && !scratch) {
            fMid[d] = mid;
            fOid[d] = oid;
            fChild[d] = 0L;
            fSize[d] = size < 0L ? RvTrace.estimateSize[mid] : size;
            fRec[d] = false;
            fEst[d] = true;
            depth = d + 1;
            return;
        }
        startTimed(d, mid, oid, size);
    }

    // Timing a sample of throttled calls to follow phase changes is off: the sampled calls
    // measured ~40x the real call (interpreted after the JIT deoptimised the timed path) and
    // re-estimated whole runs 30x too high. Counted calls keep the verdict's median estimate.

    /** A call starts: recorded, or (past the limit, throttled, under an unrecorded call) kept. */
    private void startTimed(int d, int mid, long oid, long size) {
        if (d == fMid.length) {
            growStack();
        }
        if (RvTable.THROTTLE_CALLS > 0L && RvTrace.estimate.get(mid) != 0L && !scratch) {
            startEstimated(d, mid, oid, size);
            return;
        }
        if (size < 0L) {
            // better mode skipped the walk of a throttled method's arguments
            size = RvTrace.estimateSize[mid];
        }
        long t = System.nanoTime() - RvTrace.t0;
        boolean rec = RvTrace.live && (d == 0 || fRec[d - 1]) && !RvTrace.throttled[mid];
        fMid[d] = mid;
        fOid[d] = oid;
        fT[d] = t;
        fChild[d] = 0L;
        fHidden[d] = 0L;
        fSize[d] = size;
        fRec[d] = rec;
        fEst[d] = false;
        depth = d + 1;
        if (rec) {
            if (!RvTrace.mdef[mid]) {
                RvTrace.defineMethod(mid);
            }
            evAt(START, mid, oid, size, true, t);
            fCpu[d] = RvCpu.SCORE[mid] != 0 ? RvCpu.now() : -1L;
        }
    }

    /** A call ends: a counted one without a clock read (small, to be inlined), else timed. */
    void end(int mid, long oid) {
        int d = depth - 1;
        if (d >= 0 && fEst[d] && fMid[d] == mid && fOid[d] == oid) {
            depth = d;
            fEst[d] = false;
            long child = fChild[d];
            long a = Math.max(RvTrace.estimate.get(mid) - 1L, child);
            if (d > 0) {
                fChild[d - 1] += a;
                if (fRec[d - 1]) {
                    fHidden[d - 1] += a;
                }
            }
            long size = fSize[d];
            // the common case: one more call of a run of equal ones (no callees)
            if (child == 0L && d == runD && mid == runMid && oid == runOid && size == runSize
                    && a == runA && (d == 0 || (fMid[d - 1] == runSMid && fOid[d - 1] == runSOid))) {
                runN++;
                return;
            }
            counted(d, a, child);
            return;
        }
        endTimed(mid, oid);
    }

    // A run of counted calls alike (depth, method, receiver, caller, size, time; no callees)
    // goes into the aggregates in one step: a counted call is then a frame push and pop.
    private int runD = -1;
    private int runMid;
    private int runSMid;
    private long runOid;
    private long runSOid;
    private long runSize;
    private long runA;
    private long runN;

    /** A counted call that does not extend the run: flushes it, and starts one when it can. */
    private void counted(int d, long a, long child) {
        flushRun();
        untimed = true;
        if (child != 0L) {
            aggs().add(this, d, a);
            return;
        }
        runD = d;
        runMid = fMid[d];
        runOid = fOid[d];
        runSMid = d > 0 ? fMid[d - 1] : 0;
        runSOid = d > 0 ? fOid[d - 1] : 0L;
        runSize = fSize[d];
        runA = a;
        runN = 1L;
    }

    /** Adds the pending run of counted calls to the aggregates (before they are read). */
    void flushRun() {
        long n = runN;
        if (n == 0L) {
            return;
        }
        runN = 0L;
        int s = runD > 0 ? runSMid + 1 : 0;
        aggs().put(s, runSOid, runMid, runOid, n, runA, runA, runSize);
        runD = -1;
    }

    private void endTimed(int mid, long oid) {
        int d = depth - 1;
        long t = System.nanoTime() - RvTrace.t0;
        if (d >= 0 && fMid[d] == mid && fOid[d] == oid) {
            pop(d, t);
            return;
        }
        while (d >= 0 && (fMid[d] != mid || fOid[d] != oid)) {
            d--;
        }
        if (d < 0) {
            // No open start: recorded as it is (the analysis counts unmatched ends).
            if (RvTrace.live) {
                evAt(END, mid, oid, 0L, false, t);
            }
            return;
        }
        while (depth > d) {
            pop(depth - 1, t);
        }
    }

    private void pop(int d, long t) {
        if (fEst[d]) {
            popEstimated(d);
            return;
        }
        depth = d;
        int mid = fMid[d];
        long a = Math.max(0L, t - fT[d]);
        if (d > 0) {
            fChild[d - 1] += a;
        }
        lastT = t;
        if (fRec[d]) {
            // its start is in the trace: so is its end, past the limit too
            long c0 = fCpu[d];
            if (c0 >= 0L) {
                long c = RvCpu.now() - c0;
                evAt(c >= 0L ? END_CPU : END, mid, fOid[d], c, c >= 0L, t);
            } else {
                evAt(END, mid, fOid[d], 0L, false, t);
            }
            if (a >= RvCpu.LONG_NS) {
                if (RvCpu.SCORE[mid] != RvCpu.TRIES && !scratch && RvCpu.available()) {
                    RvCpu.SCORE[mid] = RvCpu.TRIES;
                }
            } else if (c0 >= 0L) {
                byte sc = RvCpu.SCORE[mid];
                if (sc > 0) {
                    RvCpu.SCORE[mid] = (byte) (sc - 1);
                }
            }
            if (fHidden[d] != 0L) {
                aggs().correct(this, d, fHidden[d]);
            }
        } else {
            aggs().add(this, d, a);
            if (d > 0 && fRec[d - 1]) {
                fHidden[d - 1] += a;
            }
        }
        if (RvTable.THROTTLE_CALLS > 0L && !scratch) {
            count(mid, a, t, fSize[d]);
        }
    }

    // A throttled method's later calls are counted exactly (per method and edge) but not timed:
    // each takes the method's estimate (the median of the latest timed calls: before the
    // verdict on the deciding thread, past the interpreter and JIT warm-up; later, of sampled
    // calls), or its callees' time when that is more, so its callers' net time stays
    // total - children.

    private void startEstimated(int d, int mid, long oid, long size) {
        fMid[d] = mid;
        fOid[d] = oid;
        fT[d] = 0L;
        fChild[d] = 0L;
        fHidden[d] = 0L;
        fSize[d] = size < 0L ? RvTrace.estimateSize[mid] : size;
        fRec[d] = false;
        fEst[d] = true;
        depth = d + 1;
    }

    /** An estimated call's time: the method's estimate, at least its callees' time. */
    static long estimatedTime(int mid, long child) {
        return Math.max(RvTrace.estimate.get(mid) - 1L, child);
    }

    private void popEstimated(int d) {
        depth = d;
        fEst[d] = false;
        long a = estimatedTime(fMid[d], fChild[d]);
        if (d > 0) {
            fChild[d - 1] += a;
        }
        aggs().add(this, d, a);
        untimed = true;
        if (d > 0 && fRec[d - 1]) {
            fHidden[d - 1] += a;
        }
    }

    /**
     * Per method id: the times of its latest timed calls on this thread past half the
     * throttle threshold (the estimate's basis at the verdict), then of the sampled ones.
     */
    private long[][] rings = new long[0][];
    static final int RING = 256;

    /** TAU's rule: more than THROTTLE_CALLS calls averaging under THROTTLE_NS. */
    private void count(int mid, long a, long t, long size) {
        int i = mid * 3;
        if (i + 3 > tc.length) {
            long[] g = new long[Math.max(i + 3, tc.length * 2)];
            System.arraycopy(tc, 0, g, 0, tc.length);
            tc = g;
        }
        long c = ++tc[i];
        long sum = tc[i + 1] += a;
        long half = RvTable.THROTTLE_CALLS / 2;
        if (c <= half) {
            return;
        }
        long[] r = ring(mid);
        int k = (int) r[RING];
        r[k & (RING - 1)] = a;
        r[RING] = k + 1;
        if (RvTrace.throttled[mid]) {
            return; // its estimate stays the verdict's (sampling is off, see start)
        } else if (c > RvTable.THROTTLE_CALLS && sum < c * RvTable.THROTTLE_NS) {
            // the estimate: the median of the latest calls, past the warm-up (interpreter, JIT)
            long[] e = RvBuf.spread(r, Math.min(k + 1, RING), k + 1);
            r[RING] = 0L; // the samples start afresh
            r[RING + 1] = 0L;
            RvTrace.throttle(mid, tid, t, c, sum, e, size);
        }
    }

    private long[] ring(int mid) {
        if (mid >= rings.length) {
            rings = java.util.Arrays.copyOf(rings, Math.max(mid + 1, rings.length * 2));
        }
        long[] r = rings[mid];
        if (r == null) {
            r = new long[RING + 2]; // then: the entries written, 1 + the last look's median
            rings[mid] = r;
        }
        return r;
    }

    /**
     * The median, 10th and 90th percentiles and count of the latest {@code n} of ring
     * {@code r}'s entries, {@code end} having been written: {median, p10, p90, n}.
     */
    static long[] spread(long[] r, int n, int end) {
        long[] v = new long[n];
        for (int j = 0; j < n; j++) {
            v[j] = r[(end - 1 - j) & (RING - 1)];
        }
        java.util.Arrays.sort(v);
        return new long[] {v[n / 2], v[n / 10], v[n - 1 - n / 10], n};
    }

    private RvAgg aggs() {
        RvAgg g = agg;
        if (g == null) {
            g = new RvAgg();
            agg = g;
        }
        return g;
    }

    private void growStack() {
        int c = fMid.length * 2;
        fMid = java.util.Arrays.copyOf(fMid, c);
        fOid = java.util.Arrays.copyOf(fOid, c);
        fT = java.util.Arrays.copyOf(fT, c);
        fChild = java.util.Arrays.copyOf(fChild, c);
        fHidden = java.util.Arrays.copyOf(fHidden, c);
        fSize = java.util.Arrays.copyOf(fSize, c);
        fEst = java.util.Arrays.copyOf(fEst, c);
        fRec = java.util.Arrays.copyOf(fRec, c);
        fCpu = java.util.Arrays.copyOf(fCpu, c);
    }

    /** Appends one event (kinds CRT..END of the compact trace form). */
    void ev(int kind, int id, long oid, long size, boolean hasSize) {
        evAt(kind, id, oid, size, hasSize, System.nanoTime() - RvTrace.t0);
    }

    /** Appends one event that happened at {@code t}. */
    void evAt(int kind, int id, long oid, long size, boolean hasSize, long t) {
        int p = n;
        if (p > LIMIT) {
            full();
            p = n;
            if (p > LIMIT) {
                return;
            }
        }
        byte[] a = b;
        if (p == 0) {
            base = t;
            last = t;
        }
        a[p++] = (byte) kind;
        p = v(a, p, id & 0xffffffffL);
        p = v(a, p, oid);
        if (hasSize) {
            p = v(a, p, size);
        }
        long d = t - last;
        last = t;
        p = v(a, p, (d << 1) ^ (d >> 63));
        count++;
        n = p;
    }

    /**
     * The probe cost for the trace header: nanoseconds per start+end pair, appended to a
     * scratch buffer as the hot path does, in many short batches (100 pairs, ~5 us once
     * compiled) whose fastest counts, so a preemption or a busy neighbour costs a batch, not
     * the figure. A run's hot path is JIT-compiled, and compiled pairs cost a third of
     * interpreted ones: batches go on until the best has not improved by 3 % for half the
     * time spent (at least 20 ms and 300 batches, past the JIT's thresholds: its chance,
     * later on a loaded machine), 150 ms at most (at exit: 2 and 50 ms). Returns "best batches p50" (the median of the later half of the
     * batches: the spread the header states).
     */
    static String[] probeNs(long minNs, long maxNs) {
        RvBuf s = new RvBuf(Thread.currentThread());
        s.scratch = true;
        // Method id 0 is never a real one (SAF ids start at 1): no M record for it.
        RvTrace.mdef[0] = true;
        probeHot = s;
        final int pairs = 100;
        long[] ns = new long[8192];
        int n = 0;
        long best = Long.MAX_VALUE;
        long start = System.nanoTime();
        long improved = start;
        for (long now = start;; now = System.nanoTime()) {
            long spent = now - start;
            boolean settled = spent >= minNs && n >= 300 && now - improved >= spent / 2;
            if (n == ns.length || spent >= maxNs || settled) {
                break;
            }
            long b = probeBatch(pairs);
            ns[n++] = b;
            if (best == Long.MAX_VALUE || b * 100 < best * 97) {
                improved = System.nanoTime();
            }
            best = Math.min(best, b);
        }
        java.util.Arrays.sort(ns, n / 2, n);
        long p50 = ns[n / 2 + (n - n / 2) / 2];
        return new String[] {tenths(best, pairs), Integer.toString(n), tenths(p50, pairs)};
    }

    /** {@code total / pairs} with one decimal. */
    private static String tenths(long total, int pairs) {
        long t = (total * 10 + pairs / 2) / pairs;
        return (t / 10) + "." + (t % 10);
    }

    /**
     * The handoff for the trace header: nanoseconds of one-way wake-up between two threads (a
     * monitor ping-pong, as an active object's queue wakes its thread), the 10th percentile of
     * 30 to 300 round trips halved, the statistic `revy whatif` uses. A first, untimed round
     * waits (up to 10 ms) for the helper thread to start; then rounds stop after 5 ms once
     * there are 30 and at 10 ms in any case ("0" when fewer than 10 fit: a machine too busy
     * to say). The what-if replays then use the profiled machine's figure.
     */
    static String handoffNs() {
        final Object lock = new Object();
        final long[] turn = {0};
        Thread echo = new Thread(new Runnable() {
            public void run() {
                synchronized (lock) {
                    try {
                        for (long i = 0;; i++) {
                            while (turn[0] != 2 * i + 1) {
                                if (turn[0] < 0) {
                                    return;
                                }
                                lock.wait();
                            }
                            turn[0]++;
                            lock.notify();
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        }, "revy-handoff");
        echo.setDaemon(true);
        echo.start();
        final int rounds = 300;
        long[] rtt = new long[rounds];
        int n = 0;
        long limit = System.nanoTime() + 10000000L;
        long enough = limit;
        synchronized (lock) {
            try {
                for (int i = 0; i < rounds + 1; i++) {
                    long back = 2L * i + 2;
                    long t0 = System.nanoTime();
                    turn[0] = back - 1;
                    lock.notify();
                    long left;
                    while (turn[0] != back && (left = limit - System.nanoTime()) > 0) {
                        lock.wait(Math.max(1L, left / 1000000L));
                    }
                    long t1 = System.nanoTime();
                    if (turn[0] != back) {
                        break;
                    }
                    if (i == 0) { // the thread's start, not a handoff
                        enough = t1 + 5000000L;
                        limit = t1 + 10000000L;
                        continue;
                    }
                    rtt[n++] = t1 - t0;
                    if (t1 > limit || (t1 > enough && n >= 30)) {
                        break;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            turn[0] = -1;
            lock.notify();
        }
        if (n < 10) {
            return "0";
        }
        java.util.Arrays.sort(rtt, 0, n);
        return Long.toString(rtt[n / 10] / 2);
    }

    /** One timed batch of start+end pairs (its own method, so the JIT compiles it whole). */
    private static long probeBatch(int pairs) {
        long t0 = System.nanoTime();
        for (int i = 0; i < pairs; i++) {
            RvBuf b = probeBuf(); // the hot path's lookup (Rv.buf)
            if (b.n > LIMIT - 2 * 40) {
                b.n = 0; // never full(): a scratch buffer is not flushed
            }
            b.start(0, 1000000 + i, 24);
            probeBuf().end(0, 1000000 + i);
        }
        return System.nanoTime() - t0;
    }

    private static RvBuf probeHot;

    private static RvBuf probeBuf() {
        RvBuf h = probeHot;
        return h.owner == Thread.currentThread() ? h : TL.get();
    }

    private void full() {
        synchronized (this) {
            RvTrace.flushBuffer(this, false);
        }
    }

    static int v(byte[] a, int p, long x) {
        while ((x & ~0x7FL) != 0L) {
            a[p++] = (byte) ((x & 0x7F) | 0x80);
            x >>>= 7;
        }
        a[p++] = (byte) x;
        return p;
    }

    /**
     * Counts the complete events in a[0..len) (used when another thread flushes): returns
     * {@code count << 32 | bytes} of the complete prefix.
     */
    static long countEvents(byte[] a, int len) {
        int p = 0;
        int c = 0;
        int ok = 0;
        while (p < len) {
            int kind = a[p++];
            if (kind < CRT || kind > END_CPU) {
                break;
            }
            int fields = (kind & 1) != 0 ? 4 : 3; // CRT, START, END_CPU carry a value
            for (int i = 0; i < fields; i++) {
                while (p < len && (a[p] & 0x80) != 0) {
                    p++;
                }
                p++;
            }
            if (p > len) {
                break;
            }
            c++;
            ok = p;
        }
        return ((long) c << 32) | ok;
    }
}
