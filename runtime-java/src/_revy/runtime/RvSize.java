package _revy.runtime;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.IdentityHashMap;
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
        final IdentityHashMap<Object, Boolean> seen = new IdentityHashMap<Object, Boolean>();
        final ArrayDeque<Object> todo = new ArrayDeque<Object>();
        int left = BUDGET;
        /** References looked at, leaves included: bounds walks over big arrays of strings. */
        int steps = STEPS;
        long size;

        /** Objects expanded plus references looked at: what this walk cost. */
        int work() {
            return (BUDGET - left) + (STEPS - steps);
        }
    }

    /**
     * At most this many references (leaves included) are looked at per argument; the rest of
     * an array or collection is extrapolated from the part seen.
     */
    static final int STEPS = 2048;

    /** Whether iterating a library collection or map of class c runs only JDK code. */
    private static boolean jdk(Class<?> c) {
        String n = c.getName();
        return n.startsWith("java.") && !n.startsWith("java.util.Collections$");
    }

    static long better(Object root) {
        if (root == null) {
            return POINTER;
        }
        if (!RvTrace.counting) {
            return 0;
        }
        RvBuf b = RvBuf.TL.get();
        if (b != null) {
            b.quiet++;
        }
        try {
            long s = leaf(root, root.getClass());
            if (s >= 0) {
                return s;
            }
            return EXACT ? walk(root).size : RvSizeCache.get().size(root);
        } catch (Throwable t) {
            return SYSTEM;
        } finally {
            if (b != null) {
                b.quiet--;
            }
        }
    }

    /** REVY_SIZE_EXACT=1 walks every argument on every call (to measure what the cache costs). */
    static final boolean EXACT = "1".equals(System.getenv("REVY_SIZE_EXACT"));

    /** One full (bounded) walk of root's graph: its size and how many objects it visited. */
    static Walk walk(Object root) {
        Walk w = new Walk();
        w.seen.put(root, Boolean.TRUE);
        w.left--;
        long total = 0;
        Object o = root;
        while (o != null) {
            total += shallow(o, w);
            o = w.todo.poll();
        }
        w.size = total;
        return w;
    }

    /** The cost of one reference met during the walk. */
    private static long ref(Object x, Walk w) {
        w.steps--;
        if (x == null || w.seen.containsKey(x)) {
            return POINTER;
        }
        long s = leaf(x, x.getClass());
        if (s >= 0) {
            w.seen.put(x, Boolean.TRUE);
            return s;
        }
        if (w.left <= 0) {
            return POINTER;
        }
        w.left--;
        w.seen.put(x, Boolean.TRUE);
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
            if (!jdk(c)) {
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
        Field[] fs = RvClasses.fields(c);
        if (in.opaque) {
            return in.size;
        }
        long t = 0;
        for (Field f : fs) {
            Class<?> ft = f.getType();
            if (ft.isPrimitive()) {
                t += prim(ft);
            } else {
                try {
                    Object v = Modifier.isStatic(f.getModifiers()) ? f.get(null) : f.get(o);
                    t += ref(v, w);
                } catch (Throwable e) {
                    t += POINTER;
                }
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
        RvBuf b = RvBuf.TL.get();
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

    private static long faster(Object o, int depth) {
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
            if (!jdk(c)) {
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
