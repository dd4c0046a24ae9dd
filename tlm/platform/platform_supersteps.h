// Per-superstep totals of each IPU, built from the tiles' superstep records
// (tile/superstep.h) as they close. Index = superstep number; a tile's k-th record adds
// to entry k of its IPU.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "tile/superstep.h"

namespace ipusim::platform {

struct SuperstepTotals {
  uint32_t tiles = 0;                 // tiles that recorded this superstep
  uint32_t exchanging_tiles = 0;      // of which posted messages
  uint32_t incomplete_tiles = 0;      // of which the run ended inside it
  uint64_t compute_cycles = 0;        // sums over the tiles
  uint64_t sync_cycles = 0;
  uint64_t exchange_cycles = 0;
  uint64_t instructions = 0;
  uint64_t exchange_bytes = 0;        // received in the exchange (sum over the tiles)
  uint64_t begin_cycle = std::numeric_limits<uint64_t>::max();  // earliest tile begin
  uint64_t end_cycle = 0;                                       // latest tile end

  void add(const tile::SuperstepRecord& r);
};

class SuperstepAccounts {
 public:
  explicit SuperstepAccounts(uint32_t ipus) : per_ipu_(ipus) {}
  void add(uint32_t ipu, const tile::SuperstepRecord& r);
  // A new run on IPU `i` (a device's RUN from READY, its reset): no supersteps yet.
  void clear(uint32_t i) { per_ipu_.at(i).clear(); }
  // Entry k: superstep k of the IPU's tiles (empty for an IPU that ran nothing).
  const std::vector<SuperstepTotals>& ipu(uint32_t i) const { return per_ipu_.at(i); }
  uint32_t ipus() const { return uint32_t(per_ipu_.size()); }

 private:
  std::vector<std::vector<SuperstepTotals>> per_ipu_;
};

}  // namespace ipusim::platform
