package channels;

/**
 * A pipeline of threads joined by wait()/notify() channels: the root reads lines into
 * `lines`, a parser thread parses them into `records`, a scorer thread hands each record to
 * one of two Scorers in turn (each puts its score into `scores`), and a sink thread sums the
 * scores. The Scorers' Model.dot is four fifths of the work: the real bottleneck, which the
 * channels' waiting must not hide.
 */
public final class Main {
    static final int LINES = 3000;

    public static void main(String[] args) throws Exception {
        long start = System.nanoTime();
        int n = Math.max(1, (int) (LINES * scale()));
        Channel lines = new Channel(16);
        Channel records = new Channel(16);
        Channel scores = new Channel(16);
        Parser parser = new Parser();
        Scorer[] scorers = {new Scorer(scores), new Scorer(scores)};
        Sink sink = new Sink();
        Thread parse = stage("parser", () -> {
            for (int i = 0; i < n; i++) {
                records.put(parser.parse((String) lines.take()));
            }
        });
        Thread score = stage("scorer", () -> {
            for (int i = 0; i < n; i++) {
                scorers[i % 2].score((Record) records.take());
            }
        });
        long[] sum = new long[1];
        Thread drain = stage("sink", () -> {
            long[] all = new long[n];
            for (int i = 0; i < n; i++) {
                all[i] = (Long) scores.take();
            }
            java.util.Arrays.sort(all); // the order the Scorers finish in is not the result
            for (long s : all) {
                sink.add(s);
            }
            sum[0] = sink.sum();
        });
        Source source = new Source(42);
        for (int i = 0; i < n; i++) {
            lines.put(source.next());
        }
        parse.join();
        score.join();
        drain.join();
        System.out.println("sum " + Long.toHexString(sum[0]));
        System.err.printf("elapsed_ms=%.3f%n", (System.nanoTime() - start) / 1e6);
    }

    interface Body {
        void run() throws InterruptedException;
    }

    static Thread stage(String name, Body body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, name);
        t.start();
        return t;
    }

    static double scale() {
        String s = System.getenv("ADVICE_SCALE");
        return s == null ? 1.0 : Double.parseDouble(s);
    }
}
