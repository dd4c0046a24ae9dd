// The seam between the ISS and an AMP datapath outside it (docs/xipu.md, "The AMP as
// RTL"): with one attached to a tile (TileCore::set_amp_datapath), every amp.mac of the
// tile hands its operands to it and takes the bank's new accumulators back; the ISS keeps
// the instruction's checks, faults, state (W, the banks) and timing.
//
// Without one the ISS's own arithmetic (amp_math.h) runs and the seam costs nothing: the
// run loop reaches the AMP family through a pointer in the tile's MemView, set once when
// a datapath is attached, so the default path has no test and no virtual call per
// amp.mac (the pointer is called where a direct call was before).
#pragma once

#include <cstdint>

namespace ipusim::iss {

class AmpDatapath {
 public:
  virtual ~AmpDatapath() = default;
  // One amp.mac of `rows` rows: W as amp.ldw read it (rows x 4, row-major: f16 bits, 8
  // bytes a row, or f32 bits, 16 bytes a row), the four inputs x as amp.mac read them (8
  // or 16 bytes), and acc, the rows f32 accumulators of the named bank, updated in place
  // with docs/xipu.md's rule. A NaN accumulator may come back with any NaN payload:
  // amp.st stores every NaN as the canonical NaN. Called on the host thread running the
  // tile (one at a time per tile).
  virtual void mac(bool f16, uint32_t rows, const uint8_t* w, const uint8_t* x, float* acc) = 0;
  // The platform's run is over: complete any file the datapath writes (a waveform).
  virtual void end_of_run() {}
};

}  // namespace ipusim::iss
