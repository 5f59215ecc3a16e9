#ifndef SHAPES_H
#define SHAPES_H
#include <cstdlib>
#include <string>
#include <vector>

class Base {
public:
    explicit Base(int w) : w_(w) {}
    virtual ~Base() {}
    virtual std::string name() const { return "base"; }
    int weight() const { return w_ * factor(); }
    virtual int factor() const { return 1; }

private:
    int w_;
};

class Mid : public Base {
public:
    Mid(int w, std::vector<int> extra) : Base(w), extra_(extra) {}
    std::string name() const { return "mid" + std::to_string(extra_.size()); }
    int factor() const { return 2; }
    // Better mode measures the argument at run time: static size + its vector's contents.
    bool heavier(const Mid& o) const { return o.extra_.size() > extra_.size(); }

protected:
    std::vector<int> extra_;
};

class Leaf final : public Mid {
public:
    Leaf(int w, const std::string& tag);
    Leaf(const Leaf& o) : Mid(o), tag_(o.tag_ + "'") {}
    std::string name() const { return "leaf:" + tag_; }
    Leaf scaled(int k) const;

private:
    std::string tag_;
};

// An out-of-class definition qualifies a nested type the declaration wrote bare (jsoncpp):
// it is still the static member function declared in the class.
class Reader {
public:
    typedef const char* Location;
    static bool hasNewLine(Location begin, Location end);
    // A function pointer parameter (snappy's Sink::AppendAndTakeOwnership).
    int apply(int v, int (*fn)(int, void*), void* arg) { return fn(v, arg); }
};

// An explicit specialisation whose static member is defined out of class (yaml-cpp's
// `bool convert<bool>::decode(...)`): the definition belongs to the specialisation.
template <typename T>
struct Convert {
    static bool decode(int v, T& out) {
        out = static_cast<T>(v);
        return true;
    }
};
template <>
struct Convert<bool> {
    static bool decode(int v, bool& out);
};

// A user range whose size() must not be called by the profiler (yaml-cpp's Node::size()
// throws on an invalid node): measured by sizeof, not as a container.
struct Bag {
    int n;
    std::size_t size() const {
        if (n < 0) std::abort();
        return static_cast<std::size_t>(n);
    }
    const int* begin() const { return nullptr; }
    const int* end() const { return nullptr; }
};
template <typename T>
struct Holder {
    int put(const T& t) { return t.n < 0 ? -1 : 1; }
};

int parse(const char* s);
#endif
