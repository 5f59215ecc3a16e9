#include <cstdio>
#include <memory>
#include <vector>
#include "shapes.h"

// 1,500 shapes of each kind, kept alive together, then summed and destroyed.
int main() {
    std::vector<std::unique_ptr<geo::Shape>> all;
    for (int i = 0; i < 1500; ++i) {
        all.emplace_back(new geo::Square(i % 7));
        all.emplace_back(new geo::Circle(i % 5));
        all.emplace_back(new geo::Polygon(i));
    }
    double sum = 0;
    for (const auto& s : all) {
        sum += s->area() + s->kind();
    }
    std::printf("%.0f\n", sum);
    return 0;
}
