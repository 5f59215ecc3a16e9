#pragma once
#include <string>
#include <utility>

// Multiple inheritance: two selected bases, and a class below it.
struct Node {
    Node() : depth(0) {}
    virtual ~Node() {}
    int level() const { return depth; }
    int depth;
};
struct Allocator {
    Allocator() : used(0) {}
    int take(int n) {
        used += n;
        return used;
    }
    int used;
};
struct Doc : public Node, public Allocator {
    Doc() {}
    int work() { return take(3) + level(); }
};
struct Page : public Doc {
    Page() {}
    int more() { return work() + 1; }
};

// A diamond with a virtual base.
struct VBase {
    VBase() : b(1) {}
    virtual ~VBase() {}
    int vget() const { return b; }
    int b;
};
struct VLeft : virtual VBase {
    VLeft() {}
    int vleft() const { return vget() + 1; }
};
struct VRight : virtual VBase {
    VRight() {}
    int vright() const { return vget() + 2; }
};
struct VDiamond : VLeft, VRight {
    VDiamond() {}
    int vboth() const { return vleft() + vright(); }
};

// A diamond without virtual bases: two Root parts, still one object.
struct Root {
    Root() : r(5) {}
    int root() const { return r; }
    int r;
};
struct R1 : Root {
    R1() {}
    int r1() const { return root(); }
};
struct R2 : Root {
    R2() {}
    int r2() const { return root() + 1; }
};
struct Twin : R1, R2 {
    Twin() {}
    int twin() const { return r1() + r2(); }
};

// CRTP.
template <class D>
struct Shape {
    double twice() const { return static_cast<const D*>(this)->area() * 2; }
};
struct Square : Shape<Square> {
    explicit Square(double s) : side(s) {}
    double area() const { return side * side; }
    double side;
};

// A selected class deriving from an unselected one, and an unselected one deriving from it.
struct Plain {
    Plain() : p(4) {}
    int plain() const { return p; }
    int p;
};
struct Fancy : Plain {
    Fancy() {}
    int fancy() const { return plain() + 1; }
};
struct Outer : Fancy {
    Outer() {}
    int outer() const { return fancy() + 1; }
};

// A base without constructors between a tagged root and a second tagged base (cppunit).
struct Test {
    Test() : runs(0) {}
    virtual ~Test() {}
    virtual int tcount() const { return 1; }
    int runs;
};
struct Leaf : public Test {
    int tcount() const { return 2; }
};
struct Fixture {
    virtual ~Fixture() {}
    virtual int setUp() { return 3; }
};
struct Case : public Leaf, public Fixture {
    Case() {}
    int total() { return tcount() + setUp(); }
};

// A constructor moving its argument in the initialiser.
class Person {
public:
    explicit Person(std::string name) : name_(std::move(name)) {}
    std::size_t length() const { return name_.size(); }

private:
    std::string name_;
};

// A class joining a joined class (Doc) after another tagged base: Doc's own parts follow.
struct Other {
    Other() : o(7) {}
    int other() const { return o; }
    int o;
};
struct Combo : Other, Doc {
    Combo() {}
    int combo() { return other() + work(); }
};

// A first part whose constructor body logs more than a buffer (64 KiB) before the second part
// exists: its creation has left the buffer, so the parts cannot be united; the trace must
// still pair every creation with a destruction of the same class.
struct Busy {
    Busy() : n(0) {
        for (int i = 0; i < 20000; ++i) tick();
    }
    void tick() { ++n; }
    int n;
};
struct Late {
    Late() : m(1) {}
    int late() const { return m; }
    int m;
};
struct Split : Busy, Late {
    Split() {}
    int split() { return n + late(); }
};
