package _revy.runtime;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One thread's aggregates of the calls it does not record (past {@code max_size}, throttled
 * methods, and everything they call): per method and per sender-receiver edge. Only the
 * owning thread writes; the exit hook reads. Written as an {@code A} record
 * (annotator/trace/FORMAT.md).
 */
final class RvAgg {
    /** An oid folded into its class once the edge table is full. */
    static final long FOLDED = -1L;
    /** Per method: calls, agg, net, size, aggMin, aggMax, netMin, netMax, sizeMin, sizeMax. */
    private static final int M = 10;
    /**
     * Instance-level edges per thread, and in the whole process, before folding. Small: every
     * unrecorded call looks the table up, and a large one costs a cache miss per call.
     */
    private static final int THREAD_KEYS = 1 << 12;
    private static final long GLOBAL_KEYS = 1L << 20;
    /** Past this many edges a thread counts calls per method only. */
    private static final int HARD_KEYS = 1 << 13;
    private static final AtomicLong KEYS = new AtomicLong();

    private long[] m = new long[0];
    private int cap = 64;
    /** Keys made: the instance table's and the folded rows (both count to the bounds). */
    private int used;
    /**
     * The instance-level edge table (folded edges: {@link #f}), E longs per slot in one
     * array, so that a probe reads one cache line (four parallel key arrays and a value array
     * cost up to five misses per unrecorded call):
     * key (sender mid + 1 {@literal <<} 32 | receiver mid + 1; 0 = empty slot, 0 sender = the
     * thread's root), sender oid, receiver oid, then calls, agg, net, size.
     */
    private static final int E = 8;
    private static final int KEY = 0, SO = 1, O = 2, CALLS = 3, AGG = 4, NET = 5, SIZE = 6;
    private long[] t = new long[cap * E];
    long folded;
    long dropped;
    /**
     * Per receiver mid + 1: the slot its last edge used, + 1 (0: none). A small inline cache
     * checked before hashing: a method called in turn with others from one place keeps its slot.
     */
    private int[] hint = new int[64];
    /**
     * The largest receiver and sender oids of the instance-level keys: once the table takes no
     * more, a key with a larger one (a newer object: oids only grow) is not in it, and folds
     * without a probe (misses of the full table were a third of a suite's time).
     */
    private long maxO, maxSo;

    /** Calls of method {@code mid} counted here (read by tests: a copy of the rows). */
    long calls(int mid) {
        long[] ms = methods();
        int i = mid * M;
        return i + M <= ms.length ? ms[i] : 0L;
    }

    /** The call in frame {@code d} of {@code b} ended after {@code agg} ns, unrecorded. */
    void add(RvBuf b, int d, long agg) {
        put(b, d, agg, b.child(d));
    }

    /**
     * The calls still open on {@code b}'s shadow stack at the final flush (time {@code t}):
     * an unrecorded one is counted as ended at {@code t}, a recorded one (which the analysis
     * closes at its thread's last time) gets the net correction for its unrecorded callees.
     * A table of their own, written as a second A record: the stack is only read. Null when
     * nothing unrecorded is open.
     */
    static RvAgg open(RvBuf b, long t) {
        RvAgg out = null;
        long above = 0L; // the open callee's time, not yet in the frame's CHILD slot
        boolean aboveAgg = false;
        for (int d = openDepth(b) - 1; d >= 0; d--) {
            // An estimated (untimed) frame has no start time: it takes its estimate, as at its end.
            boolean rec = b.rec(d);
            long agg = b.est(d)
                    ? b.estimatedTime(d, b.child(d) + above)
                    : Math.max(0L, t - b.time(d));
            long hidden = rec ? b.hidden(d) + (aboveAgg ? above : 0L) : 0L;
            if (!rec || hidden != 0L) {
                if (out == null) {
                    out = new RvAgg();
                }
                if (rec) {
                    out.correct(b, d, hidden);
                } else {
                    out.put(b, d, agg, b.child(d) + above);
                }
            }
            above = agg;
            aboveAgg = !rec;
        }
        return out;
    }

