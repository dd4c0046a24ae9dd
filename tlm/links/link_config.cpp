#include "links/link_config.h"

#include <cmath>

#include <fmt/format.h>

#include "links/frame.h"

namespace ipusim::links {

LinkLayerConfig LinkLayerConfig::for_rates(double bytes_per_second, double latency_ns, double clock_hz) {
  LinkLayerConfig c;
  c.bytes_per_cycle = bytes_per_second / clock_hz;
  const double latency = std::round(latency_ns * 1e-9 * clock_hz);
  c.latency_cycles = latency >= 0xffffffffu ? 0xffffffffu : latency > 0 ? uint32_t(latency) : 0u;
  return c;
}

uint64_t LinkLayerConfig::frame_cycles(size_t payload_bytes) const {
  const double bytes = static_cast<double>(payload_bytes + kFrameOverheadBytes);
  const double exact = std::ceil(bytes / bytes_per_cycle);
  if (!(exact < 0x1p63)) return UINT64_MAX;  // a rate of almost nothing (or not a number)
  auto cycles = static_cast<uint64_t>(exact);
  // The division may round up past an exact multiple (e.g. 264 / (264 / 3.0)).
  if (cycles > 1 && static_cast<double>(cycles - 1) * bytes_per_cycle >= bytes) --cycles;
  return cycles == 0 ? 1 : cycles;
}

uint64_t LinkLayerConfig::min_replay_timeout() const {
  return 2ull * latency_cycles + ack_timeout_cycles + frame_cycles(frame_bytes) + 1;
}

uint64_t LinkLayerConfig::effective_replay_timeout() const {
  if (replay_timeout_cycles != 0) return replay_timeout_cycles;
  return 2ull * latency_cycles + ack_timeout_cycles + 2 * frame_cycles(frame_bytes) + 32;
}

std::string LinkLayerConfig::validate() const {
  if (frame_bytes < 1 || frame_bytes > kMaxFrameBytes)
    return fmt::format("frame_bytes: {} is out of range [1, {}]", frame_bytes, kMaxFrameBytes);
  // Sequence numbers are compared modulo 4096: behind and ahead are told apart only while
  // fewer than half the numbers are in flight.
  if (replay_buffer_frames < 1 || replay_buffer_frames > kSeqModulo / 2)
    return fmt::format("replay_buffer_frames: {} is out of range [1, {}] (12-bit sequence numbers)",
                       replay_buffer_frames, kSeqModulo / 2);
  if (credit_frames < 1) return "credit_frames: must be at least 1";
  if (ack_coalesce_frames < 1) return "ack_coalesce_frames: must be at least 1";
  if (ack_timeout_cycles < 1) return "ack_timeout_cycles: must be at least 1";
  if (replay_limit < 1) return "replay_limit: must be at least 1";
  if (!std::isfinite(bytes_per_cycle) || bytes_per_cycle <= 0)
    return fmt::format("bytes_per_cycle: {} must be a positive number", bytes_per_cycle);
  if (latency_cycles < 1) return "latency_cycles: must be at least 1";
  if (latency_cycles > kMaxLinkLatencyCycles)
    return fmt::format("latency_cycles: {} is more than {} (2^24)", latency_cycles, kMaxLinkLatencyCycles);
  if (frame_cycles(frame_bytes) > kMaxFrameCycles)
    return fmt::format("bytes_per_cycle: {} takes more than {} (2^24) cycles to send a frame of {} bytes",
                       bytes_per_cycle, kMaxFrameCycles, frame_bytes + kFrameOverheadBytes);
  if (replay_timeout_cycles != 0 && replay_timeout_cycles < min_replay_timeout())
    return fmt::format(
        "replay_timeout_cycles: {} is shorter than an ACK's round trip; use 0 (automatic) or at "
        "least {} (2 * latency_cycles + ack_timeout_cycles + one frame time + 1)",
        replay_timeout_cycles, min_replay_timeout());
  return {};
}

}  // namespace ipusim::links
