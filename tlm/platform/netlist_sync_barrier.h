// The stand-in for the sync fabric: ideal barriers with zero latency.
//
// SyncBarrier releases its participants when the last one arrives, at the latest
// arrival cycle: a sync costs a tile exactly the wait for the slowest tile of its zone.
// BarrierSyncPort is the tile::SyncPort of one IPU: zone 1 is the IPU's barrier, zone 2
// the system-wide group barrier (every IPU is in one sync group). The sync controller
// module replaces both behind the same tile::SyncPort.
#pragma once

#include <cstdint>

#include <systemc>

#include "tile/sync_port.h"

namespace ipusim::platform {

class SyncBarrier {
 public:
  // `name` names the release event in the SystemC hierarchy.
  explicit SyncBarrier(const char* name);

  // Tiles taking part: every tile that runs a program in the barrier's zone. Set before
  // the simulation starts.
  void set_participants(uint32_t count) { participants_ = count; }
  uint32_t participants() const { return participants_; }
  uint32_t waiting() const { return arrived_; }

  // Called from a tile's thread with SystemC time at `arrival_cycle`. Returns the
  // release cycle once every participant has arrived.
  uint64_t arrive(uint64_t arrival_cycle);

 private:
  uint32_t participants_ = 0;
  uint32_t arrived_ = 0;
  uint64_t latest_arrival_ = 0;
  uint64_t generation_ = 0;      // completed barriers; waiters leave when it moves
  uint64_t release_cycle_ = 0;   // of the last completed barrier
  sc_core::sc_event released_;
};

class BarrierSyncPort : public tile::SyncPort {
 public:
  BarrierSyncPort(SyncBarrier& ipu, SyncBarrier& group) : ipu_(ipu), group_(group) {}
  uint64_t sync(const tile::Tile& tile, uint32_t zone, uint64_t arrival_cycle) override;
  bool supports(uint32_t zone) const override { return zone == 1 || zone == 2; }

 private:
  SyncBarrier& ipu_;
  SyncBarrier& group_;
};

}  // namespace ipusim::platform
