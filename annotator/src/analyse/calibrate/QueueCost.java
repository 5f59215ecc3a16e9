// What posting to a java.util.concurrent queue costs the sender, measured by `revy` once per
// project (annotator/src/analyse/calibrate/java.rs runs it with `java QueueCost.java`):
// a put nobody waits for, and a put that wakes a consumer parked in take(). Prints
// "post_ns=<p> wake_ns=<w>".
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.LockSupport;

public class QueueCost {
    static volatile long taken;

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
        });
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
            while (taken == before && System.nanoTime() < deadline) Thread.onSpinWait();
            if (k >= 200) wake[n++] = t1 - t0; // the first ones warm the JIT
        }
        double[] w = Arrays.copyOf(wake, n);
        Arrays.sort(w);
        double wakeNs = n >= 20 ? w[n / 4] : 0.0;
        System.out.println("post_ns=" + post[post.length / 10] + " wake_ns=" + wakeNs);
        System.exit(0);
    }
}
