#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>
#include <unistd.h>

class Page {
public:
    long size() const { return 4096; }
    int twice(int x) const { return 2 * x; }
};

class Worker {
public:
    int run(int n) {
        int s = 0;
        for (int i = 0; i < n; ++i) s += page_.twice(i) % 7;
        return s;
    }

private:
    Page page_;
};

// errno as the program left it before each instrumented call: the first call opens the
// trace (folders that exist already: mkdir says EEXIST), later ones fill and flush buffers,
// and a new thread's first call makes its buffer.
int main() {
    errno = EINVAL;
    Page p;
    long s = p.size();  // the run's first event
    std::printf("%ld %s\n", s, std::strerror(errno));
    errno = ERANGE;
    Worker w;
    int t = w.run(20000);  // buffers fill and are flushed
    std::printf("%d %s\n", t, std::strerror(errno));
    int seen = 0;
    std::thread th([&seen] {
        errno = EDOM;
        Page q;
        q.size();  // this thread's first event
        seen = errno;
    });
    th.join();
    std::printf("%s\n", std::strerror(seen));
    return 0;
}
