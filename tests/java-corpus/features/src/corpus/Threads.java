package corpus;

import java.util.ArrayList;
import java.util.List;

public class Threads {
    private long count;

    synchronized void inc() {
        count++;
    }

    synchronized long get() {
        return count;
    }

    static long run(int threads, int each) throws InterruptedException {
        Threads t = new Threads();
        List<Thread> all = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread th = new Thread(() -> {
                for (int j = 0; j < each; j++) {
                    t.inc();
                }
            }, "worker-" + i);
            all.add(th);
            th.start();
        }
        for (Thread th : all) {
            th.join();
        }
        return t.get();
    }
}
