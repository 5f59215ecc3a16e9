package channels;

/** Sums the scores. */
public final class Sink {
    private long sum;

    public void add(long score) {
        sum = sum * 31 + score;
    }

    public long sum() {
        return sum;
    }
}
