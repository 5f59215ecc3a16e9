package revy.runtime;

import java.lang.ref.WeakReference;

/**
 * One thread's event buffer. Only the owning thread appends; a flush (by the owner when the
 * buffer is full, or by the exit hook for every thread) holds this object's monitor.
 */
final class RvBuf {
    static final int CAP = 64 * 1024;
    /** Largest event: kind + 5 + 10 + 10 + 10 bytes. */
    private static final int LIMIT = CAP - 40;

    static final ThreadLocal<RvBuf> TL = new ThreadLocal<RvBuf>() {
        @Override
        protected RvBuf initialValue() {
            return RvTrace.newBuffer(Thread.currentThread());
        }
    };

    final byte[] b = new byte[CAP];
    /** Bytes used; written by the owner after an event's bytes are complete. */
    int n;
    int count;
    long base;
    long last;
    final long tid;
    /** Above 0 while a size helper runs on this thread: its calls into user code are not logged. */
    int quiet;
    final WeakReference<Thread> thread;

    RvBuf(Thread t) {
        this.tid = t.getId();
        this.thread = new WeakReference<Thread>(t);
    }

    /** Event kinds of the compact trace form (docs/trace-format.md). */
    static final int CRT = 1, DST = 2, START = 3, END = 4;

    /** Appends one event (kinds CRT..END of the compact trace form). */
    void ev(int kind, int id, long oid, long size, boolean hasSize) {
        int p = n;
        if (p > LIMIT) {
            full();
            p = n;
            if (p > LIMIT) {
                return;
            }
        }
        long t = System.nanoTime() - RvTrace.t0;
        byte[] a = b;
        if (p == 0) {
            base = t;
            last = t;
        }
        a[p++] = (byte) kind;
        p = v(a, p, id & 0xffffffffL);
        p = v(a, p, oid);
        if (hasSize) {
            p = v(a, p, size);
        }
        long d = t - last;
        last = t;
        p = v(a, p, (d << 1) ^ (d >> 63));
        count++;
        n = p;
    }

    /**
     * The probe cost for the trace header: nanoseconds per start+end pair, appended to a
     * scratch buffer as the hot path does. A run's hot path is JIT-compiled, and compiled
     * pairs cost a third of interpreted ones, so batches of pairs run for 20 ms (the
     * start-up this costs) to give the JIT its chance; the best batch counts, so that a
     * preemption does not. The analysis subtracts it.
     */
    static String probeNs() {
        RvBuf s = new RvBuf(Thread.currentThread());
        ThreadLocal<RvBuf> tl = new ThreadLocal<RvBuf>();
        tl.set(s);
        final int pairs = 1000;
        long best = Long.MAX_VALUE;
        long stop = System.nanoTime() + 20000000L;
        for (int batch = 0; batch < 2000 && System.nanoTime() < stop; batch++) {
            best = Math.min(best, probeBatch(tl, pairs));
        }
        long tenths = (best * 10 + pairs / 2) / pairs;
        return (tenths / 10) + "." + (tenths % 10);
    }

    /**
     * The handoff for the trace header: nanoseconds of one-way wake-up between two threads (a
     * monitor ping-pong, as an active object's queue wakes its thread), the 10th percentile of
     * 30 to 300 round trips halved, the statistic `revy whatif` uses. A first, untimed round
     * waits (up to 10 ms) for the helper thread to start; then rounds stop after 5 ms once
     * there are 30 and at 10 ms in any case ("0" when fewer than 10 fit: a machine too busy
     * to say). The what-if replays then use the profiled machine's figure.
     */
    static String handoffNs() {
        final Object lock = new Object();
        final long[] turn = {0};
        Thread echo = new Thread(new Runnable() {
            public void run() {
                synchronized (lock) {
                    try {
                        for (long i = 0;; i++) {
                            while (turn[0] != 2 * i + 1) {
                                if (turn[0] < 0) {
                                    return;
                                }
                                lock.wait();
                            }
                            turn[0]++;
                            lock.notify();
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        }, "revy-handoff");
        echo.setDaemon(true);
        echo.start();
        final int rounds = 300;
        long[] rtt = new long[rounds];
        int n = 0;
        long limit = System.nanoTime() + 10000000L;
        long enough = limit;
        synchronized (lock) {
            try {
                for (int i = 0; i < rounds + 1; i++) {
                    long back = 2L * i + 2;
                    long t0 = System.nanoTime();
                    turn[0] = back - 1;
                    lock.notify();
                    long left;
                    while (turn[0] != back && (left = limit - System.nanoTime()) > 0) {
                        lock.wait(Math.max(1L, left / 1000000L));
                    }
                    long t1 = System.nanoTime();
                    if (turn[0] != back) {
                        break;
                    }
                    if (i == 0) { // the thread's start, not a handoff
                        enough = t1 + 5000000L;
                        limit = t1 + 10000000L;
                        continue;
                    }
                    rtt[n++] = t1 - t0;
                    if (t1 > limit || (t1 > enough && n >= 30)) {
                        break;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            turn[0] = -1;
            lock.notify();
        }
        if (n < 10) {
            return "0";
        }
        java.util.Arrays.sort(rtt, 0, n);
        return Long.toString(rtt[n / 10] / 2);
    }

    /** One timed batch of start+end pairs (its own method, so the JIT compiles it whole). */
    private static long probeBatch(ThreadLocal<RvBuf> tl, int pairs) {
        long t0 = System.nanoTime();
        for (int i = 0; i < pairs; i++) {
            RvBuf b = tl.get();
            if (b.n > LIMIT - 2 * 40) {
                b.n = 0; // never full(): a scratch buffer is not flushed
            }
            b.ev(3, 4321, 1000000 + i, 24, true);
            tl.get().ev(4, 4321, 1000000 + i, 0L, false);
        }
        return System.nanoTime() - t0;
    }

    private void full() {
        synchronized (this) {
            RvTrace.flushBuffer(this, false);
        }
    }

    static int v(byte[] a, int p, long x) {
        while ((x & ~0x7FL) != 0L) {
            a[p++] = (byte) ((x & 0x7F) | 0x80);
            x >>>= 7;
        }
        a[p++] = (byte) x;
        return p;
    }

    /**
     * Counts the complete events in a[0..len) (used when another thread flushes): returns
     * {@code count << 32 | bytes} of the complete prefix.
     */
    static long countEvents(byte[] a, int len) {
        int p = 0;
        int c = 0;
        int ok = 0;
        while (p < len) {
            int kind = a[p++];
            if (kind < CRT || kind > END) {
                break;
            }
            int fields = (kind == CRT || kind == START) ? 4 : 3;
            for (int i = 0; i < fields; i++) {
                while (p < len && (a[p] & 0x80) != 0) {
                    p++;
                }
                p++;
            }
            if (p > len) {
                break;
            }
            c++;
            ok = p;
        }
        return ((long) c << 32) | ok;
    }
}
