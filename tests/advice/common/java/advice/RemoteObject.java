package advice;

import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;

/**
 * An active object placed on another machine, emulated on this one: its own thread and queue
 * (an {@link ActiveObject}) behind a link with a fixed latency and bandwidth in each direction.
 * A message reaches the object only after latency + size / bandwidth, a result reaches its
 * sender the same way back; a link carries one message at a time (FIFO). The wait is a sleep,
 * so the "wire" uses no core, as a real network would not. The sender pays the copy of its
 * arguments (the marshalling) itself.
 */
public final class RemoteObject {
    private final ActiveObject remote;
    private final Link there;
    private final Link back;

    public RemoteObject(String name, long latencyNanos, double bytesPerSecond) {
        remote = new ActiveObject(name);
        there = new Link(latencyNanos, bytesPerSecond);
        back = new Link(latencyNanos, bytesPerSecond);
    }

    /** A void message of {@code bytes} bytes: sent, the sender goes on. */
    public void post(long bytes, Runnable message) {
        long arrives = there.send(bytes);
        remote.post(() -> {
            sleepUntil(arrives);
            message.run();
        });
    }

    /** A message with a result: the sender waits until the result has come back. */
    public <T> T await(long bytes, long resultBytes, Callable<T> message) {
        long arrives = there.send(bytes);
        Object[] reply = remote.await(() -> {
            sleepUntil(arrives);
            T value = message.call();
            return new Object[] {value, back.send(resultBytes)};
        });
        sleepUntil((Long) reply[1]);
        @SuppressWarnings("unchecked")
        T value = (T) reply[0];
        return value;
    }

    static void sleepUntil(long deadline) {
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    /** One direction of the wire: when the next message may start, and its arrival time. */
    private static final class Link {
        private final long latency;
        private final double bytesPerNano;
        private long free;

        Link(long latency, double bytesPerSecond) {
            this.latency = latency;
            this.bytesPerNano = bytesPerSecond / 1e9;
        }

        synchronized long send(long bytes) {
            long start = Math.max(System.nanoTime(), free);
            free = start + (long) (bytes / bytesPerNano);
            return free + latency;
        }
    }
}
