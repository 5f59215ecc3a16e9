// ../seq's pipeline with Transformer made active: its own thread and queue.
#pragma once

#include <cstdint>

#include "../../../common/cpp/active.h"
#include "block.h"

class Tokenizer {
 public:
  Block parse(uint32_t seed);  // builds the next block: 3 rounds
};

class Writer {
 public:
  void write(const Block& b);  // folds a block into the digest: 2 rounds
  uint64_t digest() const { return digest_; }

 private:
  uint64_t digest_ = 0;
};

class Transformer {
 public:
  explicit Transformer(Writer& out) : out_(out) {}
  void push(const Block& b);  // posted: the sender goes on at once
  uint64_t finish();          // waits behind every block sent before it

 private:
  void do_push(const Block& b);
  Writer& out_;
  uint32_t key_ = 7;
  ActiveObject self_;  // last: destroyed (drained) first
};
