// What posting to a java.util.concurrent queue costs the sender, measured by `revy` once per
// project (annotator/src/analyse/calibrate/java.rs runs it with `java QueueCost.java`):
// a put nobody waits for, a put that wakes a consumer parked in take(), and a put to a
// consumer at the queue taking as fast as puts come (both threads running), the last in
// windows spread over 1.5 s. Prints "post_ns=<p> wake_ns=<w> enqueue_ns=<e>" (0: not
// measured), then " enqueue_fast_ns=<f> enqueue_slow_ns=<s>" when the windows gave them.
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.LockSupport;

public class QueueCost {
    static volatile long taken;
    static long posted;

    public static void main(String[] args) throws Exception {
        LinkedBlockingQueue<Integer> q = new LinkedBlockingQueue<>();
        Integer item = 7;
        // The JIT's warm-up of put/clear, then 400 batches of 100 puts nobody takes.
        for (int i = 0; i < 20000; i++) {
            q.put(item);
            if (q.size() >= 100) q.clear();
        }
        q.clear();
        double[] post = new double[400];
        for (int b = 0; b < post.length; b++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < 100; i++) q.put(item);
            post[b] = (System.nanoTime() - t0) / 100.0;
            q.clear();
        }
        Arrays.sort(post);
        // A consumer parked in take(): each put wakes it; the sender's time of the put.
        Thread consumer = new Thread(() -> {
            try {
                while (q.take() >= 0) taken++;
            } catch (InterruptedException e) {
                return;
            }
        }, "rvq-receiver");
        Thread.currentThread().setName("rvq-sender");
        consumer.setDaemon(true);
        consumer.start();
        double[] wake = new double[300];
        long deadline = System.nanoTime() + 1_500_000_000L;
        int n = 0;
        for (int k = 0; k < 2000 && n < wake.length && System.nanoTime() < deadline; k++) {
            long before = taken;
            // Until the consumer is parked in take() (the sender stays warm meanwhile).
            while (consumer.getState() != Thread.State.WAITING && System.nanoTime() < deadline) Thread.onSpinWait();
            long t0 = System.nanoTime();
            q.put(item);
            long t1 = System.nanoTime();
            posted++;
            while (taken == before && System.nanoTime() < deadline) Thread.onSpinWait();
            if (k >= 200) wake[n++] = t1 - t0; // the first ones warm the JIT
        }
        double[] w = Arrays.copyOf(wake, n);
        Arrays.sort(w);
        double wakeNs = n >= 20 ? w[n / 4] : 0.0;
        askToPin();
        atQueue(q, item, 300, 50, 20); // the JIT compiles the puts and this loop
        String enqueue = enqueueWindows(q, item);
        System.out.println("post_ns=" + post[post.length / 10] + " wake_ns=" + wakeNs + enqueue);
        System.exit(0);
    }

    // The at-the-queue cost in 10 windows of 60 ms, one every 150 ms (the machine's state
    // may change within a second): the windows' median and their 10th and 90th percentiles
    // when at least 4 windows had the consumer beside the sender, else 1.5 s more as one figure.
    static String enqueueWindows(LinkedBlockingQueue<Integer> q, Integer item) throws InterruptedException {
        double[] fig = new double[10];
        int n = 0;
        long start = System.nanoTime();
        for (int i = 0; i < fig.length; i++) {
            long wait = start + i * 150_000_000L - System.nanoTime();
            if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            double f = atQueue(q, item, 60, 5, 8);
            if (f > 0) fig[n++] = f;
        }
        if (n < 4) return " enqueue_ns=" + atQueue(q, item, 1500, 50, 20);
        double[] w = Arrays.copyOf(fig, n);
        Arrays.sort(w);
        double median = w[(int) Math.round((n - 1) * 0.5)];
        double fast = w[(int) Math.round((n - 1) * 0.1)];
        double slow = w[(int) Math.round((n - 1) * 0.9)];
        return " enqueue_ns=" + median + " enqueue_fast_ns=" + fast + " enqueue_slow_ns=" + slow;
    }

    // The 10th percentile of the sender's time per put in batches of 100 behind a backlog
    // of 400 (put once the queue has drained), during which the consumer took at least 90 % of them and the queue never
    // emptied: both threads ran at the queue throughout (a batch whose consumer was preempted
    // puts uncontended and does not count; nor do the first `skip` tries). 0 when fewer than
    // `least` such batches came within `ms`.
    static double atQueue(LinkedBlockingQueue<Integer> q, Integer item, long ms, int skip, int least) throws InterruptedException {
        final int batch = 100;
        double[] per = new double[400];
        int n = 0;
        long deadline = System.nanoTime() + ms * 1_000_000L;
        for (int k = 0; n < per.length && System.nanoTime() < deadline; k++) {
            while (taken < posted && System.nanoTime() < deadline) Thread.yield();
            long mark = taken;
            for (int i = 0; i < 4 * batch; i++) q.put(item);
            posted += 4 * batch;
            // Until the consumer takes beside the sender; else the next try.
            long until = System.nanoTime() + 200_000;
            while (taken == mark && System.nanoTime() < until) Thread.onSpinWait();
            if (taken == mark) continue;
            long before = taken;
            long t0 = System.nanoTime();
            for (int i = 0; i < batch; i++) q.put(item);
            long t1 = System.nanoTime();
            long took = taken - before;
            boolean emptied = q.isEmpty();
            posted += batch;
            if (k >= skip && took >= batch * 9 / 10 && !emptied) per[n++] = (t1 - t0) / (double) batch;
        }
        if (n < least) return 0.0;
        double[] p = Arrays.copyOf(per, n);
        Arrays.sort(p);
        return p[n / 10];
    }

    // Asks revy to keep the sender and the consumer on two cores of their own ("pin <tid>
    // <tid>", the Linux thread ids the JVM named after them) and waits for its answer: left
    // to the scheduler on a loaded machine, the woken consumer shares its waker's core and
    // the two take turns. Unpinned when revy does not answer.
    static void askToPin() throws Exception {
        String sender = "", receiver = "";
        java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
        for (java.io.File t : tasks == null ? new java.io.File[0] : tasks) {
            java.nio.file.Path comm = new java.io.File(t, "comm").toPath();
            String name = new String(java.nio.file.Files.readAllBytes(comm)).trim();
            if (name.equals("rvq-sender")) sender = t.getName();
            if (name.equals("rvq-receiver")) receiver = t.getName();
        }
        if (sender.isEmpty() || receiver.isEmpty()) return;
        System.out.println("pin " + sender + " " + receiver);
        System.out.flush();
        new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
    }
}
