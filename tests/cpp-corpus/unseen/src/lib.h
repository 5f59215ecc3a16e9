#pragma once
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// Project macros: specifiers, namespaces and generated getters.
#define LIB_API_FN
#define LIB_NS_BEGIN namespace lib {
#define LIB_NS_END }
#define GETTER(t, f) t get_##f() const { return f##_; }
// muparser's macros: an export wrapper defined per platform, a statement macro used without
// a `;`, a declaration-like macro given a `(` inside a string, try/catch braces.
#ifdef _WIN32
#define LIB_EXPORT(TYPE) __declspec(dllexport) TYPE __cdecl
#else
#define LIB_EXPORT(TYPE) TYPE
#endif
#define LIB_ASSERT(COND) \
    if (!(COND)) {       \
        std::abort();    \
    }
#define LIB_NOTE(MSG, N) notes_ += std::strlen(MSG) + (N);
#define LIB_TRY try {
#define LIB_CATCH \
    }             \
    catch (...) { \
        return -1; \
    }

LIB_NS_BEGIN

LIB_API_FN int twice(int x);

class Gauge {
public:
    explicit Gauge(int level) : level_(level) {}
    GETTER(int, level)
    LIB_API_FN int bump() { return ++level_; }
    int checked(int x) {
        LIB_ASSERT(x >= 0)
        int y = x + level_;
        LIB_ASSERT(y >= x);
        return y;
    }
    int noted(int n) {
        LIB_NOTE("(k", n)
        LIB_NOTE("a,b)", 1);
        return notes_;
    }
    int table() {
        int sum = 0;
#define ROW(a, b) \
    sum += (a) * (b);
        ROW(1, 2)
        ROW(3, 4)
#undef ROW
        return sum;
    }

private:
    int level_;
    int notes_ = 0;
};

LIB_NS_END

// fmt's `constexpr detail::buffer_size buffer_size{}`: a literal type (no constexpr
// constructor) named by its last qualifiers in a constexpr variable must stay literal.
namespace outer {
inline namespace v1 {
namespace inner {
struct Tag {
    Tag() = default;
    int value = 7;
    int get() const { return value; }
    Tag operator=(int v) const {
        Tag t;
        t.value = v;
        return t;
    }
};
}  // namespace inner
constexpr inner::Tag tag{};
}  // namespace v1
}  // namespace outer

LIB_EXPORT(int) lib_version();
LIB_EXPORT(const char*) lib_name(int code);

// A container that relies on its elements being trivial.
template <class T>
class PodVec {
    static_assert(std::is_pod<T>::value, "T must be POD");

public:
    void push(const T& t) {
        T copy;
        std::memcpy(&copy, &t, sizeof(T));
        items_.push_back(copy);
    }
    std::size_t size() const { return items_.size(); }
    const T& at(std::size_t i) const { return items_[i]; }

private:
    std::vector<T> items_;
};

template <class V>
class Sparse {
public:
    // Trivial although it has constructors: PodVec asserts is_pod on it.
    struct IndexValue {
        IndexValue() = default;
        IndexValue(int i, V v) : index_(i), value_(v) {}
        int index() const { return index_; }
        int index_;
        V value_;
    };
    void set(int i, V v) { entries_.push(IndexValue(i, v)); }
    V sum() const {
        V s = V();
        for (std::size_t i = 0; i < entries_.size(); ++i) s += entries_.at(i).value_;
        return s;
    }

private:
    PodVec<IndexValue> entries_;
};

// Layout another file relies on (lib.cpp asserts its size and a member's offset): an ID
// member would break that build, so Wire keeps non-intrusive object IDs.
struct Wire {
    Wire() : kind(1), len(2) {}
    int total() const { return kind + len; }
    int kind;
    int len;
};
int wire_total();
