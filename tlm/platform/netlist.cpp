#include "platform/netlist.h"

#include <string>

#include "cosim/sync/rtl_sync_controller.h"
#include "platform/memory_reserve.h"

namespace ipusim::platform {
namespace {

// Address space a tile's elaboration must find free before it starts: its SRAM mapping
// (624 KiB for a GC200), its modules' allocations, and room to spare.
constexpr size_t kTileHeadroomBytes = size_t{8} << 20;

}  // namespace

Ipu::Ipu(sc_core::sc_module_name name, const config::ChipConfig& chip, uint32_t index,
         uint32_t ipus, sync::GroupSync& group, const config::CosimConfig& cosim,
         cosim::Waves* waves)
    : sc_module(name),
      link_out("link_out", chip.ipu_links.count),
      link_in("link_in", chip.ipu_links.count),
      index_(index) {
  // What is being built, for the error of an elaboration that fails (out of memory).
  std::string building = "ipu " + std::to_string(index) + " sync controller";
  try {
    for (LinkIn& in : link_in) in.register_b_transport(this, &Ipu::link_b_transport);
    const sync::SyncControllerConfig sync_config = sync::SyncControllerConfig::from(chip, index);
    if (cosim.sync == config::BlockModel::Rtl)
      sync_ = std::make_unique<cosim::RtlSyncController>("sync", sync_config, group, waves);
    else
      sync_ = std::make_unique<sync::SyncController>("sync", sync_config, group);
    building = "ipu " + std::to_string(index) + " exchange fabric";
    exchange_ = std::make_unique<exchange::ExchangeFabric>(
        "exchange", exchange::ExchangeFabricConfig::from(chip, index, ipus));
    tiles_.reserve(chip.tiles);
    for (uint32_t t = 0; t < chip.tiles; ++t) {
      building = "ipu " + std::to_string(index) + " tile " + std::to_string(t);
      require_address_space(kTileHeadroomBytes);  // memory_reserve.h: why
      iss::TileIdentity id;
      id.tile = t;
      id.ipu = index;
      id.ipus = ipus;
      const std::string tile_name = "tile" + std::to_string(t);
      tiles_.push_back(std::make_unique<tile::Tile>(tile_name.c_str(), tile::TileModuleConfig::from(chip, id)));
      tile::Tile& tile = *tiles_.back();
      tile.sync_socket.bind(sync_->tile_socket);
      tile.exchange_socket.bind(exchange_->tile_socket);
      exchange_->memory_socket.bind(tile.mem_socket);
    }
  } catch (const std::exception& e) {
    // Not thrown on: a module destroyed half-built hands its children to the kernel's
    // top level, which allocates (and out of memory ends in std::terminate), and tearing
    // down what was built would take minutes for a big system. The platform abandons it.
    failure_ = "building " + building + ": " + e.what();
  }
}

Ipu::~Ipu() = default;

void Ipu::set_epoch(const sc_core::sc_time* epoch) {
  sync_->set_epoch(epoch);
  exchange_->set_epoch(epoch);
  for (auto& t : tiles_) t->set_epoch(epoch);
}

uint32_t Ipu::loaded_tiles() const {
  uint32_t n = 0;
  for (const auto& t : tiles_) n += t->loaded() ? 1 : 0;
  return n;
}

void Ipu::prepare_run() {
  for (uint32_t t = 0; t < tile_count(); ++t)
    if (tiles_[t]->loaded()) {
      sync_->set_participant(t);
      exchange_->set_participant(t);
    }
  sync_->join_group();
  exchange_->join_group();
}

void Ipu::link_b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time&) {
  trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);  // the exchange group carries link traffic
}

}  // namespace ipusim::platform
