// Latin-1, not UTF-8: café, naïve. Revy carries such bytes through unchanged.
#include <cstdio>

class Legacy {
public:
    int sum_bytes() const {
        const char* s = "café naïve";
        int t = 0;
        for (const char* p = s; *p; ++p) t += (unsigned char)*p;
        return t;
    }
};

int legacy_sum() {
    Legacy l;
    return l.sum_bytes();
}
