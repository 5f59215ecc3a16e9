package _revy.runtime;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;

/**
 * The class and method tables: the generated {@link RvTable} (indexed by SAF id) plus the
 * classes met at run time that the SAF does not know (anonymous and unselected subclasses,
 * lambdas), which get ids after the table's.
 */
final class RvClasses {
    private RvClasses() {
    }

    /** What Revy knows about one runtime class. */
    static final class Info {
        final int id;
        final long size;
        /** A class of the user's project (in the table, or below one that is). */
        final boolean user;
        volatile Field[] fields;
        /** Reflection refused: sized as a library object. */
        volatile boolean opaque;
        /** The size walk's view of the class, made at its first walk ({@link #layout}). */
        volatile Layout layout;
        /** A library class whose collections/maps the walk may iterate (JDK code only). */
        final boolean jdk;
        volatile Field oidField;
        /** The object-ID field this class has (own or inherited), or NO_FIELD. */
        volatile Object ownOid;
        volatile int oidFieldCid;

        Info(int id, long size, boolean user, Class<?> c) {
            this.id = id;
            this.size = size;
            this.user = user;
            String n = c.getName();
            this.jdk = n.startsWith("java.") && !n.startsWith("java.util.Collections$");
        }
    }

    /**
     * What the size walk needs of a user class, computed once: the sum of its primitive
     * fields and its reference fields in declaration order (statics flagged), so that a walk
     * step reads the references only instead of asking each field for its type and modifiers.
     */
    static final class Layout {
        final long prim;
        final Field[] refs;
        final boolean[] statics;

        Layout(Field[] fs) {
            long p = 0;
            ArrayList<Field> r = new ArrayList<Field>();
            for (Field f : fs) {
                Class<?> ft = f.getType();
                if (ft.isPrimitive()) {
                    p += RvSize.prim(ft);
                } else {
                    r.add(f);
                }
            }
            prim = p;
            refs = r.toArray(new Field[0]);
            statics = new boolean[refs.length];
            for (int i = 0; i < refs.length; i++) {
                statics[i] = Modifier.isStatic(refs[i].getModifiers());
            }
        }
    }

    /** The walk's layout of user class c (null when reflection was refused: opaque). */
    static Layout layout(Class<?> c, Info in) {
        Layout l = in.layout;
        if (l == null) {
            Field[] fs = fields(c);
            if (in.opaque) {
                return null;
            }
            l = new Layout(fs);
            in.layout = l;
        }
        return l;
    }

    private static final Object LOCK = new Object();
    private static final ArrayList<String> NAMES = new ArrayList<String>();
    private static final ArrayList<Long> SIZES = new ArrayList<Long>();
    private static final ArrayList<String> OID_FIELDS = new ArrayList<String>();
    private static final HashMap<String, Integer> BY_NAME = new HashMap<String, Integer>();
    private static final int[] M_CLASS = new int[RvTable.METHODS];
    private static final String[] M_NAME = new String[RvTable.METHODS];
    private static final String[] M_SGN = new String[RvTable.METHODS];

    static {
        for (int i = 0; i < RvTable.CLASSES; i++) {
            NAMES.add(null);
            SIZES.add(Long.valueOf(RvTable.SYSTEM));
            OID_FIELDS.add(null);
        }
        for (String chunk : RvTable.DATA) {
            for (String line : chunk.split("\n")) {
                String[] f = line.split("\t", -1);
                if (f.length == 5 && f[0].equals("C")) {
                    int id = Integer.parseInt(f[1]);
                    NAMES.set(id, f[2]);
                    SIZES.set(id, Long.valueOf(f[3]));
                    OID_FIELDS.set(id, f[4].length() == 0 ? null : f[4]);
                    BY_NAME.put(f[2], Integer.valueOf(id));
                } else if (f.length == 5 && f[0].equals("M")) {
                    int id = Integer.parseInt(f[1]);
                    M_CLASS[id] = Integer.parseInt(f[2]);
                    M_NAME[id] = f[3];
                    M_SGN[id] = f[4];
                }
            }
        }
    }

    private static final ClassValue<Info> INFO = new ClassValue<Info>() {
        @Override
        protected Info computeValue(Class<?> c) {
            return compute(c);
        }
    };

    static int methodCount() {
        return RvTable.METHODS;
    }

    static int methodClass(int mid) {
        return M_CLASS[mid];
    }

    static String methodName(int mid) {
        return M_NAME[mid];
    }

    static String methodSgn(int mid) {
        return M_SGN[mid];
    }

    static String name(int id) {
        synchronized (LOCK) {
            return id < NAMES.size() ? NAMES.get(id) : "?";
        }
    }

    static long staticSize(int id) {
        synchronized (LOCK) {
            return id < SIZES.size() ? SIZES.get(id).longValue() : RvTable.SYSTEM;
        }
    }

    static Info info(Class<?> c) {
        return INFO.get(c);
    }

