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

void SuperstepAccounts::add(uint32_t ipu, const tile::SuperstepRecord& r) {
  std::vector<SuperstepTotals>& steps = per_ipu_.at(ipu);
  if (steps.size() <= r.index) steps.resize(r.index + 1);
  steps[r.index].add(r);
}

}  // namespace ipusim::platform
