// An unbalanced pipeline: Tokenizer (light) -> Transformer (heavy) -> Writer (light).
#pragma once

#include <cstdint>

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
  void push(const Block& b);  // 7 rounds, then hands the block to the Writer
  uint64_t finish();          // the Writer's digest once every block is through

 private:
  Writer& out_;
  uint32_t key_ = 7;
};
