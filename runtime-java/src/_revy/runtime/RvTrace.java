package _revy.runtime;

import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.Charset;
import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.Date;
import java.util.Iterator;
import java.util.TimeZone;
import java.util.concurrent.atomic.AtomicLong;

/** The trace file: opened lazily, written under one lock, closed by a shutdown hook. */
final class RvTrace {
    private RvTrace() {
    }

    static final Charset UTF8 = Charset.forName("UTF-8");
    private static final AtomicLong OIDS = new AtomicLong(1L);
    private static final Object LOCK = new Object();

    /** True while events are recorded. */
    static volatile boolean live = true;
    /** True while calls are counted (recorded or aggregated): false untraced or closed. */
    static volatile boolean counting = true;
    /** Methods that stopped producing events (TAU's rule; indexed by method id). */
    static final boolean[] throttled = new boolean[RvClasses.methodCount()];
    /**
     * Per throttled method: 1 + its estimate, ns per counted call (0 = not throttled). Set
     * under LOCK (at the verdict, after {@link #estimateSize}) and read by every thread
     * without it, as a plain array (the hot path's one load; an atomic array's was two loads
     * and a check): another thread sees a verdict a little later, and its first counted calls
     * may take the size before it (a long is written whole on 64-bit JVMs).
     */
    static final long[] est = new long[RvClasses.methodCount()];
    /** Per throttled method: the size measured last before the verdict (better mode skips the walk). */
    static final long[] estimateSize = new long[RvClasses.methodCount()];
    static long t0 = System.nanoTime();
    /** Method ids whose M record is written (indexed by method id). */
    static final boolean[] mdef = new boolean[RvClasses.methodCount()];
    private static boolean[] cdef = new boolean[64];

    /** 0 = not opened, 1 = open, 2 = disabled or closed. */
    private static int state;
    private static OutputStream out;
    private static FileOutputStream file;
    /** Where the header's probe_ns value is in the file (rewritten at exit), and its value. */
    private static long probeAt = -1L;
    /** probe_ns's figure, once measured (0 before): also the throttle rule's (RvBuf.count). */
    static double probeValue;
    private static long written;
    private static long events;
    private static long maxSize = RvTable.MAX_SIZE;
    private static boolean truncated;
    private static boolean warned;
    /** Kept free under the size limit for the T and E records. */
    private static final int TAIL = 24;
    private static final ArrayList<RvBuf> BUFS = new ArrayList<RvBuf>();
    private static final byte[] SCRATCH = new byte[64];

    static long newOid() {
        return OIDS.getAndIncrement();
    }

    /** Creates (and registers) the calling thread's buffer; null when not recording. */
    static RvBuf newBuffer(Thread t) {
        ArrayList<RvBuf> dead = new ArrayList<RvBuf>();
        try {
            return newBuffer(t, dead);
        } finally {
            // flushed outside LOCK: the lock order is always buffer, then LOCK
            for (RvBuf d : dead) {
                synchronized (d) {
                    flushBuffer(d, true);
                    writeAggregates(d);
                }
            }
        }
    }

    private static RvBuf newBuffer(Thread t, ArrayList<RvBuf> dead) {
        synchronized (LOCK) {
            if (!ensureOpen()) {
                return null;
            }
            reapDead(dead);
            RvBuf b = new RvBuf(t);
            BUFS.add(b);
            byte[] name = utf8(t.getName());
            int p = 0;
            byte[] h = new byte[32];
            h[p++] = 'N';
            p = RvBuf.v(h, p, b.tid);
            p = RvBuf.v(h, p, name.length);
            write(h, 0, p);
            write(name, 0, name.length);
            return b;
        }
    }

