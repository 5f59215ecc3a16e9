package distribute;

/** Analyses frames (about one and a half captures) and suggests the next exposure. */
public final class Analyzer {
    private long digest;
    private long brightness;

    public void analyse(byte[] frame) {
        long h = digest;
        long sum = 0;
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < frame.length; i++) {
                h = (h + frame[i] + round) * 0xBF58476D1CE4E5B9L;
                sum += frame[i] & 0xFF;
            }
            h ^= h >>> 31;
        }
        digest = h;
        brightness = sum / (2L * frame.length);
    }

    public int exposure() {
        return (int) (100 + (brightness - 127) + (digest & 3));
    }

    public long digest() {
        return digest;
    }
}
