#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#define GETTER(name, field) \
    int name() const { return field; }

#define FAST 1

class Worker {
public:
    explicit Worker(int id) : id_(id) {}
    GETTER(id, id_)
    void run(int n) {
        for (int i = 0; i < n; ++i) step(i);
    }
    void step(int i) { total_ += i % 7; }
    long total() const { return total_; }
#if FAST
    int speed() const { return 2; }
#else
    int speed() const { return 1; }
#endif

private:
    int id_;
    long total_ = 0;
};

// Names that collide with Revy's generated ones.
class Clash {
public:
    Clash() : _rv_tag(1) {}
    int _rv_s(int _rv_d) const { int _rv_s1 = _rv_d + _rv_tag; return _rv_s1; }
    int ignore(int, const std::string&, double = 0) const { return 5; }

private:
    int _rv_tag;
};

// An aggregate (brace-initialised by position) whose nested class has a private section: the
// nested labels are not its own, so it gets no ID member that would break `Span{2, 9, "sp"}`.
class Span {
public:
    int from;
    int to;
    std::string name;  // not trivial: only being an aggregate keeps it from an ID member
    class Cursor {
    private:
        int at_ = 0;
    public:
        int at() const { return at_; }
    };
    int length() const { return to - from; }
};

class Pool {
public:
    long run_all(int threads, int work) {
        std::vector<Worker> ws;
        for (int i = 0; i < threads; ++i) ws.emplace_back(i);
        std::vector<std::thread> ts;
        for (auto& w : ws) ts.emplace_back([&w, work] { w.run(work); });
        for (auto& t : ts) t.join();
        long sum = 0;
        for (const auto& w : ws) sum += w.total();
        return sum;
    }

    // Lambdas with their own returns.
    std::vector<int> evens(const std::vector<int>& xs) {
        std::vector<int> out;
        std::copy_if(xs.begin(), xs.end(), std::back_inserter(out), [](int x) {
            if (x < 0) return false;
            return x % 2 == 0;
        });
        auto first = [&]() -> int {
            for (int x : out)
                if (x > 2) return x;
            return -1;
        };
        if (out.empty()) return out;
        out.push_back(first());
        return out;
    }

    int guarded(int x) {
#ifdef NDEBUG
        return x;
#else
        return x + 1;
#endif
    }

    int tried(int x) try { return x * 2; } catch (...) {
        return -1;
    }

    static int sum(const int* xs, int n) {
        int s = 0;
        for (int i = 0; i < n; ++i) s += xs[i];
        return s;
    }
    static int sum_arr(int xs[], int n) { return sum(xs, n); }
};

// Pointers to members: tree-sitter-cpp has neither `C::*` nor `->*` (muparser's
// `typedef value_type (ParserBase::*ParseFunction)() const`, `(this->*m_pParseFormula)()`).
class Dispatch {
public:
    typedef int (Dispatch::*Op)(int) const;
    int twice(int x) const { return 2 * x; }
    int via_member(int x) const {
        Op op = &Dispatch::twice;
        return (this->*op)(x) + (this ->* pick_)(1);
    }
    Op pick_ = &Dispatch::twice;
    int Dispatch::*counter_ = &Dispatch::count_;
    int count_ = 5;
    int after_members() { return this->*counter_; }
};

int legacy_sum();  // src/latin1.cpp

int main() {
    std::printf("%d\n", legacy_sum());
    Dispatch d;
    std::printf("%d %d\n", d.via_member(3), d.after_members());
    Pool p;
    long total = p.run_all(3, 1000);
    auto ev = p.evens({1, 2, 3, 4, -2, 6});
    int xs[] = {1, 2, 3};
    std::printf("%ld %zu %d %d %d %d %d\n", total, ev.size(), ev.back(), p.guarded(1), p.tried(4),
                Pool::sum(xs, 3), Pool::sum_arr(xs, 3));
    Clash cl;
    std::printf("%d %d\n", cl._rv_s(2), cl.ignore(1, "x"));
    Worker w(9);
    std::printf("%d %d\n", w.id(), w.speed());
    Span sp{2, 9, "sp"};
    std::printf("%d %s\n", sp.length(), sp.name.c_str());
    return 7;
}
