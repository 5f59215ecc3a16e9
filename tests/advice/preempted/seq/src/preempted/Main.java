package preempted;

/**
 * A worker preempted by hogs: two Indexer threads build their indexes (a quarter of the
 * work) while the root books batches (Ledger) and audits each (Auditor.audit, as much work
 * again, void). On two cores the root shares them with both Indexers until they are done.
 */
public final class Main {
    static final int BATCHES = 1000;
    static final long STEPS = 200_000;
    static final int INDEXERS = 2;

    public static void main(String[] args) throws InterruptedException {
        long start = System.nanoTime();
        long steps = Math.max(16, (long) (STEPS * scale()));
        Indexer[] indexers = new Indexer[INDEXERS];
        Thread[] threads = new Thread[INDEXERS];
        for (int i = 0; i < INDEXERS; i++) {
            Indexer x = new Indexer(i);
            indexers[i] = x;
            threads[i] = new Thread(() -> x.build(steps * BATCHES / 2), "indexer-" + i);
            threads[i].start();
        }
        Ledger ledger = new Ledger();
        Auditor auditor = new Auditor();
        for (int b = 0; b < BATCHES; b++) {
            auditor.audit(ledger.book(b, steps), steps);
        }
        long sum = ledger.balance() * 31 + auditor.digest();
        for (int i = 0; i < INDEXERS; i++) {
            threads[i].join();
            sum = sum * 31 + indexers[i].index();
        }
        System.out.println("sum " + Long.toHexString(sum));
        System.err.printf("elapsed_ms=%.3f%n", (System.nanoTime() - start) / 1e6);
    }

    static double scale() {
        String s = System.getenv("ADVICE_SCALE");
        return s == null ? 1.0 : Double.parseDouble(s);
    }
}
