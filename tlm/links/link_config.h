// The parameters of one IPU-Link data link layer (docs/links.md, "Link layer"). Plain
// C++: the exchange fills it from the chip config, the unit tests and the RTL
// equivalence tests build it directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ipusim::links {

// A frame on the wire: 4 header bytes (12-bit sequence number, 16-bit payload length),
// the payload, a 4-byte CRC-32. The overhead counts in a frame's serialisation time.
inline constexpr uint32_t kFrameHeaderBytes = 4;
inline constexpr uint32_t kFrameCrcBytes = 4;
inline constexpr uint32_t kFrameOverheadBytes = kFrameHeaderBytes + kFrameCrcBytes;

// The longest latency and frame time the link layer takes, cycles: it counts a phase's
// cycles in 32 bits (the link RTL's counter, docs/links.md), and a phase holds replays of
// several round trips; 2^24 cycles is about 12 ms at 1.325 GHz.
inline constexpr uint64_t kMaxLinkLatencyCycles = uint64_t(1) << 24;
inline constexpr uint64_t kMaxFrameCycles = uint64_t(1) << 24;

struct LinkLayerConfig {
  uint32_t frame_bytes = 256;            // largest payload of one frame, bytes
  uint32_t replay_buffer_frames = 128;   // unacknowledged frames the transmitter keeps
  uint32_t credit_frames = 128;          // receive buffer the receiver advertises, frames
  uint32_t ack_coalesce_frames = 8;      // the receiver ACKs after this many accepted frames...
  uint32_t ack_timeout_cycles = 256;     // ...or this long after the first frame it has not ACKed
  // Replay timer, cycles from the end of a frame's transmission (or from an ACK that
  // makes progress) to a replay. 0 = automatic: 2 * latency + ack_timeout + 2 frame
  // times + 32, the longest an ACK can take plus a margin (effective_replay_timeout()).
  uint32_t replay_timeout_cycles = 0;
  uint32_t replay_limit = 4;             // replays without progress before a retrain
  // Time the link is down for one retrain, cycles. A model figure: PCIe's recovery
  // takes microseconds; 4096 cycles is about 3 us at 1.325 GHz.
  uint32_t retrain_cycles = 4096;
  double bytes_per_cycle = 16.0;         // per direction; fractional rates allowed
  uint32_t latency_cycles = 256;         // one way, for frames and ACK / NAK / credit DLLPs
  // The receiver's consumer takes one frame per this many cycles; 0 = it drains each
  // frame the cycle it is accepted. Credits return when a frame is drained.
  uint32_t drain_cycles_per_frame = 0;

  // The link layer of IPU-Links of `bytes_per_second` each way and `latency_ns` one way,
  // in cycles of a `clock_hz` tile clock (the other fields their defaults). A latency
  // beyond 32 bits of cycles saturates, for validate() to refuse.
  static LinkLayerConfig for_rates(double bytes_per_second, double latency_ns, double clock_hz);

  // Empty when valid, otherwise one sentence starting with the offending field's name.
  std::string validate() const;
  // Cycles to serialise a frame carrying `payload_bytes`: ceil((payload + 8) / bytes_per_cycle),
  // UINT64_MAX when that does not fit.
  uint64_t frame_cycles(size_t payload_bytes) const;
  uint64_t effective_replay_timeout() const;
  // The shortest replay timeout that cannot expire while an ACK is still on its way.
  uint64_t min_replay_timeout() const;
};

}  // namespace ipusim::links
