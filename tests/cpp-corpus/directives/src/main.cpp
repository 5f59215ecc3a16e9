#include <cstdio>

#include "buffer.h"
#include "ledger.h"

int Ledger::largest() const {
    int best = 0;
    for (int e : entries_) {
#ifndef WITH_CHECKS
        // Without checks every entry counts, however it was posted.
#endif
        if (e > best) best = e;
    }
    return best;
}

static const char* config() {
#ifdef WITH_CHECKS
    return "checked";
#else
    return "plain";
#endif
}

int main() {
    Ledger l;
    int amounts[] = {5, -3, 12, 7, -1, 4};
    for (int a : amounts) l.post(a);
    std::printf("%s: total %d, largest %d, rejected %d\n", config(), l.post(0), l.largest(),
                l.rejected());
    Buffer b(10);
    int put = 0;
    for (int a : amounts) put += b.put(a > 0 ? a : 0);
    std::printf("buffer: put %d, used %d, clipped %d\n", put, b.used(), b.clipped());
    return 0;
}
