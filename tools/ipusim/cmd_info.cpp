// `ipusim info --config FILE [--links] [--ranks R] [--json | --yaml]`: loads a chip, board or system
// file and prints the resolved system with its derived figures (peak FLOPS against the
// published ones, exchange and link bandwidth, memory, the IPU-Link wiring, hop counts
// and the zone-2 sync they give), as an aligned table followed by the topology drawn as
// text, as JSON for scripts, or as the effective-config YAML that runs write next to
// their results. --ranks R adds the partition over R MPI ranks (docs/distributed.md).
// `--elf F` prints a program's memory instead (memory_report_cli.cpp).
// A config error prints "ipusim: error: FILE:LINE: KEY: problem" and exits with 2.
#include <fmt/core.h>

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "config/config_loader.h"
#include "config/config_writer.h"
#include "dist/partition.h"
#include "dist/ranks.h"
#include "links/topology.h"
#include "memory_report_cli.h"
#include "partition_report.h"
#include "platform/memory_estimate.h"

namespace ipusim::cli {
namespace {

using config::SystemConfig;

// Up to this many IPUs the drawing shows every port and every hop count; above it, a
// summary per board (--links shows all).
constexpr uint32_t kDrawAllIpus = 16;
// links::Topology keeps an IPUs x IPUs table: above this many IPUs info leaves the hop
// figures out rather than allocate gigabytes.
constexpr uint32_t kTopologyIpusMax = 1024;

// The wiring's figures: the topology (when small enough) and the sync group of all IPUs.
struct Wiring {
  std::optional<links::Topology> topology;
  std::optional<links::SyncGroupPath> sync;  // when every IPU reaches every other
  std::vector<uint64_t> histogram;           // IPU pairs (a < b) by hops, index = hops
};

Wiring wiring_of(const SystemConfig& s) {
  Wiring w;
  if (s.total_ipus() > kTopologyIpusMax) return w;
  w.topology.emplace(links::Topology::of(s));
  const links::Topology& t = *w.topology;
  w.histogram.assign(t.diameter() + 1, 0);
  for (uint32_t a = 0; a < t.ipus(); ++a)
    for (uint32_t b = a + 1; b < t.ipus(); ++b)
      if (t.hops(a, b) != links::Topology::kUnreachable) ++w.histogram[t.hops(a, b)];
  if (t.connected()) {
    std::vector<uint32_t> all(t.ipus());
    for (uint32_t i = 0; i < t.ipus(); ++i) all[i] = i;
    w.sync = links::sync_group_path(t, all, s.board.chip);
  }
  return w;
}

// "76 (64 inside boards, 12 between boards); 8 of 160 ports unbound"
// What `run`, `serve` and devices check before elaborating (docs/platform.md "Memory
// estimate"), and against what.
std::string memory_text(const SystemConfig& s) {
  const platform::MemoryEstimate e = platform::estimate_memory(s);
  std::string text = fmt::format("{} resident with a short program on every tile (up to {} if every tile fills "
                                 "its SRAM), {} address space",
                                 platform::memory_text(e.resident_bytes), platform::memory_text(e.upper_bytes),
                                 platform::memory_text(e.address_bytes));
  for (const platform::MemoryLimit& limit : platform::memory_limits(std::nullopt))
    text += fmt::format("; the limit here: {} ({})", platform::memory_text(limit.bytes), limit.source);
  return text;
}

std::string links_text(const SystemConfig& s) {
  if (s.links().empty()) return "none";
  const uint32_t n = s.board.ipus;
  size_t inside = 0;
  for (const config::LinkWire& w : s.links()) inside += w.ipu_a / n == w.ipu_b / n;
  const uint64_t ports = uint64_t(s.total_ipus()) * s.board.chip.ipu_links.count;
  std::string text = fmt::format("{}", s.links().size());
  if (s.boards > 1) text += fmt::format(" ({} inside boards, {} between boards)", inside, s.links().size() - inside);
  return text + fmt::format("; {} of {} ports unbound", ports - 2 * s.links().size(), ports);
}

std::string hops_text(const Wiring& w) {
  if (!w.topology) return fmt::format("not computed above {} IPUs", kTopologyIpusMax);
  std::string text = fmt::format("diameter {}", w.topology->diameter());
  if (!w.topology->connected()) text += " (some IPUs cannot reach each other)";
  if (w.histogram.size() > 1) {
    text += "; IPU pairs at";
    for (size_t h = 1; h < w.histogram.size(); ++h) text += fmt::format("{}{} hop{}: {}", h == 1 ? " " : ", ", h, h == 1 ? "" : "s", w.histogram[h]);
  }
  return text;
}

// The external sync of every IPU: "master IPU 4, 3 hops out and back x 20 cycles = 120
// cycles; farthest tile 200 cycles (150.94 ns)".
std::string sync_text(const SystemConfig& s, const Wiring& w) {
  const auto& c = s.board.chip;
  if (!w.sync) return w.topology ? "none (the IPUs are not all linked)" : "not computed";
  const uint64_t farthest = c.sync.latency_max_cycles + w.sync->latency_cycles;
  return fmt::format("master IPU {}, 2 x {} hop{} x {} cycles ({:g} ns) = {} cycles; farthest tile {} cycles ({:.2f} ns)",
                     w.sync->master, w.sync->radius, w.sync->radius == 1 ? "" : "s", w.sync->hop_cycles,
                     c.ipu_links.sync_hop_ns, w.sync->latency_cycles, farthest, farthest / c.clock_hz * 1e9);
}

// Two decimals, trailing zeros dropped: "7.78", "320", "5.3".
std::string two_decimals(double value) {
  std::string text = fmt::format("{:.2f}", value);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

// Decimal SI prefixes: "249.65 TFLOPS", "7.78 TB/s".
std::string si(double value, const char* unit) {
  static const std::pair<double, const char*> prefixes[] = {
      {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& [scale, prefix] : prefixes) {
    if (std::fabs(value) >= scale) return two_decimals(value / scale) + " " + prefix + unit;
  }
  return two_decimals(value) + " " + unit;
}

// Bytes in binary units, exact where it can be ("624 KiB", "897 MiB", "1.17 TiB").
std::string binary_bytes(uint64_t bytes) {
  static const std::pair<uint64_t, const char*> units[] = {
      {uint64_t(1) << 40, "TiB"}, {uint64_t(1) << 30, "GiB"}, {uint64_t(1) << 20, "MiB"}, {1024, "KiB"}};
  for (const auto& [scale, unit] : units) {
    if (bytes >= scale) {
      if (bytes % scale == 0) return fmt::format("{} {}", bytes / scale, unit);
      return two_decimals(double(bytes) / double(scale)) + " " + unit;
    }
  }
  return fmt::format("{} B", bytes);
}

// "(published 249.7 T, -0.02 %)" or "" when there is no published figure.
std::string against_published(double model_flops, double published_tflops) {
  if (published_tflops <= 0) return "";
  double diff = 100.0 * (model_flops / (published_tflops * 1e12) - 1.0);
  return fmt::format("  (published {:g} TFLOPS, {:+.2f} %)", published_tflops, diff);
}

double percent_difference(double model_flops, double published_tflops) {
  return published_tflops > 0 ? 100.0 * (model_flops / (published_tflops * 1e12) - 1.0) : 0.0;
}

std::vector<std::pair<std::string, std::string>> table_rows(const SystemConfig& s, const Wiring& wiring) {
  const auto& b = s.board;
  const auto& c = b.chip;
  const uint32_t ipus = s.total_ipus();
  std::vector<std::pair<std::string, std::string>> rows = {
      {"name", s.name()},
      {"kind", s.kind},
      {"source", s.source},
      {"topology", s.topology().empty() ? std::string("links listed in the file") : s.topology()},
      {"boards", fmt::format("{} x {} ({})", s.boards, b.name, b.source)},
      {"IPUs", fmt::format("{} per board, {} total", b.ipus, ipus)},
      {"chip", fmt::format("{} ({})", c.name, c.source)},
      {"tiles", fmt::format("{} per IPU, {} total", c.tiles, s.total_tiles())},
      {"SRAM", fmt::format("{} per tile, {} per IPU, {} total", binary_bytes(c.tile.sram_bytes),
                           binary_bytes(c.sram_bytes_total()),
                           binary_bytes(c.sram_bytes_total() * ipus))},
      {"clock", fmt::format("{:g} MHz", c.clock_hz / 1e6)},
      {"threads per tile", fmt::format("1 supervisor + {} workers, quantum {} instructions",
                                       c.tile.workers, c.tile.thread_quantum)},
      {"AMP per tile", fmt::format("{} f16 MAC/cycle, {} f32 MAC/cycle", c.tile.amp_f16_macs_per_cycle,
                                   c.tile.amp_f32_macs_per_cycle)},
      {"peak f16 per IPU", si(c.peak_f16_flops(), "FLOPS") + against_published(c.peak_f16_flops(), c.published_f16_tflops)},
      {"peak f16 system", si(c.peak_f16_flops() * ipus, "FLOPS")},
      {"peak f32 per IPU", si(c.peak_f32_flops(), "FLOPS") + against_published(c.peak_f32_flops(), c.published_f32_tflops)},
      {"peak f32 system", si(c.peak_f32_flops() * ipus, "FLOPS")},
      {"exchange per tile",
       fmt::format("{} B/cycle in ({}), {} B/cycle out ({})", c.tile.exchange_in_bytes_per_cycle,
                   si(c.tile_exchange_in_bytes_per_second(), "B/s"), c.tile.exchange_out_bytes_per_cycle,
                   si(c.tile_exchange_out_bytes_per_second(), "B/s"))},
      {"exchange per IPU", fmt::format("{} in, {} out (all tiles)", si(c.exchange_bytes_per_second(), "B/s"),
                                       si(c.exchange_out_bytes_per_second(), "B/s"))},
      {"exchange latency", fmt::format("{}..{} cycles", c.exchange.latency_min_cycles, c.exchange.latency_max_cycles)},
      {"sync latency", fmt::format("{}..{} cycles", c.sync.latency_min_cycles, c.sync.latency_max_cycles)},
      {"IPU-Links per IPU", fmt::format("{} x {} each way, {:g} ns", c.ipu_links.count,
                                        si(c.ipu_links.bytes_per_second, "B/s"), c.ipu_links.latency_ns)},
      {"IPU-Link bandwidth", fmt::format("{} per IPU (all links, both directions)",
                                         si(c.ipu_links_bytes_per_second_total(), "B/s"))},
      {"IPU-Links wired", links_text(s)},
      {"IPU hops", hops_text(wiring)},
      {"zone-2 sync", sync_text(s, wiring)},
      {"streaming memory", b.streaming_memory_bytes == 0
                               ? std::string("none")
                               : fmt::format("{} per board, {} total; {}, {:g} ns",
                                             binary_bytes(b.streaming_memory_bytes),
                                             binary_bytes(b.streaming_memory_bytes * s.boards),
                                             si(b.streaming_memory_bytes_per_second, "B/s"),
                                             b.streaming_memory_latency_ns)},
      {"host link", fmt::format("{} each way per board, {:g} ns", si(b.host_link_bytes_per_second, "B/s"),
                                b.host_link_latency_ns)},
      {"memory estimate", memory_text(s)},
  };
  return rows;
}

void print_table(const SystemConfig& s, const Wiring& wiring) {
  auto rows = table_rows(s, wiring);
  size_t width = 0;
  for (const auto& [label, value] : rows) width = std::max(width, label.size());
  for (const auto& [label, value] : rows) fmt::print("{:<{}}  {}\n", label, width, value);
}

// Every IPU's ports: the peer "IPU.port" of each, "-" where none is wired.
void print_ports(const SystemConfig& s) {
  const uint32_t ipus = s.total_ipus(), ports = s.board.chip.ipu_links.count;
  std::vector<std::string> peer(size_t(ipus) * ports, "-");
  for (const config::LinkWire& w : s.links()) {
    peer[size_t(w.ipu_a) * ports + w.port_a] = fmt::format("{}.{}", w.ipu_b, w.port_b);
    peer[size_t(w.ipu_b) * ports + w.port_b] = fmt::format("{}.{}", w.ipu_a, w.port_a);
  }
  size_t width = 1;
  for (const std::string& p : peer) width = std::max(width, p.size());
  width = std::max(width, fmt::format("{}", ports - 1).size());
  fmt::print("\nIPU-Link ports (peer IPU.port, - unbound)\n{:>5}", "IPU");
  for (uint32_t p = 0; p < ports; ++p) fmt::print(" {:>{}}", p, width);
  fmt::print("\n");
  for (uint32_t i = 0; i < ipus; ++i) {
    fmt::print("{:>5}", i);
    for (uint32_t p = 0; p < ports; ++p) fmt::print(" {:>{}}", peer[size_t(i) * ports + p], width);
    fmt::print("\n");
  }
}

// Hops between every two IPUs ("-": no path).
void print_hops(const links::Topology& t) {
  const size_t width = std::max(fmt::format("{}", t.ipus() - 1).size(), fmt::format("{}", t.diameter()).size());
  fmt::print("\nhops (IPU-Links on a shortest path)\n{:>5}", "IPU");
  for (uint32_t b = 0; b < t.ipus(); ++b) fmt::print(" {:>{}}", b, width);
  fmt::print("\n");
  for (uint32_t a = 0; a < t.ipus(); ++a) {
    fmt::print("{:>5}", a);
    for (uint32_t b = 0; b < t.ipus(); ++b) {
      const uint32_t h = t.hops(a, b);
      fmt::print(" {:>{}}", h == links::Topology::kUnreachable ? std::string("-") : fmt::format("{}", h), width);
    }
    fmt::print("\n");
  }
}

// One line per board: its IPUs, the links inside it and the links to each other board.
void print_boards(const SystemConfig& s) {
  const uint32_t n = s.board.ipus;
  fmt::print("\nboards (IPU-Links inside, and to each other board)\n{:>5}  {:<11}  {:>6}  {}\n", "board", "IPUs",
             "inside", "to other boards");
  for (uint32_t b = 0; b < s.boards; ++b) {
    size_t inside = 0;
    std::vector<std::pair<uint32_t, size_t>> others;  // board, links; ascending board
    for (const config::LinkWire& w : s.links()) {
      const uint32_t ba = w.ipu_a / n, bb = w.ipu_b / n;
      if (ba != b && bb != b) continue;
      if (ba == bb) {
        ++inside;
        continue;
      }
      const uint32_t other = ba == b ? bb : ba;
      auto it = std::lower_bound(others.begin(), others.end(), std::pair{other, size_t(0)});
      if (it == others.end() || it->first != other) it = others.insert(it, {other, 0});
      ++it->second;
    }
    std::string to;
    for (const auto& [other, count] : others) to += fmt::format("{}board {}: {}", to.empty() ? "" : ", ", other, count);
    const std::string range = n == 1 ? fmt::format("{}", b * n) : fmt::format("{}-{}", b * n, b * n + n - 1);
    fmt::print("{:>5}  {:<11}  {:>6}  {}\n", b, range, inside, to.empty() ? "none" : to);
  }
}

// The topology as text: every port and hop up to kDrawAllIpus IPUs (or with --links),
// else one line per board; nothing for a system without links.
void print_topology(const SystemConfig& s, const Wiring& wiring, bool all) {
  if (s.links().empty()) return;
  if (all || s.total_ipus() <= kDrawAllIpus) {
    print_ports(s);
    if (wiring.topology) print_hops(*wiring.topology);
  } else {
    print_boards(s);
  }
}

// put_<section>_json(): every config key's struct member (config.h's names and units),
// generated from tlm/config/schema.yaml.
#include "info_config_json.inc"

nlohmann::ordered_json chip_json(const config::ChipConfig& c) {
  nlohmann::ordered_json j = {{"name", c.name}, {"source", c.source}};
  put_chip_json(j, c);
  return j;
}

nlohmann::ordered_json links_json(const std::vector<config::LinkWire>& wires) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const config::LinkWire& w : wires)
    out.push_back({{"ipu_a", w.ipu_a}, {"port_a", w.port_a}, {"ipu_b", w.ipu_b}, {"port_b", w.port_b}});
  return out;
}

// Diameter, hop histogram and matrix (null for "no path"), and the zone-2 sync; the hop
// figures are null above kTopologyIpusMax IPUs.
nlohmann::ordered_json wiring_json(const SystemConfig& s, const Wiring& w) {
  nlohmann::ordered_json out;
  if (!w.topology) {
    out = {{"diameter", nullptr}, {"connected", nullptr}, {"hop_histogram", nullptr}, {"hops", nullptr}};
  } else {
    const links::Topology& t = *w.topology;
    nlohmann::ordered_json hops = nlohmann::ordered_json::array();
    for (uint32_t a = 0; a < t.ipus(); ++a) {
      nlohmann::ordered_json row = nlohmann::ordered_json::array();
      for (uint32_t b = 0; b < t.ipus(); ++b)
        row.push_back(t.hops(a, b) == links::Topology::kUnreachable ? nlohmann::ordered_json(nullptr)
                                                                     : nlohmann::ordered_json(t.hops(a, b)));
      hops.push_back(std::move(row));
    }
    out = {{"diameter", t.diameter()}, {"connected", t.connected()}, {"hop_histogram", w.histogram}, {"hops", hops}};
  }
  if (w.sync) {
    out["sync"] = {{"master_ipu", w.sync->master},
                   {"radius_hops", w.sync->radius},
                   {"hop_cycles", w.sync->hop_cycles},
                   {"group_latency_cycles", w.sync->latency_cycles},
                   {"farthest_tile_cycles", s.board.chip.sync.latency_max_cycles + w.sync->latency_cycles}};
  } else {
    out["sync"] = nullptr;
  }
  return out;
}

nlohmann::ordered_json system_json(const SystemConfig& s, const Wiring& wiring) {
  const auto& b = s.board;
  const auto& c = b.chip;
  const double ipus = s.total_ipus();
  nlohmann::ordered_json board = {{"name", b.name}, {"source", b.source}, {"chip", chip_json(c)}};
  put_board_json(board, b);
  board["topology"] = b.topology;
  board["links"] = links_json(b.links);
  nlohmann::ordered_json derived = {
      {"ipus_total", s.total_ipus()},
      {"tiles_total", s.total_tiles()},
      {"sram_bytes_per_ipu", c.sram_bytes_total()},
      {"sram_bytes_total", c.sram_bytes_total() * s.total_ipus()},
      {"peak_f16_flops_per_ipu", c.peak_f16_flops()},
      {"peak_f16_flops_total", c.peak_f16_flops() * ipus},
      {"peak_f16_vs_published_percent", percent_difference(c.peak_f16_flops(), c.published_f16_tflops)},
      {"peak_f32_flops_per_ipu", c.peak_f32_flops()},
      {"peak_f32_flops_total", c.peak_f32_flops() * ipus},
      {"peak_f32_vs_published_percent", percent_difference(c.peak_f32_flops(), c.published_f32_tflops)},
      {"exchange_in_bytes_per_second_per_tile", c.tile_exchange_in_bytes_per_second()},
      {"exchange_out_bytes_per_second_per_tile", c.tile_exchange_out_bytes_per_second()},
      {"exchange_in_bytes_per_second_per_ipu", c.exchange_bytes_per_second()},
      {"exchange_out_bytes_per_second_per_ipu", c.exchange_out_bytes_per_second()},
      {"ipu_links_bytes_per_second_per_ipu", c.ipu_links_bytes_per_second_total()},
      {"streaming_memory_bytes_total", b.streaming_memory_bytes * s.boards},
      {"memory_estimate_bytes", platform::estimate_memory(s).resident_bytes},
      {"memory_estimate_upper_bytes", platform::estimate_memory(s).upper_bytes},
      {"address_space_estimate_bytes", platform::estimate_memory(s).address_bytes},
  };
  nlohmann::ordered_json out = {{"name", s.name()}, {"kind", s.kind}, {"source", s.source}, {"topology", s.topology()}};
  put_system_json(out, s);  // boards
  out["board"] = std::move(board);
  out["links"] = links_json(s.links());
  out["derived"] = std::move(derived);
  out["wiring"] = wiring_json(s, wiring);
  return out;
}

}  // namespace

int run_info(const InfoOptions& options) {
  if (!options.elf.empty()) return run_info_elf(options);
  SystemConfig system;
  try {
    system = config::load_system(options.config);
  } catch (const config::ConfigError& e) {
    std::fprintf(stderr, "ipusim: error: %s\n", e.what());
    return 2;
  }
  // --ranks R: the partition, or why R cannot run the system (before anything is printed).
  std::optional<dist::Partition> partition;
  if (options.ranks) {
    if (*options.ranks < 1)
      throw dist::PartitionError("--ranks: " + std::to_string(*options.ranks) +
                                 " ranks: a system runs on at least 1 rank");
    try {
      partition = dist::partition_system(system, uint32_t(std::min<int64_t>(*options.ranks, UINT32_MAX)), "--ranks");
    } catch (const config::ConfigError& e) {
      std::fprintf(stderr, "ipusim: error: %s\n", e.what());
      return 2;
    }
  }
  // Under mpirun, one rank prints (each would print the same).
  if (dist::rank_place().rank != 0) return 0;
  if (options.yaml) {
    fmt::print("{}", config::to_yaml(system));
    return 0;
  }
  const Wiring wiring = wiring_of(system);
  if (options.json) {
    nlohmann::ordered_json out = system_json(system, wiring);
    if (partition) out["partition"] = partition_json(system, *partition);
    fmt::print("{}\n", out.dump(2));
  } else {
    print_table(system, wiring);
    print_topology(system, wiring, options.links);
    if (partition) fmt::print("\n{}", partition_text(system, *partition));
  }
  return 0;
}

}  // namespace ipusim::cli
