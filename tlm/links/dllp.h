// Data link layer packets on the return path. ACK and NAK carry the sequence number of
// the last frame received in order (so both acknowledge everything up to it); a credit
// update carries the cumulative credit limit, so a later one supersedes a lost or
// reordered earlier one.
#pragma once

#include <cstdint>

namespace ipusim::links {

struct Dllp {
  enum class Kind : uint8_t { Ack, Nak, Credit };
  Kind kind = Kind::Ack;
  uint16_t seq = 0;            // Ack, Nak
  uint64_t credit_limit = 0;   // Credit: total frames the transmitter may have sent
  bool operator==(const Dllp&) const = default;
};

}  // namespace ipusim::links
