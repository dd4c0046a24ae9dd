// How a tile reaches the sync fabric. The Tile module calls its SyncPort when its
// supervisor stops at a `sync` over the IPU (zone 1) or the sync group (zone 2). The
// implementation decides when the tile may go on: today an ideal barrier
// (platform/netlist_sync_barrier.h), later the sync controller module.
#pragma once

#include <cstdint>

namespace ipusim::tile {

class Tile;

class SyncPort {
 public:
  virtual ~SyncPort() = default;
  // Called from `tile`'s SC_THREAD with SystemC time at `arrival_cycle`, the tile cycle
  // of the `sync`. wait()s until the zone releases and returns the release cycle
  // (>= arrival_cycle), at which the supervisor issues its next instruction. Only
  // called for zones for which supports() is true.
  virtual uint64_t sync(const Tile& tile, uint32_t zone, uint64_t arrival_cycle) = 0;
  // Whether this port serves `zone` (1 = IPU, 2 = group).
  virtual bool supports(uint32_t zone) const = 0;
};

}  // namespace ipusim::tile
