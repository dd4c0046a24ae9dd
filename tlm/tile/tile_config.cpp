#include "tile/tile_config.h"

#include <stdexcept>
#include <string>

namespace ipusim::tile {

TileModuleConfig TileModuleConfig::from(const config::ChipConfig& chip, iss::TileIdentity id) {
  // The SRAM sits at kSramBase in the tile address space. (The core's own check is one
  // word tighter, scheduler.cpp; a loaded config is a KiB below either.)
  if (chip.tile.sram_bytes == 0 || chip.tile.sram_bytes > iss::kSramMaxBytes)
    throw std::invalid_argument("chip '" + chip.name + "': tile.sram_bytes " +
                                std::to_string(chip.tile.sram_bytes) +
                                " does not fit the tile address space");
  if (chip.tiles == 0) throw std::invalid_argument("chip '" + chip.name + "' has no tiles");
  TileModuleConfig c;
  id.tiles_per_ipu = chip.tiles;
  c.core.id = id;
  c.core.sram_bytes = uint32_t(chip.tile.sram_bytes);
  c.core.workers = chip.tile.workers;
  c.core.thread_quantum = chip.tile.thread_quantum;
  c.core.load_bytes_per_cycle = chip.tile.load_bytes_per_cycle;
  c.core.store_bytes_per_cycle = chip.tile.store_bytes_per_cycle;
  c.core.co_issue = chip.tile.co_issue;
  c.core.core = chip.tile.iss_lockstep ? iss::TileParams::Core::lockstep
                : chip.tile.iss_jit     ? iss::TileParams::Core::jit
                                        : iss::TileParams::Core::interp;
  c.core.amp_f16_macs = chip.tile.amp_f16_macs_per_cycle;
  c.core.amp_f32_macs = chip.tile.amp_f32_macs_per_cycle;
  c.clock_hz = chip.clock_hz;
  TileClock check(chip.clock_hz);  // throws for an unusable clock
  (void)check;
  return c;
}

}  // namespace ipusim::tile
