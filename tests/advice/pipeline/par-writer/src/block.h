// A block of words flowing down the pipeline.
#pragma once

#include <cstdint>
#include <vector>

struct Block {
  std::vector<uint32_t> words;
};

// One round of mixing over every word: the unit of work of every stage.
inline void mix_round(std::vector<uint32_t>& w, uint32_t key) {
  uint32_t carry = key;
  for (uint32_t& x : w) {
    x ^= carry;
    x *= 0x9E3779B1u;
    x ^= x >> 15;
    carry = x;
  }
}

// ADVICE_SCALE shrinks the work (the quick test runs at a few percent).
double advice_scale();
