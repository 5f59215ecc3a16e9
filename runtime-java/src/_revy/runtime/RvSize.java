package _revy.runtime;

import java.lang.reflect.Field;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;

/**
 * Message sizes. Objects have no header cost (as in the thesis's static size): a user object
 * is the sum of its fields (statics included, static finals excluded), a reference to an
 * object already counted costs a pointer, a string two bytes per char, a boxed primitive its
 * primitive's size, arrays their elements, other library objects {@code [sizes].system}.
 */
final class RvSize {
    private RvSize() {
    }

    static final long POINTER = RvTable.POINTER;
    static final long SYSTEM = RvTable.SYSTEM;

    /** Sizes that need no graph walk, or -1. */
    private static long leaf(Object o, Class<?> c) {
        if (c == String.class) {
            return 2L * ((String) o).length();
        }
        if (c == Integer.class || c == Float.class) {
            return 4;
        }
        if (c == Long.class || c == Double.class) {
            return 8;
        }
        if (c == Boolean.class || c == Byte.class) {
            return 1;
        }
        if (c == Character.class || c == Short.class) {
            return 2;
        }
        if (c.isArray()) {
            Class<?> e = c.getComponentType();
            if (e.isPrimitive()) {
                return (long) java.lang.reflect.Array.getLength(o) * prim(e);
            }
            return -1;
        }
        return -1;
    }

    static long prim(Class<?> e) {
        if (e == int.class || e == float.class) {
            return 4;
        }
        if (e == long.class || e == double.class) {
            return 8;
        }
        if (e == char.class || e == short.class) {
            return 2;
        }
        return 1;
    }

    /**
     * At most this many objects are walked per argument: a walk that reaches the whole heap
     * (a tree node with a parent link, an element of a big collection) would make each call
     * cost as much as the program. Past the budget every further reference costs a pointer,
     * so the size is then a lower bound.
     */
    static final int BUDGET = 256;

    /** One walk: the visited set, the objects still to expand, the budget left. */
    static final class Walk {
        /**
         * The objects seen: an identity set by open addressing, reused walk after walk (a
         * new IdentityHashMap per walk, grown as it filled, was an eighth of a better-mode
         * suite's time); the slots used are cleared after each walk, so nothing is kept.
         */
        private Object[] seen = new Object[1024];
        private int[] used = new int[512];
        private int n;
        final ArrayDeque<Object> todo = new ArrayDeque<Object>();
        int left = BUDGET;
        /** References looked at, leaves included: bounds walks over big arrays of strings. */
        int steps = STEPS;
        long size;
        /** A walk of this thread is under way (a walk never calls user code; in case). */
        boolean busy;

        /** Objects expanded plus references looked at: what this walk cost. */
        int work() {
            return (BUDGET - left) + (STEPS - steps);
        }

        boolean contains(Object x) {
            Object[] t = seen;
            int m = t.length - 1;
            for (int i = System.identityHashCode(x) & m;; i = (i + 1) & m) {
                Object k = t[i];
                if (k == x) {
                    return true;
                }
                if (k == null) {
                    return false;
                }
            }
        }

        /** Adds x (not yet seen). */
        void add(Object x) {
            if (2 * (n + 1) > seen.length) {
                grow();
            }
            Object[] t = seen;
            int m = t.length - 1;
            int i = System.identityHashCode(x) & m;
            while (t[i] != null) {
                i = (i + 1) & m;
            }
            t[i] = x;
            if (n == used.length) {
                used = java.util.Arrays.copyOf(used, n * 2);
            }
            used[n++] = i;
        }

        private void grow() {
            Object[] old = seen;
            int k = n;
            seen = new Object[old.length * 2];
            used = new int[Math.max(used.length, seen.length / 2)];
            n = 0;
            for (Object x : old) {
                if (x != null) {
                    add(x);
                }
            }
            assert n == k;
        }

        /**
         * Drops the objects of the walk (only the set's used slots): a walk keeps none of
         * the program's objects alive (a test waiting for a weakly held argument to be
         * collected failed while the last walk's set still held it).
         */
        void forget() {
            Object[] t = seen;
            int[] u = used;
            for (int i = 0; i < n; i++) {
                t[u[i]] = null;
            }
            n = 0;
            todo.clear();
        }

        /** Ready for the next walk: the set emptied, budgets full. */
        void reset() {
            forget();
            left = BUDGET;
            steps = STEPS;
            size = 0;
        }
    }

    /**
     * At most this many references (leaves included) are looked at per argument; the rest of
     * an array or collection is extrapolated from the part seen.
     */
    static final int STEPS = 2048;

    static long better(Object root) {
        if (root == null) {
            return POINTER;
        }
        if (!RvTrace.counting) {
            return 0;
        }
        RvBuf b = Rv.buf();
        if (b != null) {
            b.quiet++;
        }
        try {
            return betterQuiet(root, b);
        } finally {
            if (b != null) {
                b.quiet--;
            }
        }
    }

    /**
     * {@link #better} of a non-null {@code root} with the thread's buffer {@code b} (or null)
     * already quiet: the entry of a method with several reference arguments walks them all in
     * one quiet span ({@link Rv}'s enterAny).
     */
    static long betterQuiet(Object root, RvBuf b) {
        try {
            long s = leaf(root, root.getClass());
            if (s >= 0) {
                return s;
            }
            return EXACT ? walk(root).size : RvSizeCache.get(b).size(root);
        } catch (Throwable t) {
            return SYSTEM;
        }
    }

