// The thread's CPU clock, and a spin on it (not instrumented: see revy.toml).
#ifndef RM_CLOCK_H
#define RM_CLOCK_H

#include <cstdint>
#include <ctime>

struct Clock {
    static std::int64_t cpu() {
        timespec ts;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
    }
    // Spends `ns` of this thread's CPU time.
    static std::uint64_t burn(std::int64_t ns) {
        std::int64_t end = cpu() + ns;
        volatile std::uint64_t x = 0;
        while (cpu() < end) {
            for (int i = 0; i < 200; i++) x = x + (i ^ x);
        }
        return x;
    }
};

#endif
