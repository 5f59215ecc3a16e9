package distribute;

/** Captures frames: exposes a new 2 MiB frame four times over from its sensor state. */
public final class Camera {
    static final int FRAME = 2 << 20;
    private long sensor = 1;

    public byte[] capture(int exposure) {
        byte[] frame = new byte[FRAME];
        long h = sensor + exposure;
        for (int pass = 0; pass < 4; pass++) {
            for (int i = 0; i < FRAME; i += 8) {
                h = (h ^ i ^ frame[i]) * 0x9E3779B97F4A7C15L;
                h ^= h >>> 29;
                for (int k = 0; k < 8; k++) {
                    frame[i + k] = (byte) (h >>> (8 * k));
                }
            }
        }
        sensor = h;
        return frame;
    }
}
