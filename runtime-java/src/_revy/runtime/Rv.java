package _revy.runtime;

/**
 * The entry points that Revy's generated code calls. Everything here is safe to call from
 * any thread, never throws and never prints to stdout. The hot path ({@link #enter},
 * {@link #exit}) writes a few varints into the calling thread's buffer: no allocation, no
 * locks, no formatting.
 */
public final class Rv {
    private Rv() {
    }

    /**
     * Logs the creation of {@code o} (called from the instance field initialiser of the
     * topmost selected class of its hierarchy) and returns its new object ID. The class
     * logged is the runtime class of {@code o}.
     */
    public static long created(Object o, int cid) {
        if (!RvTrace.live && !RvTrace.counting) {
            return RvTrace.newOid();
        }
        RvBuf b = null;
        try {
            b = buf();
            // A method ran during its superclass's constructor, before this initialiser: it
            // took an ID then, with its creation entry; one object keeps one ID.
            long early = b != null ? b.takeEarly(o) : 0L;
            if (early != 0L) {
                return early;
            }
        } catch (Throwable t) {
            RvTrace.problem("cannot log a creation", t);
        }
        long oid = RvTrace.newOid();
        if (RvTrace.live) {
            try {
                if (b != null) {
                    // the runtime class's id and static size, lock-free (ClassValue)
                    RvClasses.Info in = RvClasses.info(o.getClass());
                    RvTrace.defineClass(in.id);
                    b.ev(RvBuf.CRT, in.id, oid, in.size, true);
                }
            } catch (Throwable t) {
                RvTrace.problem("cannot log a creation", t);
            }
        } else if (RvTrace.counting) {
            RvObjs.created(o, cid);
        }
        return oid;
    }

    /**
     * The object ID of {@code o} as assigned by the initialiser of its selected superclass
     * {@code superCid} (read back through its private field); creation is not logged again.
     */
    public static long inherited(Object o, int superCid) {
        return RvClasses.inheritedOid(o, superCid);
    }

    /**
     * A non-intrusive object ID for objects that cannot take a field (records, interface
     * default methods, unselected classes): assigned, and the creation logged, on first sight.
     */
    public static long oidOf(Object o) {
        if (o == null) {
            return 0L;
        }
        long own = RvClasses.fieldOid(o);
        if (own > 0L) {
            return own;
        }
        long[] isNew = new long[1];
        long oid = RvIds.get(o, isNew);
        if (isNew[0] == 0L) {
            return oid;
        }
        try {
            RvBuf b = buf();
            if (b != null && own == 0L) {
                // Its own ID field is still 0: called from its superclass's constructor, before
                // the field's initialiser, which takes this ID ({@link #created}). (Or a
                // deserialised object, whose initialiser never runs.)
                b.early(o, oid);
            }
            if (RvTrace.live) {
                if (b != null) {
                    RvClasses.Info in = RvClasses.info(o.getClass());
                    RvTrace.defineClass(in.id);
                    b.ev(RvBuf.CRT, in.id, oid, in.size, true);
                }
            } else if (RvTrace.counting) {
                RvObjs.created(o, 0);
            }
        } catch (Throwable t) {
            RvTrace.problem("cannot log a creation", t);
        }
        return oid;
    }

    /**
     * The object ID held in an ID field, or, when the field is 0 (a deserialised object:
     * transient fields are not restored), a fresh non-intrusive one logged on first sight.
     */
    public static long oid(long field, Object o) {
        return field != 0L ? field : oidOf(o);
    }

    /**
     * Wraps {@code super.clone()} in instrumented classes: {@code Object.clone} copied the
     * original's ID fields, so the clone gets a new ID (and a creation entry) here.
     */
    public static <T> T cloned(T o) {
        if (o == null) {
            return o;
        }
        long oid = RvTrace.newOid();
        boolean own = RvClasses.setFieldOids(o, oid);
        if (own && RvTrace.live) {
            try {
                RvBuf b = buf();
                if (b != null) {
                    RvClasses.Info in = RvClasses.info(o.getClass());
                    RvTrace.defineClass(in.id);
                    b.ev(RvBuf.CRT, in.id, oid, in.size, true);
                }
            } catch (Throwable t) {
                RvTrace.problem("cannot log a clone's creation", t);
            }
        } else if (own && RvTrace.counting) {
            RvObjs.created(o, 0);
        }
        return o;
    }