    private static boolean ensureOpen() {
        if (state == 1) {
            return true;
        }
        if (state == 2) {
            return false;
        }
        state = 2;
        File f = null;
        try {
            String env = System.getenv("REVY_TRACE");
            if (env != null && env.trim().equalsIgnoreCase("off")) {
                live = false;
                counting = false;
                return false;
            }
            String pid = pid();
            if (env != null && env.length() > 0) {
                // One rule for both runtimes: the trace file's name always ends in .rvt.
                f = ownFile(new File(env.endsWith(".rvt") ? env : env + ".rvt"), pid);
            } else {
                File dir = new File(RvTable.DIR);
                dir.mkdirs();
                SimpleDateFormat fmt = new SimpleDateFormat("yyyyMMdd-HHmmss");
                String stem = RvTable.PROJECT + "-" + fmt.format(new Date()) + "-" + pid;
                f = new File(dir, stem + ".rvt");
                for (int i = 1; !f.createNewFile(); i++) {
                    f = new File(dir, stem + "-" + i + ".rvt");
                }
            }
            file = new FileOutputStream(f);
            // Small: it gathers the records; a block (larger) bypasses it, written at once.
            out = new BufferedOutputStream(file, 1 << 13);
            RvBudget.open(maxSize);
            SimpleDateFormat iso = new SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss'Z'");
            iso.setTimeZone(TimeZone.getTimeZone("UTC"));
            byte[] magic = {'R', 'V', 'Y', 'T', 'R', 'C', 0, 1};
            out.write(magic);
            written = magic.length;
            t0 = System.nanoTime();
            // The wall-clock anchor: the trace clock and the Unix epoch read at one instant,
            // so traces of several processes go on one time line.
            java.time.Instant now = java.time.Instant.now();
            long anchorT = System.nanoTime() - t0;
            long wall = now.getEpochSecond() * 1000000000L + now.getNano();
            // The calibrations run on a thread of their own while the program starts
            // (calibrate()): the header keeps room for their figures, written in place.
            long cal0 = System.nanoTime();
            RvBuf.warmCounted();
            // ends=bare: a recorded call's end names no call (RvBuf.END_BARE), so the reader
            // keeps the threads' open starts for this trace
            String header = "unit=ns lang=java pid=" + pid + " start=" + iso.format(new Date())
                    + " anchor_wall_ns=" + wall + " anchor_t=" + anchorT
                    + (RvBudget.shared() ? " budget=run" : "")
                    + " run=" + runId(wall, pid) + " ends=bare " + pad("", CALIBRATION);
            byte[] hb = header.getBytes(UTF8);
            byte[] hh = new byte[8];
            hh[0] = 'H';
            int hp = RvBuf.v(hh, 1, hb.length);
            calibrationAt = written + hp + hb.length - CALIBRATION;
            write(hh, 0, hp);
            write(hb, 0, hb.length);
            // A process started after the run spent its budget records no event: its calls
            // are aggregated from the first. Only the header is reserved now, so JVMs that
            // start together do not hold chunks they may not use.
            if (RvBudget.shared() && !RvBudget.take(written + TAIL, false)) {
                truncate();
            }
            // On disk at once: a run that ends by Runtime.halt still leaves a readable trace
            // (without end marker, which the analysis reports).
            out.flush();
            try {
                Runtime.getRuntime().addShutdownHook(new Thread(new Runnable() {
                    @Override
                    public void run() {
                        flushAll(true);
                    }
                }, "revy-trace-exit"));
            } catch (IllegalStateException alreadyExiting) {
                // first event during shutdown: what is recorded is flushed by later calls
            }
            state = 1;
            calibrator = new Thread(new Runnable() {
                @Override
                public void run() {
                    calibrate();
                }
            }, "revy-calibrate");
            calibrator.setDaemon(true);
            calibrator.start();
            calibUs = (System.nanoTime() - cal0) / 1000;
            return true;
        } catch (Throwable t) {
            live = false;
            counting = false;
            problem("cannot write the trace" + (f == null ? "" : " " + f) + "; this run is not traced", t);
            return false;
        }
    }

    /**
     * The run this process belongs to, so traces of different runs are never read as one:
     * {@code REVY_RUN} when set (revy run gives each run one), else the process group (what a
     * shell gives each command line, named with its leader's start time, as the budget is),
     * else this process's start time, pid and a random.
     */
    static String runId(long wall, String pid) {
        String env = System.getenv("REVY_RUN");
        if (env != null && env.matches("[A-Za-z0-9._:-]{1,80}")) {
            return env;
        }
        String group = RvBudget.groupKey();
        if (group != null) {
            return "pg" + group;
        }
        return Long.toHexString(wall) + "-" + pid + "-"
                + Integer.toHexString(new java.util.Random().nextInt() & 0x7fffffff);
    }

