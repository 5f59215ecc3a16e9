#include "histogram.h"

#include <cstdlib>

double advice_scale() {
  const char* s = std::getenv("ADVICE_SCALE");
  return s ? std::atof(s) : 1.0;
}

uint32_t make_sample(uint32_t i) {
  uint32_t h = i;
  for (int r = 0; r < 100; ++r) {
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h += r;
  }
  return h;
}

void Histogram::add(uint32_t sample) {
  uint32_t h = sample ^ state_;
  for (int r = 0; r < 100; ++r) {
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h += r;
  }
  state_ = h;
  bins_[h & 63] += sample;
}

uint64_t Histogram::checksum() const {
  uint64_t sum = state_;
  for (uint64_t b : bins_) sum = sum * 31 + b;
  return sum;
}
