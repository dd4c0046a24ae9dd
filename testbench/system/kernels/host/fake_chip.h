// A fake chip for the kernels' numerics on the host: one host thread per tile runs a
// kernel's main() (compiled natively with KERNELS_HOST against fake/ipu/xipu.h).
//
// What it models: tile identity and sizes; workers (run to completion inside ipu_run,
// which gives the same results as the chip for BSP code: disjoint data, then join);
// sync over the IPU (zone 1) and over every IPU (zone 2) as barriers; the exchange contract of docs/xipu.md (postings only
// in an exchange phase, sends matched to receives per tile pair in posting order, length
// checks, nothing delivered by a failed match); the AMP with the rounding rule of
// docs/xipu.md. What it does not: timing (ipu_cycles is a counter), faults (a broken
// rule is recorded as an error and the run goes on).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kfake {

struct ChipConfig {
  uint32_t tiles = 4;  // per IPU
  uint32_t ipus = 1;   // tile t of IPU i is global tile i * tiles + t
  uint32_t workers = 6;
  uint32_t sram_bytes = 624 * 1024;
  uint32_t amp_rows16 = 16;  // GC200 / Bow; 8 on GC2
  uint32_t amp_rows32 = 4;
};

struct TileOutcome {
  int exit_code = 0;
  std::string console;  // everything the tile printed
  uint32_t syncs = 0;
  uint32_t xwaits = 0;
};

struct RunOutcome {
  std::vector<TileOutcome> tiles;
  std::vector<std::string> errors;  // broken exchange / AMP rules, uneven syncs
};

using KernelMain = int (*)(void);

// Runs `kernel` on every tile of the fake chip's IPUs and returns what each tile did
// (tiles in global order).
RunOutcome run(const ChipConfig& config, KernelMain kernel);

// Exact IEEE binary16 -> binary32 (subnormals kept), as the AMP reads its inputs.
float f16_to_f32(uint16_t bits);

}  // namespace kfake
