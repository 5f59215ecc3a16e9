#include "stages.h"

#include <cstdlib>
#include <memory>

static const int kWords = 1 << 14;

double advice_scale() {
  const char* s = std::getenv("ADVICE_SCALE");
  return s ? std::atof(s) : 1.0;
}

Block Tokenizer::parse(uint32_t seed) {
  Block b;
  b.words.resize(kWords);
  for (int i = 0; i < kWords; ++i) b.words[i] = seed * 2654435761u + i;
  for (int r = 0; r < 3; ++r) mix_round(b.words, seed + r);
  return b;
}

void Transformer::push(const Block& in) {
  Block b = in;
  for (int r = 0; r < 7; ++r) mix_round(b.words, key_ + r);
  key_ = b.words.back();
  out_.write(b);
}

uint64_t Transformer::finish() { return out_.digest(); }

// The argument is copied into the message: the sender may reuse its block at once.
void Writer::write(const Block& in) {
  auto b = std::make_shared<Block>(in);
  self_.post([this, b] { do_write(*b); });
}

void Writer::do_write(const Block& in) {
  Block b = in;
  for (int r = 0; r < 2; ++r) mix_round(b.words, r);
  for (uint32_t x : b.words) digest_ = digest_ * 1099511628211ull + x;
}

uint64_t Writer::digest() {
  return self_.await([this] { return digest_; });
}