    /** REVY_SIZE_EXACT=1 walks every argument on every call (to measure what the cache costs). */
    static final boolean EXACT = "1".equals(System.getenv("REVY_SIZE_EXACT"));

    /** One full (bounded) walk of root's graph: its size and how many objects it visited. */
    static Walk walk(Object root) {
        return walk(root, new Walk());
    }

    /**
     * One full (bounded) walk of root's graph in {@code w} (reset first): its size and how
     * many objects it visited, read before w's next walk.
     */
    static Walk walk(Object root, Walk w) {
        w.reset();
        w.busy = true;
        try {
            w.add(root);
            w.left--;
            long total = 0;
            Object o = root;
            while (o != null) {
                total += shallow(o, w);
                o = w.todo.poll();
            }
            w.size = total;
            return w;
        } finally {
            w.forget();
            w.busy = false;
        }
    }

    /** The cost of one reference met during the walk. */
    private static long ref(Object x, Walk w) {
        w.steps--;
        if (x == null || w.contains(x)) {
            return POINTER;
        }
        long s = leaf(x, x.getClass());
        if (s >= 0) {
            w.add(x);
            return s;
        }
        if (w.left <= 0) {
            return POINTER;
        }
        w.left--;
        w.add(x);
        w.todo.push(x);
        return 0;
    }

    /**
     * The size of a container of n elements whose first i (i < n) came to t: the rest at the
     * average of those seen, at least a pointer each.
     */
    private static long rest(long t, int i, int n) {
        long more = Math.max(0, n - i);
        long each = i == 0 ? POINTER : Math.max(POINTER, t / i);
        return t + more * each;
    }

    private static long shallow(Object o, Walk w) {
        Class<?> c = o.getClass();
        if (o instanceof Object[]) {
            Object[] a = (Object[]) o;
            long t = 0;
            for (int i = 0; i < a.length; i++) {
                if (w.left <= 0 || w.steps <= 0) {
                    return rest(t, i, a.length);
                }
                t += ref(a[i], w);
            }
            return t;
        }
        RvClasses.Info in = RvClasses.info(c);
        if (!in.user) {
            if (!in.jdk) {
                return SYSTEM;
            }
            try {
                if (o instanceof Collection) {
                    Collection<?> col = (Collection<?>) o;
                    long t = 0;
                    int i = 0;
                    for (Object e : col) {
                        if (w.left <= 0 || w.steps <= 0) {
                            return rest(t, i, col.size());
                        }
                        t += ref(e, w);
                        i++;
                    }
                    return t;
                }
                if (o instanceof Map) {
                    Map<?, ?> m = (Map<?, ?>) o;
                    long t = 0;
                    int i = 0;
                    for (Map.Entry<?, ?> e : m.entrySet()) {
                        if (w.left <= 0 || w.steps <= 0) {
                            return rest(t, i, m.size());
                        }
                        t += ref(e.getKey(), w) + ref(e.getValue(), w);
                        i++;
                    }
                    return t;
                }
            } catch (RuntimeException concurrentlyModified) {
                return SYSTEM;
            }
            return SYSTEM;
        }
        RvClasses.Layout l = RvClasses.layout(c, in);
        if (l == null) {
            return in.size;
        }
        long t = l.prim;
        Field[] refs = l.refs;
        boolean[] statics = l.statics;
        for (int k = 0; k < refs.length; k++) {
            try {
                t += ref(refs[k].get(statics[k] ? null : o), w);
            } catch (Throwable e) {
                t += POINTER;
            }
        }
        return t;
    }

    static long faster(Object o) {
        if (o == null) {
            return POINTER;
        }
        if (!RvTrace.counting) {
            return 0;
        }
        RvBuf b = Rv.buf();
        if (b != null) {
            b.quiet++;
        }
        try {
            return faster(o, 0);
        } finally {
            if (b != null) {
                b.quiet--;
            }
        }
    }

    static long faster(Object o, int depth) {
        if (o == null) {
            return POINTER;
        }
        try {
            Class<?> c = o.getClass();
            long s = leaf(o, c);
            if (s >= 0) {
                return s;
            }
            if (depth > 4) {
                return SYSTEM;
            }
            if (o instanceof Object[]) {
                Object[] a = (Object[]) o;
                return a.length == 0 ? 0 : a.length * faster(a[0], depth + 1);
            }
            RvClasses.Info in = RvClasses.info(c);
            if (in.user) {
                return in.size;
            }
            if (!in.jdk) {
                return SYSTEM;
            }
            if (o instanceof Collection) {
                Collection<?> col = (Collection<?>) o;
                int n = col.size();
                if (n == 0) {
                    return 0;
                }
                Iterator<?> it = col.iterator();
                return n * faster(it.next(), depth + 1);
            }
            if (o instanceof Map) {
                Map<?, ?> m = (Map<?, ?>) o;
                int n = m.size();
                if (n == 0) {
                    return 0;
                }
                Map.Entry<?, ?> e = m.entrySet().iterator().next();
                return n * (faster(e.getKey(), depth + 1) + faster(e.getValue(), depth + 1));
            }
            return SYSTEM;
        } catch (Throwable t) {
            return SYSTEM;
        }
    }
}
