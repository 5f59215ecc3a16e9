#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

// A class template with a member template and a full specialisation.
template <typename T>
class Box {
public:
    explicit Box(T v) : v_(std::move(v)) {}
    const T& get() const { return v_; }
    template <typename F>
    auto map(F f) const -> Box<decltype(f(std::declval<T>()))> {
        return Box<decltype(f(v_))>(f(v_));
    }
    template <typename... Args>
    void reset(Args&&... args) {
        v_ = T(std::forward<Args>(args)...);
    }

private:
    T v_;
};

template <>
class Box<bool> {
public:
    explicit Box(bool b) : b_(b) {}
    bool get() const { return b_; }
    const char* text() const { return b_ ? "yes" : "no"; }

private:
    bool b_;
};

// Variadic function template as a static member.
struct Sum {
    template <typename... Ts>
    static long of(Ts... ts) {
        return (0L + ... + static_cast<long>(ts));
    }
};

// Operator overloads.
class Money {
public:
    Money(long cents) : cents_(cents) {}
    Money operator+(const Money& o) const { return Money(cents_ + o.cents_); }
    bool operator<(const Money& o) const { return cents_ < o.cents_; }
    long operator()(int times) const { return cents_ * times; }
    explicit operator double() const { return cents_ / 100.0; }
    friend std::ostream& operator<<(std::ostream& os, const Money& m) {
        return os << m.cents_ / 100 << "." << (m.cents_ % 100 < 10 ? "0" : "") << m.cents_ % 100;
    }

private:
    long cents_;
};

// constexpr used in constant expressions (left alone).
class Limits {
public:
    static constexpr int twice(int x) { return 2 * x; }
    constexpr Limits(int m) : max_(m) {}
    constexpr int max() const { return max_; }
    int plain() const { return max_ + 1; }

private:
    int max_;
};
static_assert(Limits::twice(21) == 42);
constexpr Limits kLimits(7);
static_assert(kLimits.max() == 7);

// An aggregate, brace-initialised, and a struct whose size is asserted.
struct Pair {
    int a;
    int b;
    int sum() const { return a + b; }
};

struct Packet {
    Packet() : len(0), kind(1) {}
    int len;
    short kind;
    short pad = 0;
    int total() const { return len + kind; }
};
static_assert(sizeof(Packet) == 8, "wire format");

// A class-keyword aggregate: all public, no constructors, brace-initialised.
class Point3 {
public:
    int x, y, z;
    int sum() const { return x + y + z; }
};

// No constructors but private state: an ordinary class (gets a member ID).
class Tally {
public:
    void add(int v) { total_ += v; }
    int total() const { return total_; }

private:
    int total_ = 0;
};

union Word {
    unsigned int u;
    float f;
    unsigned int bits() const { return u; }
};

// fmt's shapes: a parameter whose type expands a pack inside its template arguments is one
// parameter (`Spec<T...> f`, not a pack), and a class held by value in a literal type (one
// with a constexpr constructor) must stay literal itself, or `constexpr` variables of the
// outer type stop compiling (fmt's `basic_format_specs` holds a `fill_t`).
template <typename... T>
struct Spec {
    int n = sizeof...(T);
};

class Fill {
public:
    void operator=(const char* s) { size_ = static_cast<unsigned char>(std::strlen(s)); }
    int size() const { return size_; }

private:
    char data_[4] = {' ', 0, 0, 0};
    unsigned char size_ = 1;
};

struct Specs {
    int width;
    Fill fill;
    constexpr Specs() : width(0) {}
};

class Printer {
public:
    template <typename... T>
    int print(Spec<T...> spec, T&&... args) {
        return spec.n + static_cast<int>(sizeof...(args));
    }
    int widths() const {
        constexpr auto specs = Specs();
        return specs.width + specs.fill.size();
    }
};

int main() {
    Printer pr;
    Fill f;
    f = "ab";
    std::cout << pr.print(Spec<int, char>(), 1, 'c') << " " << pr.widths() << " " << f.size() << "\n";
    Box<std::string> s("hello");
    auto n = s.map([](const std::string& x) { return static_cast<int>(x.size()); });
    s.reset(3, 'x');
    Box<bool> yes(true);
    std::cout << s.get() << " " << n.get() << " " << yes.text() << " " << yes.get() << "\n";
    std::cout << Sum::of(1, 2, 3, 4) << "\n";
    Money a(150), b(275);
    Money c = a + b;
    std::cout << c << " " << (a < b) << " " << c(3) << " " << static_cast<double>(c) << "\n";
    int arr[Limits::twice(2)] = {1, 2, 3, 4};
    std::cout << arr[3] << " " << kLimits.max() << " " << Limits(4).plain() << "\n";
    Pair p{3, 4};
    Packet pk;
    pk.len = 5;
    Packet copy;
    std::memcpy(&copy, &pk, sizeof(Packet));
    Word w;
    w.u = 0x3f800000u;
    std::cout << p.sum() << " " << copy.total() << " " << w.bits() << " " << w.f << "\n";
    Point3 q{1, 2, 3};
    Tally t;
    t.add(q.sum());
    std::cout << t.total() << "\n";
    return 0;
}
