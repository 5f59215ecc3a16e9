package _revy.runtime;

import java.lang.ref.WeakReference;

/**
 * One thread's event buffer. Only the owning thread appends; a flush (by the owner when the
 * buffer is full, or by the exit hook for every thread) holds this object's monitor.
 */
final class RvBuf {
    static final int CAP = 64 * 1024;
    /**
     * Room before the events for the block's B head (at most 31 bytes), written there at the
     * flush so that a block goes out in one write: events start at HEAD.
     */
    static final int HEAD = 32;
    /** Largest event: kind + 5 + 10 + 10 + 10 bytes. */
    private static final int LIMIT = CAP - 40;

    static final ThreadLocal<RvBuf> TL = new ThreadLocal<RvBuf>() {
        @Override
        protected RvBuf initialValue() {
            return RvTrace.newBuffer(Thread.currentThread());
        }
    };

    final byte[] b = new byte[CAP];
    /** End of the events (from HEAD); written by the owner after an event's bytes are complete. */
    int n = HEAD;
    int count;
    /**
     * The block's base time: the time of the thread's event before the block's first (the
     * flush sets it to {@link #last}), so an event's delta needs no first-in-block branch.
     */
    long base;
    /** The time of the thread's latest event. */
    long last;
    final long tid;
    /** Above 0 while a size helper runs on this thread: its calls into user code are not logged. */
    int quiet;
    /** Better mode's size cache of this thread (created at its first size). */
    RvSizeCache sizes;
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
    /** A remote call's key: method id, key hash, time (laid out as DST). */
    static final int KEY = 6;
    /**
     * The end of the thread's innermost open recorded call, its time alone (the reader keeps
     * each thread's open starts): a recorded call's usual end. END (method, oid) is left for
     * an end with no open frame, END_CPU for one with its on-CPU time.
     */
    static final int END_BARE = 7;

    // The shadow stack of open calls: which are recorded as events, and the time of their
    // callees, so what is not recorded is aggregated with its sender and net time. One array,
    // F longs per frame (frame d at (d + 1) << 4, at(d)): a counted call's push or pop touches
    // its first eight slots and the JIT checks one array's bounds, not nine. Frame -1 (at 0) stands for the root:
    // mid -1, oid 0, no flags, so a counted call's end adds to its sender and compares its
    // run's sender without a depth-0 branch (its callees' time, unread, accumulates there).
    static final int F = 16;
    /**
     * Frame slots: method id (its low 32 bits; the frame's flags in the upper half, so that a
     * counted call's start stores and its end loads one slot fewer), receiver oid, start time
     * (estimated frames: the estimate).
     */
    static final int MID = 0, OID = 1, T = 2;
    /**
     * Frame slots: callees' time, recorded callees' time (a recorded frame: the rest of
     * CHILD is its unrecorded callees', {@link #hidden}; kept by the recorded callees' ends,
     * so that a counted call's end adds to its sender's CHILD only), size.
     */
    static final int CHILD = 3, HIDDEN = 4, SIZE = 5;
    /** Frame slot: thread CPU time at a recorded start (-1: not measured). */
    static final int CPU = 6;
    /**
     * Frame slot of a timed frame: the thread's timed and counted starts at its start
     * ({@link #timedN} << 32 | {@link #tick}), so its end knows how many callee probes its
     * time includes (the throttle rule judges the method net of them, {@link #count}).
     */
    static final int PROBES = 8;
    /** Timed starts on this thread (the throttle rule's count of callee probes). */
    private int timedN;
    /**
     * Flags: recorded as events; untimed call of a throttled method (time estimated); a
     * throttled method's sampled call (estimated too, and timed: {@link #SAMPLE}).
     */
    static final long REC = 1L, EST = 2L, SMP = 6L;

    /** The MID slot of a frame of method {@code mid} with {@code flags}. */
    static long midSlot(int mid, long flags) {
        return flags << 32 | (mid & 0xffffffffL);
    }

    /** A counted frame's MID slot. */
    private static long countedSlot(int mid) {
        return EST << 32 | (mid & 0xffffffffL);
    }
    int depth;
    long[] fr = newFrames();

    private static long[] newFrames() {
        long[] f = new long[32 * F];
        f[MID] = midSlot(-1, 0L);
        return f;
    }

