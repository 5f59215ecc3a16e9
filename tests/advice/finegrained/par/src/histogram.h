// ../seq's Histogram made active: its own thread and queue.
#pragma once

#include <cstdint>

#include "../../../common/cpp/active.h"

class Histogram {
 public:
  void add(uint32_t sample);  // posted: the sender goes on at once
  uint64_t checksum();        // waits for every add sent before it

 private:
  void do_add(uint32_t sample);
  uint64_t bins_[64] = {};
  uint32_t state_ = 1;
  ActiveObject self_;  // last: destroyed (drained) first
};

uint32_t make_sample(uint32_t i);
double advice_scale();
