// The wire rate as the link RTL takes it: bytes per cycle = whole + rem / den, so its
// serialiser puts floor(k * rate) bytes out by a frame's k-th cycle and a frame of n wire
// bytes takes ceil(n / rate) cycles in exact integer arithmetic (hw/link/README.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "links/link_config.h"

namespace ipusim::cosim::link {

struct RtlRate {
  uint32_t whole = 0;   // cfg_rate_int_i
  uint32_t rem = 0;     // cfg_rate_rem_i (< den)
  uint32_t den = 1;     // cfg_rate_den_i (<= 65535)
  uint32_t max_beat_bytes() const { return whole + (rem != 0 ? 1 : 0); }
};

// The first continued-fraction convergent of config.bytes_per_cycle (denominator at most
// 65535) whose frame times equal config.frame_cycles() for every payload 0 ..
// frame_bytes; nullopt with `why` set if none does.
std::optional<RtlRate> rtl_rate(const links::LinkLayerConfig& config, std::string* why);

}  // namespace ipusim::cosim::link
