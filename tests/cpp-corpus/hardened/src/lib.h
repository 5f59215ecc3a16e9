#pragma once
#include <cstdio>

// Item 21: member functions defined in names.cpp after `using namespace outer;`.
namespace outer {
namespace inner {
struct Counter {
    Counter() : n(0) {}
    int bump();
    int twice();
    int n;
};
}  // namespace inner
int helper(int x);
}  // namespace outer

// Item 22: template members defined in a .tcc and a .ipp file the header includes.
template <class T>
struct Box {
    explicit Box(T v) : v_(v) {}
    T unbox() const;
    T v_;
};

template <class T>
struct Range {
    Range(T a, T b) : lo(a), hi(b) {}
    T width() const;
    T lo, hi;
};

#include "box.tcc"
#include "range.ipp"
