#include "cosim/sync/rtl_sync_controller.h"

#include <stdexcept>

#include <fmt/format.h>

#include "cosim/sync/sync_transactor.h"  // first: cosim/verilated_sc.h
#include "cosim/wave_file.h"
#include "Vsync_gc200_fst.h"
#include "Vsync_gc200_vcd.h"
#include "Vsync_tiny16_fst.h"
#include "Vsync_tiny16_vcd.h"

namespace ipusim::cosim {
namespace {

// hw/sync/CMakeLists.txt: the model points and the straps' width.
constexpr uint32_t kSmallTiles = 16, kFullTiles = 1472, kDelayBits = 8;
constexpr uint32_t kMaxDelay = (1u << kDelayBits) - 1;

// The RTL's limits, as errors that name the config value.
void check_fits(const sync::SyncControllerConfig& c) {
  sync_rtl_model_tiles(c.tiles);
  if (c.latency_min_cycles < 1 || c.latency_min_cycles > kMaxDelay)
    throw std::invalid_argument(fmt::format(
        "the RTL sync controller (--rtl sync) takes sync.latency_min_cycles from 1 to {}; the chip has {}",
        kMaxDelay, c.latency_min_cycles));
  const sync::SyncLatency lat(c.tiles, c.latency_min_cycles, c.latency_max_cycles);
  const uint32_t way_out = lat.from_controller(0);  // the ends have the longest ways
  if (way_out > kMaxDelay)
    throw std::invalid_argument(fmt::format(
        "the RTL sync controller (--rtl sync) takes ways in and out of at most {} cycles, so "
        "sync.latency_max_cycles - sync.latency_min_cycles up to {}; the chip has {} - {} = {}",
        kMaxDelay, 2 * kMaxDelay, c.latency_max_cycles, c.latency_min_cycles,
        c.latency_max_cycles - c.latency_min_cycles));
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
  throw std::invalid_argument(fmt::format(
      "the RTL sync controller (--rtl sync) serves at most {} tiles; the chip has tiles: {}", kFullTiles, tiles));
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