    /** The user-visible qualified name of a class: {@code pkg.Outer.Inner}. */
    static String userName(Class<?> c) {
        try {
            if (!c.isAnonymousClass() && !c.isArray()) {
                Class<?> outer = c.getEnclosingClass();
                if (outer != null) {
                    return userName(outer) + "." + c.getSimpleName();
                }
            }
        } catch (Throwable ignored) {
            // malformed InnerClasses attributes: use the binary name
        }
        return c.getName();
    }

    private static Info compute(Class<?> c) {
        if (c.isAnonymousClass() && c.getSuperclass() != null && c.getSuperclass().isEnum()) {
            return INFO.get(c.getSuperclass()); // an enum constant with a body
        }
        String name = userName(c);
        Integer known;
        synchronized (LOCK) {
            known = BY_NAME.get(name);
        }
        if (known != null) {
            return new Info(known.intValue(), staticSize(known.intValue()), true, c);
        }
        long size = RvTable.SYSTEM;
        boolean user = false;
        for (Class<?> s = c.getSuperclass(); s != null && s != Object.class; s = s.getSuperclass()) {
            Info si = INFO.get(s);
            if (si.user) {
                size = si.size;
                user = true;
                break;
            }
        }
        synchronized (LOCK) {
            int id = NAMES.size();
            NAMES.add(c.getName());
            SIZES.add(Long.valueOf(size));
            OID_FIELDS.add(null);
            return new Info(id, size, user, c);
        }
    }

    private static final Object NO_FIELD = new Object();

    /** The object ID held in o's Revy field (own or inherited), or -1 when it has none. */
    static long fieldOid(Object o) {
        Info in = INFO.get(o.getClass());
        Object f = in.ownOid;
        if (f == null) {
            f = NO_FIELD;
            try {
                for (Class<?> k = o.getClass(); k != null && k != Object.class; k = k.getSuperclass()) {
                    int id = INFO.get(k).id;
                    String fname;
                    synchronized (LOCK) {
                        fname = id < OID_FIELDS.size() ? OID_FIELDS.get(id) : null;
                    }
                    if (fname != null) {
                        Field fld = k.getDeclaredField(fname);
                        fld.setAccessible(true);
                        f = fld;
                        break;
                    }
                }
            } catch (Throwable t) {
                f = NO_FIELD;
            }
            in.ownOid = f;
        }
        if (f == NO_FIELD) {
            return -1L;
        }
        try {
            return ((Field) f).getLong(o);
        } catch (Throwable t) {
            return -1L;
        }
    }

    /** Reads the object ID that the selected superclass {@code superCid} assigned to o. */
    /** Sets every ID field of {@code o}'s class chain to {@code oid}; false if it has none. */
    static boolean setFieldOids(Object o, long oid) {
        boolean any = false;
        try {
            for (Class<?> k = o.getClass(); k != null && k != Object.class; k = k.getSuperclass()) {
                int id = INFO.get(k).id;
                String fname;
                synchronized (LOCK) {
                    fname = id < OID_FIELDS.size() ? OID_FIELDS.get(id) : null;
                }
                if (fname != null) {
                    Field fld = k.getDeclaredField(fname);
                    fld.setAccessible(true);
                    fld.setLong(o, oid);
                    any = true;
                }
            }
        } catch (Throwable t) {
            RvTrace.problem("cannot give a clone its own object ID", t);
        }
        return any;
    }

    static long inheritedOid(Object o, int superCid) {
        try {
            Info in = INFO.get(o.getClass());
            Field f = in.oidField;
            if (f == null || in.oidFieldCid != superCid) {
                f = findOidField(o.getClass(), superCid);
                in.oidFieldCid = superCid;
                in.oidField = f;
            }
            return f.getLong(o);
        } catch (Throwable t) {
            RvTrace.problem("cannot read an inherited object ID (using a weak map instead)", t);
            return Rv.oidOf(o);
        }
    }

    private static Field findOidField(Class<?> c, int superCid) throws Exception {
        String fname;
        synchronized (LOCK) {
            fname = OID_FIELDS.get(superCid);
        }
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            if (INFO.get(k).id == superCid) {
                Field f = k.getDeclaredField(fname);
                f.setAccessible(true);
                return f;
            }
        }
        throw new NoSuchFieldException(fname);
    }

    /** The fields the better-mode size walk reads for class c (null: not walkable). */
    static Field[] fields(Class<?> c) {
        Info in = INFO.get(c);
        Field[] fs = in.fields;
        if (fs != null) {
            return fs;
        }
        ArrayList<Field> all = new ArrayList<Field>();
        try {
            for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
                if (!INFO.get(k).user) {
                    break;
                }
                for (Field f : k.getDeclaredFields()) {
                    int m = f.getModifiers();
                    if (f.isSynthetic() || f.getName().startsWith("_rv$")
                            || (Modifier.isStatic(m) && Modifier.isFinal(m))) {
                        continue;
                    }
                    f.setAccessible(true);
                    all.add(f);
                }
            }
            fs = all.toArray(new Field[0]);
        } catch (Throwable t) {
            fs = new Field[0];
            in.opaque = true;
        }
        in.fields = fs;
        return fs;
    }
}
