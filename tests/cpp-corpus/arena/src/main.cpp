#include <cstdio>

#include "arena.h"

// Builds a chain of nodes until the arena says no: the count depends on sizeof(AstNode).
static int chain(Arena& a) {
    AstNode* last = 0;
    int n = 0;
    while (void* m = a.take(sizeof(AstNode))) {
        last = new (m) AstNode(n, last);
        ++n;
    }
    std::printf("nodes %d sum %d used %u\n", n, last ? last->eval() : 0, (unsigned)a.used());
    return n;
}

int main() {
    Arena small(160);
    int n = chain(small);
    Arena docs(100);
    int d = 0;
    while (void* m = docs.take(sizeof(ArenaDoc))) {
        ArenaDoc* doc = new (m) ArenaDoc();
        d += doc->first() > 0;
        doc->~ArenaDoc();
    }
    std::printf("docs %d\n", d);
    Arena entries(50);
    int e = 0;
    while (void* m = entries.take(sizeof(Entry))) {
        Entry* en = new (m) Entry;
        e += en->get();
    }
    std::printf("entries %d\n", e);
    // A stack object of a placed class works as before.
    ArenaDoc local;
    std::printf("local %d\n", local.first());
    return n == 10 && d == 3 && e == 36 ? 0 : 1;
}
