// `multi_ipu_demo link_bw`: mb_link_bw.elf on every tile, then each IPU's figures from
// `mb_link_bw_result` on its tile 0, printed as tables: bandwidth of one link and of all
// of an IPU's links against message size, latency against hop count. The reference is
// the system's link model, from the config behind a "config:" locator: the hop counts,
// no row faster than the links (and the sending tiles' ports) allow, the same latency
// for the same hop count, at least one link latency a hop; and every message intact.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <vector>

#include "commands.h"
#include "config/config_loader.h"
#include "links/topology.h"

extern "C" {
#include "mb_link_bw.h"
}

namespace demo {
namespace {

constexpr uint32_t kKcResultMagic = 0x4B524553u;  // firmware/kernels/kcommon.h

// The link model of the system behind the locator, when it is a config.
struct LinkModel {
  ipusim::config::SystemConfig sys;
  ipusim::links::Topology topology;
  double bytes_per_cycle;  // one link, one direction
  double latency_cycles;   // one link
};

std::optional<LinkModel> link_model(const std::string& locator) {
  const std::string path = config_path_of(locator);
  if (path.empty()) return std::nullopt;
  ipusim::config::SystemConfig sys = ipusim::config::load_system(path);
  const ipusim::config::ChipConfig& chip = sys.board.chip;
  ipusim::links::Topology topology = ipusim::links::Topology::of(sys);
  return LinkModel{std::move(sys), std::move(topology), chip.ipu_links.bytes_per_second / chip.clock_hz,
                   chip.ipu_links.latency_ns * 1e-9 * chip.clock_hz};
}

double rate(const mb_link_row& r) { return r.cycles ? double(r.total_bytes) / r.cycles : 0.0; }

}  // namespace

int run_link_bw(const Options& o) {
  const std::string elf = o.elf.empty() ? IPUSIM_FIRMWARE_DIR "/mb_link_bw.elf" : o.elf;
  auto dev = open_and_load(o, elf, 2, {"mb_link_bw_result"});
  const ipudrv::DeviceInfo& info = dev->info();
  const std::optional<LinkModel> model = link_model(o.locator);
  const double ghz = info.tile_clock_khz * 1e-6;

  const auto t0 = std::chrono::steady_clock::now();
  const ipudrv::RunResult run = run_to_halt(*dev, "mb_link_bw");
  const double host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<mb_link_bw_result> res(info.ipus);
  for (uint32_t i = 0; i < info.ipus; ++i) res[i] = read_struct<mb_link_bw_result>(*dev, i, 0, "mb_link_bw_result");

  std::vector<std::string> problems;
  auto check = [&](bool ok, const std::string& what) {
    if (!ok) problems.push_back(what);
  };
  for (uint32_t i = 0; i < info.ipus; ++i) {
    check(res[i].magic == kKcResultMagic, "IPU " + std::to_string(i) + " did not finish");
    check(res[i].bad_messages == 0, "IPU " + std::to_string(i) + " received " +
                                        std::to_string(res[i].bad_messages) + " damaged message(s)");
  }
  std::printf("mb_link_bw: %s: %u IPUs x %u tiles at %.3f GHz%s\n", info.locator.c_str(), info.ipus,
              info.tiles_per_ipu, ghz,
              model ? "" : " (not a config: no link model to check against, hops unknown)");
  if (model)
    std::printf("mb_link_bw: link model: %.3f B/cycle (%.1f GB/s) each way, %.0f cycles latency per link\n",
                model->bytes_per_cycle, model->bytes_per_cycle * ghz, model->latency_cycles);

  // Latency against hop count.
  std::printf("\n%-6s %-14s %8s %8s\n", "hops", "IPUs", "cycles", "ns");
  std::map<uint32_t, std::vector<uint32_t>> by_hops;
  for (uint32_t j = 1; j < info.ipus; ++j) by_hops[model ? model->topology.hops(0, j) : 0].push_back(j);
  for (const auto& [hops, ipus] : by_hops) {
    const uint32_t cycles = res[ipus[0]].latency_cycles;
    std::string names;
    for (uint32_t j : ipus) {
      names += (names.empty() ? "" : ",") + std::to_string(j);
      check(res[j].latency_cycles == cycles, "IPU " + std::to_string(j) + ": latency " +
                                                 std::to_string(res[j].latency_cycles) + " cycles, not " +
                                                 std::to_string(cycles) + " as the others " + std::to_string(hops) +
                                                 " hop(s) away");
    }
    if (model)
      check(cycles >= hops * model->latency_cycles,
            std::to_string(hops) + " hop(s): " + std::to_string(cycles) + " cycles, under the links' latency");
    std::printf("%-6s %-14s %8u %8.1f\n", model ? std::to_string(hops).c_str() : "?", names.c_str(), cycles,
                cycles / ghz);
  }

  // One link against message size (the rows live on the receiving IPU).
  const mb_link_bw_result& to = res[res[0].link_to];
  if (res[0].link_to != 0) {
    const double limit = model ? std::min(model->bytes_per_cycle,
                                          double(to.link_senders) * model->sys.board.chip.tile.exchange_out_bytes_per_cycle)
                               : 0.0;
    std::printf("\none link, IPU %u -> IPU %u, %u sending tiles\n", to.link_from, to.link_to, to.link_senders);
    std::printf("%10s %12s %10s %10s %8s %8s\n", "B/tile", "bytes", "cycles", "B/cycle", "GB/s", "of link");
    for (const mb_link_row& r : to.link) {
      check(r.total_bytes == uint64_t(r.bytes) * to.link_senders, "link row " + std::to_string(r.bytes) + " B incomplete");
      if (model) check(rate(r) <= limit * 1.0001, "link row " + std::to_string(r.bytes) + " B faster than the link model");
      std::printf("%10u %12u %10u %10.3f %8.2f %7.1f%%\n", r.bytes, r.total_bytes, r.cycles, rate(r), rate(r) * ghz,
                  model ? 100.0 * rate(r) / model->bytes_per_cycle : 0.0);
    }
  }

  // Every link of every IPU, both ways, against message size.
  std::printf("\nper IPU, all its links both ways (bytes in + out), B/cycle and GB/s at B bytes per tile\n%6s %6s",
              "IPU", "links");
  for (const mb_link_row& r : res[0].ipu_rows)
    std::printf(" %16s %7s", (std::to_string(r.bytes) + " B: B/cycle").c_str(), "GB/s");
  std::printf("\n");
  for (uint32_t i = 0; i < info.ipus; ++i) {
    const size_t links = model ? model->topology.links_of(i).size() : 0;
    std::printf("%6u %6s", i, model ? std::to_string(links).c_str() : "?");
    for (const mb_link_row& r : res[i].ipu_rows) {
      if (model) check(rate(r) <= 2 * links * model->bytes_per_cycle * 1.0001,
                       "IPU " + std::to_string(i) + " row " + std::to_string(r.bytes) + " B faster than its links");
      check(r.cycles > 0 && r.total_bytes > 0, "IPU " + std::to_string(i) + " row " + std::to_string(r.bytes) + " B empty");
      std::printf(" %16.3f %7.1f", rate(r), rate(r) * ghz);
    }
    std::printf("\n");
  }

  std::printf("\nmb_link_bw: run %llu cycles, %u supersteps, %.2f s host\n", (unsigned long long)run.stats.cycles,
              run.stats.supersteps, host_s);
  for (const std::string& p : problems) std::printf("mb_link_bw: MISMATCH: %s\n", p.c_str());
  if (problems.empty())
    std::printf("mb_link_bw: every message intact, every figure within the link model%s\n",
                model ? "" : " (not checked: no config)");
  return problems.empty() ? kOk : kMismatch;
}

}  // namespace demo
