// Prints the ground truth as `req ID LATENCY_NS WORK_NS OUTER_NS`, one line per request:
// work read inside each call's body, outer by its caller around the call (see server.h). Requests
// and responses are freed at exit only: a destructor run on one (an instrumented call on
// an object of the request) would continue its event past the program's own end mark.
#include "server.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <thread>

std::int64_t Clock::cpu() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::int64_t Clock::wall() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

std::uint64_t Clock::burn(std::int64_t ns) {
    std::int64_t end = cpu() + ns;
    volatile std::uint64_t x = 0;
    while (cpu() < end) {
        for (int i = 0; i < 200; i++) x = x + (i ^ x);
    }
    return x;
}

Response* Request::process() {
    std::int64_t c0 = Clock::cpu();
    Clock::burn(200000LL * (1 + id % 5));
    Response* resp = new Response(this);
    work += Clock::cpu() - c0;
    return resp;
}

void Response::write() {
    std::int64_t c0 = Clock::cpu();
    Clock::burn(80000);
    request->work += Clock::cpu() - c0;
    request->latency = Clock::wall() - request->t0;
}

void Acceptor::run() {
    for (int i = 0; i < static_cast<int>(all_.size()); i++) {
        std::int64_t c0 = Clock::cpu();
        all_[i] = accept(i);
        all_[i]->outer += Clock::cpu() - c0;
        out_.put(all_[i]);
    }
    for (int i = 0; i < workers_; i++) out_.put(new Request(-1, 0));
}

Request* Acceptor::accept(int id) {
    std::int64_t t0 = Clock::wall();
    std::int64_t c0 = Clock::cpu();
    Request* r = new Request(id, t0);
    Clock::burn(60000);
    r->work += Clock::cpu() - c0;
    return r;
}

void Worker::run() {
    for (;;) {
        Request* r = in_.take();
        if (r->id < 0) return;
        std::int64_t c0 = Clock::cpu();
        Response* resp = r->process();
        r->outer += Clock::cpu() - c0;
        out_.put(resp);
    }
}

void Writer::run() {
    for (int i = 0; i < n_; i++) {
        Response* resp = in_.take();
        std::int64_t c0 = Clock::cpu();
        resp->write();
        resp->request->outer += Clock::cpu() - c0;
    }
}

int main(int argc, char** argv) {
    int n = argc > 1 ? std::atoi(argv[1]) : 200;
    std::vector<Request*> all(n);
    Queue<Request> requests;
    Queue<Response> responses;
    const int kWorkers = 4;
    Writer writer(responses, n);
    std::vector<Worker*> workers;
    for (int i = 0; i < kWorkers; i++) workers.push_back(new Worker(requests, responses));
    Acceptor acceptor(all, requests, kWorkers);
    std::thread w([&writer] { writer.run(); });
    std::vector<std::thread> pool;
    for (int i = 0; i < kWorkers; i++) {
        Worker* k = workers[i];
        pool.push_back(std::thread([k] { k->run(); }));
    }
    std::thread a([&acceptor] { acceptor.run(); });
    a.join();
    for (size_t i = 0; i < pool.size(); i++) pool[i].join();
    w.join();
    for (int i = 0; i < n; i++) {
        std::printf("req %d %lld %lld %lld\n", all[i]->id,
                    static_cast<long long>(all[i]->latency), static_cast<long long>(all[i]->work),
                    static_cast<long long>(all[i]->outer));
    }
    std::printf("requests %d\n", n);
    return 0;
}
