#include <cstdio>
#include <vector>

#include "geo.h"

namespace {
// A class in an anonymous namespace.
class Counter {
public:
    explicit Counter(int start) : n_(start) {}
    int next() { return ++n_; }
    ~Counter() { std::printf("counter ends at %d\n", n_); }

private:
    int n_;
};
}  // namespace

int main() {
    using outer::inner::Point;
    Counter c(10);
    a::b::Path path;
    path.add(Point::origin());
    path.add_all({Point(1, 2), Point(3, 4), Point(30, 40)});
    Point p(2, 3);
    p.x_ref() = 5;
    p.y_ref() = 6;
    std::printf("%s norm2=%g x=%g y=%g\n", p.label().c_str(), p.norm2(), p.x(), p.y());
    std::printf("size=%zu until=%d next=%d next=%d\n", path.size(), path.count_until(100), c.next(),
                c.next());
    std::printf("chaîne: «héllo» ✓\n");
    return path.count_until(1) + 3;
}