    /**
     * b's depth, at most the frames its frame array holds: read from another thread (one
     * still running at exit), the depth may already count frames of an array it still sees
     * at its length before the growth. The array is only ever replaced by a longer copy, so
     * every frame below this bound is valid in whichever copy a later read sees.
     */
    private static int openDepth(RvBuf b) {
        return Math.min(b.depth, b.fr.length / RvBuf.F - 1); // less the root's
    }

    private void put(RvBuf b, int d, long agg, long child) {
        // frame -1 is the root's: mid -1 (sender 0), oid 0
        put(b.mid(d - 1) + 1, b.oid(d - 1), b.mid(d), b.oid(d), 1L, agg, agg - child, b.size(d));
    }

    /**
     * {@code n} calls of {@code mid} on {@code o}, each of {@code agg}, {@code net} and
     * {@code size}, sent by {@code s} (sender mid + 1, 0 for the root) on {@code so}. An edge
     * of the instance table also goes into the method's row; a folded edge's row carries the
     * method's statistics of its calls itself, summed into the method's at {@link #encode}.
     */
    void put(int s, long so, int mid, long o, long n, long agg, long net, long size) {
        // a newer object than the full table holds: folded without a call (instance() is
        // too big to be inlined here)
        int slot = (o > maxO || so > maxSo) && sealed ? -1 : instance(s, so, mid + 1, o);
        if (slot < 0) {
            putFolded(s, so, mid, o, n, agg, net, size);
            return;
        }
        row(mid, n, agg, net, size);
        long[] a = t;
        int j = slot * E;
        a[j + CALLS] += n;
        a[j + AGG] += n * agg;
        a[j + NET] += n * net;
        a[j + SIZE] += n * size;
    }

    /** Adds {@code n} calls to method {@code mid}'s row. */
    private void row(int mid, long n, long agg, long net, long size) {
        int i = mid * M;
        if (i + M > m.length) {
            growMethods(mid);
        }
        long[] a = m;
        if (a[i] == 0L) {
            a[i + 4] = agg;
            a[i + 5] = agg;
            a[i + 6] = net;
            a[i + 7] = net;
            a[i + 8] = size;
            a[i + 9] = size;
        } else {
            a[i + 4] = Math.min(a[i + 4], agg);
            a[i + 5] = Math.max(a[i + 5], agg);
            a[i + 6] = Math.min(a[i + 6], net);
            a[i + 7] = Math.max(a[i + 7], net);
            a[i + 8] = Math.min(a[i + 8], size);
            a[i + 9] = Math.max(a[i + 9], size);
        }
        a[i] += n;
        a[i + 1] += n * agg;
        a[i + 2] += n * net;
        a[i + 3] += n * size;
    }

    /**
     * {@link #put}'s calls on an edge the instance table does not hold: its folded edge's row
     * (sums, minima, maxima), or, past {@link #HARD_KEYS}, the method's row alone (dropped).
     * Counted as folded as the one table counted them: a key of oids 0 (static to static)
     * that exists is the key itself, not a fold.
     */
    private void putFolded(int s, long so, int mid, long o, long n, long agg, long net, long size) {
        int fl = folding(so, o);
        int j = foldedRow(s, mid + 1, fl);
        if (fl != 0 || fresh || j < 0) {
            folded += n;
        }
        if (j < 0) {
            dropped += n;
            row(mid, n, agg, net, size);
            return;
        }
        long[] a = f;
        a[j + CALLS_F] += n;
        a[j + AGG_F] += n * agg;
        a[j + NET_F] += n * net;
        a[j + SIZE_F] += n * size;
        a[j + AMIN] = Math.min(a[j + AMIN], agg);
        a[j + AMAX] = Math.max(a[j + AMAX], agg);
        a[j + NMIN] = Math.min(a[j + NMIN], net);
        a[j + NMAX] = Math.max(a[j + NMAX], net);
        a[j + ZMIN] = Math.min(a[j + ZMIN], size);
        a[j + ZMAX] = Math.max(a[j + ZMAX], size);
    }

    /** A folded key's oids: 2 when the sender's is folded (not 0), 1 the receiver's. */
    static int folding(long so, long o) {
        return (so == 0L ? 0 : 2) | (o == 0L ? 0 : 1);
    }

