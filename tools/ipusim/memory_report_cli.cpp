#include "memory_report_cli.h"

#include <fmt/core.h>

#include <cstdio>
#include <fstream>
#include <ipu/xipu_isa.h>
#include <stdexcept>

#include "config/config_loader.h"
#include "memreport/memory_report.h"

namespace ipusim::cli {

int run_info_elf(const InfoOptions& options) {
  memreport::ElfLayout elf;
  try {
    elf = memreport::read_elf_layout(options.elf);
  } catch (const memreport::ElfLayoutError& e) {
    throw std::invalid_argument(std::string("--elf: ") + e.what());
  }
  uint32_t sram = elf.image_limit.value_or(256 * 1024), workers = IPU_MAX_WORKERS;
  if (!options.config.empty()) {
    try {
      const config::SystemConfig system = config::load_system(options.config);
      sram = system.board.chip.tile.sram_bytes;
      workers = system.board.chip.tile.workers;
    } catch (const config::ConfigError& e) {
      std::fprintf(stderr, "ipusim: error: %s\n", e.what());
      return 2;
    }
  }
  if (options.json)
    fmt::print("{}\n", memreport::elf_json(elf, sram, workers).dump(2));
  else
    fmt::print("{}", memreport::elf_text(elf, sram, workers));
  return 0;
}

bool write_memory_report(const RunOptions& o, const platform::Platform& platform, const std::string& elf_path, bool quiet) {
  memreport::ElfLayout elf;
  try {
    elf = memreport::read_elf_layout(elf_path);
  } catch (const memreport::ElfLayoutError& e) {
    std::fprintf(stderr, "ipusim: error: --memory-report: %s\n", e.what());
    return false;
  }
  const std::vector<memreport::TileMemory> tiles = platform.memory_use();
  const config::ChipConfig& chip = platform.config().board.chip;
  memreport::ReportOptions options;
  options.stack_margin = o.stack_margin.value_or(memreport::kDefaultStackMargin);
  options.workers = chip.tile.workers;
  bool ok = true;
  {
    std::ofstream out(o.memory_report);
    out << memreport::report_json(elf, tiles, options).dump(1) << '\n';
    out.flush();
    if (!out) {
      std::fprintf(stderr, "ipusim: error: --memory-report: cannot write %s\n", o.memory_report.c_str());
      ok = false;
    }
  }
  const std::string map = o.memory_map.empty() ? o.memory_report + ".png" : o.memory_map;
  try {
    memreport::write_tile_map(map, elf, tiles, platform.ipu_count(), chip.tiles, options.stack_margin);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ipusim: error: --memory-map: %s\n", e.what());
    ok = false;
  }
  if (!quiet) std::fputs(memreport::report_text(elf, tiles, options).c_str(), stderr);
  return ok;
}

}  // namespace ipusim::cli
