// The parameters a link_top was verilated with (hw/link/CMakeLists.txt, MODELS), and the
// check that a LinkLayerConfig fits them: the RTL takes its timing on cfg_* inputs at
// run time, its sizes are fixed when it is built.
#pragma once

#include <cstdint>

#include "cosim/link/link_rate.h"
#include "links/link_config.h"

namespace ipusim::cosim::link {

struct LinkModelShape {
  const char* name;             // the MODELS entry: class V link_<name>_vcd / _fst
  uint32_t data_bytes;          // DATA_BYTES: the widest beat, so the fastest wire
  uint32_t frame_bytes;         // FRAME_BYTES
  uint32_t replay_frames;       // REPLAY_FRAMES
  uint32_t credit_frames;       // CREDIT_FRAMES
};

// GC2 / GC200 / Bow: 16 GB/s at 1.325 - 1.85 GHz is 8.6 - 12.1 bytes per cycle.
inline constexpr LinkModelShape kGc200Shape{"gc200", 16, 256, 128, 128};
// The test chips (100 MHz): 16 GB/s is 160 bytes per cycle.
inline constexpr LinkModelShape kWideShape{"wide", 160, 256, 128, 128};

// The RTL rate of `c`, or std::invalid_argument naming the field that does not fit.
RtlRate fit(const LinkModelShape& shape, const links::LinkLayerConfig& c);

}  // namespace ipusim::cosim::link
