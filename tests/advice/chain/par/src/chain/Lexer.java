package chain;

import advice.ActiveObject;

/** ../seq's Lexer made active: next returns a token, so every caller waits for it. */
public final class Lexer {
    private final ActiveObject self = new ActiveObject("lexer");
    private final Source source;

    public Lexer(Source source) {
        this.source = source;
    }

    public Token next() {
        return self.await(this::doNext);
    }

    private Token doNext() {
        long h = source.read();
        for (int i = 0; i < 40_000; i++) {
            h = (h ^ i) * 0x94D049BB133111EBL;
            h ^= h >>> 29;
        }
        return new Token((int) (h & 7), h);
    }
}
