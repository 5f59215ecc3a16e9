package _revy.runtime;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The calling thread's CPU clock, read only for calls of long methods (a call of at least
 * {@link #LONG_NS} seen lately) and, once the clock is loaded, a method's first calls: two reads cost well under 2 % of such a call, and the
 * recorded end then carries the call's on-CPU time, so the analysis can tell work from
 * waiting (blocked on a lock, queue or I/O, or preempted). Loaded on the first long call:
 * short-lived programs never load java.lang.management.
 */
final class RvCpu {
    private RvCpu() {
    }

    static final long LONG_NS = 50000L;
    /** Measured short calls before a method stops being measured. */
    static final byte TRIES = 8;
    /**
     * Per method id: above 0 while its recorded calls read the CPU clock (set by a long call,
     * run down by short ones). Racy by design: a lost update costs one measurement at most.
     */
    static final byte[] SCORE = new byte[RvClasses.methodCount()];

    /** The clock, in a class of its own so that it is loaded at the first long call only. */
    private static final class Clock {
        static final ThreadMXBean BEAN = bean();
    }

    private static ThreadMXBean bean() {
        try {
            ThreadMXBean b = ManagementFactory.getThreadMXBean();
            if (b.isCurrentThreadCpuTimeSupported()) {
                if (!b.isThreadCpuTimeEnabled()) {
                    b.setThreadCpuTimeEnabled(true);
                }
                // From the first long call on, every method's next calls are measured until
                // short ones run their score down: else the first call of a method on each
                // of several threads (a pool's workers starting at once) counts at wall time,
                // preempted or not.
                java.util.Arrays.fill(SCORE, TRIES);
                return b;
            }
        } catch (Throwable unsupported) {
            // no thread CPU clock here: ends carry no CPU time
        }
        return null;
    }

    /** Whether the thread CPU clock can be read at all (else no method is ever measured). */
    static boolean available() {
        return Clock.BEAN != null;
    }

    /** The calling thread's CPU time in ns, or -1 when it cannot be read. */
    static long now() {
        try {
            ThreadMXBean b = Clock.BEAN;
            return b != null ? b.getCurrentThreadCpuTime() : -1L;
        } catch (Throwable t) {
            return -1L;
        }
    }
}
