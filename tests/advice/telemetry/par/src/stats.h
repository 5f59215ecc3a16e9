// ../seq's LatencyStats made active: its own thread and queue.
#pragma once

#include <cstdint>

#include "../../../common/cpp/active.h"

namespace tele {

class LatencyStats {
 public:
  void record(std::uint64_t ns);  // posted: the sender goes on at once
  std::uint64_t checksum();       // waits for every record sent before it

 private:
  void do_record(std::uint64_t ns);
  std::uint64_t bins_[64] = {};
  std::uint64_t mix_ = 1;
  ActiveObject self_;  // last: destroyed (drained) first
};

std::uint64_t make_latency(std::uint64_t i);
double advice_scale();

}  // namespace tele
