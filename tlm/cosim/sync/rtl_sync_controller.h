// The sync controller of an IPU as Verilated RTL (hw/sync): a sync::SyncController with
// the same sockets, payload, protocol, deadlock reports, superstep gate, group sync and
// reset, whose release cycles come from the RTL through a SyncTransactor instead of the
// controller's arithmetic. The platform builds it for every IPU when the config says
// `cosim: {sync: rtl}` (or `ipusim run --rtl sync`).
//
// The RTL is verilated at two points, TILES = 16 (the test chips) and TILES = 1472 (GC2,
// GC200, Bow): the smallest that holds the chip's tiles is used, the per-tile latencies
// tied as straps. Construction throws std::invalid_argument naming the config value and
// the limit when the RTL cannot take the chip (more than 1472 tiles, a way in or out
// above 255 cycles, latency_min_cycles 0 or above 255).
//
// Waves (cosim::Waves, nullptr: none): instances "ipu<N>.sync" and
// "ipu<N>.sync.odd", the two model instances that take the syncs in turn
// (sync_transactor.h says why).
#pragma once

#include <memory>

#include "cosim/waves.h"
#include "sync/sync_controller.h"

namespace ipusim::cosim {

class SyncRtl;

class RtlSyncController : public sync::SyncController {
 public:
  RtlSyncController(sc_core::sc_module_name name, const sync::SyncControllerConfig& config,
                    sync::GroupSync& group, Waves* waves);
  ~RtlSyncController() override;

  // Model evaluations so far, both instances (the benchmark's and the tests' measure of
  // how much the idle skipping saves).
  uint64_t evals() const;
  uint64_t syncs_timed() const;

 private:
  std::unique_ptr<SyncRtl> rtl_;
};

// The model point for a chip of `tiles` tiles (its TILES), or throws as above.
uint32_t sync_rtl_model_tiles(uint32_t tiles);

}  // namespace ipusim::cosim
