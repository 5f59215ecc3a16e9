package preempted;

/** Builds an index on a thread of its own: the hog the root's calls are preempted by. */
public final class Indexer {
    private final int id;
    private long index;

    public Indexer(int id) {
        this.id = id;
    }

    public void build(long steps) {
        index = Mix.chain(id, steps);
    }

    public long index() {
        return index;
    }
}
