#ifndef NORTTI_CODEC_H_
#define NORTTI_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace codec {

class Sink {
 public:
  virtual ~Sink();
  virtual void Append(const char* data, size_t n) = 0;
};

class StringSink : public Sink {
 public:
  explicit StringSink(std::string* dest) : dest_(dest) {}
  ~StringSink() override;
  void Append(const char* data, size_t n) override;

 private:
  std::string* dest_;
};

// Run-length encoder with forward gotos, as in real codecs.
class Encoder {
 public:
  Encoder();
  bool Encode(const char* in, size_t n, Sink* out);
  static uint32_t Checksum(const std::string& s);
  size_t runs() const { return runs_; }

 private:
  size_t runs_;
};

}  // namespace codec

#endif  // NORTTI_CODEC_H_