    /** Where frame {@code d} (-1: the root's) starts in {@link #fr}. */
    static int at(int d) {
        return (d + 1) << 4;
    }
    /** Per method id: calls, their total time on this thread, and that net of callee probes (the throttle rule). */
    private long[] tc = new long[0];
    /** The probe-cost measurement's buffer: never throttles. */
    boolean scratch;
    /** Created at the first unrecorded call. */
    RvAgg agg;
    long lastT;
    /** Estimated (untimed) calls were counted: the A record's last time is taken when written. */
    boolean untimed;

    int mid(int d) {
        return (int) fr[at(d) + MID];
    }

    long oid(int d) {
        return fr[at(d) + OID];
    }

    long child(int d) {
        return fr[at(d) + CHILD];
    }

    long size(int d) {
        return fr[at(d) + SIZE];
    }

    boolean rec(int d) {
        return fr[at(d) + MID] >>> 32 == REC;
    }

    boolean est(int d) {
        return (fr[at(d) + MID] >>> 32 & EST) != 0L;
    }

    /** A timed frame's start time; an estimated frame's time per call (the estimate). */
    long time(int d) {
        return fr[at(d) + T];
    }

    /** A recorded frame's unrecorded callees' time (those ended). */
    long hidden(int d) {
        return fr[at(d) + CHILD] - fr[at(d) + HIDDEN];
    }

    /**
     * A call starts: counted (a throttled method: no clock), else timed (below). Small, so
     * that the JIT inlines it into {@link Rv}'s entry: the counted path is a frame push. The
     * frame keeps the estimate read here, so the end reads no shared state.
     */
    void start(int mid, long oid, long size) {
        int d = depth;
        if (RvTable.THROTTLE_CALLS > 0L) {
            long e = RvTrace.est[mid];
            long[] f = fr;
            int i = at(d);
            if (e != 0L && i + F <= f.length && (++tick & SAMPLE) != 0) {
                f[i + MID] = countedSlot(mid);
                f[i + OID] = oid;
                f[i + T] = e - 1L;
                f[i + CHILD] = 0L;
                f[i + SIZE] = size < 0L ? RvTrace.estimateSize[mid] : size;
                depth = d + 1;
                return;
            }
        }
        startTimed(d, mid, oid, size);
    }

    /**
     * One in 1,024 of a thread's counted calls is timed (two clock reads, nothing recorded; it
     * counts at the estimate all the same) and feeds the method's re-estimation ({@link
     * #resample}), so a phase change shows. Out of line ({@link #startTimed}, {@link #pop}),
     * and {@link #warmCounted} runs every branch before the program's methods are compiled:
     * the JIT then compiles the counted and sampled branches into the entry and exit instead
     * of deoptimising them at the first throttled call (samples of deoptimised, interpreted
     * code measured ~40x the real call and re-estimated whole runs 30x too high).
     */
    static final int SAMPLE = 1023;
    /** Counted calls started on this thread (every {@link #SAMPLE} + 1-th is sampled). */
    private int tick;

    /**
     * A call starts: recorded, or (past the limit, throttled, under an unrecorded call) kept.
     * Writes its start event itself (no general {@link #evAt}): one branch less per event,
     * and over 325 bytes of bytecode (HotSpot's FreqInlineSize), so the JIT never inlines it
     * into {@link #start}, whose own compiled code then stays small enough to be inlined
     * into {@link Rv}'s entry (a large compiled callee is called, not inlined).
     */
    private void startTimed(int d, int mid, long oid, long size) {
        int i = at(d);
        if (i + F > fr.length) {
            growStack();
        }
        long[] f = fr;
        long e = RvTable.THROTTLE_CALLS > 0L ? RvTrace.est[mid] : 0L;
        if (e != 0L) {
            // a throttled method's call: sampled, or counted (the stack grew)
            f[i + OID] = oid;
            f[i + T] = e - 1L;
            f[i + CHILD] = 0L;
            f[i + SIZE] = size < 0L ? RvTrace.estimateSize[mid] : size;
            depth = d + 1;
            if ((tick & SAMPLE) != 0) {
                f[i + MID] = countedSlot(mid);
                return;
            }
            f[i + MID] = midSlot(mid, SMP);
            f[i + HIDDEN] = System.nanoTime() - RvTrace.t0; // last: the sample times the call
            return;
        }
        if (size < 0L) {
            // better mode skipped the walk of a throttled method's arguments
            size = RvTrace.estimateSize[mid];
        }
        long t = System.nanoTime() - RvTrace.t0;
        boolean rec = RvTrace.live && (d == 0 || f[i - F + MID] >>> 32 == REC) && !RvTrace.throttled[mid];
        if (RvTable.THROTTLE_CALLS > 0L) {
            f[i + PROBES] = ((long) ++timedN << 32) | (tick & 0xffffffffL);
        }
        f[i + MID] = midSlot(mid, rec ? REC : 0L);
        f[i + OID] = oid;
        f[i + T] = t;
        f[i + CHILD] = 0L;
        f[i + HIDDEN] = 0L;
        f[i + SIZE] = size;
        depth = d + 1;
        if (rec) {
            if (!RvTrace.mdef[mid]) {
                RvTrace.defineMethod(mid);
            }
            int p = n;
            if (p > LIMIT) {
                full();
                p = n;
            }
            if (p <= LIMIT) {
                byte[] a = b;
                long dt = t - last;
                last = t;
                a[p++] = START;
                p = v(a, p, mid & 0xffffffffL);
                p = v(a, p, oid);
                p = v(a, p, size);
                p = v(a, p, (dt << 1) ^ (dt >> 63));
                count++;
                n = p;
            }
            f[i + CPU] = RvCpu.SCORE[mid] != 0 ? RvCpu.now() : -1L;
        }
    }

