package distribute;

/**
 * Distribution with large messages: a Camera captures 2 MiB frames and an Analyzer analyses
 * them; after every four frames the camera asks the Analyzer for an exposure correction and
 * waits for it. Placing the Analyzer on another machine overlaps capture with analysis, but
 * every frame must cross the network and each batch ends with a round trip.
 */
public final class Main {
    static final int BATCHES = 25;
    static final int BATCH = 4;

    public static void main(String[] args) {
        long start = System.nanoTime();
        int batches = Math.max(1, (int) (BATCHES * scale()));
        Camera camera = new Camera();
        Analyzer analyzer = new Analyzer();
        int exposure = 100;
        for (int b = 0; b < batches; b++) {
            for (int f = 0; f < BATCH; f++) {
                analyzer.analyse(camera.capture(exposure));
            }
            exposure = analyzer.exposure(); // waits: the next batch depends on it
        }
        System.out.println("exposure " + exposure + " digest " + Long.toHexString(analyzer.digest()));
        System.err.printf("elapsed_ms=%.3f%n", (System.nanoTime() - start) / 1e6);
    }

    static double scale() {
        String s = System.getenv("ADVICE_SCALE");
        return s == null ? 1.0 : Double.parseDouble(s);
    }
}
