// The fields of a checkpoint section: little-endian integers, length-prefixed strings and
// byte runs. A ByteReader never reads past its section: a short section throws
// CheckpointError naming the section and the field, so a damaged file is refused, never
// read out of bounds.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ipusim::checkpoint {

class ByteWriter {
 public:
  void u8(uint8_t v) { out_.push_back(v); }
  void u32(uint32_t v);
  void u64(uint64_t v);
  void i32(int32_t v) { u32(uint32_t(v)); }
  void boolean(bool v) { u8(v ? 1 : 0); }
  void str(std::string_view s);                // u64 length, then the bytes
  void bytes(std::span<const uint8_t> b);      // u64 length, then the bytes
  void raw(const void* data, size_t size);     // the bytes alone (a fixed size the reader knows)
  std::vector<uint8_t>& data() { return out_; }

 private:
  std::vector<uint8_t> out_;
};

class ByteReader {
 public:
  // `section`: the name errors give.
  ByteReader(std::span<const uint8_t> in, std::string section) : in_(in), section_(std::move(section)) {}
  uint8_t u8(const char* field);
  uint32_t u32(const char* field);
  uint64_t u64(const char* field);
  int32_t i32(const char* field) { return int32_t(u32(field)); }
  bool boolean(const char* field);
  std::string str(const char* field);
  std::vector<uint8_t> bytes(const char* field);
  void raw(void* data, size_t size, const char* field);
  // A count of items of at least `item_bytes` each, checked against what is left.
  uint64_t count(const char* field, size_t item_bytes);
  bool done() const { return at_ == in_.size(); }
  // Throws unless every byte was read (a longer section is as damaged as a shorter one).
  void expect_end() const;
  [[noreturn]] void fail(const std::string& why) const;

 private:
  const uint8_t* take(size_t n, const char* field);
  std::span<const uint8_t> in_;
  size_t at_ = 0;
  std::string section_;
};

}  // namespace ipusim::checkpoint