    /**
     * A call ends, given its start's token ({@link Rv#exit}: the depth its frame made; 0 when
     * it was not started), on the hot buffer: when that is another thread's, the calling
     * thread's own ({@link Rv#exitSlow}). First the commonest case: a counted call, its frame on top, that
     * extends a pending run of alike ones (no clock, no table). Else a counted call that
     * extends no pending run (aggregated now, and it starts the run of its slot, or extends a
     * folded run), or a timed one; or frames above the call's, whose ends never came (an
     * error thrown between a callee's start and its try), closed with it. One method over
     * 325 bytes of bytecode (HotSpot's FreqInlineSize), so that the JIT never inlines it into
     * the generated code (javac copies a finally block to each return and to the exception
     * handler: each copy is {@link Rv#exit}'s few bytes and one call), as Rv's entry is.
     */
    void exit(int tok) {
        if (owner != Thread.currentThread()) {
            // the hot buffer is another thread's
            if (tok != 0) {
                Rv.exitSlow(tok);
            }
            return;
        }
        if (quiet != 0) {
            return; // inside a size helper: nothing was started
        }
        int d = depth - 1;
        long[] f = fr;
        int i = at(d);
        long m = f[i + MID];
        // one branch for the frame's match: its flags counted (the JIT's profile of it is
        // warmed, see SAMPLE) and its depth the token's; the root's frame (no flags) never
        if (RvTable.THROTTLE_CALLS > 0L && ((m >>> 32 ^ EST) | (tok ^ depth)) == 0L) {
            long child = f[i + CHILD];
            long a = Math.max(f[i + T], child);
            int s = i - F; // the sender's frame, or the root's (mid -1, oid 0)
            long[] r = runs;
            long sMid = f[s + MID]; // with the sender's flags
            int j = slot((int) m, sMid);
            // one more call of a pending run of equal ones without callees (a run of calls
            // with callees is extended below: its first field does not match here): one
            // branch for the seven fields (each a branch of its own cost ~1 ns more)
            if ((child | (r[j] ^ (m & 0xffffffffL)) | (r[j + 2] ^ f[i + OID]) | (r[j + 5] ^ f[i + SIZE])
                    | (r[j + 6] ^ a) | (r[j + 3] ^ sMid) | (r[j + 4] ^ f[s + OID])) == 0L) {
                depth = d;
                f[s + CHILD] += a;
                r[j + 7]++;
                return;
            }
        }
        if (tok != depth) {
            unwind(tok);
            return;
        }
        int mid = (int) m;
        long oid = f[i + OID];
        if (!(RvTable.THROTTLE_CALLS > 0L && m >>> 32 == EST)) {
            endTimed(mid, oid);
            return;
        }
        depth = d;
        long child = f[i + CHILD];
        long a = Math.max(f[i + T], child);
        int s = i - F; // the sender's frame, or the root's (mid -1, oid 0)
        f[s + CHILD] += a;
        long sMid = f[s + MID]; // with the sender's flags
        long sOid = f[s + OID];
        long size = f[i + SIZE];
        long[] r = runs;
        int j = slot(mid, sMid);
        untimed = true;
        RvAgg g = aggs();
        // A folded run: the call's edge and the run's (its first call's oids, with which its
        // pending calls are put) both fold without a probe (the instance table is full, which
        // it stays, and an oid of each is newer than every key) and alike (RvAgg.folding), so
        // calls alike but for the oids (a loop over new objects) update one folded row as
        // each call's own put would.
        long id = child == 0L ? run(mid) : run(mid) | CALLEES;
        boolean alike = ((r[j] ^ id) | (r[j + 5] ^ size) | (r[j + 6] ^ a) | (r[j + 1] ^ child) | (r[j + 3] ^ sMid)) == 0L;
        if (alike && (((r[j + 2] ^ oid) | (r[j + 4] ^ sOid)) == 0L // with callees, or ...
                || g.foldsNew(sOid, oid) && g.foldsNew(r[j + 4], r[j + 2])
                && RvAgg.folding(sOid, oid) == RvAgg.folding(r[j + 4], r[j + 2]))) {
            r[j + 7]++;
            return;
        }
        // aggregated now (its edge takes its place in the bounded edge table in call order,
        // as the instances that keep their own rows are the first ones); the sender as the
        // run compares it: its MID slot's low half, the root's -1
        g.put((int) sMid + 1, sOid, mid, oid, 1L, a, a - child, size);
        // it starts the run of slot j, whose pending calls are added first
        flushRun(j);
        r[j] = id;
        r[j + 2] = oid;
        r[j + 3] = sMid;
        r[j + 4] = sOid;
        r[j + 5] = size;
        r[j + 6] = a;
        r[j + 7] = 0L;
        r[j + 1] = child;
    }

