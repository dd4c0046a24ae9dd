// What a Tile module is built from: the ISS parameters of one tile (identity, SRAM,
// threads, AMP rates) and its clock rate, taken from the chip config plus the tile's place
// in the system.
#pragma once

#include <cstdint>

#include <systemc>

#include "iss/tile_core.h"
#include "common/clock.h"
#include "common/config.h"

namespace ipusim::tile {

struct TileModuleConfig {
  iss::TileParams core;   // identity, SRAM bytes, worker contexts, thread quantum, AMP
  double clock_hz = 0;    // tile clock (ChipConfig::clock_hz)

  // The config of tile `id.tile` of IPU `id.ipu` of a chip. `id.tiles_per_ipu` is taken
  // from the chip; `id.ipus` is the caller's. Throws std::invalid_argument for a chip
  // the ISS cannot model (SRAM that does not fit the 32-bit tile address space, no clock).
  static TileModuleConfig from(const config::ChipConfig& chip, iss::TileIdentity id);
};

}  // namespace ipusim::tile
