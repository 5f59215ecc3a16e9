package chain;

/** Turns the Source's chunks into tokens: the heavy middle of a synchronous chain. */
public final class Lexer {
    private final Source source;

    public Lexer(Source source) {
        this.source = source;
    }

    public Token next() {
        long h = source.read();
        for (int i = 0; i < 40_000; i++) {
            h = (h ^ i) * 0x94D049BB133111EBL;
            h ^= h >>> 29;
        }
        return new Token((int) (h & 7), h);
    }
}
