package preempted;

/** The unit of work every class here spends: a hash chain of `n` steps. */
final class Mix {
    private Mix() {}

    static long chain(long h, long n) {
        for (long i = 0; i < n; i++) {
            h ^= i;
            h *= 0x9E3779B97F4A7C15L;
            h ^= h >>> 29;
        }
        return h;
    }
}
