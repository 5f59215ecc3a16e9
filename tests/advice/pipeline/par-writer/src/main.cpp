// ../seq's main, unchanged: with the Writer active the root parses and transforms (10 parts of
// 12) while the Writer folds (2 parts) on its own thread: at best 12 / 10 by the intended
// split, more if the Writer's share of the run is larger than 2 parts.
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