    /**
     * The buffer of the thread that called last, kept while the same thread keeps calling (a
     * ThreadLocal lookup per start and end was most of a counted call's cost). Updated on a
     * miss only for the first {@link #REFILLS} misses: threads that take turns would
     * otherwise write this line on every call; past that, a miss is a ThreadLocal lookup.
     */
    private static RvBuf hot;
    private static int refills;
    private static final int REFILLS = 4096;

    /** The calling thread's buffer (null when not recording). */
    static RvBuf buf() {
        RvBuf h = hot;
        if (h != null && h.owner == Thread.currentThread()) {
            return h;
        }
        h = RvBuf.TL.get();
        if (h != null && refills < REFILLS) {
            refills++;
            hot = h;
        }
        return h;
    }

    // A probed method's entry and exits. The generated code is one call at the entry, which
    // returns the call's token (the thread's depth with its frame pushed; 0: not recorded,
    // no buffer or inside a size helper), kept in one int local, and one call of exit(token)
    // in the finally that javac copies to every return and exception path: small bytecode,
    // so that a small method stays under HotSpot's inlining limits (35 bytes at a cold call
    // site). Static methods pass their primitive arguments' size `c` and their reference
    // arguments; instance methods also their ID field (0L in classes without one) and `this`.
    //
    // Each entry is one call of enterAny and each exit one call of RvBuf.exit, both over 325
    // bytes of bytecode (HotSpot's FreqInlineSize), so that the JIT never inlines them: what
    // a probed method adds to a compile is a few bytes of argument passing and two calls.
    // Inlined, the entry's common case and the exit's run match were ~240 and ~310 bytes of
    // runtime per probed method, counted against each compile's inlining budget
    // (DesiredMethodLimit, 8,000 bytes), and C2 stopped inlining the program's own methods
    // early, compiling them on their own instead (the jsoup suite's C2 threads took ~3x the
    // original's CPU).

    /** A static method's entry, primitive arguments only ({@code c}: their size). */
    public static int enter(int mid, int c) {
        return enterAny(mid, 0L, null, c, 0, null, null, null);
    }

    /** A static method's entry, one reference argument. */
    public static int enter(int mid, int c, Object a) {
        return enterAny(mid, 0L, null, c, 1, a, null, null);
    }

    /** A static method's entry, two reference arguments. */
    public static int enter(int mid, int c, Object a, Object b) {
        return enterAny(mid, 0L, null, c, 2, a, b, null);
    }

    /** A static method's entry, three reference arguments. */
    public static int enter(int mid, int c, Object a, Object b, Object d) {
        return enterAny(mid, 0L, null, c, 3, a, b, d);
    }

    /**
     * An instance method's entry, primitive arguments only: {@code field} is the receiver's
     * ID field (0L when its class has none, or not yet set: {@link #oid}).
     */
    public static int enter(int mid, long field, Object self, int c) {
        return enterAny(mid, field, self, c, 0, null, null, null);
    }

    /** An instance method's entry, one reference argument. */
    public static int enter(int mid, long field, Object self, int c, Object a) {
        return enterAny(mid, field, self, c, 1, a, null, null);
    }

    /** An instance method's entry, two reference arguments. */
    public static int enter(int mid, long field, Object self, int c, Object a, Object b) {
        return enterAny(mid, field, self, c, 2, a, b, null);
    }

    /** An instance method's entry, three reference arguments. */
    public static int enter(int mid, long field, Object self, int c, Object a, Object b, Object d) {
        return enterAny(mid, field, self, c, 3, a, b, d);
    }

    /**
     * Any method's entry with its message size given (more than three reference arguments:
     * the generated code sums {@link #size}/{@link #sizeFast}, -1 when better mode skips the
     * walk, {@link #sized(int)}); static methods pass {@code 0L, null}.
     */
    public static int enter(int mid, long field, Object self, long size) {
        return enterAny(mid, field, self, size, 0, null, null, null);
    }

    /**
     * A probed method's exit (every exit, exceptions included), with its entry's token: one
     * call of {@link RvBuf#exit}, which checks that the hot buffer is the thread's.
     */
    public static void exit(int token) {
        RvBuf h = hot;
        if (h != null) {
            h.exit(token);
        } else if (token != 0) {
            exitSlow(token);
        }
    }

    /** Better mode, method {@code mid} throttled: its arguments are not walked (size -1). */
    private static boolean unsized(int mid) {
        return RvTable.BETTER && RvTrace.est[mid] != 0L;
    }

    /** An exit whose thread's buffer is not the hot one (out of line: rare). */
    static void exitSlow(int token) {
        RvBuf b = buf();
        if (b == null || b.quiet != 0) {
            return;
        }
        b.exit(token);
    }

