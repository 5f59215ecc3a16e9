#include <cstdio>
#include <string>

#include "codec.h"

int main() {
  std::string out;
  codec::StringSink sink(&out);
  codec::Encoder enc;
  bool ok = enc.Encode("aaabccccccccccccd", 17, &sink);
  bool empty = enc.Encode("", 0, &sink);
  std::printf("%d %d %s %zu %u\n", ok, empty, out.c_str(), enc.runs(),
              codec::Encoder::Checksum(out));
  return 0;
}
