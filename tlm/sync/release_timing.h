// Who times a sync's releases. Without one, SyncController uses its own arithmetic
// (docs/sync.md); with one (SyncController::set_timing), every complete sync goes
// through it, e.g. to Verilated RTL behind a transactor (tlm/cosim/sync). The
// controller keeps the sockets, the bookkeeping, deadlocks and the superstep gate either
// way: a timing only turns the arrivals of a complete sync into cycles.
#pragma once

#include <cstdint>
#include <span>

namespace ipusim::sync {

struct SyncArrival {
  uint32_t tile = 0;
  uint64_t cycle = 0;  // of the tile's `sync`
};

class ReleaseTiming {
 public:
  virtual ~ReleaseTiming() = default;
  // Every participant of the IPU arrived at zone 1 (`arrivals`: one per participant, in
  // tile order): the release cycle of each, into `release` (same order).
  virtual void release_zone1(std::span<const SyncArrival> arrivals, std::span<uint64_t> release) = 0;
  // Every participant arrived at zone 2: the IPU's gather cycle G (the group's input).
  virtual uint64_t gather_zone2(std::span<const SyncArrival> arrivals) = 0;
  // The group released the zone-2 sync gathered last from `base_cycle`: the release
  // cycle of each of its arrivals (the gather's order).
  virtual void release_zone2(uint64_t base_cycle, std::span<uint64_t> release) = 0;
  // The controller was reset (a device reset): nothing in flight, cycles start again.
  virtual void reset() = 0;
};

}  // namespace ipusim::sync
