#include "cosim/link/link_rate.h"

#include <cmath>

#include <fmt/format.h>

namespace ipusim::cosim::link {
namespace {

bool matches(const links::LinkLayerConfig& c, uint64_t num, uint64_t den) {
  for (uint64_t len = 0; len <= c.frame_bytes; ++len) {
    const uint64_t bytes = len + links::kFrameOverheadBytes;
    const uint64_t cycles = std::max<uint64_t>(1, (bytes * den + num - 1) / num);
    if (cycles != c.frame_cycles(len)) return false;
  }
  return true;
}

}  // namespace

std::optional<RtlRate> rtl_rate(const links::LinkLayerConfig& c, std::string* why) {
  constexpr uint64_t kMaxDen = 65535;
  // Convergents h/k of the continued fraction of bytes_per_cycle.
  double x = c.bytes_per_cycle;
  uint64_t h0 = 1, h1 = 0, k0 = 0, k1 = 1;  // h_{-1}, h_{-2}, k_{-1}, k_{-2}
  for (int i = 0; i < 40 && std::isfinite(x); ++i) {
    const double a = std::floor(x);
    if (a > 1e9) break;
    const uint64_t ai = static_cast<uint64_t>(a);
    const uint64_t h = ai * h0 + h1, k = ai * k0 + k1;
    if (k > kMaxDen) break;
    if (h > 0 && matches(c, h, k)) return RtlRate{uint32_t(h / k), uint32_t(h % k), uint32_t(k)};
    h1 = h0, h0 = h;
    k1 = k0, k0 = k;
    if (x - a < 1e-12) break;
    x = 1.0 / (x - a);
  }
  if (why)
    *why = fmt::format("bytes_per_cycle {}: no fraction with a denominator up to {} gives the model's frame times",
                       c.bytes_per_cycle, kMaxDen);
  return std::nullopt;
}

}  // namespace ipusim::cosim::link

#include "cosim/link/link_shape.h"

#include <stdexcept>

namespace ipusim::cosim::link {

RtlRate fit(const LinkModelShape& s, const links::LinkLayerConfig& c) {
  auto bad = [&](const std::string& what) {
    return std::invalid_argument(fmt::format("link RTL ({} model): {}", s.name, what));
  };
  if (c.frame_bytes > s.frame_bytes)
    throw bad(fmt::format("frame_bytes {} exceeds the model's FRAME_BYTES {}", c.frame_bytes, s.frame_bytes));
  if (c.replay_buffer_frames > s.replay_frames)
    throw bad(fmt::format("replay_buffer_frames {} exceeds the model's REPLAY_FRAMES {}", c.replay_buffer_frames,
                          s.replay_frames));
  if (c.credit_frames > s.credit_frames)
    throw bad(fmt::format("credit_frames {} exceeds the model's CREDIT_FRAMES {}", c.credit_frames, s.credit_frames));
  if (c.ack_coalesce_frames > 0xffff) throw bad(fmt::format("ack_coalesce_frames {} exceeds 65535", c.ack_coalesce_frames));
  if (c.replay_limit > 0xff) throw bad(fmt::format("replay_limit {} exceeds 255", c.replay_limit));
  // Deadlines are 32-bit cycle counts within a phase.
  constexpr uint64_t kMaxCycles = 1ull << 28;
  if (c.effective_replay_timeout() > kMaxCycles || c.ack_timeout_cycles > kMaxCycles ||
      c.retrain_cycles > kMaxCycles / 32)
    throw bad("a timeout or retrain time too long for the RTL's 32-bit cycle counters");
  std::string why;
  auto rate = rtl_rate(c, &why);
  if (!rate) throw bad(why);
  if (rate->max_beat_bytes() > s.data_bytes)
    throw bad(fmt::format("bytes_per_cycle {} needs beats of {} bytes; the model's DATA_BYTES is {}",
                          c.bytes_per_cycle, rate->max_beat_bytes(), s.data_bytes));
  return *rate;
}

}  // namespace ipusim::cosim::link
