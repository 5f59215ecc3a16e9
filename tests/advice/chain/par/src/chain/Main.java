package chain;

/**
 * A synchronous chain: the root asks the Lexer for each token and needs it at once to go on
 * (a parser would). The Lexer does most of the work, yet every caller waits for its result:
 * making it active cannot overlap anything and gains nothing.
 */
public final class Main {
    static final int TOKENS = 6000;

    public static void main(String[] args) {
        long start = System.nanoTime();
        int tokens = Math.max(1, (int) (TOKENS * scale()));
        Lexer lexer = new Lexer(new Source(42));
        long state = 1;
        for (int i = 0; i < tokens; i++) {
            Token t = lexer.next();
            state = parse(state, t); // needs the token: the root cannot run ahead
        }
        System.out.println("state " + Long.toHexString(state));
        System.err.printf("elapsed_ms=%.3f%n", (System.nanoTime() - start) / 1e6);
    }

    /** The root's own share of the work per token (a third of the Lexer's). */
    static long parse(long state, Token t) {
        long h = state ^ t.kind;
        for (int i = 0; i < 20_000; i++) {
            h = (h ^ (t.value + i)) * 0x9E3779B97F4A7C15L;
            h ^= h >>> 31;
        }
        return h;
    }

    static double scale() {
        String s = System.getenv("ADVICE_SCALE");
        return s == null ? 1.0 : Double.parseDouble(s);
    }
}
