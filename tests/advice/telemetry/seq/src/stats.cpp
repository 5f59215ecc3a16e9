#include "stats.h"

#include <cstdlib>

namespace tele {

double advice_scale() {
  const char* s = std::getenv("ADVICE_SCALE");
  return s ? std::atof(s) : 1.0;
}

std::uint64_t make_latency(std::uint64_t i) {
  std::uint64_t h = i + 0x9E3779B97F4A7C15ull;
  for (int r = 0; r < 12; ++r) {
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
  }
  return h % 1000000;
}

void LatencyStats::record(std::uint64_t ns) {
  std::uint64_t h = ns ^ mix_;
  for (int r = 0; r < 12; ++r) {
    h ^= h >> 31;
    h *= 0x94D049BB133111EBull;
  }
  mix_ = h;
  int bin = 0;
  while (bin < 63 && (std::uint64_t(1) << bin) < ns) ++bin;
  bins_[bin] += 1;
}

std::uint64_t LatencyStats::checksum() const {
  std::uint64_t sum = mix_;
  for (std::uint64_t b : bins_) sum = sum * 31 + b;
  return sum;
}

}  // namespace tele
