#include <cstdio>
#include <memory>
#include <vector>
#include "shapes.h"

static int twice(int v, void*) { return 2 * v; }

int main() {
    std::vector<std::unique_ptr<Base> > all;
    all.push_back(std::unique_ptr<Base>(new Base(1)));
    all.push_back(std::unique_ptr<Base>(new Mid(2, std::vector<int>(2, 0))));
    all.push_back(std::unique_ptr<Base>(new Leaf(3, "x")));
    {
        Base b(5);
        Mid m(6, std::vector<int>());
        Leaf l(7, "y");
        Leaf s = l.scaled(2);
        std::printf("%s %d %s %d %s %d %s %d\n", b.name().c_str(), b.weight(), m.name().c_str(),
                    m.weight(), l.name().c_str(), l.weight(), s.name().c_str(), s.weight());
    }
    int total = 0;
    for (std::size_t i = 0; i < all.size(); ++i) total += all[i]->weight();
    std::printf("%d %d %d\n", total, parse("42x"), parse(nullptr));
    const char* text = "a\nb";
    Reader r;
    std::printf("%d %d\n", Reader::hasNewLine(text, text + 3), r.apply(4, twice, nullptr));
    Mid big(1, std::vector<int>(5, 1));
    Mid small(1, std::vector<int>(1, 1));
    std::printf("%d\n", small.heavier(big));
    Bag broken = {-1};
    Holder<Bag> holder;
    std::printf("%d\n", holder.put(broken));
    bool flag = false;
    double real = 0;
    std::printf("%d %d %d %g\n", Convert<bool>::decode(3, flag), flag, Convert<double>::decode(2, real), real);
    return 0;
}
