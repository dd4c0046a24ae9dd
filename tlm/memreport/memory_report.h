// The memory report of a run (docs/memory_report.md): the program's sections and symbols
// (elf_layout.h), every tile's SRAM by region with what the run measured (tile_memory.h),
// a chip summary and the warnings, as JSON (`ipusim run --memory-report FILE`), as a
// readable summary, and the tile map as a PNG. Plain C++.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "memreport/elf_layout.h"
#include "memreport/tile_memory.h"

namespace ipusim::memreport {

inline constexpr uint32_t kDefaultStackMargin = 256;  // --stack-margin's default, bytes
inline constexpr uint32_t kSymbolsListed = 20;          // the largest symbols the report lists

struct ReportOptions {
  uint32_t stack_margin = kDefaultStackMargin;  // warn when a stack came within this of its region's end
  uint32_t workers = 6;                         // worker contexts per tile (the chip's)
};

// A stack that came within the margin of its region's end (or crossed it).
struct StackWarning {
  uint32_t ipu = 0, tile = 0, thread = 0;
  uint32_t high_water = 0, size = 0;
  bool overflow = false;
  std::string text() const;
};

// One tile's SRAM in figures (report_tile).
struct TileFigures {
  uint32_t image = 0;        // code + data + bss: __heap_start - SRAM base
  uint32_t heap_used = 0;    // the break above __heap_start
  uint32_t heap_size = 0;    // __heap_start .. the worker stacks
  uint32_t stacks_reserved = 0, stacks_used = 0;  // the regions; their high-water marks
  uint32_t used = 0;         // image + heap_used + stacks_used
  uint32_t free = 0;         // SRAM - image - heap_used - stacks_reserved: room nothing claimed
};
TileFigures tile_figures(const ElfLayout& elf, const TileMemory& t);

std::vector<StackWarning> stack_warnings(const std::vector<TileMemory>& tiles, uint32_t margin);

// `ipusim info --elf`: the ELF alone, laid out for a tile of `sram_bytes`.
nlohmann::ordered_json elf_json(const ElfLayout& elf, uint32_t sram_bytes, uint32_t workers);
std::string elf_text(const ElfLayout& elf, uint32_t sram_bytes, uint32_t workers);

// The run's report: the ELF's part, every tile, the chip summary, the warnings.
nlohmann::ordered_json report_json(const ElfLayout& elf, const std::vector<TileMemory>& tiles,
                                   const ReportOptions& options);
// The summary a run prints on stderr.
std::string report_text(const ElfLayout& elf, const std::vector<TileMemory>& tiles, const ReportOptions& options);

// The tile map: one square cell of kCellPixels per tile, each IPU a block of
// tile_map_columns(tiles of the IPU) columns, the IPUs one below the other, a cell's
// colour its tile's used share of SRAM (green empty .. red full; magenta: a stack warning;
// grey: not loaded). Throws std::runtime_error naming the path when it cannot be written.
inline constexpr uint32_t kCellPixels = 8;
uint32_t tile_map_columns(uint32_t tiles_per_ipu);
struct MapSize {
  uint32_t width = 0, height = 0;
};
MapSize tile_map_size(uint32_t ipus, uint32_t tiles_per_ipu);
void write_tile_map(const std::string& path, const ElfLayout& elf, const std::vector<TileMemory>& tiles,
                    uint32_t ipus, uint32_t tiles_per_ipu, uint32_t stack_margin);

}  // namespace ipusim::memreport
