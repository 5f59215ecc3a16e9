#include "shapes.h"

Leaf::Leaf(int w, const std::string& tag) : Mid(w, std::vector<int>(3, w)), tag_(tag) {}

Leaf Leaf::scaled(int k) const {
    Leaf copy(*this);
    copy.extra_.push_back(k);
    return copy;
}

// A forward goto past the label must not cross an inserted declaration.
struct Parser {
    int digits(const char* s) {
        int n = 0;
        if (!s) goto done;
        while (*s >= '0' && *s <= '9') {
            n = n * 10 + (*s - '0');
            ++s;
        }
    done:
        return n;
    }
    Parser() : calls(0) {}
    int calls;
};

int parse(const char* s) {
    Parser p;
    return p.digits(s);
}

bool Reader::hasNewLine(Reader::Location begin, Reader::Location end) {
    for (; begin < end; ++begin)
        if (*begin == '\n') return true;
    return false;
}

bool Convert<bool>::decode(int v, bool& out) {
    out = v != 0;
    return v >= 0;
}