    /**
     * A probe cost as the header writes it: zero-padded to a fixed width, so that the exit's
     * re-check can rewrite it in place ("0000093.4", read as 93.4).
     */
    private static String probeText(double ns) {
        return String.format(java.util.Locale.ROOT, "%09.1f", Math.min(ns, 9999999.9));
    }

    /** Room kept in the header for {@link #calibrate}'s figures (spaces until written). */
    private static final int CALIBRATION = 384;
    /** Where that room is in the file (-1: none). */
    private static long calibrationAt = -1L;
    /** The thread measuring them; the exit waits for it. */
    private static Thread calibrator;
    static long calibUs;

    /**
     * The machine's figures for the header (probe, counted probe, handoff), measured on a
     * thread of their own while the program runs, after {@link RvBuf#warmCounted} (the JIT has
     * seen the probes): the program does not wait for them, so they can take the windows that
     * measure best (20 to 150 ms each; the exit re-check takes the lower figure of each).
     * They go into the header's room in place; a process halted before they are done leaves
     * the room blank (no probe_ns=: the analysis does not compensate, and says so).
     */
    static void calibrate() {
        try {
            String[] probe = RvBuf.probeNs(50000000L, 400000000L, false);
            String[] counted = RvTable.THROTTLE_CALLS > 0L
                    ? RvBuf.probeNs(50000000L, 400000000L, true) : new String[] {"0", "0", "0"};
            String text = "probe_ns=" + probeText(Double.parseDouble(probe[0]))
                    + " probe_stat=min probe_batches=" + probe[1] + " probe_p50=" + probe[2]
                    + " probe_inside_ns=" + probeText(Double.parseDouble(probe[3]))
                    + " probe_inside_p50=" + probe[4]
                    + " probe_checked=0 handoff_ns=" + RvBuf.handoffNs()
                    + " counted_ns=" + probeText(Double.parseDouble(counted[0]))
                    + " counted_stat=min counted_batches=" + counted[1] + " counted_p50=" + counted[2] + " calib_us=" + calibUs;
            synchronized (LOCK) {
                if (state != 1 || file == null || calibrationAt < 0L || text.length() > CALIBRATION) {
                    return;
                }
                file.getChannel().write(java.nio.ByteBuffer.wrap(text.getBytes(UTF8)), calibrationAt);
                int at = text.indexOf("probe_ns=") + 9;
                probeAt = calibrationAt + at;
                probeValue = Double.parseDouble(probe[0]);
                checkedOffset = text.indexOf(" probe_checked=") + 15 - at;
                insideOffset = text.indexOf(" probe_inside_ns=") + 17 - at;
                insideValue = Double.parseDouble(probe[3]);
                countedOffset = RvTable.THROTTLE_CALLS > 0L ? text.indexOf(" counted_ns=") + 12 - at : -1L;
                countedValue = Double.parseDouble(counted[0]);
            }
        } catch (Throwable t) {
            problem("cannot measure the probe cost", t);
        }
    }

    /** {@code s} padded with spaces to {@code n} characters. */
    private static String pad(String s, int n) {
        StringBuilder b = new StringBuilder(s);
        while (b.length() < n) {
            b.append(' ');
        }
        return b.toString();
    }

