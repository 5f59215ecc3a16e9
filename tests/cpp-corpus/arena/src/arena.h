#ifndef ARENA_H
#define ARENA_H

#include <cstddef>
#include <new>

// A bump allocator with a hard-coded budget (pugixml's tests set such thresholds by hand).
class Arena {
public:
    explicit Arena(std::size_t budget) : used_(0), budget_(budget) {}
    void* take(std::size_t n) {
        if (used_ + n > budget_ || used_ + n > sizeof(buf_)) return 0;
        void* p = buf_ + used_;
        used_ += n;
        return p;
    }
    std::size_t used() const { return used_; }

private:
    alignas(16) unsigned char buf_[1024];
    std::size_t used_;
    std::size_t budget_;
};

// Placed by the arena: its size decides how many fit.
class AstNode {
public:
    AstNode(int value, AstNode* left) : value_(value), left_(left) {}
    int eval() const { return value_ + (left_ ? left_->eval() : 0); }

private:
    int value_;
    AstNode* left_;
};

// Not placed itself, but a base of a placed class (pugixml's xml_allocator).
struct PageHeader {
    PageHeader() : next_(0), busy_(1) {}
    int busy() const { return busy_; }
    PageHeader* next_;
    int busy_;
};

// Multiple inheritance, placed (pugixml's xml_document_struct : xml_node_struct, xml_allocator).
struct ArenaDoc : public AstNode, public PageHeader {
    ArenaDoc() : AstNode(7, 0) {}
    int first() const { return eval() + busy(); }
};

// Not placed itself, but a by-value member of a placed class.
struct Key {
    Key() : k_(3) {}
    int key() const { return k_; }
    int k_;
};
struct Entry {
    Entry() {}
    int get() const { return key_.key(); }
    Key key_;
};

#endif
