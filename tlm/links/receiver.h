// The receiving half of the data link layer, without time of its own (like Transmitter).
// Accepts only the next expected sequence number with a good CRC; NAKs a bad frame or a
// frame ahead of the expected one, once until a good frame arrives (PCIe's NAK_SCHEDULED);
// discards a frame it already has and re-ACKs; ACKs cumulatively, coalesced: after
// ack_coalesce_frames accepted frames, or ack_timeout_cycles after the first frame it
// has not acknowledged, whichever comes first. Returns a credit per drained frame.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "links/dllp.h"
#include "links/link_config.h"
#include "links/link_counters.h"

namespace ipusim::links {

struct RxResult {
  enum class Kind { Accepted, CrcError, SeqAhead, Duplicate };
  Kind kind = Kind::CrcError;
  uint16_t seq = 0;                    // the frame's (not meaningful for CrcError)
  std::span<const uint8_t> payload;    // Accepted: into the wire bytes given
  std::optional<Dllp> reply;           // an ACK or NAK to send now
};

class Receiver {
 public:
  explicit Receiver(const LinkLayerConfig& config);

  RxResult on_frame(std::span<const uint8_t> wire, uint64_t now);
  std::optional<uint64_t> ack_deadline() const { return ack_deadline_; }
  Dllp on_ack_timer(uint64_t now);
  // The consumer took one accepted frame from the receive buffer: a credit goes back.
  Dllp on_drain();

  uint16_t expected_seq() const { return expected_; }
  bool nak_scheduled() const { return nak_scheduled_; }
  uint64_t buffered() const { return buffered_; }
  const LinkCounters& stats() const { return stats_; }

 private:
  Dllp ack();

  LinkLayerConfig config_;
  uint16_t expected_ = 0;
  bool nak_scheduled_ = false;
  uint32_t unacked_ = 0;               // accepted since the last ACK / NAK
  std::optional<uint64_t> ack_deadline_;
  uint64_t buffered_ = 0;              // accepted, not yet drained
  uint64_t drained_ = 0;
  LinkCounters stats_;
};

}  // namespace ipusim::links
