// The module tree of one IPU: its tiles (and, in later issues, its exchange and sync
// controller). Built by Platform from the chip part of the system config.
//
//   ipu<I>              Ipu
//     tile<T>           tile::Tile, T = 0 .. tiles-1
//
// Parameters: the chip config (tiles per IPU, tile config, clock), the IPU's index and
// the system's IPU count (both visible to firmware through CSRs).
// Sync: zone 1 is an ideal barrier over the IPU's loaded tiles, zone 2 the platform's
// group barrier (netlist_sync_barrier.h).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>

#include "platform/config.h"
#include "platform/netlist_sync_barrier.h"
#include "tile/tile.h"

namespace ipusim::platform {

class Ipu : public sc_core::sc_module {
 public:
  Ipu(sc_core::sc_module_name name, const config::ChipConfig& chip, uint32_t index,
      uint32_t ipus, SyncBarrier& group_barrier);

  uint32_t index() const { return index_; }
  uint32_t tile_count() const { return uint32_t(tiles_.size()); }
  tile::Tile& tile(uint32_t t) { return *tiles_.at(t); }
  const tile::Tile& tile(uint32_t t) const { return *tiles_.at(t); }
  tile::SyncPort& sync_port() { return sync_port_; }

  // The number of tiles with a program: the participants of the IPU barrier.
  uint32_t loaded_tiles() const;
  void update_sync_participants() { ipu_barrier_.set_participants(loaded_tiles()); }
  const SyncBarrier& ipu_barrier() const { return ipu_barrier_; }

 private:
  uint32_t index_;
  std::vector<std::unique_ptr<tile::Tile>> tiles_;
  SyncBarrier ipu_barrier_;
  BarrierSyncPort sync_port_;
};

}  // namespace ipusim::platform
