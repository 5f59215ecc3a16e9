package preempted;

/** Books a batch of entries: the root's own work, half of it. */
public final class Ledger {
    private long balance = 1;

    public long[] book(int batch, long steps) {
        long[] entries = new long[16];
        long h = Mix.chain(balance ^ batch, steps);
        for (int i = 0; i < entries.length; i++) {
            entries[i] = h + i;
        }
        balance = h;
        return entries;
    }

    public long balance() {
        return balance;
    }
}
