#include "dist/partition.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "config/config_loader.h"

namespace ipusim::dist {
namespace {

// Boards [r * B / R, (r + 1) * B / R) for rank r, with the remainder's extra boards on the
// first ranks: contiguous (a ladder or torus of boards cuts the fewest links so), sizes
// differing by at most one.
std::vector<uint32_t> balanced_ranks(uint32_t boards, uint32_t ranks) {
  std::vector<uint32_t> rank_of_board(boards);
  const uint32_t base = boards / ranks, extra = boards % ranks;
  uint32_t board = 0;
  for (uint32_t r = 0; r < ranks; ++r)
    for (uint32_t i = 0; i < base + (r < extra ? 1 : 0); ++i) rank_of_board[board++] = r;
  return rank_of_board;
}

std::vector<uint32_t> configured_ranks(const config::SystemConfig& system, const config::RanksConfig& chosen,
                                       uint32_t ranks) {
  const auto& listed = chosen.boards;
  if (listed.size() != ranks)
    throw config::ConfigError(chosen.file, chosen.line, "ranks",
                              "lists " + std::to_string(listed.size()) + " ranks, but the job has " +
                                  std::to_string(ranks) + " (mpirun -n " + std::to_string(listed.size()) +
                                  ", or change `ranks`)");
  // The loader checked that every board is on exactly one rank.
  std::vector<uint32_t> rank_of_board(system.boards);
  for (uint32_t r = 0; r < ranks; ++r)
    for (uint32_t b : listed[r]) rank_of_board.at(b) = r;
  return rank_of_board;
}

}  // namespace

uint64_t Partition::lookahead_cycles() const {
  if (cut_links.empty()) return 0;
  uint64_t least = std::numeric_limits<uint64_t>::max();
  for (const CutLink& c : cut_links) least = std::min(least, c.latency_cycles);
  return least;
}

uint64_t link_latency_cycles(const config::ChipConfig& chip) {
  return uint64_t(std::llround(chip.ipu_links.latency_ns * 1e-9 * chip.clock_hz));
}

Partition partition_system(const config::SystemConfig& system, uint32_t ranks, const std::string& argument) {
  const config::RanksConfig& chosen = system.ranks;
  if (ranks < 1)
    throw PartitionError(argument + ": " + std::to_string(ranks) + " ranks: a system runs on at least 1 rank");
  if (ranks > system.boards)
    throw PartitionError(argument + ": " + std::to_string(ranks) + " ranks for " + system.name() + "'s " +
                         std::to_string(system.boards) + (system.boards == 1 ? " board" : " boards") +
                         ": a rank runs whole boards, so at most " + std::to_string(system.boards) + " ranks");
  Partition p;
  p.from_config = chosen.given();
  p.rank_of_board = p.from_config ? configured_ranks(system, chosen, ranks) : balanced_ranks(system.boards, ranks);
  p.ranks.resize(ranks);
  const uint32_t ipus = system.board.ipus;
  for (uint32_t b = 0; b < system.boards; ++b) {
    RankShare& share = p.ranks[p.rank_of_board[b]];
    share.boards.push_back(b);
    for (uint32_t i = 0; i < ipus; ++i) share.ipus.push_back(b * ipus + i);
    share.tiles += uint64_t(ipus) * system.board.chip.tiles;
  }
  const uint64_t latency = link_latency_cycles(system.board.chip);
  const auto& wires = system.links();
  for (uint32_t l = 0; l < wires.size(); ++l) {
    const uint32_t ra = p.rank_of_ipu(system, wires[l].ipu_a), rb = p.rank_of_ipu(system, wires[l].ipu_b);
    if (ra != rb) p.cut_links.push_back({l, wires[l], ra, rb, latency});
  }
  return p;
}

std::string index_runs(const std::vector<uint32_t>& sorted) {
  std::string out;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(sorted[i]);
    if (j > i) out += "-" + std::to_string(sorted[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace ipusim::dist
