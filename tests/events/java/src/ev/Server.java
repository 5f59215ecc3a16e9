package ev;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A server in miniature: an acceptor thread takes requests in, a pool of 4 workers
 * processes them from a queue, and a writer thread sends the responses from a second queue.
 * Each request measures itself: latency from the start of its accept() to the end of its
 * write(), and work as the on-CPU time of those two calls and its process(), read twice:
 * inside each call's body (WORK) and by its caller around the call (OUTER). A call's own
 * CPU time lies between the two: the reads can sit at neither edge of the call, and a
 * preemption or a wake-up landing between a call's edge and the body charges its cost
 * (tens of microseconds of CPU) to that stretch. The ground truth is printed as
 * `req ID LATENCY_NS WORK_NS OUTER_NS`, one line per request.
 */
public class Server {
    static final BlockingQueue<Request> REQUESTS = new LinkedBlockingQueue<Request>();
    static final BlockingQueue<Response> RESPONSES = new LinkedBlockingQueue<Response>();

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        Request[] all = new Request[n];
        Thread writer = new Thread(new Writer(n), "writer");
        Thread[] workers = new Thread[4];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Thread(new Worker(), "worker-" + i);
        }
        Thread acceptor = new Thread(new Acceptor(all, workers.length), "acceptor");
        writer.start();
        for (Thread w : workers) {
            w.start();
        }
        acceptor.start();
        acceptor.join();
        for (Thread w : workers) {
            w.join();
        }
        writer.join();
        StringBuilder out = new StringBuilder();
        for (Request r : all) {
            out.append("req ").append(r.id).append(' ').append(r.latency).append(' ')
                    .append(r.work).append(' ').append(r.outer).append('\n');
        }
        out.append("requests ").append(n).append('\n');
        System.out.print(out);
    }
}

/** Reads requests in: each accept() is one client request arriving. */
class Acceptor implements Runnable {
    private final Request[] all;
    private final int workers;

    Acceptor(Request[] all, int workers) {
        this.all = all;
        this.workers = workers;
    }

    public void run() {
        try {
            for (int i = 0; i < all.length; i++) {
                long c0 = Clock.cpu();
                all[i] = accept(i);
                all[i].outer += Clock.cpu() - c0;
                Server.REQUESTS.put(all[i]);
            }
            for (int i = 0; i < workers; i++) {
                Server.REQUESTS.put(Request.stop());
            }
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    /** Parses one request (60 us of CPU). */
    Request accept(int id) {
        long t0 = System.nanoTime();
        long c0 = Clock.cpu();
        Request r = new Request(id, t0);
        Clock.burn(60_000);
        r.work += Clock.cpu() - c0;
        return r;
    }
}

class Worker implements Runnable {
    public void run() {
        try {
            while (true) {
                Request r = Server.REQUESTS.take();
                if (r.id < 0) {
                    return;
                }
                long c0 = Clock.cpu();
                Response resp = r.process();
                r.outer += Clock.cpu() - c0;
                Server.RESPONSES.put(resp);
            }
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }
}

class Writer implements Runnable {
    private final int n;

    Writer(int n) {
        this.n = n;
    }

    public void run() {
        try {
            for (int i = 0; i < n; i++) {
                Response resp = Server.RESPONSES.take();
                long c0 = Clock.cpu();
                resp.write();
                resp.request.outer += Clock.cpu() - c0;
            }
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }
}

class Request {
    final int id;
    final long t0;
    long work;
    /** The CPU time of its calls read by their callers. */
    long outer;
    long latency;

    Request(int id, long t0) {
        this.id = id;
        this.t0 = t0;
    }

    static Request stop() {
        return new Request(-1, 0);
    }

    /** The request's own work: 200 us of CPU times 1 to 5, by its id. */
    Response process() {
        long c0 = Clock.cpu();
        Clock.burn(200_000L * (1 + id % 5));
        Response resp = new Response(this);
        work += Clock.cpu() - c0;
        return resp;
    }
}

class Response {
    final Request request;

    Response(Request request) {
        this.request = request;
    }

    /** Sends the response (80 us of CPU); the request is done at its end. */
    void write() {
        long c0 = Clock.cpu();
        Clock.burn(80_000);
        request.work += Clock.cpu() - c0;
        request.latency = System.nanoTime() - request.t0;
    }
}
