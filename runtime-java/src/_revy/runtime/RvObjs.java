package _revy.runtime;

import java.util.ArrayList;

/**
 * One thread's objects created while events are not recorded (past {@code max_size}), per
 * class: how many, the sum and the largest of their sizes (the sizes a creation event would
 * have carried). Only the owning thread counts; the exit hook writes every thread's table as
 * an {@code O} record (annotator/trace/FORMAT.md), so per-class counts cover the whole run. Java
 * logs no destructions: the destroyed column is 0.
 */
final class RvObjs {
    /** Per class id: created, destroyed, size sum, size max. */
    private static final int K = 4;
    private static final ThreadLocal<RvObjs> TL = new ThreadLocal<RvObjs>();
    /** Every thread's table, for the exit hook (guarded by itself). */
    private static final ArrayList<RvObjs> ALL = new ArrayList<RvObjs>();

    private final long tid;
    private long[] k = new long[0];

    private RvObjs(long tid) {
        this.tid = tid;
    }

    /** Object {@code o} was created unrecorded: counted under its runtime class. */
    static void created(Object o, int cid) {
        try {
            RvClasses.Info in = RvClasses.info(o.getClass());
            int id = in.id;
            RvTrace.defineClass(id); // the O record names defined classes only
            RvObjs t = TL.get();
            if (t == null) {
                t = new RvObjs(Thread.currentThread().getId());
                synchronized (ALL) {
                    ALL.add(t);
                }
                TL.set(t);
            }
            t.add(id, in.size);
        } catch (Throwable e) {
            RvTrace.problem("cannot count a creation", e);
        }
    }

    private void add(int id, long size) {
        int i = id * K;
        if (i + K > k.length) {
            long[] g = new long[Math.max(i + K, k.length * 2)];
            System.arraycopy(k, 0, g, 0, k.length);
            k = g;
        }
        k[i]++;
        k[i + 2] += size;
        k[i + 3] = Math.max(k[i + 3], size);
    }

    /** Every thread's O record (none for a thread that counted nothing). */
    static ArrayList<byte[]> encodeAll() {
        ArrayList<byte[]> out = new ArrayList<byte[]>();
        synchronized (ALL) {
            for (RvObjs t : ALL) {
                byte[] r = t.encode();
                if (r != null) {
                    out.add(r);
                }
            }
        }
        return out;
    }

    /** The O record: tid, entries, per entry class id, created, destroyed, size, size max. */
    private byte[] encode() {
        long[] a = k;
        int n = 0;
        for (int i = 0; i + K <= a.length; i += K) {
            if (a[i] != 0L || a[i + 1] != 0L) {
                n++;
            }
        }
        if (n == 0) {
            return null;
        }
        RvAgg.Bytes o = new RvAgg.Bytes();
        o.b('O');
        o.v(tid);
        o.v(n);
        for (int i = 0; i + K <= a.length; i += K) {
            if (a[i] != 0L || a[i + 1] != 0L) {
                o.v(i / K);
                for (int j = 0; j < K; j++) {
                    o.v(a[i + j]);
                }
            }
        }
        return o.done();
    }
}
