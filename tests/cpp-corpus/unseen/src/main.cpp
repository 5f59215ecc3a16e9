#include <algorithm>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "lib.h"

// Multiple inheritance: two selected bases.
struct Node {
    Node() : depth(0) {}
    virtual ~Node() {}
    int level() const { return depth; }
    int depth;
};

struct Allocator {
    Allocator() : used(0) {}
    int take(int n) { used += n; return used; }
    int used;
};

struct Doc : public Node, public Allocator {
    Doc() {}
    int work() { return take(3) + level(); }
};

// A class deriving from Doc again (below a multiple-inheritance class).
struct Page : public Doc {
    Page() {}
    int more() { return work() + 1; }
};

// A base whose subclass looks like an aggregate (no constructors, no fields, no `virtual`
// written): the subclass takes no tag but inherits one, so a class deriving from it and from
// another tagged class must not reach for an ambiguous tag (cppunit's TestCase).
struct Test {
    Test() : runs(0) {}
    virtual ~Test() {}
    virtual int count() const { return 1; }
    int runs;
};
struct Leaf : public Test {
    int count() const { return 2; }
};
struct Fixture {
    virtual ~Fixture() {}
    virtual int setUp() { return 3; }
};
struct Case : public Leaf, public Fixture {
    Case() {}
    int total() { return count() + setUp(); }
};

// Virtual bases and a diamond.
struct Base {
    Base() : b(1) {}
    virtual ~Base() {}
    int get() const { return b; }
    int b;
};
struct Left : virtual Base {
    Left() {}
    int left() const { return get() + 1; }
};
struct Right : virtual Base {
    Right() {}
    int right() const { return get() + 2; }
};
struct Diamond : Left, Right {
    Diamond() {}
    int both() const { return left() + right(); }
};

// Plain diamond without virtual bases.
struct Root {
    Root() : r(5) {}
    int root() const { return r; }
    int r;
};
struct A1 : Root {
    A1() {}
    int a1() const { return root(); }
};
struct A2 : Root {
    A2() {}
    int a2() const { return root(); }
};
struct Both : A1, A2 {
    Both() {}
    int sum() const { return a1() + a2(); }
};

// CRTP.
template <class D>
struct Counter {
    int count() const { return static_cast<const D*>(this)->n() * 2; }
};
struct Widget : Counter<Widget> {
    Widget() {}
    int n() const { return 21; }
};

// A selected class deriving from an unselected one, and the other way round.
struct Plain {
    Plain() : p(4) {}
    int plain() const { return p; }
    int p;
};
struct Fancy : Plain {
    Fancy() {}
    int fancy() const { return plain() + 1; }
};
struct Mixin : Fancy {
    Mixin() {}
    int mix() const { return fancy() + 1; }
};

// Class-template specialisations.
template <class T>
class Buffer {
public:
    Buffer() : data_(4) {}
    std::size_t size() const { return data_.size(); }

private:
    std::vector<T> data_;
};

template <>
class Buffer<bool> {
public:
    Buffer() : bits_(5) {}
    unsigned size() const { return bits_; }

private:
    unsigned bits_;
};

template <class T>
class Buffer<T*> {
public:
    Buffer() : ptrs_(3) {}
    int size() const { return ptrs_; }

private:
    int ptrs_;
};

// A constructor doing its work in the initialisers, and one moving its argument.
std::vector<int> sorted(int n) {
    std::vector<int> v;
    for (int i = n; i > 0; --i) v.push_back(i);
    std::sort(v.begin(), v.end());
    return v;
}
class Sorter {
public:
    explicit Sorter(int n) : data_(sorted(n)) {}
    int first() const { return data_.front(); }

private:
    std::vector<int> data_;
};
class Person {
public:
    explicit Person(std::string name) : name_(std::move(name)) {}
    const std::string& name() const { return name_; }

private:
    std::string name_;
};

int main() {
    Doc d;
    std::cout << "doc " << d.work() << "\n";
    Page pg;
    std::cout << "page " << pg.more() << "\n";
    Case cs;
    std::cout << "case " << cs.total() << "\n";
    Diamond dm;
    std::cout << "diamond " << dm.both() << "\n";
    Both bo;
    std::cout << "both " << bo.sum() << "\n";
    Widget w;
    std::cout << "crtp " << w.count() << "\n";
    Mixin mx;
    std::cout << "mixin " << mx.mix() << "\n";
    Buffer<int> bi;
    Buffer<bool> bb;
    Buffer<int*> bp;
    std::cout << "buffers " << bi.size() << " " << bb.size() << " " << bp.size() << "\n";
    Sorter s(1000);
    std::cout << "sorted " << s.first() << "\n";
    Person p(std::string(40, 'x'));
    std::cout << "person " << p.name().size() << "\n";
    lib::Gauge g(3);
    g.bump();
    std::cout << "gauge " << g.get_level() << " " << lib::twice(g.get_level()) << "\n";
    std::cout << "checked " << g.checked(5) << " noted " << g.noted(2) << " table " << g.table()
              << " version " << lib_name(lib_version()) << " tag " << outer::tag.get() << "\n";
    Sparse<int> sp;
    sp.set(1, 10);
    sp.set(2, 32);
    std::cout << "sparse " << sp.sum() << "\n";
    std::cout << "wire " << wire_total() << "\n";
    return 0;
}