    /**
     * The recorded call in frame {@code d} ended; {@code hidden} ns of it were spent in
     * unrecorded callees, which the analysis would count as its own time: subtracted here
     * (from the edge's row, and the method's: a folded row is the method's too).
     */
    void correct(RvBuf b, int d, long hidden) {
        int mid = b.mid(d);
        int s = b.mid(d - 1) + 1;
        long so = b.oid(d - 1);
        long o = b.oid(d);
        int slot = instance(s, so, mid + 1, o);
        int j = slot < 0 ? foldedRow(s, mid + 1, folding(so, o)) : -1;
        if (j >= 0) {
            f[j + NET_F] -= hidden;
            return;
        }
        int i = mid * M;
        if (i + M > m.length) {
            growMethods(mid);
        }
        m[i + 2] -= hidden;
        if (slot >= 0) {
            t[slot * E + NET] -= hidden;
        }
    }

    private static long hash(long key, long so, long o) {
        long h = (so * 0x9E3779B97F4A7C15L) ^ (o * 0xC2B2AE3D27D4EB4FL) ^ key;
        return h ^ (h >>> 29);
    }

    /** The instance-level slot of a key, inserted when new; -1 once the table takes no more. */
    private int instance(int s, long so, int r, long o) {
        if ((o > maxO || so > maxSo) && full()) {
            return -1;
        }
        long key = ((long) s << 32) | r;
        long[] a = t;
        int[] hs = hint;
        int l = r < hs.length ? hs[r] - 1 : -1;
        if (l >= 0) {
            int j = l * E;
            if (a[j + KEY] == key && a[j + O] == o && a[j + SO] == so) {
                return l;
            }
        }
        int mask = cap - 1;
        for (int i = (int) hash(key, so, o) & mask;; i = (i + 1) & mask) {
            int j = i * E;
            long k = a[j + KEY];
            if (k == 0L) {
                if (full()) {
                    return -1;
                }
                if ((used + 1) * 2 > cap) {
                    grow();
                    return instance(s, so, r, o);
                }
                used++;
                KEYS.incrementAndGet();
                a[j + KEY] = key;
                a[j + SO] = so;
                a[j + O] = o;
                maxO = Math.max(maxO, o);
                maxSo = Math.max(maxSo, so);
                remember(r, i);
                return i;
            }
            if (k == key && a[j + O] == o && a[j + SO] == so) {
                remember(r, i);
                return i;
            }
        }
    }

    // The folded edges: once the instance table is full (it then takes no key again), every
    // call on an edge it does not hold goes here, keyed by sender and receiver method and which
    // oids are folded. Few and dense (rows in the order made), so they stay in the cache; each
    // row also keeps the minima and maxima of its calls, so that a call updates one row only.
    /** Longs per folded row. */
    private static final int FR = 12;
    /**
     * Row slots: key (as the instance table's), {@link #folding} flags, calls, agg, net, size,
     * then agg, net and size minima and maxima (MAX_VALUE and MIN_VALUE until a call).
     */
    private static final int KEY_F = 0, FL = 1, CALLS_F = 2, AGG_F = 3, NET_F = 4, SIZE_F = 5;
    private static final int AMIN = 6, AMAX = 7, NMIN = 8, NMAX = 9, ZMIN = 10, ZMAX = 11;
    private long[] f = new long[16 * FR];
    private int rows;
    /** Open addressing over the rows: row + 1 (0: empty). */
    private int[] findex = new int[32];
    /** Per receiver mid + 1: its last folded row + 1, checked before hashing. */
    private int[] fhint = new int[64];
    /** The last {@link #foldedRow} made its row. */
    private boolean fresh;

    /** Where folded key (s, r, fl)'s row starts in {@link #f}, made when new; -1 past the bound. */
    private int foldedRow(int s, int r, int fl) {
        long key = ((long) s << 32) | r;
        int[] hs = fhint;
        int l = r < hs.length ? hs[r] - 1 : -1;
        if (l >= 0) {
            int j = l * FR;
            long[] a = f;
            if (a[j + KEY_F] == key && a[j + FL] == fl) {
                fresh = false;
                return j;
            }
        }
        return foldedFind(key, r, fl);
    }

