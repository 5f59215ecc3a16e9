package revy.runtime;

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

    static long better(Object root) {
        if (root == null) {
            return POINTER;
        }
        try {
            long s = leaf(root, root.getClass());
            if (s >= 0) {
                return s;
            }
            IdentityHashMap<Object, Boolean> seen = new IdentityHashMap<Object, Boolean>();
            ArrayDeque<Object> todo = new ArrayDeque<Object>();
            seen.put(root, Boolean.TRUE);
            todo.push(root);
            long total = 0;
            while (!todo.isEmpty()) {
                total += shallow(todo.pop(), seen, todo);
            }
            return total;
        } catch (Throwable t) {
            return SYSTEM;
        }
    }

    /** The cost of one reference met during the walk. */
    private static long ref(Object x, IdentityHashMap<Object, Boolean> seen, ArrayDeque<Object> todo) {
        if (x == null || seen.containsKey(x)) {
            return POINTER;
        }
        seen.put(x, Boolean.TRUE);
        long s = leaf(x, x.getClass());
        if (s >= 0) {
            return s;
        }
        todo.push(x);
        return 0;
    }

    private static long shallow(Object o, IdentityHashMap<Object, Boolean> seen, ArrayDeque<Object> todo) {
        Class<?> c = o.getClass();
        if (o instanceof Object[]) {
            long t = 0;
            for (Object e : (Object[]) o) {
                t += ref(e, seen, todo);
            }
            return t;
        }
        RvClasses.Info in = RvClasses.info(c);
        if (!in.user) {
            try {
                if (o instanceof Collection) {
                    long t = 0;
                    for (Object e : (Collection<?>) o) {
                        t += ref(e, seen, todo);
                    }
                    return t;
                }
                if (o instanceof Map) {
                    long t = 0;
                    for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) {
                        t += ref(e.getKey(), seen, todo) + ref(e.getValue(), seen, todo);
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
                    t += ref(v, seen, todo);
                } catch (Throwable e) {
                    t += POINTER;
                }
            }
        }
        return t;
    }

    static long faster(Object o) {
        return faster(o, 0);
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
