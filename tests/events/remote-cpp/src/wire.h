// Reads or writes exactly n bytes on a socket (both sides' framing); false on EOF or error.
#ifndef REMOTE_CPP_WIRE_H
#define REMOTE_CPP_WIRE_H

#include <sys/types.h>
#include <unistd.h>

#include <cstddef>

static inline bool io(int fd, void* p, std::size_t n, bool in) {
    char* c = static_cast<char*>(p);
    while (n > 0) {
        ssize_t k = in ? read(fd, c, n) : write(fd, c, n);
        if (k <= 0) return false;
        c += k;
        n -= static_cast<std::size_t>(k);
    }
    return true;
}

#endif
