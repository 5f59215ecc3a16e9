// A bounded buffer whose conditionals do not parse with both branches at once: one sits in
// the constructor's initialiser list, and `put` opens its `if` in either branch.
#ifndef BUFFER_H
#define BUFFER_H

class Buffer {
public:
    explicit Buffer(int capacity)
        : capacity_(capacity),
#ifdef WITH_CHECKS
          clipped_(0),
#endif
          used_(0) {
    }

    int put(int n) {
#ifdef WITH_CHECKS
        if (n > capacity_ - used_) {
            ++clipped_;
#else
        if (n > capacity_ - used_) {
#endif
            n = capacity_ - used_;
        }
        used_ += n;
        return n;
    }

    int used() const { return used_; }

    int clipped() const {
#ifdef WITH_CHECKS
        return clipped_;
#else
        return -1;
#endif
    }

private:
    int capacity_;
#ifdef WITH_CHECKS
    int clipped_;
#endif
    int used_;
};

#endif
