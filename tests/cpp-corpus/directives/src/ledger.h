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
        total_ += amount;
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

private:
    std::vector<int> entries_;
    int total_;
#ifdef WITH_CHECKS
    int rejected_;
#endif
};

#endif
