// Géométrie — header with an include guard (commentaire non-ASCII: ü, 漢字).
#ifndef GEO_H
#define GEO_H

#include <string>
#include <vector>

namespace outer {
namespace inner {

class Point {
public:
    Point(double x, double y);
    [[nodiscard]] double x() const noexcept { return x_; }
    double y() const noexcept;
    auto norm2() const -> double;
    double& x_ref();
    decltype(auto) y_ref() { return (y_); }
    static Point origin();
    std::string label() const;

private:
    double x_, y_;
};

}  // namespace inner
}  // namespace outer

namespace a::b {
class Path {
public:
    Path() = default;
    void add(const outer::inner::Point& p);
    void add_all(const std::vector<outer::inner::Point>& ps);
    int count_until(double limit) const;
    std::size_t size() const { return pts_.size(); }

private:
    std::vector<outer::inner::Point> pts_;
};
}  // namespace a::b

#endif
