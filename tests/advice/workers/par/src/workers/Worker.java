package workers;

import advice.ActiveObject;

/** ../seq's Worker made active: crunch (void) is posted, digest waits for its result. */
public final class Worker {
    private final ActiveObject self;
    private final int id;
    private long digest;

    public Worker(int id) {
        this.id = id;
        this.digest = id;
        this.self = new ActiveObject("worker-" + id);
    }

    public void crunch(long from, long to) {
        self.post(() -> doCrunch(from, to));
    }

    public long digest() {
        return self.await(() -> digest * 31 + id);
    }

    private void doCrunch(long from, long to) {
        long h = digest;
        for (long i = from; i < to; i++) {
            h ^= i;
            h *= 0x9E3779B97F4A7C15L;
            h ^= h >>> 29;
        }
        digest = h;
    }
}
