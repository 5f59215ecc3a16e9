// A server in miniature (the C++ twin of tests/events/java): an acceptor thread takes
// requests in, a pool of 4 workers processes them from a queue, and a writer thread sends
// the responses from a second queue. Each request measures itself: latency from the start
// of its accept() to the end of its write(), and work as the on-CPU time of those two
// calls and its process(), read twice: inside each call's body and by its caller around
// the call. A call's own CPU time lies between the two: the reads can sit at neither edge
// of the call, and a preemption or a wake-up landing between a call's edge and the body
// charges its cost (tens of microseconds of CPU) to that stretch.
#ifndef EV_SERVER_H
#define EV_SERVER_H

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

// The thread's CPU clock, and a spin on it (not instrumented: see revy.toml).
struct Clock {
    static std::int64_t cpu();
    static std::int64_t wall();
    // Spends `ns` of this thread's CPU time.
    static std::uint64_t burn(std::int64_t ns);
};

// A blocking FIFO queue of pointers.
template <typename T>
class Queue {
public:
    void put(T* x) {
        std::lock_guard<std::mutex> g(lock_);
        items_.push_back(x);
        ready_.notify_one();
    }
    T* take() {
        std::unique_lock<std::mutex> g(lock_);
        while (items_.empty()) ready_.wait(g);
        T* x = items_.front();
        items_.pop_front();
        return x;
    }

private:
    std::mutex lock_;
    std::condition_variable ready_;
    std::deque<T*> items_;
};

class Response;

class Request {
public:
    Request(int id, std::int64_t t0) : id(id), t0(t0), work(0), outer(0), latency(0) {}
    // The request's own work: 200 us of CPU times 1 to 5, by its id.
    Response* process();

    int id;
    std::int64_t t0;
    std::int64_t work;
    // The CPU time of its calls read by their callers.
    std::int64_t outer;
    std::int64_t latency;
};

class Response {
public:
    explicit Response(Request* request) : request(request) {}
    // Sends the response (80 us of CPU); the request is done at its end.
    void write();

    Request* request;
};

// Reads requests in: each accept() is one client request arriving.
class Acceptor {
public:
    Acceptor(std::vector<Request*>& all, Queue<Request>& out, int workers)
        : all_(all), out_(out), workers_(workers) {}
    void run();
    // Parses one request (60 us of CPU).
    Request* accept(int id);

private:
    std::vector<Request*>& all_;
    Queue<Request>& out_;
    int workers_;
};

class Worker {
public:
    Worker(Queue<Request>& in, Queue<Response>& out) : in_(in), out_(out) {}
    void run();

private:
    Queue<Request>& in_;
    Queue<Response>& out_;
};

class Writer {
public:
    Writer(Queue<Response>& in, int n) : in_(in), n_(n) {}
    void run();

private:
    Queue<Response>& in_;
    int n_;
};

#endif
