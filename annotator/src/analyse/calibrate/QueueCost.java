// What posting to a java.util.concurrent queue costs the sender, measured by `revy` once per
// project (annotator/src/analyse/calibrate/java.rs runs it with `java QueueCost.java`):
// a put nobody waits for, a put that wakes a consumer parked in take(), and a put to a
// consumer at the queue taking as fast as puts come (both threads running). Prints
// "post_ns=<p> wake_ns=<w> enqueue_ns=<e>" (0: not measured).
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
        atQueue(q, item, 300); // the JIT compiles the puts and this loop
        double enqueueNs = atQueue(q, item, 1500);
        System.out.println("post_ns=" + post[post.length / 10] + " wake_ns=" + wakeNs + " enqueue_ns=" + enqueueNs);
        System.exit(0);
    }

    // The 10th percentile of the sender's time per put in batches of 100 behind a backlog
    // of 400 (put once the queue has drained), during which the consumer took at least 90 % of them and the queue never
    // emptied: both threads ran at the queue throughout (a batch whose consumer was preempted
    // puts uncontended and does not count). 0 when fewer than 20 such batches came within `ms`.
    static double atQueue(LinkedBlockingQueue<Integer> q, Integer item, long ms) throws InterruptedException {
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
            if (k >= 50 && took >= batch * 9 / 10 && !emptied) per[n++] = (t1 - t0) / (double) batch;
        }
        if (n < 20) return 0.0;
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
