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
  head_ = 0;
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
  while (first_ + held() <= r.index) {
    SuperstepRow fresh;
    fresh.index = first_ + held();
    fresh.ipus.resize(ipus_);
    rows_.push_back(std::move(fresh));
  }
  SuperstepRow& row = this->row(r.index - first_);
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
  while (held() > window_ && (final(row(0)) || held() > 2 * window_)) {
    SuperstepRow& front = row(0);
    sort_tiles(front);
    if (sink_) sink_(front);
    front = SuperstepRow{};
    ++head_;
    ++first_;
  }
  if (head_ >= window_) {  // drop the rows gone, a window's worth at a time
    rows_.erase(rows_.begin(), rows_.begin() + std::ptrdiff_t(head_));
    head_ = 0;
  }
}

std::span<const SuperstepRow> SuperstepAccounts::rows() {
  for (size_t i = 0; i < held(); ++i) sort_tiles(row(i));
  return {rows_.data() + head_, held()};
}

std::vector<SuperstepTotals> SuperstepAccounts::ipu(uint32_t i) const {
  std::vector<SuperstepTotals> out;
  const uint64_t end = counts_.at(i);
  for (size_t j = head_; j < rows_.size(); ++j) {
    if (rows_[j].index >= end) break;
    out.push_back(rows_[j].ipus[i]);
  }
  return out;
}

}  // namespace ipusim::platform
