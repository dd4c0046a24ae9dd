// What the RTL sync controller (hw/sync, `cosim: {sync: rtl}` or `--rtl sync`) can take:
// its largest verilated model point and the width of its delay straps (hw/sync/README.md).
// One rule for the config loader and the run-time choosers (config::cosim_unfit, before
// anything is elaborated) and for the wrapper that builds the model (tlm/cosim/sync).
#pragma once

#include <cstdint>
#include <string>

namespace ipusim {

inline constexpr uint32_t kSyncRtlMaxTiles = 1472;  // the gc200 model point
inline constexpr uint32_t kSyncRtlDelayBits = 8;    // the ways in and out, in cycles
inline constexpr uint32_t kSyncRtlMaxDelay = (1u << kSyncRtlDelayBits) - 1;

// Why an IPU of `tiles` tiles with sync.latency_min_cycles / latency_max_cycles does not fit
// the RTL sync controller, naming the config key and value; empty if it fits. The farthest
// tile's way out is half of max - min, rounded up (sync::SyncLatency), so max - min may be
// up to twice the longest delay.
inline std::string sync_rtl_unfit(uint32_t tiles, uint32_t latency_min_cycles, uint32_t latency_max_cycles) {
  if (tiles > kSyncRtlMaxTiles)
    return "the RTL sync controller serves at most " + std::to_string(kSyncRtlMaxTiles) +
           " tiles; the chip has tiles: " + std::to_string(tiles);
  if (latency_min_cycles < 1 || latency_min_cycles > kSyncRtlMaxDelay)
    return "the RTL sync controller takes sync.latency_min_cycles from 1 to " + std::to_string(kSyncRtlMaxDelay) +
           "; the chip has " + std::to_string(latency_min_cycles);
  if (tiles > 1 && latency_max_cycles >= latency_min_cycles &&
      latency_max_cycles - latency_min_cycles > 2 * kSyncRtlMaxDelay)
    return "the RTL sync controller takes ways in and out of at most " + std::to_string(kSyncRtlMaxDelay) +
           " cycles, so sync.latency_max_cycles - sync.latency_min_cycles up to " +
           std::to_string(2 * kSyncRtlMaxDelay) + "; the chip has " + std::to_string(latency_max_cycles) + " - " +
           std::to_string(latency_min_cycles) + " = " + std::to_string(latency_max_cycles - latency_min_cycles);
  return {};
}

}  // namespace ipusim
