// Fine-grained messages: the root makes a sample and sends it to the Histogram, over and over.
// Root and Histogram work about equally, so an active Histogram could halve the time if a
// message cost nothing to hand over; each costs a queue handoff about as long as the work.
#include <chrono>
#include <cstdio>

#include "histogram.h"

int main() {
  auto start = std::chrono::steady_clock::now();
  long samples = static_cast<long>(3000000 * advice_scale());
  if (samples < 1) samples = 1;
  Histogram histogram;
  for (long i = 0; i < samples; ++i) histogram.add(make_sample(static_cast<uint32_t>(i)));
  unsigned long long sum = histogram.checksum();
  std::printf("checksum %016llx\n", sum);
  std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
  std::fprintf(stderr, "elapsed_ms=%.3f\n", ms.count());
  return 0;
}
