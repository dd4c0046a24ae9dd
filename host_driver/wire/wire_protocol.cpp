// Framing of the wire protocol (wire_protocol.h): the header written and checked here,
// the payloads by the codec generated from hw/host_if/messages.yaml (wire_codec.cpp).
#include "wire_protocol.h"

#include <cstring>
#include <utility>

#include "wire_fields.h"

namespace ipusim::wire {

// The variant holds the messages in type order, so a decoded type indexes it directly.
template <size_t... I>
constexpr bool body_in_type_order(std::index_sequence<I...>) {
  return ((uint16_t(std::variant_alternative_t<I, Body>::kType) == I + 1) && ...);
}
static_assert(body_in_type_order(std::make_index_sequence<std::variant_size_v<Body>>{}));
static_assert(uint16_t(kLastType) == std::variant_size_v<Body>);

Type type_of(const Body& body) {
  return std::visit([](const auto& m) { return std::decay_t<decltype(m)>::kType; }, body);
}

void encode(const Message& msg, std::vector<uint8_t>& out) {
  std::vector<uint8_t> payload;  // the codec sizes its lists by the payload alone
  codec::encode_payload(msg.body, payload);
  fields::put32(out, kMagic);
  fields::put16(out, kVersionMajor);
  fields::put16(out, uint16_t(type_of(msg.body)));
  fields::put32(out, msg.seq);
  fields::put32(out, uint32_t(payload.size()));
  out.insert(out.end(), payload.begin(), payload.end());
}

std::vector<uint8_t> encode(const Message& msg) {
  std::vector<uint8_t> out;
  encode(msg, out);
  return out;
}

Decoded decode(std::span<const uint8_t> bytes) noexcept {
  Decoded d;
  try {
    // Validate what is there as soon as it is there: a bad magic is reported without
    // waiting for a header's worth of bytes that may never come.
    const size_t have = std::min(bytes.size(), kHeaderBytes);
    uint8_t header[kHeaderBytes] = {};
    std::memcpy(header, bytes.data(), have);
    const auto le = [&](size_t at, size_t n) {
      uint64_t v = 0;
      for (size_t i = 0; i < n; ++i) v |= uint64_t(header[at + i]) << (8 * i);
      return v;
    };
    auto invalid = [&](std::string why) {
      d.status = Decoded::Status::kInvalid;
      d.error = std::move(why);
      return d;
    };
    uint8_t magic[4];
    std::memcpy(magic, &kMagic, 4);
    if (std::memcmp(header, magic, std::min<size_t>(have, 4)) != 0) return invalid("bad magic (not an ipusim wire frame)");
    if (have >= 12) d.seq = uint32_t(le(8, 4));  // the reply to a refused frame carries it
    if (have >= 6 && le(4, 2) != kVersionMajor) {
      d.code = ErrorCode::kVersion;  // a peer of another major: answered as such, not as garbage
      return invalid("frame version " + std::to_string(le(4, 2)) + ", this side speaks " + std::to_string(kVersionMajor));
    }
    const uint16_t type = uint16_t(le(6, 2));
    if (have >= 8 && (type < 1 || type > uint16_t(kLastType)))
      return invalid("unknown message type " + std::to_string(type));
    if (have < kHeaderBytes) return d;  // kNeedMore
    const uint32_t payload = uint32_t(le(12, 4));
    if (payload > kMaxPayload)
      return invalid(std::string(type_name(type)) + ": payload of " + std::to_string(payload) +
                     " bytes, at most " + std::to_string(kMaxPayload));
    if (bytes.size() - kHeaderBytes < payload) return d;  // kNeedMore
    fields::Reader r(bytes.subspan(kHeaderBytes, payload));
    bool version_error = false;
    Body body = codec::decode_payload(Type(type), r, version_error);
    if (!r.ok()) {
      if (version_error) d.code = ErrorCode::kVersion;
      return invalid(std::string(type_name(type)) + ": " + r.error());
    }
    d.status = Decoded::Status::kMessage;
    d.message = Message{d.seq, std::move(body)};
    d.consumed = kHeaderBytes + payload;
    return d;
  } catch (...) {
    // Only allocation can throw here; report it as a refusal rather than unwinding
    // into a server loop.
    d.status = Decoded::Status::kInvalid;
    d.error = "out of memory while decoding";
    return d;
  }
}

}  // namespace ipusim::wire
