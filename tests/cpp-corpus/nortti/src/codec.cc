#include "codec.h"

namespace codec {

Sink::~Sink() {}

StringSink::~StringSink() {}

void StringSink::Append(const char* data, size_t n) { dest_->append(data, n); }

Encoder::Encoder() : runs_(0) {}

bool Encoder::Encode(const char* in, size_t n, Sink* out) {
  size_t i = 0;
  if (n == 0) goto empty;
  while (i < n) {
    char c = in[i];
    size_t j = i;
    while (j < n && in[j] == c && j - i < 9) ++j;
    char rec[2] = {static_cast<char>('0' + (j - i)), c};
    out->Append(rec, 2);
    ++runs_;
    i = j;
  }
  return true;
empty:
  return false;
}

uint32_t Encoder::Checksum(const std::string& s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

}  // namespace codec
