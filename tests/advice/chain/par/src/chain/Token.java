package chain;

/** A token: its kind and value. */
public final class Token {
    final int kind;
    final long value;

    Token(int kind, long value) {
        this.kind = kind;
        this.value = value;
    }
}
