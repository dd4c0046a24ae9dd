// The IPU-Link graph of a system and its routes (plain C++, no SystemC).
//
// Built from the wiring the config loader resolved (config::SystemConfig::links): IPUs are
// nodes, each LinkWire a full-duplex edge between two ports. A message from IPU a to IPU b
// follows a shortest path (fewest links); among equally short paths the one through the
// lowest-numbered next IPU, and among parallel links between two IPUs the one `spread`
// picks (spread mod their count), so traffic of many tiles spreads over a bundle and every
// route is deterministic. docs/links.md.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <vector>

#include "common/config.h"

namespace ipusim::links {

// One link crossed in one direction.
struct Hop {
  uint32_t link = 0;      // index into Topology::wires()
  bool a_to_b = true;     // from the wire's ipu_a side to its ipu_b side
  uint32_t from_ipu = 0, to_ipu = 0;

  bool operator==(const Hop&) const = default;
};

// The centre of a set of IPUs: the member whose farthest other member is nearest.
struct Centre {
  uint32_t ipu = 0;     // lowest index among equally central members
  uint32_t radius = 0;  // hops from `ipu` to its farthest member
};

// A sync group's external sync over the links (docs/sync.md): the members gather to the
// master (their centre) and the master releases them back, so the group adds
// 2 x radius x hop_cycles to a zone-2 sync.
struct SyncGroupPath {
  uint32_t master = 0;
  uint32_t radius = 0;          // hops
  uint64_t hop_cycles = 0;      // one hop of the sync signal: ipu_links.sync_hop_ns at the tile clock, rounded
  uint64_t latency_cycles = 0;  // 2 x radius x hop_cycles
};

class Topology {
 public:
  static constexpr uint32_t kUnreachable = std::numeric_limits<uint32_t>::max();

  // Throws std::invalid_argument for a wire naming an IPU or port that does not exist or
  // a port used twice (the loader reports these with file and line first).
  Topology(uint32_t ipus, uint32_t ports_per_ipu, std::vector<config::LinkWire> wires);
  static Topology of(const config::SystemConfig& system);

  uint32_t ipus() const { return ipus_; }
  uint32_t ports_per_ipu() const { return ports_; }
  const std::vector<config::LinkWire>& wires() const { return wires_; }
  // Links (either end) at IPU `ipu`, ascending link id.
  const std::vector<uint32_t>& links_of(uint32_t ipu) const { return at_ipu_.at(ipu); }
  // The links joining IPUs a and b directly (ascending id; empty if none).
  std::span<const uint32_t> links_between(uint32_t a, uint32_t b) const;

  // Links on a shortest path from a to b: 0 for a == b, kUnreachable if none.
  uint32_t hops(uint32_t a, uint32_t b) const { return dist_[size_t(a) * ipus_ + b]; }
  // The longest shortest path between two IPUs that are connected (0 for one IPU).
  uint32_t diameter() const { return diameter_; }
  // The hops of the route from a to b, in order (empty for a == b). Throws
  // std::invalid_argument if b cannot be reached from a.
  void route(uint32_t a, uint32_t b, uint32_t spread, std::vector<Hop>& out) const;
  // Whether every IPU reaches every other.
  bool connected() const { return connected_; }
  // The centre of `members` (IPU indices, any order). Throws std::invalid_argument for
  // no member, an IPU that does not exist, or two members with no path between them.
  Centre centre(std::span<const uint32_t> members) const;

 private:
  uint32_t ipus_, ports_;
  std::vector<config::LinkWire> wires_;
  std::vector<std::vector<uint32_t>> at_ipu_;
  std::vector<std::vector<uint32_t>> neighbours_;            // per IPU: its neighbours, ascending
  std::vector<std::vector<std::vector<uint32_t>>> bundles_;  // per IPU and neighbour: the links between
  std::vector<uint32_t> dist_;   // ipus x ipus
  std::vector<uint32_t> next_;   // ipus x ipus: the next IPU on the route from a to b
  uint32_t diameter_ = 0;
  bool connected_ = true;
};

// The external sync of the group `members` on `topology`, with the chip's figures.
SyncGroupPath sync_group_path(const Topology& topology, std::span<const uint32_t> members,
                              const config::ChipConfig& chip);

}  // namespace ipusim::links
