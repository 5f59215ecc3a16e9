// Telemetry: a latency histogram fed one sample per call, ten million times; each record
// is about 50 ns of work, so the runtime throttles it and counts the calls untimed.
#pragma once

#include <cstdint>

namespace tele {

class LatencyStats {
 public:
  void record(std::uint64_t ns);  // void: an active LatencyStats would take it asynchronously
  std::uint64_t checksum() const;  // waits for every record sent before it

 private:
  std::uint64_t bins_[64] = {};
  std::uint64_t mix_ = 1;
};

// The caller's own work per sample, about as long as a record.
std::uint64_t make_latency(std::uint64_t i);
double advice_scale();

}  // namespace tele
