package preempted;

import advice.ActiveObject;

/** ../seq's Auditor made active: audit (void) is posted, digest waits for its result. */
public final class Auditor {
    private final ActiveObject self = new ActiveObject("auditor");
    private long digest = 7;

    public void audit(long[] entries, long steps) {
        self.post(() -> doAudit(entries, steps));
    }

    public long digest() {
        return self.await(() -> digest);
    }

    private void doAudit(long[] entries, long steps) {
        long h = digest;
        for (long e : entries) {
            h = Mix.chain(h ^ e, steps / entries.length);
        }
        digest = h;
    }
}
