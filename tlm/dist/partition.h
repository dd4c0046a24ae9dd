// Which boards each MPI rank runs (docs/distributed.md "The partition"): plain C++, no
// SystemC, no MPI. A system is cut only between boards, never inside a board or a chip, so
// every cut is an IPU-Link between two boards, where simulated time passes before anything
// sent arrives: its latency is the lookahead the ranks synchronise with.
//
// By default the boards are split into R contiguous runs balanced by tiles (every board of
// a system holds the same tiles, so the runs' sizes differ by at most one board, the
// larger first); the config's `ranks` key overrides it. The result is a pure function of
// the config and R.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/config.h"

namespace ipusim::dist {

// A rank count that cannot run the system, named by the argument that gave it ("--ranks",
// "mpirun -n"). An override in the config that does not fit R is a config::ConfigError.
class PartitionError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct RankShare {
  std::vector<uint32_t> boards;  // ascending
  std::vector<uint32_t> ipus;    // the boards' IPUs (system indices), ascending
  uint64_t tiles = 0;
};

// An IPU-Link whose two ends run on different ranks.
struct CutLink {
  uint32_t link = 0;                 // index in SystemConfig::links() (`ipusim info --links`)
  config::LinkWire wire;
  uint32_t rank_a = 0, rank_b = 0;   // the ranks of wire.ipu_a and wire.ipu_b
  uint64_t latency_cycles = 0;       // one way: the lookahead this cut gives
};

struct Partition {
  bool from_config = false;          // the config's `ranks`, else balanced by tiles
  std::vector<RankShare> ranks;      // index = rank
  std::vector<uint32_t> rank_of_board;
  std::vector<CutLink> cut_links;    // by link index

  uint32_t size() const { return uint32_t(ranks.size()); }
  uint32_t rank_of_ipu(const config::SystemConfig& system, uint32_t ipu) const {
    return rank_of_board.at(ipu / system.board.ipus);
  }
  // The least latency of a cut link: how far a rank may run ahead of another before
  // anything it sends over a link can arrive. 0 when no link is cut.
  uint64_t lookahead_cycles() const;
};

// One way latency of an IPU-Link in cycles of the tile clock, rounded as the link model
// rounds it (links::LinkScheduler).
uint64_t link_latency_cycles(const config::ChipConfig& chip);

// The partition of `system` over `ranks` ranks: the config's `ranks` (system.ranks,
// checked by the loader) when given, else balanced. Throws PartitionError naming
// `argument` when ranks is 0 or above the boards, and config::ConfigError (FILE:LINE:
// ranks) when the config's `ranks` lists another number of ranks.
Partition partition_system(const config::SystemConfig& system, uint32_t ranks, const std::string& argument);

// "0-3", "0, 2, 5-7": a sorted list of indices as runs.
std::string index_runs(const std::vector<uint32_t>& sorted);

}  // namespace ipusim::dist
