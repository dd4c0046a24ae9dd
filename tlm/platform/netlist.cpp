#include "platform/netlist.h"

#include <string>

namespace ipusim::platform {

Ipu::Ipu(sc_core::sc_module_name name, const config::ChipConfig& chip, uint32_t index,
         uint32_t ipus, SyncBarrier& group_barrier)
    : sc_module(name),
      index_(index),
      ipu_barrier_("ipu_sync_released"),
      sync_port_(ipu_barrier_, group_barrier) {
  tiles_.reserve(chip.tiles);
  for (uint32_t t = 0; t < chip.tiles; ++t) {
    iss::TileIdentity id;
    id.tile = t;
    id.ipu = index;
    id.ipus = ipus;
    const std::string tile_name = "tile" + std::to_string(t);
    tiles_.push_back(
        std::make_unique<tile::Tile>(tile_name.c_str(), tile::TileModuleConfig::from(chip, id)));
  }
}

uint32_t Ipu::loaded_tiles() const {
  uint32_t n = 0;
  for (const auto& t : tiles_) n += t->loaded() ? 1 : 0;
  return n;
}

}  // namespace ipusim::platform