    /** At exit, before LOCK: the calibrations finish first (their figures are re-checked). */
    private static void awaitCalibration() {
        Thread c = calibrator;
        if (c == null || c == Thread.currentThread()) {
            return;
        }
        try {
            c.join(5000L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The probe cost re-checked at exit, when the JIT has compiled the hot path (at start-up
     * on a loaded machine it may not have): the lower figure goes into the header in place,
     * and probe_checked=1 says it was checked. Caller holds LOCK, the file still open.
     */
    private static void recheckProbe() {
        if (probeAt < 0L || file == null) {
            return;
        }
        try {
            String[] probe = RvBuf.probeNs(2000000L, 50000000L, false);
            double again = Double.parseDouble(probe[0]);
            byte[] v = probeText(Math.min(again, probeValue)).getBytes(UTF8);
            java.nio.channels.FileChannel ch = file.getChannel();
            ch.write(java.nio.ByteBuffer.wrap(v), probeAt);
            double inside = Double.parseDouble(probe[3]);
            byte[] u = probeText(Math.min(inside, insideValue)).getBytes(UTF8);
            ch.write(java.nio.ByteBuffer.wrap(u), probeAt + insideOffset);
            if (countedOffset > 0L) { // the counted path too, compiled by now
                double c = Double.parseDouble(RvBuf.probeNs(2000000L, 50000000L, true)[0]);
                byte[] w = probeText(Math.min(c, countedValue)).getBytes(UTF8);
                ch.write(java.nio.ByteBuffer.wrap(w), probeAt + countedOffset);
            }
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {'1'}), probeAt + checkedOffset);
        } catch (Throwable t) {
            problem("cannot re-check the probe cost", t);
        }
    }

    /** From probe_ns's value to probe_checked's, in the header. */
    private static long checkedOffset;
    /** From probe_ns's value to probe_inside_ns's, and probe_inside_ns's value. */
    private static long insideOffset;
    private static double insideValue;
    /** From probe_ns's value to counted_ns's (-1: not written), and counted_ns's value. */
    private static long countedOffset = -1L;
    static double countedValue;

    /**
     * A file of this process's own: {@code f} when it does not exist yet, else (an earlier
     * run, or another process of this run, e.g. a child JVM inheriting REVY_TRACE)
     * {@code NAME-PID.rvt} beside it. Never truncates another process's trace.
     */
    private static File ownFile(File f, String pid) throws IOException {
        File dir = f.getAbsoluteFile().getParentFile();
        if (dir != null) {
            dir.mkdirs();
        }
        if (f.createNewFile()) {
            return f;
        }
        String stem = f.getName();
        if (stem.endsWith(".rvt")) {
            stem = stem.substring(0, stem.length() - 4);
        }
        File g = new File(dir, stem + "-" + pid + ".rvt");
        for (int i = 1; !g.createNewFile(); i++) {
            if (i == 1000) {
                throw new IOException(g + " and 999 more exist");
            }
            g = new File(dir, stem + "-" + pid + "-" + i + ".rvt");
        }
        return g;
    }

    private static String pid() {
        try {
            Class<?> ph = Class.forName("java.lang.ProcessHandle");
            Object cur = ph.getMethod("current").invoke(null);
            return String.valueOf(ph.getMethod("pid").invoke(cur));
        } catch (Throwable notJava9) {
            try {
                String n = java.lang.management.ManagementFactory.getRuntimeMXBean().getName();
                int at = n.indexOf('@');
                return at > 0 ? n.substring(0, at) : "0";
            } catch (Throwable t) {
                return "0";
            }
        }
    }

    /** Writes a C record for class id (once); callers hold no lock. */
    static void defineClass(int id) {
        boolean[] d = cdef;
        if (id < d.length && d[id]) {
            return;
        }
        synchronized (LOCK) {
            if (id >= cdef.length) {
                boolean[] g = new boolean[Math.max(id + 1, cdef.length * 2)];
                System.arraycopy(cdef, 0, g, 0, cdef.length);
                cdef = g;
            }
            if (cdef[id]) {
                return;
            }
            if (state == 1) {
                record('C', id, RvClasses.name(id));
            }
            cdef[id] = true;
        }
    }

    /** Writes the M record (and its class's C record) for a method id (once). */
    static void defineMethod(int mid) {
        int cid = RvClasses.methodClass(mid);
        defineClass(cid);
        synchronized (LOCK) {
            if (mdef[mid]) {
                return;
            }
            if (state == 1) {
                byte[] h = new byte[32];
                int p = 0;
                h[p++] = 'M';
                p = RvBuf.v(h, p, mid);
                p = RvBuf.v(h, p, cid);
                byte[] name = utf8(RvClasses.methodName(mid));
                byte[] sgn = utf8(RvClasses.methodSgn(mid));
                p = RvBuf.v(h, p, name.length);
                write(h, 0, p);
                write(name, 0, name.length);
                p = RvBuf.v(h, 0, sgn.length);
                write(h, 0, p);
                write(sgn, 0, sgn.length);
            }
            mdef[mid] = true;
        }
    }

    /** C record: tag, [v id], s text. Caller holds LOCK. */
    private static void record(char tag, long id, String text) {
        byte[] h = new byte[32];
        int p = 0;
        h[p++] = (byte) tag;
        if (id >= 0) {
            p = RvBuf.v(h, p, id);
        }
        byte[] s = utf8(text);
        p = RvBuf.v(h, p, s.length);
        write(h, 0, p);
        write(s, 0, s.length);
    }

    /** Writes buffer {@code b} as one block; the caller holds b's monitor. */
    static void flushBuffer(RvBuf b, boolean foreign) {
        int end = b.n;
        int count = b.count;
        if (foreign) {
            long ce = RvBuf.countEvents(b.b, end);
            count = (int) (ce >>> 32);
            end = (int) ce;
        }
        int len = end - RvBuf.HEAD;
        synchronized (LOCK) {
            if (len > 0 && count > 0 && state == 1) {
                // The block that crosses the limit is written whole, and so are blocks after
                // it: they hold only events begun before it (starts other threads had
                // buffered, ends of calls whose starts are recorded), so every recorded
                // start has its end and every call is either an event or aggregated.
                writeBlock(b, count, len);
                if (!truncated && !fits()) {
                    truncate();
                }
            }
        }
        b.n = RvBuf.HEAD;
        b.count = 0;
        b.base = b.last; // the next block's first delta is from the thread's latest event
    }

    /** The B record's head in SCRATCH; returns its length. Caller holds LOCK. */
    private static int blockHead(RvBuf b, int count, int len) {
        int p = 0;
        byte[] h = SCRATCH;
        h[p++] = 'B';
        p = RvBuf.v(h, p, b.tid);
        p = RvBuf.v(h, p, b.base);
        p = RvBuf.v(h, p, count);
        return RvBuf.v(h, p, len);
    }

    /**
     * Writes the block: its head goes into the room before the events, so head and events
     * go out in one write (one system call, no copy). Caller holds LOCK.
     */
    private static void writeBlock(RvBuf b, int count, int len) {
        int head = blockHead(b, count, len);
        System.arraycopy(SCRATCH, 0, b.b, RvBuf.HEAD - head, head);
        write(b.b, RvBuf.HEAD - head, head + len);
        events += count;
    }

    /** Whether what is written, and the T and E records, stay within the size limit. */
    private static boolean fits() {
        long need = written + TAIL;
        return RvBudget.shared() ? RvBudget.take(need, true) : need <= maxSize;
    }

    private static void truncate() {
        truncated = true;
        live = false;
        int p = 0;
        byte[] h = SCRATCH;
        h[p++] = 'T';
        p = RvBuf.v(h, p, maxSize);
        write(h, 0, p);
    }

    /**
     * Method {@code mid} stops producing events (its calls from now on are counted): the X
     * record says which, on which thread's verdict, when, after how many calls of what
     * total time; the S record what its counted calls take ({@code e}: median, 10th and 90th
     * percentiles and number of the latest timed calls, {@link RvBuf#spread}).
     */
    static void throttle(int mid, long tid, long t, long calls, long total, long[] e, long size) {
        defineMethod(mid);
        synchronized (LOCK) {
            if (throttled[mid]) {
                return;
            }
            estimateSize[mid] = size;
            est[mid] = 1L + e[0];
            throttled[mid] = true;
            if (state == 1) {
                RvAgg.Bytes o = new RvAgg.Bytes();
                o.b('X');
                o.v(tid);
                o.v(mid);
                o.v(t);
                o.v(calls);
                o.v(total);
                estimateRecord(o, mid, tid, t, e);
                byte[] r = o.done();
                write(r, 0, r.length);
            }
        }
    }

    /**
     * Thread {@code tid}'s sampled calls of throttled method {@code mid} moved from its
     * estimate: {@code e} (as {@link RvBuf#spread}) is the estimate of its counted calls from
     * {@code t} on, and an S record says so.
     */
    static void reestimate(int mid, long tid, long t, long[] e) {
        synchronized (LOCK) {
            if (!throttled[mid]) {
                return;
            }
            est[mid] = 1L + e[0];
            if (state == 1) {
                RvAgg.Bytes o = new RvAgg.Bytes();
                estimateRecord(o, mid, tid, t, e);
                byte[] r = o.done();
                write(r, 0, r.length);
            }
        }
    }

    private static void estimateRecord(RvAgg.Bytes o, int mid, long tid, long t, long[] e) {
        o.b('S');
        o.v(tid);
        o.v(mid);
        o.v(t);
        o.v(e[0]);
        o.v(e[1]);
        o.v(e[2]);
        o.v(e[3]);
    }

    /** Writes the A record of a buffer's aggregates; the caller holds b's monitor. */
    static void writeAggregates(RvBuf b) {
        b.flushRun();
        RvAgg a = b.agg;
        if (a == null) {
            return;
        }
        try {
            a.defineAll();
            // untimed (estimated) calls read no clock: their thread's span reaches the writing
            long last = b.untimed ? Math.max(b.lastT, System.nanoTime() - t0) : b.lastT;
            byte[] r = a.encode(b.tid, last);
            synchronized (LOCK) {
                if (state == 1) {
                    write(r, 0, r.length);
                }
            }
            b.agg = null;
        } catch (Throwable t) {
            problem("cannot write a thread's aggregates", t);
        }
    }

    /**
     * Writes the calls still open on b's shadow stack at exit as an A record of their own
     * (System.exit inside a call; threads still running). The caller holds b's monitor.
     */
    static void writeOpenCalls(RvBuf b, long t) {
        try {
            RvAgg a = b.scratch ? null : RvAgg.open(b, t);
            if (a == null) {
                return;
            }
            a.defineAll();
            byte[] r = a.encode(b.tid, Math.max(t, b.lastT));
            synchronized (LOCK) {
                if (state == 1) {
                    write(r, 0, r.length);
                }
            }
        } catch (Throwable e) {
            problem("cannot write a thread's open calls", e);
        }
    }

    /** Writes every thread's O record (objects created past max_size). Caller holds LOCK. */
    private static void writeObjects() {
        try {
            for (byte[] r : RvObjs.encodeAll()) {
                write(r, 0, r.length);
            }
        } catch (Throwable e) {
            problem("cannot write the objects created past max_size", e);
        }
    }

    /** Moves dead threads' buffers from the registry to {@code dead}. Caller holds LOCK. */
    private static void reapDead(ArrayList<RvBuf> dead) {
        for (Iterator<RvBuf> it = BUFS.iterator(); it.hasNext();) {
            RvBuf b = it.next();
            Thread t = b.thread.get();
            if (t == null || !t.isAlive()) {
                b.release();
                dead.add(b);
                it.remove();
            }
        }
    }

    /** Flushes every registered buffer; at exit also writes E and closes the file. */
    static void flushAll(boolean exiting) {
        if (exiting) {
            awaitCalibration();
        }
        RvBuf[] all;
        synchronized (LOCK) {
            all = BUFS.toArray(new RvBuf[0]);
        }
        long t = System.nanoTime() - t0;
        for (RvBuf b : all) {
            synchronized (b) {
                flushBuffer(b, b.thread.get() != Thread.currentThread());
                if (exiting) {
                    writeAggregates(b);
                    writeOpenCalls(b, t);
                }
            }
        }
        synchronized (LOCK) {
            if (state != 1) {
                return;
            }
            try {
                if (exiting) {
                    recheckProbe();
                    live = false;
                    counting = false;
                    writeObjects();
                    int p = 0;
                    byte[] h = SCRATCH;
                    h[p++] = 'E';
                    p = RvBuf.v(h, p, events);
                    write(h, 0, p);
                    state = 2;
                    out.close();
                    RvBudget.settle(written);
                } else {
                    out.flush();
                }
            } catch (IOException e) {
                problem("cannot write the trace", e);
            }
        }
    }

    /** Caller holds LOCK. */
    private static void write(byte[] a, int off, int len) {
        if (out == null) {
            return;
        }
        try {
            out.write(a, off, len);
            written += len;
        } catch (IOException e) {
            live = false;
            state = 2;
            problem("cannot write the trace", e);
        }
    }

    static byte[] utf8(String s) {
        return (s == null ? "?" : s.replace(' ', '_')).getBytes(UTF8);
    }

    /** Reports a problem on stderr, once per run. */
    static void problem(String what, Throwable t) {
        synchronized (LOCK) {
            if (warned) {
                return;
            }
            warned = true;
        }
        try {
            System.err.println("revy: " + what + (t == null ? "" : ": " + t));
        } catch (Throwable ignored) {
            // nothing more can be done
        }
    }
}
