// The exchange's distance and latency model (docs/exchange.md, "Distance and latency").
//
// An IPU's tiles stand in columns of `tiles_per_column` tiles, numbered column by
// column: tile t (index within its IPU) is at column t / C, row t % C. A message travels
// the Manhattan distance between the two places. Latency grows linearly with distance
// from latency_min (neighbours, distance 1) to latency_max (the farthest pair), rounded
// half up in integer arithmetic so it is exact on every host.
#include <algorithm>

#include "exchange/plan_internal.h"

namespace ipusim::exchange {
namespace {

struct Place {
  uint32_t ipu, column, row;
};

uint32_t tiles_per_ipu(const ExchangeTiming& t) { return t.tiles_per_ipu ? t.tiles_per_ipu : 1; }
uint32_t column_height(const ExchangeTiming& t) {
  return std::min(std::max<uint32_t>(t.tiles_per_column, 1), tiles_per_ipu(t));
}

Place place(const ExchangeTiming& t, uint32_t tile) {
  const uint32_t local = tile % tiles_per_ipu(t);
  return {tile / tiles_per_ipu(t), local / column_height(t), local % column_height(t)};
}

uint32_t span(uint32_t a, uint32_t b) { return a > b ? a - b : b - a; }

uint32_t latency_max(const ExchangeTiming& t) {
  return std::max(t.latency_max_cycles, t.latency_min_cycles);
}

// Latency of `distance` hops within one IPU.
uint32_t latency_for(const ExchangeTiming& t, uint64_t distance) {
  const uint64_t lo = t.latency_min_cycles, hi = latency_max(t);
  const uint64_t dmax = max_tile_distance(t);
  if (distance <= 1 || dmax <= 1) return uint32_t(lo);
  // lo + (hi - lo) * (d - 1) / (dmax - 1), rounded half up.
  const uint64_t num = (hi - lo) * (distance - 1), den = dmax - 1;
  return uint32_t(lo + (2 * num + den) / (2 * den));
}

}  // namespace

uint32_t max_tile_distance(const ExchangeTiming& timing) {
  const uint32_t n = tiles_per_ipu(timing), c = column_height(timing);
  const uint32_t columns = (n + c - 1) / c;
  // Column 0 is full, so its top row and the last column's row 0 are both occupied.
  return (columns - 1) + (c - 1);
}

uint32_t tile_distance(const ExchangeTiming& timing, uint32_t a, uint32_t b) {
  const Place pa = place(timing, a), pb = place(timing, b);
  if (pa.ipu != pb.ipu) return max_tile_distance(timing);
  return span(pa.column, pb.column) + span(pa.row, pb.row);
}

uint32_t latency_cycles(const ExchangeTiming& timing, uint32_t src_tile, uint32_t dst_tile) {
  // Across IPUs: the on-chip maximum; the IPU-Link leg is the links model's to time.
  if (place(timing, src_tile).ipu != place(timing, dst_tile).ipu) return latency_max(timing);
  return latency_for(timing, tile_distance(timing, src_tile, dst_tile));
}

namespace detail {

LatencyTable::LatencyTable(const TileIndex& index, const ExchangeTiming& timing)
    : across_ipus_(latency_max(timing)) {
  place_.reserve(index.size());
  for (uint32_t d = 0; d < index.size(); ++d) {
    const exchange::Place p = exchange::place(timing, index.global(d));
    place_.push_back({p.ipu, p.column, p.row});
  }
  const uint32_t dmax = max_tile_distance(timing);
  by_distance_.resize(size_t(dmax) + 1);
  for (uint32_t d = 0; d <= dmax; ++d) by_distance_[d] = latency_for(timing, d);
}

}  // namespace detail
}  // namespace ipusim::exchange
