// An unbalanced pipeline: the root parses blocks (3 parts of 12), the Transformer transforms
// them (7 parts) and hands them to the Writer (2 parts). Making Transformer active overlaps
// parsing with the rest: at best 12 / 9 on two cores, since Transformer + Writer bound it.
#include <chrono>
#include <cstdio>

#include "stages.h"

int main() {
  auto start = std::chrono::steady_clock::now();
  int blocks = static_cast<int>(2400 * advice_scale());
  if (blocks < 1) blocks = 1;
  Writer writer;
  Transformer transformer(writer);
  Tokenizer tokenizer;
  for (int i = 0; i < blocks; ++i) transformer.push(tokenizer.parse(i));
  unsigned long long digest = transformer.finish();
  std::printf("digest %016llx\n", digest);
  std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
  std::fprintf(stderr, "elapsed_ms=%.3f\n", ms.count());
  return 0;
}
