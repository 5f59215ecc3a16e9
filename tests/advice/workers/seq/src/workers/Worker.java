package workers;

/** Hashes slices of numbers into its own digest: pure computation on its own state. */
public final class Worker {
    private final int id;
    private long digest;

    public Worker(int id) {
        this.id = id;
        this.digest = id;
    }

    public void crunch(long from, long to) {
        long h = digest;
        for (long i = from; i < to; i++) {
            h ^= i;
            h *= 0x9E3779B97F4A7C15L;
            h ^= h >>> 29;
        }
        digest = h;
    }

    public long digest() {
        return digest * 31 + id;
    }
}
