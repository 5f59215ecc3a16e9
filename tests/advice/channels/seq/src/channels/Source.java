package channels;

/** Makes the input lines: comma-separated numbers, as a log reader would hand them on. */
public final class Source {
    private long seed;

    public Source(long seed) {
        this.seed = seed;
    }

    public String next() {
        StringBuilder b = new StringBuilder(Record.WIDTH * 4);
        for (int i = 0; i < Record.WIDTH; i++) {
            seed = seed * 6364136223846793005L + 1442695040888963407L;
            if (i > 0) {
                b.append(',');
            }
            b.append((int) ((seed >>> 33) % 1000));
        }
        return b.toString();
    }
}
