package channels;

/** A bounded FIFO channel between two threads: put blocks while full, take while empty. */
public final class Channel {
    private final Object[] items;
    private int head;
    private int count;

    public Channel(int capacity) {
        this.items = new Object[capacity];
    }

    public synchronized void put(Object item) throws InterruptedException {
        while (count == items.length) {
            wait();
        }
        items[(head + count) % items.length] = item;
        count++;
        notifyAll();
    }

    public synchronized Object take() throws InterruptedException {
        while (count == 0) {
            wait();
        }
        Object item = items[head];
        items[head] = null;
        head = (head + 1) % items.length;
        count--;
        notifyAll();
        return item;
    }
}
