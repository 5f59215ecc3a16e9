// A ledger whose methods switch on configuration macros inside their bodies.
#ifndef LEDGER_H
#define LEDGER_H

#include <vector>

class Ledger {
public:
    Ledger() : total_(0) {
#ifdef WITH_CHECKS
        rejected_ = 0;
#endif
    }

    int post(int amount) {
#if defined(WITH_CHECKS)
        if (amount < 0) {
            ++rejected_;
            return total_;
        }
#else
        if (amount < 0) amount = -amount;
#endif
        entries_.push_back(amount);
        total_ += clamp(amount, 0, 1000);
#if 0
        audit(entries_, "post");
#endif
        return total_;
    }

    int rejected() const {
#ifdef WITH_CHECKS
        return rejected_;
#else
        return -1;
#endif
    }

    int largest() const;

    static int clamp(int n, int lo, int hi);

private:
    std::vector<int> entries_;
    int total_;
#ifdef WITH_CHECKS
    int rejected_;
#endif
};

// Defined once per configuration: each definition is of the static member.
#ifndef WITH_CHECKS
inline int Ledger::clamp(int n, int lo, int hi) {
    return n < lo ? lo : (n > hi ? hi : n);
}
#else
inline int Ledger::clamp(int n, int lo, int hi) {
    if (lo > hi) return lo;
    return n < lo ? lo : (n > hi ? hi : n);
}
#endif

#endif
