// The sync group (zone 2) across the IPUs of a system (plain C++, no SystemC process).
//
// Each IPU's SyncController gathers its own tiles; when all of them have arrived at a
// zone-2 sync it calls arrive() with its gather cycle (latest arrival plus that tile's way
// in). When every member IPU has arrived, the group releases them all from
//   base = max over IPUs of the gather cycle + the group latency
// and each controller releases its tiles at base + min + the tile's way out
// (docs/sync.md). The group latency is the external sync's path over the IPU-Links
// (gather to the sync master and release back); the platform computes it from the
// members and the topology when it starts a run (links::sync_group_path) and sets it
// here: the group itself knows nothing of links.
//
// It also keeps the tiles that left (halted): with any of them gone, no zone-2 sync can
// complete, and the controllers report the waiting tiles as a deadlock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ipusim::sync {

class GroupMember {
 public:
  virtual ~GroupMember() = default;
  // Every member arrived: release the IPU's zone-2 waiters from `base_cycle`.
  virtual void group_released(uint64_t base_cycle) = 0;
  // A tile of some member left: zone 2 can no longer complete.
  virtual void group_member_left() = 0;
};

struct Departure {
  uint32_t ipu = 0, tile = 0;
  uint64_t cycle = 0;  // of the tile's halt
};

class GroupSync {
 public:
  // Before the simulation: every IPU with at least one participating tile.
  void join(GroupMember& member) { members_.push_back(&member); }
  size_t members() const { return members_.size(); }
  // Cycles from the last member's gather to the release base (0 until set: an ideal
  // external sync).
  void set_latency_cycles(uint64_t cycles) { latency_ = cycles; }
  uint64_t latency_cycles() const { return latency_; }

  void arrive(GroupMember& member, uint64_t gather_cycle);
  void left(uint32_t ipu, uint32_t tile, uint64_t cycle);
  const std::vector<Departure>& departures() const { return departures_; }
  // The earliest departure's cycle (UINT64_MAX: none), kept as they come so a deadlock
  // check costs the same however many tiles have left.
  uint64_t earliest_departure() const { return earliest_departure_; }
  // IPUs whose tiles all wait at zone 2.
  size_t arrived() const { return arrived_; }
  // No member, nobody waiting, no departure (device reset).
  void reset() {
    members_.clear();
    arrived_ = 0;
    gather_ = 0;
    departures_.clear();
    earliest_departure_ = ~uint64_t{0};
  }

 private:
  uint64_t latency_ = 0;
  std::vector<GroupMember*> members_;
  size_t arrived_ = 0;
  uint64_t gather_ = 0;
  std::vector<Departure> departures_;
  uint64_t earliest_departure_ = ~uint64_t{0};
};

}  // namespace ipusim::sync
