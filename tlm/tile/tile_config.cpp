#include "tile/tile_config.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ipusim::tile {

TileClock::TileClock(double clock_hz) {
  if (!(clock_hz >= 1.0) || clock_hz > 1e15)
    throw std::invalid_argument("tile clock must be between 1 Hz and 1 PHz, got " +
                                std::to_string(clock_hz));
  hz_ = uint64_t(std::llround(clock_hz));
  // The kernel's resolution is fixed from the first SystemC time made, which every model
  // does while elaborating; reading it per call cost more than the division below.
  const double res_seconds = sc_core::sc_get_time_resolution().to_seconds();
  units_per_second_ = uint64_t(std::llround(1.0 / res_seconds));
}

sc_core::sc_time TileClock::time_of(uint64_t cycle) const {
  // round(cycle * units / hz) in 128-bit integers: exact for any cycle count.
  const unsigned __int128 num = static_cast<unsigned __int128>(cycle) * units_per_second_;
  const unsigned __int128 value = (num + hz_ / 2) / hz_;
  const sc_core::sc_time t = sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(value));
  return epoch_ ? *epoch_ + t : t;
}

TileModuleConfig TileModuleConfig::from(const config::ChipConfig& chip, iss::TileIdentity id) {
  // The SRAM sits at kSramBase in a 32-bit address space.
  constexpr uint64_t kMaxSram = (uint64_t(1) << 32) - iss::kSramBase;
  if (chip.tile.sram_bytes == 0 || chip.tile.sram_bytes > kMaxSram)
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
  c.core.amp_f16_macs = chip.tile.amp_f16_macs_per_cycle;
  c.core.amp_f32_macs = chip.tile.amp_f32_macs_per_cycle;
  c.clock_hz = chip.clock_hz;
  TileClock check(chip.clock_hz);  // throws for an unusable clock
  (void)check;
  return c;
}

}  // namespace ipusim::tile
