package advice;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The active object of the thesis, by hand: one thread and one FIFO queue per object. A void
 * message is posted and its sender goes on at once; any other message is a future the sender
 * waits on. Every message runs on the object's thread, in the order it was sent.
 */
public final class ActiveObject {
    private final BlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();

    public ActiveObject(String name) {
        Thread t = new Thread(this::loop, name);
        t.setDaemon(true); // the program ends when main does, as the sequential one would
        t.start();
    }

    /** A void message: queued, the sender does not wait. */
    public void post(Runnable message) {
        queue.add(message);
    }

    /** A message with a result: queued behind earlier ones; the sender waits for the result. */
    public <T> T await(Callable<T> message) {
        FutureTask<T> future = new FutureTask<>(message);
        queue.add(future);
        try {
            return future.get();
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    private void loop() {
        try {
            while (true) {
                queue.take().run();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
