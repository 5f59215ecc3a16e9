#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "shapes.h"

// The same work in an initialiser and in a constructor body.
std::vector<int> sorted(int n) {
    std::vector<int> v;
    for (int i = 0; i < n; ++i) v.push_back((i * 7919) % n);
    std::sort(v.begin(), v.end());
    return v;
}
class SortInit {
public:
    explicit SortInit(int n) : data_(sorted(n)) {}
    int first() const { return data_.front(); }

private:
    std::vector<int> data_;
};
class SortBody {
public:
    explicit SortBody(int n) : data_() { data_ = sorted(n); }
    int first() const { return data_.front(); }

private:
    std::vector<int> data_;
};

int main() {
    Doc d;
    Doc copy(d);
    std::cout << "doc " << d.work() << " " << copy.work() << "\n";
    Page pg;
    std::cout << "page " << pg.more() << "\n";
    VDiamond vd;
    std::cout << "vdiamond " << vd.vboth() << "\n";
    Twin tw;
    std::cout << "twin " << tw.twin() << "\n";
    Square sq(3);
    std::cout << "square " << sq.twice() << "\n";
    Fancy f;
    Outer o;
    std::cout << "fancy " << f.fancy() << " " << o.outer() << "\n";
    Combo cb;
    std::cout << "combo " << cb.combo() << "\n";
    Split sp;
    std::cout << "split " << sp.split() << "\n";
    Case cs;
    std::cout << "case " << cs.total() << "\n";
    Person p(std::string(40, 'x'));
    std::cout << "person " << p.length() << "\n";
    // Initialiser first (cold memory), body second: the body is never the slower by setup.
    int sum = 0;
    for (int i = 0; i < 3; ++i) {
        SortInit a(200000);
        SortBody b(200000);
        sum += a.first() + b.first();
    }
    std::cout << "sorted " << sum << "\n";
    return 0;
}
