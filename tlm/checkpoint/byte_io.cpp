#include "checkpoint/byte_io.h"

#include <cstring>

#include <fmt/format.h>

#include "checkpoint/checkpoint_file.h"

namespace ipusim::checkpoint {

void ByteWriter::u32(uint32_t v) {
  for (int i = 0; i < 4; ++i) out_.push_back(uint8_t(v >> (8 * i)));
}

void ByteWriter::u64(uint64_t v) {
  for (int i = 0; i < 8; ++i) out_.push_back(uint8_t(v >> (8 * i)));
}

void ByteWriter::str(std::string_view s) {
  u64(s.size());
  raw(s.data(), s.size());
}

void ByteWriter::bytes(std::span<const uint8_t> b) {
  u64(b.size());
  raw(b.data(), b.size());
}

void ByteWriter::raw(const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  out_.insert(out_.end(), p, p + size);
}

void ByteReader::fail(const std::string& why) const {
  throw CheckpointError(CheckpointError::Kind::Corrupt, fmt::format("section '{}': {}", section_, why));
}

const uint8_t* ByteReader::take(size_t n, const char* field) {
  if (n > in_.size() - at_)
    fail(fmt::format("'{}' needs {} byte(s) at offset {}, {} left", field, n, at_, in_.size() - at_));
  const uint8_t* p = in_.data() + at_;
  at_ += n;
  return p;
}

uint8_t ByteReader::u8(const char* field) { return *take(1, field); }

uint32_t ByteReader::u32(const char* field) {
  const uint8_t* p = take(4, field);
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(p[i]) << (8 * i);
  return v;
}

uint64_t ByteReader::u64(const char* field) {
  const uint8_t* p = take(8, field);
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

bool ByteReader::boolean(const char* field) {
  const uint8_t v = u8(field);
  if (v > 1) fail(fmt::format("'{}' is {}, not 0 or 1", field, v));
  return v == 1;
}

uint64_t ByteReader::count(const char* field, size_t item_bytes) {
  const uint64_t n = u64(field);
  if (item_bytes > 0 && n > (in_.size() - at_) / item_bytes)
    fail(fmt::format("'{}' counts {} item(s), more than the {} byte(s) left hold", field, n, in_.size() - at_));
  return n;
}

std::string ByteReader::str(const char* field) {
  const uint64_t n = count(field, 1);
  const uint8_t* p = take(size_t(n), field);
  return std::string(reinterpret_cast<const char*>(p), size_t(n));
}

std::vector<uint8_t> ByteReader::bytes(const char* field) {
  const uint64_t n = count(field, 1);
  const uint8_t* p = take(size_t(n), field);
  return std::vector<uint8_t>(p, p + n);
}

void ByteReader::raw(void* data, size_t size, const char* field) { std::memcpy(data, take(size, field), size); }

void ByteReader::expect_end() const {
  if (!done()) fail(fmt::format("{} byte(s) left over after its last field", in_.size() - at_));
}

}  // namespace ipusim::checkpoint
