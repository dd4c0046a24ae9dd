#include "sync/group_sync.h"

#include <algorithm>

namespace ipusim::sync {

void GroupSync::arrive(GroupMember&, uint64_t gather_cycle) {
  gather_ = std::max(gather_, gather_cycle);
  if (++arrived_ < members_.size()) return;
  const uint64_t base = gather_ + latency_;
  arrived_ = 0;
  gather_ = 0;
  for (GroupMember* m : members_) m->group_released(base);
}

void GroupSync::left(uint32_t ipu, uint32_t tile, uint64_t cycle) {
  departures_.push_back(Departure{ipu, tile, cycle});
  earliest_departure_ = std::min(earliest_departure_, cycle);
  for (GroupMember* m : members_) m->group_member_left();
}

}  // namespace ipusim::sync
