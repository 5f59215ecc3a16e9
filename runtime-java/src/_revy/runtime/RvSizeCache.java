package _revy.runtime;

import java.lang.ref.WeakReference;
import java.util.IdentityHashMap;

/**
 * Better mode's size cache, one per thread, so that a call costs on average about
 * {@link #WORK} walk steps however big its arguments' graphs are.
 *
 * <p>Per object: a direct-mapped table of recently sized objects (weak keys, so it keeps
 * nothing alive). A repeated object's size is re-walked after {@code period} reuses; the
 * period doubles (up to {@link #MAX_PERIOD}) while the walk keeps giving the same size and
 * falls back when it changes, so a mutated object is seen within a few calls.
 *
 * <p>Per class, for objects not in the table: once {@link #LEARN} objects of a class have
 * been walked, a class whose walks are expensive is only walked for one new object in
 * {@code work / WORK} (at most {@link #NEW_PERIOD}), and a class whose walks all gave one
 * size (its objects alike) for one in {@link #NEW_PERIOD}; the others get the class's running
 * mean. Such an estimate is replaced by a real walk when the same object comes back more than
 * {@link #ESTIMATE_REUSES} times.
 * Calls are still counted exactly: only their message sizes are estimates.
 */
final class RvSizeCache {
    static final int SLOTS = 1024;
    /** Average walk steps (objects expanded + references looked at) aimed for per call. */
    static final int WORK = 8;
    /** Reuses of one object between its walks, at most: a change to it shows this soon. */
    static final int MAX_PERIOD = 64;
    /** New objects of a learnt class per walk, at most (the others get the class's mean). */
    static final int NEW_PERIOD = 256;
    /** Objects of a class walked exactly before its new objects are sampled. */
    static final int LEARN = 8;
    /**
     * Reuses of an object sized at its class's mean before it is walked for real: a new
     * object is typically passed on a few times (created, inserted, appended), and walking it
     * at its first reuse walked nearly every new object, the class's sampling notwithstanding.
     */
    static final int ESTIMATE_REUSES = 8;

    private static final ThreadLocal<RvSizeCache> TL = new ThreadLocal<RvSizeCache>() {
        @Override
        protected RvSizeCache initialValue() {
            return new RvSizeCache();
        }
    };

    /** The thread's cache: kept on its buffer (one look-up less per size), else its own. */
    static RvSizeCache get(RvBuf b) {
        if (b == null) {
            return TL.get();
        }
        RvSizeCache c = b.sizes;
        if (c == null) {
            c = new RvSizeCache();
            b.sizes = c;
        }
        return c;
    }

    private final WeakReference<?>[] keys = new WeakReference<?>[SLOTS];
    private final long[] sizes = new long[SLOTS];
    /** Reuses left before the next walk. */
    private final int[] left = new int[SLOTS];
    private final int[] period = new int[SLOTS];

    /** This thread's walk, reused (its sizes are read before the next). */
    private final RvSize.Walk mine = new RvSize.Walk();

    /**
     * Per class: {walks, mean size, mean work, new objects since the last walk, 1 while
     * every walk gave the first one's size}.
     */
    private final IdentityHashMap<Class<?>, long[]> classes = new IdentityHashMap<Class<?>, long[]>();

    private static int periodFor(int work) {
        return Math.max(1, Math.min(MAX_PERIOD, work / WORK));
    }

    long size(Object o) {
        int h = System.identityHashCode(o) & (SLOTS - 1);
        WeakReference<?> k = keys[h];
        if (k != null && k.get() == o) {
            if (left[h] > 0) {
                left[h]--;
                return sizes[h];
            }
            RvSize.Walk w = walked(o);
            int base = periodFor(w.work());
            int p = w.size == sizes[h] ? Math.min(MAX_PERIOD, Math.max(base, period[h] * 2)) : base;
            sizes[h] = w.size;
            period[h] = p;
            left[h] = p;
            return w.size;
        }
        long[] st = classes.get(o.getClass());
        long s;
        int reuse;
        if (st != null && st[0] >= LEARN && ++st[3] < classPeriod(st)) {
            s = st[1];
            reuse = ESTIMATE_REUSES; // an estimate: walked for real if it keeps coming back
        } else {
            RvSize.Walk w = walked(o);
            s = w.size;
            reuse = periodFor(w.work());
        }
        keys[h] = new WeakReference<Object>(o);
        sizes[h] = s;
        period[h] = Math.max(1, reuse);
        left[h] = reuse;
        return s;
    }

    /** One new object of a learnt class in this many is walked. */
    private static int classPeriod(long[] st) {
        if (st[4] == 1L) {
            return NEW_PERIOD;
        }
        return (int) Math.max(1L, Math.min(NEW_PERIOD, st[2] / WORK));
    }

    /** A walk, recorded in its class's statistics. */
    private RvSize.Walk walked(Object o) {
        RvSize.Walk w = mine.busy ? RvSize.walk(o) : RvSize.walk(o, mine);
        Class<?> c = o.getClass();
        long[] st = classes.get(c);
        if (st == null) {
            st = new long[5];
            st[4] = 1L;
            st[1] = w.size;
            classes.put(c, st);
        } else if (w.size != st[1]) {
            st[4] = 0L;
        }
        long n = Math.min(st[0], LEARN - 1) + 1;
        st[1] += (w.size - st[1]) / n;
        st[2] += (w.work() - st[2]) / n;
        st[0]++;
        st[3] = 0;
        return w;
    }
}
