package workers;

/**
 * Independent workers: four Workers hash their own slices of a range, 25 slices each, and the
 * root sums their digests at the end. Nothing is shared, so making Worker active should pay
 * up to the number of cores.
 */
public final class Main {
    static final int WORKERS = 4;
    static final int SLICES = 25;
    static final long SLICE = 6_000_000;

    public static void main(String[] args) {
        long start = System.nanoTime();
        long slice = Math.max(1, (long) (SLICE * scale()));
        Worker[] workers = new Worker[WORKERS];
        for (int w = 0; w < WORKERS; w++) {
            workers[w] = new Worker(w);
        }
        for (int s = 0; s < SLICES; s++) {
            for (int w = 0; w < WORKERS; w++) {
                long from = (s * (long) WORKERS + w) * slice;
                workers[w].crunch(from, from + slice);
            }
        }
        long sum = 0;
        for (Worker w : workers) {
            sum += w.digest();
        }
        System.out.println("digest " + Long.toHexString(sum));
        System.err.printf("elapsed_ms=%.3f%n", (System.nanoTime() - start) / 1e6);
    }

    /** ADVICE_SCALE shrinks the work (the quick test runs at a few percent). */
    static double scale() {
        String s = System.getenv("ADVICE_SCALE");
        return s == null ? 1.0 : Double.parseDouble(s);
    }
}
