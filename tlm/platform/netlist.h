// The module tree of one IPU, built by Platform from the chip part of the system config.
//
//   ipu<I>                 Ipu
//     tile<T>              tile::Tile, T = 0 .. tiles-1
//     sync                 sync::SyncController
//     exchange             exchange::ExchangeFabric
//     link_out_<L>, link_in_<L>   IPU-Link ports, L = 0 .. ipu_links.count-1
//
// Wiring (binding T of each multi-socket is tile T):
//   tile<T>.sync_socket      -> sync.tile_socket
//   tile<T>.exchange_socket  -> exchange.tile_socket
//   exchange.memory_socket   -> tile<T>.mem_socket
// The sync group (zone 2) spans the IPUs through the platform's sync::GroupSync.
//
// IPU-Link ports: one initiator (link_out) and one target (link_in) per configured link,
// both optional (zero binds allowed) and left unbound: messages between IPUs travel
// through the run domain's exchange::ExchangeGroup, which times them over the links
// (links::LinkScheduler). A transaction arriving at link_in is answered with
// TLM_COMMAND_ERROR_RESPONSE.
//
// Parameters: the chip config (tiles per IPU, tile config, clock, link count, sync
// and exchange latencies, exchange rates), the IPU's index and the system's IPU count (both visible to firmware
// through CSRs).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "exchange/exchange_fabric.h"
#include "common/config.h"
#include "cosim/waves.h"
#include "sync/group_sync.h"
#include "sync/sync_controller.h"
#include "tile/tile.h"

namespace ipusim::platform {

// Elaboration failed (e.g. std::bad_alloc out of memory): the message names what was
// being built ("building ipu 3 tile 117: std::bad_alloc"). What was built is abandoned,
// not destroyed (Ipu::failure): the process cannot elaborate again, and should end.
class ElaborationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Ipu : public sc_core::sc_module {
 public:
  using LinkOut = tlm_utils::simple_initiator_socket_optional<Ipu>;
  using LinkIn = tlm_utils::simple_target_socket_optional<Ipu>;
  sc_core::sc_vector<LinkOut> link_out;
  sc_core::sc_vector<LinkIn> link_in;

  // `cosim.sync == Rtl`: the sync controller is the Verilated RTL (tlm/cosim/sync),
  // tracing into `waves` (null: no waves).
  Ipu(sc_core::sc_module_name name, const config::ChipConfig& chip, uint32_t index,
      uint32_t ipus, sync::GroupSync& group, const config::CosimConfig& cosim = {},
      cosim::Waves* waves = nullptr);
  ~Ipu() override;

  uint32_t index() const { return index_; }
  uint32_t tile_count() const { return uint32_t(tiles_.size()); }
  tile::Tile& tile(uint32_t t) { return *tiles_.at(t); }
  const tile::Tile& tile(uint32_t t) const { return *tiles_.at(t); }
  sync::SyncController& sync_controller() { return *sync_; }
  const sync::SyncController& sync_controller() const { return *sync_; }
  exchange::ExchangeFabric& exchange_fabric() { return *exchange_; }
  const exchange::ExchangeFabric& exchange_fabric() const { return *exchange_; }

  // Cycle 0 of every module of the IPU is SystemC time *epoch (its run domain's start).
  void set_epoch(const sc_core::sc_time* epoch);
  // The number of tiles with a program.
  uint32_t loaded_tiles() const;
  // Why the IPU could not be built ("building ipu 3 tile 117: std::bad_alloc"); empty
  // when it was. The constructor does not throw it (see netlist.cpp): the owner must
  // check, and abandon a failed IPU without destroying it.
  const std::string& failure() const { return failure_; }
  // Before the simulation, once every program is loaded: the loaded tiles become the
  // participants of the IPU's syncs (and exchanges).
  void prepare_run();

 private:
  void link_b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);

  uint32_t index_;
  std::string failure_;
  std::vector<std::unique_ptr<tile::Tile>> tiles_;
  std::unique_ptr<sync::SyncController> sync_;
  std::unique_ptr<exchange::ExchangeFabric> exchange_;
};

}  // namespace ipusim::platform
