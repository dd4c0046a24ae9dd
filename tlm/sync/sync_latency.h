// The sync controller's timing (plain C++): how long a tile's sync signal takes to reach
// the IPU's controller and the release to come back, by the tile's distance from it.
// docs/sync.md has the model and the figures.
//
// The tiles of an IPU sit in a row in index order with the controller in the middle.
// A tile's distance x(t) = |2t - (T-1)| / (T-1) runs from 0 (the middle) to 1 (either end).
// Its round trip above the minimum is floor(span * x(t)), span = max - min cycles, split
// into the way in (floor of half) and the way out (the rest). So with every tile arriving
// at cycle a, the middle tile is released at a + min and the end tiles at a + max:
// exactly the config's `sync.latency_min_cycles` / `latency_max_cycles`.
#pragma once

#include <cstdint>

namespace ipusim::sync {

class SyncLatency {
 public:
  // Throws std::invalid_argument if tiles == 0 or max < min.
  SyncLatency(uint32_t tiles, uint32_t min_cycles, uint32_t max_cycles);

  uint32_t tiles() const { return tiles_; }
  uint32_t min_cycles() const { return min_; }
  uint32_t max_cycles() const { return max_; }
  // Cycles above the minimum for tile `t`'s round trip, and its two halves.
  uint32_t round_trip(uint32_t t) const;
  uint32_t to_controller(uint32_t t) const { return round_trip(t) / 2; }
  uint32_t from_controller(uint32_t t) const { return round_trip(t) - to_controller(t); }

 private:
  uint32_t tiles_, min_, max_;
};

}  // namespace ipusim::sync
