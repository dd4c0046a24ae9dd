// The few pieces of protobuf's wire format pprof's profile.proto needs to be written
// (protobuf.dev "Encoding"): varint fields, length-delimited strings and sub-messages,
// packed repeated integers. Writing only; `go tool pprof` is the reader the tests use.
// By hand rather than protoc + libprotobuf: five small messages, written in one place,
// against a build dependency and generated code (docs/profiling.md "The pprof file").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ipusim::profile {

class ProtoWriter {
 public:
  // int64 / uint64 / bool fields; a zero is left out, as proto3 does.
  void varint_field(uint32_t field, uint64_t v) {
    if (v == 0) return;
    tag(field, 0);
    varint(v);
  }
  void bytes_field(uint32_t field, std::string_view bytes) {
    tag(field, 2);
    varint(bytes.size());
    out_.append(bytes);
  }
  void message_field(uint32_t field, const ProtoWriter& m) { bytes_field(field, m.out_); }
  void packed_field(uint32_t field, const std::vector<uint64_t>& vs) {
    if (vs.empty()) return;
    ProtoWriter packed;
    for (uint64_t v : vs) packed.varint(v);
    bytes_field(field, packed.out_);
  }
  const std::string& bytes() const { return out_; }

 private:
  void tag(uint32_t field, uint32_t wire_type) { varint(uint64_t{field} << 3 | wire_type); }
  void varint(uint64_t v) {
    for (; v >= 0x80; v >>= 7) out_.push_back(static_cast<char>(v | 0x80));
    out_.push_back(static_cast<char>(v));
  }
  std::string out_;
};

}  // namespace ipusim::profile
