package preempted;

/** Audits each booked batch: as much work again, whose result nobody waits for. */
public final class Auditor {
    private long digest = 7;

    public void audit(long[] entries, long steps) {
        long h = digest;
        for (long e : entries) {
            h = Mix.chain(h ^ e, steps / entries.length);
        }
        digest = h;
    }

    public long digest() {
        return digest;
    }
}
