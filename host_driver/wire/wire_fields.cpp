// wire_fields.h: the field kinds' encoding and checks. The error texts name the field
// (the decoder prefixes the message's name).
#include "wire_fields.h"

#include <ipu/hostif_regs.h>

#include <algorithm>

namespace ipusim::wire::fields {

void put16(std::vector<uint8_t>& out, uint16_t v) {
  out.push_back(uint8_t(v));
  out.push_back(uint8_t(v >> 8));
}
void put32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
void put64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
void put_text(std::vector<uint8_t>& out, const std::string& s) {
  const size_t n = std::min(s.size(), kMaxText);
  put16(out, uint16_t(n));
  put16(out, 0);
  out.insert(out.end(), s.begin(), s.begin() + long(n));
}
size_t text_bytes(const std::string& s) { return 4 + std::min(s.size(), kMaxText); }
void patch32(std::vector<uint8_t>& out, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) out[at + size_t(i)] = uint8_t(v >> (8 * i));
}

uint64_t Reader::get(size_t bytes, const char* field) {
  if (!ok()) return 0;
  if (p_.size() - at_ < bytes) {
    fail(std::string(field) + ": payload ends inside it");
    return 0;
  }
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v |= uint64_t(p_[at_ + i]) << (8 * i);
  at_ += bytes;
  return v;
}

std::string Reader::text(const char* field) {
  const uint16_t n = u16(field);
  if (u16("text reserved") != 0) fail(std::string(field) + ": reserved half-word not zero");
  if (!ok()) return {};
  if (n > kMaxText) {
    fail(std::string(field) + ": " + std::to_string(n) + " bytes, at most " + std::to_string(kMaxText));
    return {};
  }
  if (p_.size() - at_ < n) {
    fail(std::string(field) + ": payload ends inside it");
    return {};
  }
  std::string s(reinterpret_cast<const char*>(p_.data() + at_), n);
  at_ += n;
  if (s.find('\0') != std::string::npos) fail(std::string(field) + ": contains a NUL byte");
  return s;
}

void Reader::expect_end() {
  if (ok() && at_ != p_.size()) fail(std::to_string(p_.size() - at_) + " bytes after the last field");
}

uint32_t get_board(Reader& r, const char* field) {
  const uint32_t b = r.u32(field);
  if (r.ok() && b >= kMaxBoards)
    r.fail(std::string(field) + " " + std::to_string(b) + ", a system has at most " + std::to_string(kMaxBoards));
  return b;
}

bool get_bool(Reader& r, const char* field) {
  const uint32_t v = r.u32(field);
  if (r.ok() && v > 1) r.fail(std::string(field) + " " + std::to_string(v) + ", not 0 or 1");
  return v == 1;
}

uint32_t get_flags(Reader& r, const char* field, uint32_t defined_bits, const char* bit_names) {
  const uint32_t v = r.u32(field);
  if (r.ok() && (v & ~defined_bits) != 0) r.fail(std::string(field) + " " + std::to_string(v) + ": only " + bit_names + " defined");
  return v;
}

void check_count(Reader& r, uint32_t count, size_t limit, bool fixed_size) {
  if (!r.ok() || count <= limit) return;
  // A list of variable-size records is bounded by the payload (every record has a header).
  r.fail("count " + std::to_string(count) +
         (fixed_size ? ", at most " + std::to_string(limit) : std::string(", more records than a payload holds")));
}

bool check_major(Reader& r, uint16_t major) {
  if (!r.ok() || major == kVersionMajor) return true;
  r.fail("protocol major " + std::to_string(major) + ", this side speaks " + std::to_string(kVersionMajor));
  return false;
}

void check_board_count(Reader& r, const char* field, uint32_t boards) {
  if (r.ok() && (boards == 0 || boards > kMaxBoards))
    r.fail(std::string(field) + " " + std::to_string(boards) + ", not 1 .. " + std::to_string(kMaxBoards));
}

void check_bar0_offset(Reader& r, uint32_t offset) {
  if (offset >= IPU_BAR0_BYTES)
    r.fail("offset " + std::to_string(offset) + " is outside BAR0 (" + std::to_string(IPU_BAR0_BYTES) + " bytes)");
}

void check_enum(Reader& r, const char* field, uint32_t value, uint32_t first, uint32_t last) {
  if (r.ok() && (value < first || value > last))
    r.fail("unknown " + std::string(field) + " " + std::to_string(value) + ", not " + std::to_string(first) + " .. " +
           std::to_string(last));
}

namespace {
void check_page(Reader& r, uint64_t v, const char* field) {
  if (v % kPageBytes != 0) r.fail(std::string(field) + " not a multiple of " + std::to_string(kPageBytes));
}
}  // namespace

void check_map(Reader& r, const Map& m) {
  if (!r.ok()) return;
  if (m.bytes == 0) r.fail("bytes is 0");
  if (m.bytes > kMaxMapBytes) r.fail("bytes " + std::to_string(m.bytes) + " above the limit " + std::to_string(kMaxMapBytes));
  check_page(r, m.bus_addr, "bus_addr");
  check_page(r, m.bytes, "bytes");
  check_page(r, m.fd_offset, "fd_offset");
  if (m.bus_addr >= kMaxBusAddr || m.bytes > kMaxBusAddr - m.bus_addr) r.fail("range ends above the highest bus address");
  if (m.fd_offset > kMaxMapBytes) r.fail("fd_offset above the limit");
}

void check_unmap(Reader& r, const Unmap& m) {
  if (!r.ok()) return;
  check_page(r, m.bus_addr, "bus_addr");
  if (m.bus_addr >= kMaxBusAddr) r.fail("bus_addr above the highest bus address");
}

}  // namespace ipusim::wire::fields
