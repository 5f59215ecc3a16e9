#include "geo.h"

#include <cstdio>

namespace outer {
namespace inner {

Point::Point(double x, double y) : x_(x), y_(y) {}

double Point::y() const noexcept { return y_; }

auto Point::norm2() const -> double { return x_ * x_ + y_ * y_; }

double& Point::x_ref() { return x_; }

Point Point::origin() { return Point(0, 0); }

std::string Point::label() const {
    char buf[64];
    std::snprintf(buf, sizeof buf, "(%g, %g) « point »", x_, y_);
    return buf;
}

}  // namespace inner
}  // namespace outer

namespace a::b {

void Path::add(const outer::inner::Point& p) { pts_.push_back(p); }

void Path::add_all(const std::vector<outer::inner::Point>& ps) {
    for (const auto& p : ps) add(p);
}

// goto forward jumps over declarations inside the body.
int Path::count_until(double limit) const {
    int n = 0;
    for (const auto& p : pts_) {
        if (p.norm2() > limit) goto done;
        ++n;
    }
    {
        int extra = 0;
        if (n == 0) goto done;
        extra = 1;
        n += extra - 1;
    }
done:
    return n;
}

}  // namespace a::b
