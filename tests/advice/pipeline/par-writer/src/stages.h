// ../seq's pipeline with the Writer made active: its own thread and queue.
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
  void write(const Block& b);  // posted: the sender goes on at once
  uint64_t digest();           // waits behind every block sent before it

 private:
  void do_write(const Block& b);
  uint64_t digest_ = 0;
  ActiveObject self_;  // last: destroyed (drained) first
};

class Transformer {
 public:
  explicit Transformer(Writer& out) : out_(out) {}
  void push(const Block& b);  // 7 rounds, then hands the block to the Writer
  uint64_t finish();          // the Writer's digest once every block is through

 private:
  Writer& out_;
  uint32_t key_ = 7;
};
