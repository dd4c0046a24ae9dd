// `ipusim info --config FILE [--json | --yaml]`: loads a chip, board or system file
// and prints the resolved system with its derived figures (peak FLOPS against the
// published ones, exchange and link bandwidth, memory), as an aligned table, as JSON
// for scripts, or as the effective-config YAML that runs write next to their results.
// A config error prints "ipusim: error: FILE:LINE: KEY: problem" and exits with 2.
#include <fmt/core.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "config/config_loader.h"
#include "config/config_writer.h"

namespace ipusim::cli {
namespace {

using config::SystemConfig;

struct InfoOptions {
  std::string config;
  bool json = false;
  bool yaml = false;
};

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

std::vector<std::pair<std::string, std::string>> table_rows(const SystemConfig& s) {
  const auto& b = s.board;
  const auto& c = b.chip;
  const uint32_t ipus = s.total_ipus();
  std::vector<std::pair<std::string, std::string>> rows = {
      {"name", s.name},
      {"kind", s.kind},
      {"source", s.source},
      {"topology", s.topology},
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
                   si(c.tile.exchange_in_bytes_per_cycle * c.clock_hz, "B/s"),
                   c.tile.exchange_out_bytes_per_cycle, si(c.tile.exchange_out_bytes_per_cycle * c.clock_hz, "B/s"))},
      {"exchange per IPU", fmt::format("{} in, {} out (all tiles)", si(c.exchange_bytes_per_second(), "B/s"),
                                       si(c.exchange_out_bytes_per_second(), "B/s"))},
      {"exchange latency", fmt::format("{}..{} cycles", c.exchange.latency_min_cycles, c.exchange.latency_max_cycles)},
      {"sync latency", fmt::format("{}..{} cycles", c.sync.latency_min_cycles, c.sync.latency_max_cycles)},
      {"IPU-Links per IPU", fmt::format("{} x {} each way, {:g} ns", c.ipu_links.count,
                                        si(c.ipu_links.bytes_per_second, "B/s"), c.ipu_links.latency_ns)},
      {"IPU-Link bandwidth", fmt::format("{} per IPU (all links, both directions)",
                                         si(c.ipu_links_bytes_per_second_total(), "B/s"))},
      {"streaming memory", b.streaming_memory_bytes == 0
                               ? std::string("none")
                               : fmt::format("{} per board, {} total; {}, {:g} ns",
                                             binary_bytes(b.streaming_memory_bytes),
                                             binary_bytes(b.streaming_memory_bytes * s.boards),
                                             si(b.streaming_memory_bytes_per_second, "B/s"),
                                             b.streaming_memory_latency_ns)},
      {"host link", fmt::format("{} each way per board, {:g} ns", si(b.host_link_bytes_per_second, "B/s"),
                                b.host_link_latency_ns)},
  };
  return rows;
}

void print_table(const SystemConfig& s) {
  auto rows = table_rows(s);
  size_t width = 0;
  for (const auto& [label, value] : rows) width = std::max(width, label.size());
  for (const auto& [label, value] : rows) fmt::print("{:<{}}  {}\n", label, width, value);
}

nlohmann::ordered_json chip_json(const config::ChipConfig& c) {
  return {
      {"name", c.name},
      {"source", c.source},
      {"tiles", c.tiles},
      {"clock_hz", c.clock_hz},
      {"tile",
       {{"sram_bytes", c.tile.sram_bytes},
        {"workers", c.tile.workers},
        {"thread_quantum", c.tile.thread_quantum},
        {"exchange_in_bytes_per_cycle", c.tile.exchange_in_bytes_per_cycle},
        {"exchange_out_bytes_per_cycle", c.tile.exchange_out_bytes_per_cycle},
        {"amp_f16_macs_per_cycle", c.tile.amp_f16_macs_per_cycle},
        {"amp_f32_macs_per_cycle", c.tile.amp_f32_macs_per_cycle}}},
      {"ipu_links",
       {{"count", c.ipu_links.count},
        {"bytes_per_second", c.ipu_links.bytes_per_second},
        {"latency_ns", c.ipu_links.latency_ns}}},
      {"exchange",
       {{"latency_min_cycles", c.exchange.latency_min_cycles},
        {"latency_max_cycles", c.exchange.latency_max_cycles}}},
      {"sync", {{"latency_min_cycles", c.sync.latency_min_cycles}, {"latency_max_cycles", c.sync.latency_max_cycles}}},
      {"published_f16_tflops", c.published_f16_tflops},
      {"published_f32_tflops", c.published_f32_tflops},
  };
}

nlohmann::ordered_json system_json(const SystemConfig& s) {
  const auto& b = s.board;
  const auto& c = b.chip;
  const double ipus = s.total_ipus();
  nlohmann::ordered_json board = {
      {"name", b.name},
      {"source", b.source},
      {"ipus", b.ipus},
      {"chip", chip_json(c)},
      {"streaming_memory_bytes", b.streaming_memory_bytes},
      {"streaming_memory_bytes_per_second", b.streaming_memory_bytes_per_second},
      {"streaming_memory_latency_ns", b.streaming_memory_latency_ns},
      {"host_link_bytes_per_second", b.host_link_bytes_per_second},
      {"host_link_latency_ns", b.host_link_latency_ns},
  };
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
      {"exchange_in_bytes_per_second_per_tile", c.tile.exchange_in_bytes_per_cycle * c.clock_hz},
      {"exchange_out_bytes_per_second_per_tile", c.tile.exchange_out_bytes_per_cycle * c.clock_hz},
      {"exchange_in_bytes_per_second_per_ipu", c.exchange_bytes_per_second()},
      {"exchange_out_bytes_per_second_per_ipu", c.exchange_out_bytes_per_second()},
      {"ipu_links_bytes_per_second_per_ipu", c.ipu_links_bytes_per_second_total()},
      {"streaming_memory_bytes_total", b.streaming_memory_bytes * s.boards},
  };
  return {
      {"name", s.name}, {"kind", s.kind},   {"source", s.source},   {"topology", s.topology},
      {"boards", s.boards}, {"board", board}, {"derived", derived},
  };
}

int run_info(const InfoOptions& options) {
  SystemConfig system;
  try {
    system = config::load_system(options.config);
  } catch (const config::ConfigError& e) {
    std::fprintf(stderr, "ipusim: error: %s\n", e.what());
    return 2;
  }
  if (options.json) {
    fmt::print("{}\n", system_json(system).dump(2));
  } else if (options.yaml) {
    fmt::print("{}", config::to_yaml(system));
  } else {
    print_table(system);
  }
  return 0;
}

}  // namespace

void add_info_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* info = app.add_subcommand("info", "Print a chip, board or system configuration, resolved");
  info->add_option("-c,--config", options->config, "Chip, board or system YAML file (configs/*.yaml)")
      ->required();
  auto* json = info->add_flag("--json", options->json, "Print machine-readable JSON");
  info->add_flag("--yaml", options->yaml, "Print the effective configuration as YAML")->excludes(json);
  info->callback([options, &exit_code] { exit_code = run_info(*options); });
}

}  // namespace ipusim::cli
