package rm;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/** The thread's CPU clock, and a spin on it (not instrumented: see revy.toml). */
final class Clock {
    private static final ThreadMXBean BEAN = ManagementFactory.getThreadMXBean();

    private Clock() {
    }

    static long cpu() {
        return BEAN.getCurrentThreadCpuTime();
    }

    /** Spends `ns` of this thread's CPU time. */
    static long burn(long ns) {
        long end = cpu() + ns;
        long x = 0;
        while (cpu() < end) {
            for (int i = 0; i < 200; i++) {
                x += i ^ x;
            }
        }
        return x;
    }
}
