#include "partition_report.h"

#include <fmt/core.h>

namespace ipusim::cli {

std::string partition_text(const config::SystemConfig& system, const dist::Partition& p) {
  std::string out = fmt::format("partition over {} rank{} ({})\n", p.size(), p.size() == 1 ? "" : "s",
                                p.from_config ? "the config's `ranks`" : "balanced by tiles");
  for (uint32_t r = 0; r < p.size(); ++r) {
    const dist::RankShare& s = p.ranks[r];
    out += fmt::format("  rank {}: board{} {}, IPUs {}, {} tiles\n", r, s.boards.size() == 1 ? "" : "s",
                       dist::index_runs(s.boards), dist::index_runs(s.ipus), s.tiles);
  }
  if (p.cut_links.empty()) {
    out += "  cut IPU-Links: none\n";
    return out;
  }
  out += fmt::format("  cut IPU-Links: {}, lookahead {} cycles ({:g} ns)\n", p.cut_links.size(), p.lookahead_cycles(),
                     system.board.chip.ipu_links.latency_ns);
  for (const dist::CutLink& c : p.cut_links)
    out += fmt::format("    link {}: IPU {}.{} (rank {}) - IPU {}.{} (rank {}), latency {} cycles\n", c.link, c.wire.ipu_a,
                       c.wire.port_a, c.rank_a, c.wire.ipu_b, c.wire.port_b, c.rank_b, c.latency_cycles);
  return out;
}

nlohmann::ordered_json partition_json(const config::SystemConfig&, const dist::Partition& p) {
  nlohmann::ordered_json per_rank = nlohmann::ordered_json::array();
  for (uint32_t r = 0; r < p.size(); ++r)
    per_rank.push_back({{"rank", r}, {"boards", p.ranks[r].boards}, {"ipus", p.ranks[r].ipus}, {"tiles", p.ranks[r].tiles}});
  nlohmann::ordered_json cuts = nlohmann::ordered_json::array();
  for (const dist::CutLink& c : p.cut_links)
    cuts.push_back({{"link", c.link}, {"ipu_a", c.wire.ipu_a}, {"port_a", c.wire.port_a}, {"rank_a", c.rank_a},
                    {"ipu_b", c.wire.ipu_b}, {"port_b", c.wire.port_b}, {"rank_b", c.rank_b},
                    {"latency_cycles", c.latency_cycles}});
  return {{"ranks", p.size()},
          {"source", p.from_config ? "config" : "balanced"},
          {"lookahead_cycles", p.lookahead_cycles()},
          {"per_rank", std::move(per_rank)},
          {"cut_links", std::move(cuts)}};
}

}  // namespace ipusim::cli
