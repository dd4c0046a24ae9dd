#include "platform/platform_supersteps.h"

#include <algorithm>

namespace ipusim::platform {

void SuperstepTotals::add(const tile::SuperstepRecord& r) {
  ++tiles;
  exchanging_tiles += r.exchanged ? 1 : 0;
  incomplete_tiles += r.complete ? 0 : 1;
  compute_cycles += r.compute_cycles;
  sync_cycles += r.sync_cycles;
  exchange_cycles += r.exchange_cycles;
  instructions += r.instructions;
  exchange_bytes += r.bytes_in;
  begin_cycle = std::min(begin_cycle, r.begin);
  end_cycle = std::max(end_cycle, r.end);
}

uint64_t SuperstepAccounts::window_rows_for(uint32_t ipus, uint32_t kept_tiles) {
  const uint64_t entries = std::max<uint64_t>(1, uint64_t(ipus) + kept_tiles);
  return std::clamp(kWindowEntries / entries, kWindowRowsMin, kWindowRowsMax);
}

void SuperstepAccounts::start(std::vector<bool> running, uint32_t kept_tiles) {
  running.resize(ipus_, false);
  running_ = std::move(running);
  rows_.clear();
  first_ = 0;
  late_ = 0;
  keep_tiles_ = kept_tiles > 0;
  window_ = window_rows_for(ipus_, kept_tiles);
  std::fill(counts_.begin(), counts_.end(), 0);
}

void SuperstepAccounts::add(uint32_t ipu, uint32_t tile, const tile::SuperstepRecord& r) {
  counts_.at(ipu) = std::max<uint64_t>(counts_[ipu], uint64_t(r.index) + 1);
  if (r.index < first_) {
    ++late_;
    return;
  }
  while (first_ + rows_.size() <= r.index) {
    SuperstepRow row;
    row.index = first_ + rows_.size();
    row.ipus.resize(ipus_);
    rows_.push_back(std::move(row));
  }
  SuperstepRow& row = rows_[r.index - first_];
  row.ipus[ipu].add(r);
  if (keep_tiles_) row.tiles.push_back({ipu, tile, r});
  settle();
}

uint64_t SuperstepAccounts::count() const {
  uint64_t n = 0;
  for (uint64_t c : counts_) n = std::max(n, c);
  return n;
}

bool SuperstepAccounts::final(const SuperstepRow& row) const {
  for (uint32_t i = 0; i < ipus_; ++i)
    if (running_[i] && counts_[i] < row.index + 3) return false;
  return true;
}

void SuperstepAccounts::sort_tiles(SuperstepRow& row) {
  std::sort(row.tiles.begin(), row.tiles.end(), [](const TileSuperstep& a, const TileSuperstep& b) {
    return a.ipu != b.ipu ? a.ipu < b.ipu : a.tile < b.tile;
  });
}

void SuperstepAccounts::settle() {
  while (rows_.size() > window_ && (final(rows_.front()) || rows_.size() > 2 * window_)) {
    SuperstepRow& row = rows_.front();
    sort_tiles(row);
    if (sink_) sink_(row);
    rows_.pop_front();
    ++first_;
  }
}

const std::deque<SuperstepRow>& SuperstepAccounts::rows() {
  for (SuperstepRow& row : rows_) sort_tiles(row);
  return rows_;
}

std::vector<SuperstepTotals> SuperstepAccounts::ipu(uint32_t i) const {
  std::vector<SuperstepTotals> out;
  const uint64_t end = counts_.at(i);
  for (const SuperstepRow& row : rows_) {
    if (row.index >= end) break;
    out.push_back(row.ipus[i]);
  }
  return out;
}

}  // namespace ipusim::platform
