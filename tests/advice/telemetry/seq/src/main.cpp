// Telemetry-like: the root makes a latency sample and records it, ten million times. The
// caller and LatencyStats work about equally, so an active LatencyStats could halve the time
// if a message cost nothing to send; each costs the sender a queue push several times the
// record's own work.
#include <chrono>
#include <cstdio>

#include "stats.h"

int main() {
  auto start = std::chrono::steady_clock::now();
  long calls = static_cast<long>(10000000 * tele::advice_scale());
  if (calls < 1) calls = 1;
  tele::LatencyStats stats;
  for (long i = 0; i < calls; ++i) stats.record(tele::make_latency(static_cast<std::uint64_t>(i)));
  unsigned long long sum = stats.checksum();
  std::printf("checksum %016llx\n", sum);
  std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
  std::fprintf(stderr, "elapsed_ms=%.3f\n", ms.count());
  return 0;
}
