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

// A method called on the object from its own constructor's initialiser, before the object
// has an ID: each `new` gets the memory of the one deleted before, the old ID still in it.
struct SkipNode {
    int key;
    SkipNode* next;
};
class Skip {
public:
    explicit Skip(int h) : head_(NewNode(h)), height_(h) {}
    ~Skip() { delete head_; }
    int height() const { return height_ + head_->key; }

private:
    SkipNode* NewNode(int k) {
        SkipNode* n = new SkipNode;
        n->key = k;
        n->next = nullptr;
        return n;
    }
    SkipNode* head_;
    int height_;
    char pad_[40];
};

// Default member initialisers run before the object's ID tag (its last member) exists; a
// method they call must not read the ID of the Seeded deleted before at the same address.
class Seeded {
public:
    explicit Seeded(int k) { k_ = k; }
    int value() const { return a_ + b_ + k_; }

private:
    int seed(int x) { return x * 2; }
    int a_ = seed(1);
    int b_{seed(2)};
    int k_ = 0;
    char pad_[40];
};

// The same from a braced first initialiser, where no early start goes.
class Braced {
public:
    explicit Braced(int h) : head_{Grow(h)}, depth_(h) {}
    ~Braced() { delete head_; }
    int depth() const { return depth_ + head_->key; }

private:
    SkipNode* Grow(int k) {
        SkipNode* n = new SkipNode;
        n->key = k;
        n->next = nullptr;
        return n;
    }
    SkipNode* head_;
    int depth_;
    char pad_[40];
};

int main() {
    int braced = 0;
    for (int i = 0; i < 4; ++i) {
        Braced* b = new Braced(i);
        braced += b->depth();
        delete b;
    }
    std::cout << "braced " << braced << "\n";
    int seeded = 0;
    for (int i = 0; i < 4; ++i) {
        Seeded* s = new Seeded(i);
        seeded += s->value();
        delete s;
    }
    std::cout << "seeded " << seeded << "\n";
    int levels = 0;
    for (int i = 0; i < 4; ++i) {
        Skip* s = new Skip(i);
        levels += s->height();
        delete s;
    }
    std::cout << "skip " << levels << "\n";
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
