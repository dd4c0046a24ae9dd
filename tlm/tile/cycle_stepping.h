// The debugger's side of the tile engine's cycle-stepping mode (tile_engine.h, "Cycle stepping").
//
// In cycle stepping the engine advances every running tile one cycle at a time, in simulated
// order, in two passes per cycle: a check pass, where the debugger's probe sees the
// first instruction every tile would issue at that cycle (the tiles pause before it),
// and an execute pass, where they issue. A stop requested after the check pass leaves
// every tile before that cycle: the whole system stops at one cycle, whatever the host.
#pragma once

#include <cstdint>

#include "iss/tile_core.h"

namespace ipusim::tile {

class Tile;

class CycleStepControl {
 public:
  virtual ~CycleStepControl() = default;
  // The bounds every tile computes with while in cycle stepping (their probe is the
  // debugger's); the engine sets cycle_limit before each compute.
  virtual iss::RunBounds& bounds() = 0;
  // Nothing can stop a thread before an instruction (no breakpoint, watchpoint or step):
  // the tiles run whole stretches, to their next stop or until the bounds' interrupt
  // pauses them, at full speed (serially, still in (ipu, tile) order).
  virtual bool free_run() const = 0;
  // Before each pass over the tiles whose next instruction issues at `cycle`.
  virtual void begin_pass(uint64_t cycle, bool check) = 0;
  // Before each cycle and after each pass: stop the system here (sc_pause)? The run
  // goes on from the same point when the kernel is started again.
  virtual bool stop_requested() = 0;
  // Only this tile runs (a thread stepped with every other held); nullptr: every tile.
  virtual const Tile* only_tile() const = 0;
  // That tile has no instruction to issue (it waits on others): stop_requested() decides
  // what now.
  virtual void only_tile_blocked() = 0;
  // `tile` ended a compute stretch in cycle stepping (a sync, an exchange, a halt, a fault):
  // its state says which.
  virtual void stretch_ended(const Tile& tile) = 0;
};

}  // namespace ipusim::tile
