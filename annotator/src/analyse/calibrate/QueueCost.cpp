// What a fine-grained message costs at an active object's queue, measured with the queue a
// hand-made C++ active object uses (tests/advice/common/cpp/active.h): std::mutex,
// std::condition_variable and a std::deque<std::function<void()>> whose messages capture 16
// bytes (an object pointer and an argument: stored inline, no allocation), the receiver
// taking one per lock and calling it. revy compiles and runs this once per project
// (analyse/calibrate/queue.rs) and reads its one line:
//   enqueue_ns=<median> enqueue_fast_ns=<p10> enqueue_slow_ns=<p90> line_ns=<before>,<after>
// (enqueue_ns=0: too few rounds ran undisturbed). Linux: both threads pinned to the first
// two CPUs this process may use.
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace {

const long kN = 20000;        // messages per round
const int kWindows = 10;      // windows, one every 150 ms, of 60 ms each
const size_t kPerWindow = 8;  // counted rounds per window at most (the figure: their p25)
const double kRan = 0.85;     // share of a round's wall time each thread must have run

std::uint64_t clock_ns(clockid_t c) {
  timespec t;
  clock_gettime(c, &t);
  return std::uint64_t(t.tv_sec) * 1000000000u + std::uint64_t(t.tv_nsec);
}
std::uint64_t wall() { return clock_ns(CLOCK_MONOTONIC); }
std::uint64_t cpu() { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }

std::vector<int> cores() {
  std::vector<int> out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

void pin(const std::vector<int>& cs, size_t i) {
  if (i >= cs.size()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cs[i], &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

// Counters on lines of their own, away from the queue's.
struct alignas(128) Marks {
  std::atomic<std::uint64_t> first_wall{0}, first_cpu{0}, last_cpu{0}, done{0};
};
struct alignas(128) Count {
  std::atomic<std::uint64_t> n{0};
};

struct Active {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue;
  Marks marks;
  Count waits;
  std::uint64_t sum = 0;  // the messages' work: one add

  void post(std::function<void()> m) {
    {
      std::lock_guard<std::mutex> lock(mu);
      queue.push_back(std::move(m));
    }
    cv.notify_one();
  }

  void loop() {
    for (;;) {
      std::function<void()> m;
      {
        std::unique_lock<std::mutex> lock(mu);
        while (queue.empty()) {
          waits.n.fetch_add(1, std::memory_order_relaxed);
          cv.wait(lock);
        }
        m = std::move(queue.front());
        queue.pop_front();
      }
      if (!m) return;
      m();
    }
  }
};

// One round: kN messages posted back to back, the time per message from the first post
// until the receiver has run the last; < 0 when a thread was preempted.
double round_of(Active& a) {
  Marks& k = a.marks;
  k.done.store(0, std::memory_order_release);
  std::uint64_t waits = a.waits.n.load(std::memory_order_relaxed);
  std::uint64_t w0 = wall(), c0 = cpu();
  a.post([&k] {
    k.first_wall.store(wall(), std::memory_order_relaxed);
    k.first_cpu.store(cpu(), std::memory_order_relaxed);
  });
  for (long i = 2; i < kN; ++i) {
    std::uint64_t v = std::uint64_t(i);
    a.post([&a, v] { a.sum += v; });
  }
  a.post([&k] {
    k.last_cpu.store(cpu(), std::memory_order_relaxed);
    k.done.store(wall(), std::memory_order_release);
  });
  std::uint64_t w1 = wall(), c1 = cpu();
  std::uint64_t deadline = w1 + 200000000u, done;
  while ((done = k.done.load(std::memory_order_acquire)) == 0)
    if (wall() > deadline) return -1;
  bool sender_ran = double(c1 - c0) >= kRan * double(w1 - w0);
  std::uint64_t rw = done - k.first_wall.load(), rc = k.last_cpu.load() - k.first_cpu.load();
  bool receiver_ran =
      double(rc) >= kRan * double(rw) || a.waits.n.load(std::memory_order_relaxed) != waits;
  if (!sender_ran || !receiver_ran || done <= w0) return -1;
  return double(done - w0) / double(kN);
}

// One way, ns: the median of batches of round trips of one cache line between the threads.
double line_probe(const std::vector<int>& cs) {
  alignas(128) static std::atomic<long> flag;
  flag.store(0);
  const long trips = 20000, batch = 100;
  std::thread other([&] {
    pin(cs, 1);
    for (long i = 1; i <= trips; ++i) {
      while (flag.load(std::memory_order_acquire) != 2 * i - 1) {
      }
      flag.store(2 * i, std::memory_order_release);
    }
  });
  std::vector<double> v;
  for (long b = 0; b < trips / batch; ++b) {
    std::uint64_t t0 = wall();
    for (long j = 0; j < batch; ++j) {
      long i = b * batch + j + 1;
      flag.store(2 * i - 1, std::memory_order_release);
      while (flag.load(std::memory_order_acquire) != 2 * i) {
      }
    }
    v.push_back(double(wall() - t0) / batch / 2);
  }
  other.join();
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main() {
  std::vector<int> cs = cores();
  pin(cs, 0);
  double line_before = line_probe(cs);
  std::vector<double> figures, all;
  {
    Active a;
    std::thread receiver([&] {
      pin(cs, 1);
      a.loop();
    });
    std::uint64_t start = wall();
    for (int w = 0; w < kWindows; ++w) {
      while (wall() < start + std::uint64_t(w) * 150000000u)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      std::uint64_t until = wall() + 60000000u;
      std::vector<double> rounds;
      for (int r = 0; rounds.size() < kPerWindow && wall() < until; ++r) {
        double x = round_of(a);
        if ((w > 0 || r > 0) && x > 0) rounds.push_back(x);  // the first warms
      }
      std::sort(rounds.begin(), rounds.end());
      if (rounds.size() >= 3) figures.push_back(rounds[rounds.size() / 4]);
      all.insert(all.end(), rounds.begin(), rounds.end());
    }
    a.post(std::function<void()>());
    receiver.join();
    std::fprintf(stderr, "sum %llu\n", static_cast<unsigned long long>(a.sum));
  }
  double line_after = line_probe(cs);
  double ns = 0, fast = 0, slow = 0;
  std::sort(figures.begin(), figures.end());
  std::sort(all.begin(), all.end());
  if (figures.size() >= 4) {
    size_t n = figures.size() - 1;
    ns = figures[size_t(n * 0.5 + 0.5)];
    fast = figures[size_t(n * 0.1 + 0.5)];
    slow = figures[size_t(n * 0.9 + 0.5)];
  } else if (all.size() >= 8) {
    ns = all[all.size() / 4];
  }
  std::printf("enqueue_ns=%.1f", ns);
  if (fast > 0) std::printf(" enqueue_fast_ns=%.1f enqueue_slow_ns=%.1f", fast, slow);
  std::printf(" line_ns=%.0f,%.0f\n", line_before, line_after);
  return 0;
}
