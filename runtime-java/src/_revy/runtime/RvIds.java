package _revy.runtime;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.HashMap;

/** Non-intrusive object IDs: a weak, identity-keyed map (never calls hashCode/equals). */
final class RvIds {
    private RvIds() {
    }

    private static final class Ref extends WeakReference<Object> {
        final int hash;
        final long oid;
        Ref next;

        Ref(Object o, int hash, long oid, ReferenceQueue<Object> q, Ref next) {
            super(o, q);
            this.hash = hash;
            this.oid = oid;
            this.next = next;
        }
    }

    private static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<Object>();
    private static final HashMap<Integer, Ref> MAP = new HashMap<Integer, Ref>();

    /** The object's ID; sets isNew[0] to 1 when it was assigned by this call. */
    static synchronized long get(Object o, long[] isNew) {
        expunge();
        int h = System.identityHashCode(o);
        Integer key = Integer.valueOf(h);
        Ref head = MAP.get(key);
        for (Ref r = head; r != null; r = r.next) {
            if (r.get() == o) {
                return r.oid;
            }
        }
        long oid = RvTrace.newOid();
        MAP.put(key, new Ref(o, h, oid, QUEUE, head));
        isNew[0] = 1L;
        return oid;
    }

    private static void expunge() {
        for (Object x; (x = QUEUE.poll()) != null;) {
            Ref dead = (Ref) x;
            Integer key = Integer.valueOf(dead.hash);
            Ref head = MAP.get(key);
            Ref prev = null;
            for (Ref r = head; r != null; prev = r, r = r.next) {
                if (r == dead) {
                    if (prev == null) {
                        if (r.next == null) {
                            MAP.remove(key);
                        } else {
                            MAP.put(key, r.next);
                        }
                    } else {
                        prev.next = r.next;
                    }
                    break;
                }
            }
        }
    }
}
