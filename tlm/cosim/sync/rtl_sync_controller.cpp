#include "cosim/sync/rtl_sync_controller.h"

#include <stdexcept>

#include <fmt/format.h>

#include "cosim/sync/sync_transactor.h"  // first: cosim/verilated_sc.h
#include "common/sync_rtl_limits.h"
#include "cosim/wave_file.h"
#include "Vsync_gc200_fst.h"
#include "Vsync_gc200_vcd.h"
#include "Vsync_tiny16_fst.h"
#include "Vsync_tiny16_vcd.h"

namespace ipusim::cosim {
namespace {

// hw/sync/CMakeLists.txt: the model points and the straps' width (common/sync_rtl_limits.h).
constexpr uint32_t kSmallTiles = 16, kFullTiles = kSyncRtlMaxTiles, kDelayBits = kSyncRtlDelayBits;

// The RTL's limits, as errors that name the config value: the config loader and `--rtl`
// refuse the same before elaboration (config::cosim_unfit); this is for a wrapper built
// without them (the unit tests).
void check_fits(const sync::SyncControllerConfig& c) {
  if (const std::string why = sync_rtl_unfit(c.tiles, c.latency_min_cycles, c.latency_max_cycles); !why.empty())
    throw std::invalid_argument(why);
  // Its own rule, sync::SyncLatency, must agree with the shared one.
  const sync::SyncLatency lat(c.tiles, c.latency_min_cycles, c.latency_max_cycles);
  if (lat.from_controller(0) > kSyncRtlMaxDelay)  // the ends have the longest ways
    throw std::logic_error("sync_rtl_unfit let through a way out longer than the straps take");
}

template <class Model, class Trace>
std::unique_ptr<SyncRtl> make(const SyncRtlParams& p) {
  return std::make_unique<SyncTransactor<Model, Trace>>(p);
}

std::unique_ptr<SyncRtl> make_transactor(const sync::SyncControllerConfig& c, Waves* waves) {
  check_fits(c);
  SyncRtlParams p;
  p.ipu = c.ipu;
  p.tiles = c.tiles;
  p.model_tiles = sync_rtl_model_tiles(c.tiles);
  p.delay_bits = kDelayBits;
  p.latency_min_cycles = c.latency_min_cycles;
  p.latency_max_cycles = c.latency_max_cycles;
  p.clock_hz = uint64_t(c.clock_hz + 0.5);
  p.waves = waves;
  const bool fst = waves && waves->format() == WaveFormat::Fst;
  if (p.model_tiles == kSmallTiles)
    return fst ? make<Vsync_tiny16_fst, FstWaveFile>(p) : make<Vsync_tiny16_vcd, VcdWaveFile>(p);
  return fst ? make<Vsync_gc200_fst, FstWaveFile>(p) : make<Vsync_gc200_vcd, VcdWaveFile>(p);
}

}  // namespace

uint32_t sync_rtl_model_tiles(uint32_t tiles) {
  if (tiles <= kSmallTiles) return kSmallTiles;
  if (tiles <= kFullTiles) return kFullTiles;
  throw std::invalid_argument(sync_rtl_unfit(tiles, 1, 1));
}

RtlSyncController::RtlSyncController(sc_core::sc_module_name name, const sync::SyncControllerConfig& config,
                                     sync::GroupSync& group, Waves* waves)
    : SyncController(name, config, group), rtl_(make_transactor(config, waves)) {
  set_timing(rtl_.get());
}

RtlSyncController::~RtlSyncController() = default;

uint64_t RtlSyncController::evals() const { return rtl_->evals(); }
uint64_t RtlSyncController::syncs_timed() const { return rtl_->syncs(); }

}  // namespace ipusim::cosim