    // A run of counted calls alike (method, receiver, caller, size, time, callees' time) goes
    // into the aggregates in one step: a counted call is then a frame push and pop. RUNS runs
    // are pending at once, by method and sender ({@link #slot}), so that calls taking turns
    // (a loop calling a() then b()) extend theirs: a table look-up per call was a sixth of a
    // suite.
    private static final int RUNS = 1024;
    /** Longs per run. */
    private static final int R = 8;
    /** The flag of a run of calls with callees in its first field (never extended inline). */
    private static final long CALLEES = 1L << 32;
    /**
     * Per run, R longs: mid ({@link #run}; -1: none), callees' time (their estimates: the
     * same on every call of a loop's counted callees), oid, sender's MID slot (the root's:
     * mid -1), sender oid, size, time, calls not yet in the aggregates (the run's first call
     * is aggregated when the run starts; the pending ones are put with its oids).
     */
    private final long[] runs = newRuns();

    /** A run's first field: its method (-1: none), with {@link #CALLEES} when its calls have callees. */
    private static long run(int mid) {
        return mid & 0xffffffffL;
    }

    /**
     * Where the run of method {@code mid}'s calls from sender {@code sMid} (its MID slot)
     * starts in {@link #runs}: by both, so that a method called in turn from two places, or
     * methods called in turn from one, keep a run each (by method and depth, in 16 slots,
     * nine in ten of a suite's counted calls that extended no run found another method's
     * run in their slot; in 256 slots by method and sender, still one in seven: 1,024 left
     * one in twenty, 19 M puts of the jsoup suite's 326 M counted calls, against 217 M).
     */
    private static int slot(int mid, long sMid) {
        // mid is the generated code's constant: its product is folded at compile time
        return ((mid * 0x9E3779B1 + (int) sMid) & (RUNS - 1)) * R;
    }

    private static long[] newRuns() {
        long[] r = new long[RUNS * R];
        for (int j = 0; j < r.length; j += R) {
            r[j] = -1L;
        }
        return r;
    }

    /** Adds the pending runs of counted calls to the aggregates (before they are read). */
    void flushRun() {
        for (int j = 0; j < RUNS * R; j += R) {
            flushRun(j);
        }
    }

    private void flushRun(int j) {
        long[] r = runs;
        long n = r[j + 7];
        if (n == 0L) {
            return;
        }
        r[j + 7] = 0L;
        int s = (int) r[j + 3] + 1; // 0: the root
        aggs().put(s, r[j + 4], (int) r[j], r[j + 2], n, r[j + 6], r[j + 6] - r[j + 1], r[j + 5]);
    }

    /**
     * The end of a call whose frame is not on top ({@code tok} below the depth): the frames
     * above it are of calls whose ends never came, closed now with it, at one time. A token
     * of 0 (not started) or above the depth has no frame here: nothing to end.
     */
    private void unwind(int tok) {
        if (tok <= 0 || tok > depth) {
            return;
        }
        long t = System.nanoTime() - RvTrace.t0;
        while (depth >= tok) {
            pop(depth - 1, t);
        }
    }

