package channels;

/** One parsed line: its numbers. */
public final class Record {
    static final int WIDTH = 256;
    static final Record END = new Record(new int[0]);

    final int[] values;

    Record(int[] values) {
        this.values = values;
    }
}