    /**
     * Every entry: the receiver's ID (its field, else {@link #oidOf}), the thread's buffer,
     * the message size ({@code c} plus the walks of the {@code n} reference arguments in one
     * quiet span, -1 when better mode skips them), the start. First its common case: the hot
     * buffer is the calling thread's and not inside a size walk, the receiver's ID field is
     * set and the arguments need no walk (none, or better mode and the method throttled);
     * then {@link RvBuf#start} (the counted push, inlined here). Its bytecode is over
     * FreqInlineSize (325 bytes; ~420 with javac 17), so the JIT never inlines it into the
     * generated code (the test java_annotate::entry_and_exit_are_never_inlined pins it).
     */
    private static int enterAny(int mid, long field, Object self, long c, int n, Object a, Object b, Object d) {
        RvBuf h = hot;
        if (h != null && h.owner == Thread.currentThread() && h.quiet == 0 && (field != 0L || self == null)
                && (n == 0 || unsized(mid))) {
            h.start(mid, field, n == 0 ? c : -1L);
            return h.depth;
        }
        long oid = field != 0L ? field : self == null ? 0L : oidOf(self);
        // buf(), written out: where the hot buffer is refilled (the thread's first entry)
        h = hot;
        if (h == null || h.owner != Thread.currentThread()) {
            try {
                h = RvBuf.TL.get();
            } catch (Throwable t) {
                RvTrace.problem("cannot find the thread's trace buffer", t);
                return 0;
            }
            if (h != null && refills < REFILLS) {
                refills++;
                hot = h;
            }
        }
        long size = c;
        if (n > 0 && RvTable.BETTER && RvTrace.est[mid] != 0L) {
            size = -1L; // better mode skips a throttled method's walks
        } else if (n > 0 && !RvTrace.counting) {
            size += (a == null ? RvSize.POINTER : 0L) + (n > 1 && b == null ? RvSize.POINTER : 0L)
                    + (n > 2 && d == null ? RvSize.POINTER : 0L);
        } else if (n > 0) {
            if (h != null) {
                h.quiet++;
            }
            try {
                if (RvTable.BETTER) {
                    size += a == null ? RvSize.POINTER : RvSize.betterQuiet(a, h);
                    if (n > 1) {
                        size += b == null ? RvSize.POINTER : RvSize.betterQuiet(b, h);
                    }
                    if (n > 2) {
                        size += d == null ? RvSize.POINTER : RvSize.betterQuiet(d, h);
                    }
                } else {
                    size += RvSize.faster(a, 0);
                    if (n > 1) {
                        size += RvSize.faster(b, 0);
                    }
                    if (n > 2) {
                        size += RvSize.faster(d, 0);
                    }
                }
            } finally {
                if (h != null) {
                    h.quiet--;
                }
            }
        }
        if (h == null || h.quiet != 0) {
            return 0;
        }
        try {
            h.start(mid, oid, size); // growing the frame stack may run out of memory
        } catch (Throwable t) {
            RvTrace.problem("cannot start a call", t);
            return 0;
        }
        return h.depth;
    }

    /**
     * A {@code [[remote]]} client or server method's key (a request id): its hash, logged
     * in the running call of {@code mid} so that the analysis links a client's call to the
     * server's handling in another process. Integers of every width hash alike, boxed or not.
     */
    public static void key(int mid, long k) {
        RvBuf b = buf();
        if (b == null || b.quiet != 0) {
            return;
        }
        b.ev(RvBuf.KEY, mid, mix(k), 0L, false);
    }

    /** {@link #key(int, long)} for an object key: a number's value, else its hashCode(). */
    public static void key(int mid, Object k) {
        if (k instanceof Long || k instanceof Integer || k instanceof Short || k instanceof Byte) {
            key(mid, ((Number) k).longValue());
        } else if (k != null) {
            key(mid, (long) k.hashCode());
        }
    }

    /** SplitMix64's finaliser: spreads small ids over the 64 bits (the C++ runtime's too). */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** Better mode: whether method {@code mid}'s arguments are still measured (not throttled). */
    public static boolean sized(int mid) {
        return RvTrace.est[mid] == 0L;
    }

    /** Message-size helper, better mode: walks the object graph of {@code o}. */
    public static long size(Object o) {
        return RvSize.better(o);
    }

    /** Message-size helper, faster mode: static sizes, arrays and collections sampled. */
    public static long sizeFast(Object o) {
        return RvSize.faster(o);
    }

    /** Flushes every thread's buffer to the trace now (also done at exit). */
    public static void flush() {
        RvTrace.flushAll(false);
    }
}
