#include "platform/netlist_sync_barrier.h"

#include <algorithm>

namespace ipusim::platform {

SyncBarrier::SyncBarrier(const char* name) : released_(name) {}

uint64_t SyncBarrier::arrive(uint64_t arrival_cycle) {
  latest_arrival_ = std::max(latest_arrival_, arrival_cycle);
  if (++arrived_ == participants_) {
    release_cycle_ = latest_arrival_;
    arrived_ = 0;
    latest_arrival_ = 0;
    ++generation_;
    released_.notify(sc_core::SC_ZERO_TIME);
    return release_cycle_;
  }
  // Every tile waits in SystemC time up to its arrival cycle first, so the last to
  // arrive does so at the release time and the waiters resume in its delta cycle; the
  // next barrier cannot complete (and overwrite release_cycle_) before they have read it,
  // because it needs them.
  const uint64_t generation = generation_;
  while (generation_ == generation) sc_core::wait(released_);
  return release_cycle_;
}

uint64_t BarrierSyncPort::sync(const tile::Tile&, uint32_t zone, uint64_t arrival_cycle) {
  return (zone == 1 ? ipu_ : group_).arrive(arrival_cycle);
}

}  // namespace ipusim::platform
