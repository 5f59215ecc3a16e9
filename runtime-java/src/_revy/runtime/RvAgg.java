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
    private int used;
    /**
     * The edge table, E longs per slot in one array, so that a probe reads one cache line
     * (four parallel key arrays and a value array cost up to five misses per unrecorded call):
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

    /** Calls of method {@code mid} counted here. */
    long calls(int mid) {
        int i = mid * M;
        return i + M <= m.length ? m[i] : 0L;
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
        int s = d > 0 ? b.mid(d - 1) + 1 : 0;
        long so = d > 0 ? b.oid(d - 1) : 0L;
        put(s, so, b.mid(d), b.oid(d), 1L, agg, agg - child, b.size(d));
    }

    /**
     * {@code n} calls of {@code mid} on {@code o}, each of {@code agg}, {@code net} and
     * {@code size}, sent by {@code s} (sender mid + 1, 0 for the root) on {@code so}.
     */
    void put(int s, long so, int mid, long o, long n, long agg, long net, long size) {
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
        edge(s, so, mid + 1, o, n, n * agg, n * net, n * size);
    }

    /**
     * The recorded call in frame {@code d} ended; {@code hidden} ns of it were spent in
     * unrecorded callees, which the analysis would count as its own time: subtracted here.
     */
    void correct(RvBuf b, int d, long hidden) {
        int mid = b.mid(d);
        int i = mid * M;
        if (i + M > m.length) {
            growMethods(mid);
        }
        m[i + 2] -= hidden;
        int s = d > 0 ? b.mid(d - 1) + 1 : 0;
        long so = d > 0 ? b.oid(d - 1) : 0L;
        edge(s, so, mid + 1, b.oid(d), 0L, 0L, -hidden, 0L);
    }

    private void edge(int s, long so, int r, long o, long calls, long agg, long net, long size) {
        int slot = slot(s, so, r, o, false);
        if (slot < 0) {
            folded += calls;
            slot = slot(s, so == 0L ? 0L : FOLDED, r, o == 0L ? 0L : FOLDED, true);
            if (slot < 0) {
                dropped += calls;
                return;
            }
        }
        long[] a = t;
        int j = slot * E;
        a[j + CALLS] += calls;
        a[j + AGG] += agg;
        a[j + NET] += net;
        a[j + SIZE] += size;
    }

    private static long hash(long key, long so, long o) {
        long h = (so * 0x9E3779B97F4A7C15L) ^ (o * 0xC2B2AE3D27D4EB4FL) ^ key;
        return h ^ (h >>> 29);
    }

    /** The slot of a key, inserted when new; -1 past the bound. */
    private int slot(int s, long so, int r, long o, boolean folding) {
        if (!folding && (o > maxO || so > maxSo) && full()) {
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
                if (folding ? used >= HARD_KEYS : full()) {
                    return -1;
                }
                if ((used + 1) * 2 > cap) {
                    grow();
                    return slot(s, so, r, o, folding);
                }
                used++;
                KEYS.incrementAndGet();
                a[j + KEY] = key;
                a[j + SO] = so;
                a[j + O] = o;
                if (!folding) {
                    maxO = Math.max(maxO, o);
                    maxSo = Math.max(maxSo, so);
                }
                remember(r, i);
                return i;
            }
            if (k == key && a[j + O] == o && a[j + SO] == so) {
                remember(r, i);
                return i;
            }
        }
    }

    /** No instance-level key can be added: this thread's, or the process's, bound is reached. */
    private boolean full() {
        return used >= THREAD_KEYS || KEYS.get() >= GLOBAL_KEYS;
    }

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

    /** Defines every method the record names (M records come first). */
    void defineAll() {
        for (int i = 0; i + M <= m.length; i += M) {
            if (m[i] != 0L || m[i + 2] != 0L) {
                RvTrace.defineMethod(i / M);
            }
        }
        for (int j = 0; j < t.length; j += E) {
            long k = t[j + KEY];
            if (k != 0L) {
                RvTrace.defineMethod((int) k - 1);
                if ((k >>> 32) != 0L) {
                    RvTrace.defineMethod((int) (k >>> 32) - 1);
                }
            }
        }
    }

    /** The A record: tid, last time, methods, edges, folded and dropped calls. */
    byte[] encode(long tid, long lastT) {
        Bytes o = new Bytes();
        o.b(0x41);
        o.v(tid);
        o.v(lastT);
        int n = 0;
        for (int i = 0; i + M <= m.length; i += M) {
            if (m[i] != 0L || m[i + 2] != 0L) {
                n++;
            }
        }
        o.v(n);
        for (int i = 0; i + M <= m.length; i += M) {
            if (m[i] != 0L || m[i + 2] != 0L) {
                o.v(i / M);
                o.v(m[i]);
                o.v(m[i + 1]);
                o.z(m[i + 2]);
                o.v(m[i + 3]);
                for (int k = 4; k < M; k++) {
                    o.v(m[i + k]);
                }
            }
        }
        o.v(used);
        for (int j = 0; j < t.length; j += E) {
            long k = t[j + KEY];
            if (k != 0L) {
                o.v(k >>> 32);
                o.v(t[j + SO]);
                o.v((int) k - 1);
                o.v(t[j + O]);
                o.v(t[j + CALLS]);
                o.v(t[j + AGG]);
                o.z(t[j + NET]);
                o.v(t[j + SIZE]);
            }
        }
        o.v(folded);
        o.v(dropped);
        return o.done();
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
