#include "sync/sync_latency.h"

#include <stdexcept>
#include <string>

namespace ipusim::sync {

SyncLatency::SyncLatency(uint32_t tiles, uint32_t min_cycles, uint32_t max_cycles)
    : tiles_(tiles), min_(min_cycles), max_(max_cycles) {
  if (tiles == 0) throw std::invalid_argument("sync latency: an IPU without tiles");
  if (max_cycles < min_cycles)
    throw std::invalid_argument("sync latency: max " + std::to_string(max_cycles) +
                                " cycles is below min " + std::to_string(min_cycles));
}

uint32_t SyncLatency::round_trip(uint32_t t) const {
  if (tiles_ <= 1) return 0;
  const int64_t last = int64_t(tiles_) - 1;
  const int64_t offset = 2 * int64_t(t) - last;  // -(T-1) .. T-1
  const uint64_t distance = uint64_t(offset < 0 ? -offset : offset);
  return uint32_t(uint64_t(max_ - min_) * distance / uint64_t(last));
}

}  // namespace ipusim::sync
