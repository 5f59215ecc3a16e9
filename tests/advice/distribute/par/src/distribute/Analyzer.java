package distribute;

import advice.RemoteObject;

/**
 * ../seq's Analyzer placed on another machine, emulated: a link of 1 ms latency and 1 GB/s
 * each way (check.sh asks `revy whatif` for the same). analyse (void) is posted with a copy of
 * its frame, exposure and digest wait for their results to come back.
 */
public final class Analyzer {
    static final long LATENCY_NS = 1_000_000;
    static final double BYTES_PER_S = 1e9;
    private final RemoteObject self = new RemoteObject("analyzer", LATENCY_NS, BYTES_PER_S);
    private long digest;
    private long brightness;

    public void analyse(byte[] frame) {
        byte[] sent = frame.clone(); // marshalled: the remote side gets its own copy
        self.post(sent.length, () -> doAnalyse(sent));
    }

    public int exposure() {
        return self.await(4, 4, () -> (int) (100 + (brightness - 127) + (digest & 3)));
    }

    public long digest() {
        return self.await(0, 8, () -> digest);
    }

    private void doAnalyse(byte[] frame) {
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
}