    private int foldedFind(long key, int r, int fl) {
        fresh = false;
        int[] x = findex;
        int mask = x.length - 1;
        for (int i = foldedHash(key, fl) & mask;; i = (i + 1) & mask) {
            int l = x[i] - 1;
            if (l < 0) {
                if (used >= HARD_KEYS) {
                    return -1;
                }
                used++;
                KEYS.incrementAndGet();
                l = newRow(key, fl);
                x[i] = l + 1;
                if (rows * 2 > x.length) {
                    reindex();
                }
                fresh = true;
            } else if (f[l * FR + KEY_F] != key || f[l * FR + FL] != fl) {
                continue;
            }
            if (r >= fhint.length) {
                fhint = java.util.Arrays.copyOf(fhint, Math.max(r + 1, fhint.length * 2));
            }
            fhint[r] = l + 1;
            return l * FR;
        }
    }

    /**
     * The high half of a multiplicative hash: a key's two method ids are small numbers in
     * its two halves, whose low bits alone (or XORed) collide in runs.
     */
    private static int foldedHash(long key, int fl) {
        return (int) (((key ^ (long) fl << 62) * 0x9E3779B97F4A7C15L) >>> 32);
    }

    private int newRow(long key, int fl) {
        int l = rows++;
        if (rows * FR > f.length) {
            f = java.util.Arrays.copyOf(f, f.length * 2);
        }
        int j = l * FR;
        long[] a = f;
        a[j + KEY_F] = key;
        a[j + FL] = fl;
        a[j + AMIN] = Long.MAX_VALUE;
        a[j + AMAX] = Long.MIN_VALUE;
        a[j + NMIN] = Long.MAX_VALUE;
        a[j + NMAX] = Long.MIN_VALUE;
        a[j + ZMIN] = Long.MAX_VALUE;
        a[j + ZMAX] = Long.MIN_VALUE;
        return l;
    }

    private void reindex() {
        int[] x = new int[findex.length * 2];
        int mask = x.length - 1;
        for (int l = 0; l < rows; l++) {
            int i = foldedHash(f[l * FR + KEY_F], (int) f[l * FR + FL]) & mask;
            while (x[i] != 0) {
                i = (i + 1) & mask;
            }
            x[i] = l + 1;
        }
        findex = x;
    }

    /** No instance-level key can be added: this thread's, or the process's, bound is reached. */
    /**
     * Whether a put of oids {@code so} and {@code o} folds without a probe, as {@link #put}
     * decides it: the table is full and one oid is newer than every key (the bounds no
     * longer move once it is full). Its folded row then depends on the oids only through
     * {@link #folding}.
     */
    boolean foldsNew(long so, long o) {
        return sealed && (o > maxO || so > maxSo);
    }

    private boolean full() {
        if (!sealed && (used >= THREAD_KEYS || KEYS.get() >= GLOBAL_KEYS)) {
            sealed = true;
        }
        return sealed;
    }

    /** {@link #full} was true: it stays so (both counts only grow). */
    private boolean sealed;

    private void remember(int r, int i) {
        if (r >= hint.length) {
            hint = java.util.Arrays.copyOf(hint, Math.max(r + 1, hint.length * 2));
        }
        hint[r] = i + 1;
    }

    private void grow() {
        long[] old = t;
        cap *= 2;
        t = new long[cap * E];
        java.util.Arrays.fill(hint, 0);
        int mask = cap - 1;
        for (int j = 0; j < old.length; j += E) {
            long k = old[j + KEY];
            if (k == 0L) {
                continue;
            }
            int i = (int) hash(k, old[j + SO], old[j + O]) & mask;
            while (t[i * E + KEY] != 0L) {
                i = (i + 1) & mask;
            }
            System.arraycopy(old, j, t, i * E, E);
        }
    }

    private void growMethods(int mid) {
        long[] g = new long[Math.max((mid + 1) * M, m.length * 2)];
        System.arraycopy(m, 0, g, 0, m.length);
        m = g;
    }

