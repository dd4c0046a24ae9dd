#include "links/frame.h"

#include <algorithm>
#include <stdexcept>

#include "links/crc.h"
#include "links/link_config.h"

namespace ipusim::links {

std::vector<uint8_t> encode_frame(uint16_t seq, std::span<const uint8_t> payload) {
  if (payload.size() > kMaxFrameBytes) throw std::invalid_argument("encode_frame: payload too long");
  std::vector<uint8_t> wire(payload.size() + kFrameOverheadBytes);
  wire[0] = static_cast<uint8_t>((seq >> 8) & 0x0f);
  wire[1] = static_cast<uint8_t>(seq & 0xff);
  wire[2] = static_cast<uint8_t>(payload.size() & 0xff);
  wire[3] = static_cast<uint8_t>(payload.size() >> 8);
  std::copy(payload.begin(), payload.end(), wire.begin() + kFrameHeaderBytes);
  const size_t body = kFrameHeaderBytes + payload.size();
  const uint32_t crc = crc32_of(std::span<const uint8_t>(wire.data(), body));
  for (uint32_t i = 0; i < kFrameCrcBytes; ++i) wire[body + i] = static_cast<uint8_t>(crc >> (8 * i));
  return wire;
}

DecodedFrame decode_frame(std::span<const uint8_t> wire) {
  DecodedFrame out;
  if (wire.size() < kFrameOverheadBytes) return out;
  const size_t len = wire[2] | (static_cast<size_t>(wire[3]) << 8);
  if (len + kFrameOverheadBytes != wire.size() || (wire[0] & 0xf0) != 0) return out;
  const size_t body = kFrameHeaderBytes + len;
  uint32_t sent = 0;
  for (uint32_t i = 0; i < kFrameCrcBytes; ++i) sent |= static_cast<uint32_t>(wire[body + i]) << (8 * i);
  if (crc32_of(wire.first(body)) != sent) return out;
  out.ok = true;
  out.seq = static_cast<uint16_t>(((wire[0] & 0x0f) << 8) | wire[1]);
  out.payload = wire.subspan(kFrameHeaderBytes, len);
  return out;
}

}  // namespace ipusim::links
