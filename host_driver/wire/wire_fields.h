// The field kinds of the wire protocol's payloads (hw/host_if/messages.yaml "Types"):
// how each is written and read and what the decoder refuses. The generated codec
// (wire_codec.cpp) calls these for every field of every message; nothing else includes
// this header.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "wire_messages.h"

namespace ipusim::wire::fields {

void put16(std::vector<uint8_t>& out, uint16_t v);
void put32(std::vector<uint8_t>& out, uint32_t v);
void put64(std::vector<uint8_t>& out, uint64_t v);
// A text: u16 length, u16 zero, the bytes. Encoding truncates at kMaxText rather than
// fails: the decoder would refuse a longer text.
void put_text(std::vector<uint8_t>& out, const std::string& s);
size_t text_bytes(const std::string& s);  // what put_text writes
void patch32(std::vector<uint8_t>& out, size_t at, uint32_t v);  // a u32 written before its value was known

// Reads fields from a payload, remembering the first field that did not fit or failed
// its check: the decoder's error names that one.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> p) : p_(p) {}
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  void fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
  }
  uint64_t get(size_t bytes, const char* field);
  uint16_t u16(const char* f) { return uint16_t(get(2, f)); }
  uint32_t u32(const char* f) { return uint32_t(get(4, f)); }
  uint64_t u64(const char* f) { return get(8, f); }
  std::string text(const char* field);
  void expect_end();

 private:
  std::span<const uint8_t> p_;
  size_t at_ = 0;
  std::string error_;
};

// A host record (hw/host_if/records.yaml): its fields in order, each u32 or u64 as
// declared, no padding.
template <records::Record R>
void put_record(std::vector<uint8_t>& out, const R& rec) {
  records::Fields<R>::each([&](const char*, auto member) {
    const auto v = rec.*member;
    if constexpr (sizeof(v) == 8) put64(out, v);
    else put32(out, v);
  });
}
template <records::Record R>
R get_record(Reader& r) {
  R rec;
  records::Fields<R>::each([&](const char* name, auto member) {
    using T = std::remove_reference_t<decltype(rec.*member)>;
    static_assert(std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t>, "a wire record has u32 / u64 fields");
    rec.*member = T(r.get(sizeof(T), name));
  });
  return rec;
}

// Checked as read: the value is returned, a bad one fails `r`.
uint32_t get_board(Reader& r, const char* field);
bool get_bool(Reader& r, const char* field);
uint32_t get_flags(Reader& r, const char* field, uint32_t defined_bits, const char* bit_names);
void check_count(Reader& r, uint32_t count, size_t limit, bool fixed_size);

// Checked once the payload is read.
bool check_major(Reader& r, uint16_t major);  // false (and `r` failed) for another major
void check_board_count(Reader& r, const char* field, uint32_t boards);
void check_bar0_offset(Reader& r, uint32_t offset);
void check_enum(Reader& r, const char* field, uint32_t value, uint32_t first, uint32_t last);
// The messages' own checks (messages.yaml `check`).
void check_map(Reader& r, const Map& m);
void check_unmap(Reader& r, const Unmap& m);

}  // namespace ipusim::wire::fields

namespace ipusim::wire::codec {

// The generated codec (wire_codec.cpp), which wire_protocol.cpp frames.
void encode_payload(const Body& body, std::vector<uint8_t>& out);
// `version_error`: set when the payload names a major this side does not speak.
Body decode_payload(Type type, fields::Reader& r, bool& version_error);

}  // namespace ipusim::wire::codec