    /**
     * The method rows with the folded rows' calls summed in: per method the calls, sums,
     * minima and maxima of every call counted, as one row per call would have them.
     */
    private long[] methods() {
        long[] a = m;
        if (rows == 0) {
            return a;
        }
        int top = a.length;
        for (int l = 0; l < rows; l++) {
            top = Math.max(top, ((int) f[l * FR + KEY_F]) * M); // receiver mid + 1
        }
        a = java.util.Arrays.copyOf(a, top);
        for (int j = 0; j < rows * FR; j += FR) {
            int i = ((int) f[j + KEY_F] - 1) * M;
            long c = f[j + CALLS_F];
            a[i + 1] += f[j + AGG_F];
            a[i + 2] += f[j + NET_F];
            a[i + 3] += f[j + SIZE_F];
            if (c == 0L) {
                continue; // corrections only: no minima or maxima
            }
            boolean first = a[i] == 0L;
            a[i] += c;
            for (int k = 0; k < 6; k += 2) {
                long lo = f[j + AMIN + k];
                long hi = f[j + AMAX + k];
                a[i + 4 + k] = first ? lo : Math.min(a[i + 4 + k], lo);
                a[i + 5 + k] = first ? hi : Math.max(a[i + 5 + k], hi);
            }
        }
        return a;
    }

    /** Defines every method the record names (M records come first). */
    void defineAll() {
        long[] ms = methods();
        for (int i = 0; i + M <= ms.length; i += M) {
            if (ms[i] != 0L || ms[i + 2] != 0L) {
                RvTrace.defineMethod(i / M);
            }
        }
        for (int j = 0; j < t.length; j += E) {
            defineKey(t[j + KEY]);
        }
        for (int j = 0; j < rows * FR; j += FR) {
            defineKey(f[j + KEY_F]);
        }
    }

    private static void defineKey(long k) {
        if (k != 0L) {
            RvTrace.defineMethod((int) k - 1);
            if ((k >>> 32) != 0L) {
                RvTrace.defineMethod((int) (k >>> 32) - 1);
            }
        }
    }

    /** The A record: tid, last time, methods, edges, folded and dropped calls. */
    byte[] encode(long tid, long lastT) {
        Bytes o = new Bytes();
        o.b(0x41);
        o.v(tid);
        o.v(lastT);
        long[] ms = methods();
        int n = 0;
        for (int i = 0; i + M <= ms.length; i += M) {
            if (ms[i] != 0L || ms[i + 2] != 0L) {
                n++;
            }
        }
        o.v(n);
        for (int i = 0; i + M <= ms.length; i += M) {
            if (ms[i] != 0L || ms[i + 2] != 0L) {
                o.v(i / M);
                o.v(ms[i]);
                o.v(ms[i + 1]);
                o.z(ms[i + 2]);
                o.v(ms[i + 3]);
                for (int k = 4; k < M; k++) {
                    o.v(ms[i + k]);
                }
            }
        }
        o.v(used); // the instance table's keys and the folded rows
        for (int j = 0; j < t.length; j += E) {
            long k = t[j + KEY];
            if (k != 0L) {
                edge(o, k, t[j + SO], t[j + O], t[j + CALLS], t[j + AGG], t[j + NET], t[j + SIZE]);
            }
        }
        for (int j = 0; j < rows * FR; j += FR) {
            long fl = f[j + FL];
            edge(o, f[j + KEY_F], (fl & 2L) != 0L ? FOLDED : 0L, (fl & 1L) != 0L ? FOLDED : 0L,
                    f[j + CALLS_F], f[j + AGG_F], f[j + NET_F], f[j + SIZE_F]);
        }
        o.v(folded);
        o.v(dropped);
        return o.done();
    }

    private static void edge(Bytes o, long k, long so, long ro, long calls, long agg, long net, long size) {
        o.v(k >>> 32);
        o.v(so);
        o.v((int) k - 1);
        o.v(ro);
        o.v(calls);
        o.v(agg);
        o.z(net);
        o.v(size);
    }

    /** A growing byte array of varints. */
    static final class Bytes {
        private byte[] a = new byte[256];
        private int n;

        void b(int x) {
            room();
            a[n++] = (byte) x;
        }

        void v(long x) {
            room();
            n = RvBuf.v(a, n, x);
        }

        void z(long x) {
            v((x << 1) ^ (x >> 63));
        }

        private void room() {
            if (n + 16 > a.length) {
                byte[] g = new byte[a.length * 2];
                System.arraycopy(a, 0, g, 0, n);
                a = g;
            }
        }

        byte[] done() {
            byte[] r = new byte[n];
            System.arraycopy(a, 0, r, 0, n);
            return r;
        }
    }
}
