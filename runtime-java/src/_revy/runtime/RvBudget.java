package _revy.runtime;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLockInterruptionException;
import java.nio.channels.FileLock;

/**
 * The run's size budget: the processes of one run (a build tool's forked test JVMs, a suite's
 * programs) share {@code max_size}. A counter file beside the traces holds the bytes they
 * reserved; a process reserves in chunks under a file lock (the C++ runtime takes the same
 * fcntl lock, so mixed runs share it) and at exit settles the counter to what it wrote. The
 * file is {@code REVY_BUDGET} when set ({@code off}: each process its own limit), else one per
 * process group (which a shell gives each command line) in the trace folder, named with the
 * group leader's start time because group ids are reused. The C++ runtime names it the same way. All methods are
 * called with RvTrace's lock held.
 */
final class RvBudget {
    /** 20 decimal digits and a newline, rewritten in place. */
    private static final int LEN = 21;

    private static File file;
    private static FileChannel channel;
    private static long max;
    private static long granted;

    private RvBudget() {
    }

    static boolean shared() {
        return channel != null;
    }

    /** Opens the run's budget; on failure, says why once. */
    static void open(long maxSize) {
        max = maxSize;
        granted = 0;
        if (maxSize <= 0) {
            return;
        }
        File f = path();
        if (f == null) {
            return;
        }
        file = f;
        try {
            channel = new RandomAccessFile(f, "rw").getChannel();
        } catch (IOException | SecurityException e) {
            drop("not writable (" + e.getMessage() + ")");
        }
    }

    /** In the project's trace folder even when REVY_TRACE names a file elsewhere. */
    private static File path() {
        String env = System.getenv("REVY_BUDGET");
        if (env != null && env.equals("off")) {
            return null;
        }
        if (env != null && env.length() > 0) {
            return new File(env);
        }
        String key = groupKey();
        if (key == null) {
            return null;  // no /proc: each process its own limit
        }
        File dir = new File(RvTable.DIR);
        dir.mkdirs();
        return new File(dir, ".revy-run-" + key + ".budget");
    }

    /** {@code PGID-START} from /proc, as the C++ runtime writes it; null without /proc. */
    static String groupKey() {
        String[] self = statFields("/proc/self/stat");
        if (self == null || self.length < 3) {
            return null;
        }
        String pgid = self[2];
        String[] leader = statFields("/proc/" + pgid + "/stat");
        String start = leader != null && leader.length > 19 ? leader[19] : "0";
        return pgid + "-" + start;
    }

    /** The fields after the command name (field 3 first); null when unreadable. */
    private static String[] statFields(String path) {
        byte[] b = new byte[1024];
        int n = 0;
        try (InputStream in = new FileInputStream(path)) {
            for (int r; n < b.length && (r = in.read(b, n, b.length - n)) > 0;) {
                n += r;
            }
        } catch (IOException | SecurityException e) {
            return null;
        }
        String s = new String(b, 0, n, RvTrace.UTF8);
        int close = s.lastIndexOf(')');
        return close < 0 || close + 2 > s.length() ? null : s.substring(close + 2).trim().split(" ");
    }

    /**
     * Reserves what writing {@code need} bytes in all takes and, {@code ahead}, a chunk more so
     * that the file is locked seldom; a run near its limit gets what is left. False when need
     * is beyond it.
     */
    static boolean take(long need, boolean ahead) {
        if (channel == null) {
            return need <= max;
        }
        long used = update(need, ahead, 0);
        if (used < 0) {
            return need <= max;
        }
        return need <= granted;
    }

    /** At exit: the counter holds what this process wrote instead of what it reserved. */
    static void settle(long written) {
        if (channel != null) {
            update(-1, false, written);
        }
        close();
    }

    /**
     * Under the file lock: reserves for {@code need} (when at least 0; see take), else settles to
     * {@code written}. The channel is interruptible (an interrupted thread would close it), so
     * the caller's interrupt status is set aside and given back, and an interrupt that comes
     * while the lock is held reopens the file and tries again. Returns the counter before, or
     * -1 when the budget had to be dropped.
     */
    @SuppressWarnings("try") // the lock is held by the try, never named in its body
    private static long update(long need, boolean ahead, long written) {
        for (int attempt = 0; attempt < 5 && channel != null; attempt++) {
            boolean interrupted = Thread.interrupted();
            try (FileLock l = channel.lock()) {
                long used = read();
                if (used < 0) {
                    drop("unreadable (not a counter Revy wrote; delete it)");
                    return -1;
                }
                if (need >= 0) {
                    long chunk = ahead ? Math.min(Math.max(max / 64, 1 << 16), 1 << 24) : 0;
                    // Events stop 1/64 short of the limit: the room the processes' definitions,
                    // aggregates and blocks past it take, so the run's traces stay under max.
                    long got = Math.min(need - granted + chunk, Math.max(0, max - max / 64 - used));
                    if (got > 0) {
                        write(used + got);
                    }
                    granted += got;
                } else {
                    write(Math.max(0, used - granted) + written);
                }
                return used;
            } catch (ClosedByInterruptException | FileLockInterruptionException e) {
                reopen();
            } catch (IOException e) {
                drop("not usable (" + e + ")");
                return -1;
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        if (channel != null) {
            drop("not lockable (the thread kept being interrupted)");
        }
        return -1;
    }

    private static void reopen() {
        try {
            channel = new RandomAccessFile(file, "rw").getChannel();
        } catch (IOException | SecurityException e) {
            drop("not writable (" + e.getMessage() + ")");
        }
    }

    /** The counter; an empty file (just created) is 0; -1 for anything else. */
    private static long read() throws IOException {
        ByteBuffer b = ByteBuffer.allocate(LEN + 1);
        int n = Math.max(0, channel.read(b, 0));
        if (n == 0) {
            return 0;
        }
        if (n != LEN || b.get(LEN - 1) != '\n') {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < LEN - 1; i++) {
            byte c = b.get(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    private static void write(long used) throws IOException {
        byte[] d = new byte[LEN];
        d[LEN - 1] = '\n';
        for (int i = LEN - 2; i >= 0; i--, used /= 10) {
            d[i] = (byte) ('0' + used % 10);
        }
        ByteBuffer b = ByteBuffer.wrap(d);
        for (long pos = 0; b.hasRemaining();) {
            pos += channel.write(b, pos);
        }
    }

    private static void drop(String why) {
        RvTrace.problem("the run's trace budget " + file + " is " + why
                + "; this process keeps max_size for itself", null);
        close();
    }

    private static void close() {
        try {
            if (channel != null) {
                channel.close();
            }
        } catch (IOException e) {
            // nothing to keep
        }
        channel = null;
        granted = 0;
    }
}