    private void endTimed(int mid, long oid) {
        int d = depth - 1;
        long t = System.nanoTime() - RvTrace.t0;
        if (d >= 0 && mid(d) == mid && oid(d) == oid) {
            pop(d, t);
            return;
        }
        while (d >= 0 && (mid(d) != mid || oid(d) != oid)) {
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
        long[] f = fr;
        int i = at(d);
        long flags = f[i + MID] >>> 32;
        if (flags == EST) {
            popEstimated(d);
            return;
        }
        if (flags == SMP) {
            long sample = Math.max(0L, t - f[i + HIDDEN]);
            if (!scratch) {
                resample((int) f[i + MID], sample, t);
            }
            popEstimated(d);
            return;
        }
        depth = d;
        int mid = (int) f[i + MID];
        long a = Math.max(0L, t - f[i + T]);
        f[i - F + CHILD] += a; // the root's frame too
        lastT = t;
        if (flags == REC) {
            f[i - F + HIDDEN] += a; // a recorded frame's sender is recorded (or the root)
            // its start is in the trace: so is its end, past the limit too
            long c0 = f[i + CPU];
            if (c0 >= 0L) {
                long c = RvCpu.now() - c0;
                evAt(c >= 0L ? END_CPU : END, mid, f[i + OID], c, c >= 0L, t);
            } else {
                endBare(t);
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
            long hidden = f[i + CHILD] - f[i + HIDDEN];
            if (hidden != 0L) {
                aggs().correct(this, d, hidden);
            }
        } else {
            aggs().add(this, d, a);
        }
        if (RvTable.THROTTLE_CALLS > 0L && !scratch) {
            long p = f[i + PROBES];
            count(mid, a, calleeProbes(timedN - (int) (p >>> 32), tick - (int) p), t, f[i + SIZE]);
        }
    }

    // A throttled method's later calls are counted exactly (per method and edge) but not timed:
    // each takes the method's estimate (the median of the latest timed calls before the
    // verdict on the deciding thread, past the interpreter and JIT warm-up), or its callees'
    // time when that is more, so its callers' net time stays total - children.

    /** An estimated frame's time: its estimate, at least its callees' time. */
    long estimatedTime(int d, long child) {
        return Math.max(time(d), child);
    }

    private void popEstimated(int d) {
        depth = d;
        long a = estimatedTime(d, child(d));
        fr[at(d - 1) + CHILD] += a; // the root's frame too
        aggs().add(this, d, a);
        untimed = true;
    }

    /** Sampled calls whose median decides a re-estimation (the latest of this thread's). */
    static final int SAMPLES = 32;

    /**
     * A sampled call of throttled method {@code mid} took {@code a}: kept in the method's
     * ring; when the median of the thread's latest {@link #SAMPLES} samples is more than a
     * quarter off the estimate and the estimate is outside their 10th to 90th percentile (not
     * the clock's resolution or noise), the median becomes the estimate (an S record).
     */
    private void resample(int mid, long a, long t) {
        long[] r = ring(mid);
        int k = (int) r[RING];
        r[k & (RING - 1)] = a;
        r[RING] = k + 1;
        long cur = RvTrace.est[mid] - 1L;
        if (k + 1 < SAMPLES || cur < 0L) {
            return;
        }
        long[] e = spread(r, SAMPLES, k + 1);
        if (4L * Math.abs(e[0] - cur) <= cur || (e[1] <= cur && cur <= e[2])) {
            return;
        }
        r[RING] = 0L; // the next look waits for SAMPLES samples of the new phase
        RvTrace.reestimate(mid, tid, t, e);
    }

    /**
     * Runs the counted and sampled branches of the call probes on a scratch buffer (method
     * id 0 estimated for the while) under a recorded call and at the root, so that the JIT's
     * profile of them shows every branch taken: the program's methods, which inline them, are
     * then compiled with those branches, and a verdict does not deoptimise them (see {@link
     * #SAMPLE}). What is out of line stays rare, as in a run (a run of alike counted calls
     * breaks once per 1,024 iterations; a counted sender 8 times): a call site the profile
     * shows 100 times is inlined (HotSpot's InlineFrequencyCount), which made the counted
     * path's compiled code too big to inline and the counted call twice as slow.
     */
    static void warmCounted() {
        if (RvTable.THROTTLE_CALLS <= 0L) {
            return;
        }
        RvBuf s = new RvBuf(Thread.currentThread());
        s.scratch = true;
        RvTrace.mdef[0] = true; // method id 0 is never a real one: no M record for it
        long[] e = RvTrace.est;
        try {
            for (int i = 0; i < 32 * 1024; i++) {
                s.n = HEAD; // never full(): a scratch buffer is not flushed
                long run = 2L + ((i >> 10) & 7); // the callee's receiver: a new run now and then
                boolean timed = (i & 4095) != 1;
                e[0] = timed ? 0L : 2L;
                s.start(0, 1L, 8L); // recorded (timed), or counted
                int outer = s.depth;
                e[0] = 2L;
                s.start(0, run, (i & 1024) == 0 ? -1L : 16L);
                s.exit(s.depth);
                e[0] = timed ? 0L : 2L;
                s.exit(outer);
                e[0] = 2L;
                if ((i & 1023) == 512) {
                    // another run in the slot, differing in one of its fields: each test of
                    // the run's match fails now and then
                    int k = (i >> 10) % 7;
                    // (the root's run of method 0)
                    s.runs[slot(0, s.fr[MID]) + (k == 0 ? 0 : k == 6 ? 1 : k + 1)] ^= 1L;
                }
                s.start(0, run, 8L); // counted at the root
                s.exit(s.depth);
            }
        } finally {
            e[0] = 0L;
        }
    }

    /**
     * Per method id: the times of its latest timed calls on this thread past half the
     * throttle threshold (the estimate's basis at the verdict), then of the sampled ones.
     */
    private long[][] rings = new long[0][];
    static final int RING = 256;

    /**
     * What {@code timed} timed and {@code counted} counted callee starts (the callees' own,
     * and their callees') add to a call's time, by the probe figures measured at start-up
     * (0 until measured): Revy's cost, not the method's.
     */
    static long calleeProbes(int timed, int counted) {
        return (long) (timed * RvTrace.probeValue + counted * RvTrace.countedValue);
    }

    /**
     * TAU's rule: more than THROTTLE_CALLS calls averaging under THROTTLE_NS, each call's time
     * net of the probes of its callees ({@code probes}: a method whose many callees are
     * recorded spends most of its time in their probes, and was never throttled).
     */
    private void count(int mid, long a, long probes, long t, long size) {
        int i = mid * 3;
        if (i + 3 > tc.length) {
            long[] g = new long[Math.max(i + 3, tc.length * 2)];
            System.arraycopy(tc, 0, g, 0, tc.length);
            tc = g;
        }
        long c = ++tc[i];
        long total = tc[i + 1] += a;
        long sum = tc[i + 2] += Math.max(0L, a - probes);
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
            RvTrace.throttle(mid, tid, t, c, total, e, size);
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

    /** Small, so that the JIT inlines it into the counted path (the creation is a call). */
    private RvAgg aggs() {
        RvAgg g = agg;
        return g != null ? g : newAggs();
    }

    private RvAgg newAggs() {
        RvAgg g = new RvAgg();
        agg = g;
        return g;
    }

    private void growStack() {
        fr = java.util.Arrays.copyOf(fr, fr.length * 2);
    }

    /**
     * Appends the end of the innermost open recorded call (END_BARE: kind and time, 2 bytes
     * where END took 4 or more; one varint instead of three).
     */
    private void endBare(long t) {
        int p = n;
        if (p > LIMIT) {
            full();
            p = n;
        }
        byte[] a = b;
        long d = t - last;
        last = t;
        a[p++] = END_BARE;
        p = v(a, p, (d << 1) ^ (d >> 63));
        count++;
        n = p;
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
     * time spent (at least 300 batches and {@code minNs}: the JIT's chance, later on a
     * loaded machine; on the calibration thread 20 ms, 150 ms at most; at exit 2 and 50 ms). Returns "best batches p50" (the median of the later half of the
     * batches: the spread the header states). With {@code counted}, the same batches go
     * through the counted path instead (`counted_ns=`: what a throttled method's counted call
     * costs its caller, which the what-if takes off the sender): method 0 gets an estimate
     * for the measurement only.
     */
    static String[] probeNs(long minNs, long maxNs, boolean counted) {
        if (counted) {
            RvTrace.est[0] = 41L;
        }
        try {
            return probeRun(minNs, maxNs, counted);
        } finally {
            RvTrace.est[0] = 0L;
        }
    }

    private static String[] probeRun(long minNs, long maxNs, boolean counted) {
        RvBuf s = new RvBuf(Thread.currentThread());
        s.scratch = true;
        // Method id 0 is never a real one (SAF ids start at 1): no M record for it.
        RvTrace.mdef[0] = true;
        probeHot = s;
        final int pairs = 100;
        long[] ns = new long[8192];
        long[] in = new long[ns.length];
        int n = 0;
        long best = Long.MAX_VALUE;
        long inBest = Long.MAX_VALUE;
        long start = System.nanoTime();
        long improved = start;
        for (long now = start;; now = System.nanoTime()) {
            long spent = now - start;
            boolean settled = spent >= minNs && n >= 300 && now - improved >= spent / 2;
            if (n == ns.length || spent >= maxNs || settled) {
                break;
            }
            long b = counted ? countedBatch(pairs) : probeBatch(pairs);
            in[n] = counted ? 0L : insideBatch(pairs);
            inBest = Math.min(inBest, in[n]);
            ns[n++] = b;
            if (best == Long.MAX_VALUE || b * 100 < best * 97) {
                improved = System.nanoTime();
            }
            best = Math.min(best, b);
        }
        java.util.Arrays.sort(ns, n / 2, n);
        long p50 = ns[n / 2 + (n - n / 2) / 2];
        java.util.Arrays.sort(in, n / 2, n);
        long inP50 = in[n / 2 + (n - n / 2) / 2];
        return new String[] {tenths(best, pairs), Integer.toString(n), tenths(p50, pairs),
            tenths(inBest, pairs), tenths(inP50, pairs)};
    }

    /**
     * The part of a start+end pair inside a call's own interval (`probe_inside_ns=`): the
     * probes read the clock first and work after, so the start's work and the end's lookup
     * fall between the call's two recorded times and the rest of the pair in its caller's.
     * The same pairs as {@link #probeBatch}, summing each one's recorded end time less its
     * start time (both read once the end is done: nothing is added between them).
     */
    private static long insideBatch(int pairs) {
        long inside = 0L;
        for (int i = 0; i < pairs; i++) {
            probeCall(1000000L + i);
            RvBuf e = probeHot;
            inside += e.last - e.fr[at(0) + T]; // the call just ended: frame 0
        }
        return inside;
    }

    /** {@code total / pairs} with one decimal. */
    private static String tenths(long total, int pairs) {
        long t = (total * 10 + pairs / 2) / pairs;
        return (t / 10) + "." + (t % 10);
    }

    /** Round trips per handoff batch, and at most how many batches. */
    private static final int HANDOFF_BATCH = 4, HANDOFF_BATCHES = 240;
    /** A one-way wake-up above this (ns) is another thread's time slice: unknown (0). */
    private static final long HANDOFF_MAX_NS = 500000L;

    /**
     * The handoff for the trace header: nanoseconds of one-way wake-up between two threads (a
     * monitor ping-pong, as an active object's queue wakes its thread), the statistic `revy
     * whatif` uses. Batches of 4 round trips, each batch's fastest counting (a round trip a
     * hog or a preemption slowed costs its batch nothing), then the 25th percentile of the
     * batches' figures, halved (a batch slowed throughout does not set it). A first, untimed
     * round waits (up to 50 ms) for the helper thread to start; then batches go on for 2 ms
     * and 60 batches that agree ({@link #narrow}), or 8 ms, or 240 batches ("0" when none fit: a machine too busy to say;
     * the fastest batch when fewer than 8 did). Returns "ns handoff_stat=p25 handoff_batches=N handoff_p50=M" (the median
     * batch's, halved: the spread). revy replays with the handoff it keeps per project; this
     * figure is its cross-check.
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
        long[] fig = new long[HANDOFF_BATCHES];
        int n = 0;
        synchronized (lock) {
            try {
                long[] round = {0};
                // a new thread may wait for a core for tens of ms on a loaded machine
                if (handoffBatch(lock, turn, round, 1, System.nanoTime() + 50000000L) > 0) {
                    long begin = System.nanoTime();
                    long limit = begin + 8000000L;
                    while (n < HANDOFF_BATCHES) {
                        long b = handoffBatch(lock, turn, round, HANDOFF_BATCH, limit);
                        if (b <= 0) {
                            break;
                        }
                        fig[n++] = b;
                        long now = System.nanoTime();
                        if (now >= limit || (n >= 60 && now - begin >= 2000000L && narrow(fig, n))) {
                            break;
                        }
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            turn[0] = -1;
            lock.notify();
        }
        String tail = " handoff_stat=p25 handoff_batches=" + n + " handoff_p50=";
        if (n == 0) {
            return "0" + tail + "0";
        }
        java.util.Arrays.sort(fig, 0, n);
        // fewer than 8 batches: the fastest (the header's count says how little it rests on)
        long ns = fig[n < 8 ? 0 : n / 4] / 2;
        return (ns <= HANDOFF_MAX_NS ? ns : 0) + tail + fig[n / 2] / 2;
    }

    /**
     * Whether the handoff batches so far agree: the median within 1.5x of the 25th percentile
     * (else the measurement goes on, to its 20 ms, for more batches a neighbour did not slow).
     */
    private static boolean narrow(long[] fig, int n) {
        long[] v = java.util.Arrays.copyOf(fig, n);
        java.util.Arrays.sort(v);
        return 2 * v[n / 2] <= 3 * v[n / 4];
    }

    /**
     * {@code count} round trips before {@code limit} (nanoTime), the caller holding
     * {@code lock}: the fastest, or 0 when the echo did not answer in time.
     */
    private static long handoffBatch(Object lock, long[] turn, long[] round, int count, long limit)
            throws InterruptedException {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < count; i++, round[0]++) {
            long back = 2L * round[0] + 2;
            long t0 = System.nanoTime();
            turn[0] = back - 1;
            lock.notify();
            long left;
            while (turn[0] != back && (left = limit - System.nanoTime()) > 0) {
                lock.wait(Math.max(1L, left / 1000000L));
            }
            long t1 = System.nanoTime();
            if (turn[0] != back) {
                return 0;
            }
            best = Math.min(best, Math.max(1L, t1 - t0));
        }
        return best;
    }

    /** One timed batch of start+end pairs (its own method, so the JIT compiles it whole). */
    private static long probeBatch(int pairs) {
        long t0 = System.nanoTime();
        for (int i = 0; i < pairs; i++) {
            probeCall(1000000L + i);
        }
        return System.nanoTime() - t0;
    }

    /**
     * One recorded call on the scratch buffer as annotated code makes it (see {@link
     * Rv#enter}): a method of its own whose body is wrapped in the receiver's ID read
     * ({@link Rv#oid}), the buffer lookup and its quiet test, the start, and in a finally the
     * lookup, test and end again. The pairs once ran start and end alone, without the ID
     * read, the tests and the call's own frame that annotated code adds around them: the
     * program's calls paid more than the calibration said, outside the call most of it.
     */
    private static void probeCall(long id) {
        final long o = Rv.oid(id, null);
        RvBuf b = probeBuf();
        int tok = 0;
        if (b != null && b.quiet == 0) {
            if (b.n > LIMIT - 2 * 40) {
                b.n = HEAD; // never full(): a scratch buffer is not flushed
            }
            b.start(0, o, 24);
            tok = b.depth;
        }
        try {
            probeSink++;
        } finally {
            RvBuf e = probeBuf();
            if (e != null && e.quiet == 0) {
                e.exit(tok);
            }
        }
    }

    /**
     * {@link #probeBatch} for the counted path: a method of its own, so that the JIT compiles
     * it with the counted branch taken (sharing the recorded path's method, it ran deoptimised
     * code: 227 ns a call where the compiled path takes ~15). Each call is what annotated code
     * runs around a body (see {@link Rv#enter}): the receiver's ID read ({@link Rv#oid}), the
     * buffer lookup and its quiet test at the start and again at the end, the end in a
     * finally; on the scratch buffer ({@link #probeBuf}, Rv.buf's lookup).
     */
    private static long countedBatch(int pairs) {
        long t0 = System.nanoTime();
        for (int i = 0; i < pairs; i++) {
            final long o = Rv.oid(1000000L, null);
            RvBuf b = probeBuf();
            int tok = 0;
            if (b != null && b.quiet == 0) {
                b.start(0, o, 24);
                tok = b.depth;
            }
            try {
                probeSink++;
            } finally {
                RvBuf e = probeBuf();
                if (e != null && e.quiet == 0) {
                    e.exit(tok);
                }
            }
        }
        return System.nanoTime() - t0;
    }

    /** The counted batches' stand-in for a body. */
    private static int probeSink;

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
     * Counts the complete events in a[HEAD..len) (used when another thread flushes): returns
     * {@code count << 32 | end} of the complete prefix.
     */
    static long countEvents(byte[] a, int len) {
        int p = HEAD;
        int c = 0;
        int ok = HEAD;
        while (p < len) {
            int kind = a[p++];
            if (kind < CRT || kind > END_BARE) {
                break;
            }
            // CRT, START, END_CPU carry a value, KEY not; END_BARE only its time
            int fields = kind == END_BARE ? 1 : (kind & 1) != 0 ? 4 : 3;
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
