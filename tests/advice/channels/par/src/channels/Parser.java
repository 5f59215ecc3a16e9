package channels;

/** Turns a line into a record (a fifth of the Scorer's work per line). */
public final class Parser {
    public Record parse(String line) {
        int[] v = new int[Record.WIDTH];
        int n = 0;
        int x = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == ',') {
                v[n++] = x;
                x = 0;
            } else {
                x = x * 10 + (c - '0');
            }
        }
        v[n] = x;
        // Normalise: a few passes over the values, the parser's own share of the work.
        for (int pass = 0; pass < 40; pass++) {
            for (int i = 1; i < v.length; i++) {
                v[i] = (v[i] + v[i - 1] * 7 + pass) & 1023;
            }
        }
        return new Record(v);
    }
}
