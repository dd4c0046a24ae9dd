// A data link layer frame: its wire bytes and the 12-bit sequence arithmetic. The wire
// form is what the fault injector flips bits in and what the CRC protects, so a
// corrupted frame is found by the same check an RTL receiver makes.
//
//   byte 0      reserved (upper 4 bits, 0) | sequence number bits 11..8
//   byte 1      sequence number bits 7..0
//   bytes 2-3   payload length, little endian
//   bytes 4..   payload
//   last 4      CRC-32 (zlib / IEEE 802.3) of every byte before it, little endian
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace ipusim::links {

inline constexpr uint32_t kSeqBits = 12;
inline constexpr uint32_t kSeqModulo = 1u << kSeqBits;
inline constexpr uint32_t kMaxFrameBytes = 4096;

inline constexpr uint16_t seq_add(uint16_t seq, uint32_t n) {
  return static_cast<uint16_t>((seq + n) & (kSeqModulo - 1));
}
// How far `seq` is ahead of `base`, modulo 4096.
inline constexpr uint32_t seq_distance(uint16_t base, uint16_t seq) {
  return (static_cast<uint32_t>(seq) - base) & (kSeqModulo - 1);
}

std::vector<uint8_t> encode_frame(uint16_t seq, std::span<const uint8_t> payload);

struct DecodedFrame {
  bool ok = false;                      // length consistent, reserved bits 0 and CRC good
  uint16_t seq = 0;
  std::span<const uint8_t> payload;     // into the decoded bytes; valid only when ok
};
DecodedFrame decode_frame(std::span<const uint8_t> wire);

}  // namespace ipusim::links
