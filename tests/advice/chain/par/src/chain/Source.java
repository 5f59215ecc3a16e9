package chain;

/** The characters: a deterministic stream, read a chunk at a time. */
public final class Source {
    private long state;

    public Source(long seed) {
        this.state = seed;
    }

    public long read() {
        long h = state;
        for (int i = 0; i < 20_000; i++) {
            h = (h + i) * 0xBF58476D1CE4E5B9L;
            h ^= h >>> 27;
        }
        state = h;
        return h;
    }
}
