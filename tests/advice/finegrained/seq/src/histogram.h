// A histogram fed one sample per message: each add is a fraction of a microsecond of work.
#pragma once

#include <cstdint>

class Histogram {
 public:
  void add(uint32_t sample);  // void: an active Histogram would take it asynchronously
  uint64_t checksum() const;  // waits for every add sent before it

 private:
  uint64_t bins_[64] = {};
  uint32_t state_ = 1;
};

// The root's own work per sample, about as long as an add.
uint32_t make_sample(uint32_t i);
double advice_scale();
