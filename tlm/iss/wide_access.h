// What a wide load / store (ld64 .. ld64st64.pi) accesses, for everything outside the run
// loop's fast path that must know: the complete path and its faults (wide_memory.cpp),
// the trace record, the debug probe (watchpoints) and the per-tile slot costs.
// ISS-internal.
#pragma once

#include <cstdint>

#include "iss/decoded.h"
#include "iss/tile_core.h"

namespace ipusim::iss {

struct WideAccess {
  uint32_t load_addr = 0, store_addr = 0;
  uint8_t load_bytes = 0, store_bytes = 0;  // 0: no such access
  uint8_t store_reg = 0;   // register-file index of the first f register stored
  bool increments = false;  // .pi: rs1 += its access size (and, with both accesses, rs2 += 8)
};

// The accesses of wide op `op` decoded as `d`, with rs1 / rs2 holding `rs1_value` /
// `rs2_value` when it issues.
inline WideAccess wide_access(Op op, const DecodedInsn& d, uint32_t rs1_value, uint32_t rs2_value) {
  WideAccess w;
  switch (op) {
    case Op::ld64_pi: w.increments = true; [[fallthrough]];
    case Op::ld64: w.load_bytes = 8; break;
    case Op::ld128_pi: w.increments = true; [[fallthrough]];
    case Op::ld128: w.load_bytes = 16; break;
    case Op::st64_pi: w.increments = true; [[fallthrough]];
    case Op::st64: w.store_bytes = 8; break;
    case Op::st128_pi: w.increments = true; [[fallthrough]];
    case Op::st128: w.store_bytes = 16; break;
    case Op::ld128st64_pi: w.load_bytes = 16; w.store_bytes = 8; w.increments = true; break;
    case Op::ld64st64_pi: w.load_bytes = 8; w.store_bytes = 8; w.increments = true; break;
    default: return w;
  }
  if (w.load_bytes) {
    w.load_addr = rs1_value;
    if (w.store_bytes) {  // the pairs: the store's address in rs2, its data in rs3
      w.store_addr = rs2_value;
      w.store_reg = d.rs3;
    }
  } else {
    w.store_addr = rs1_value;
    w.store_reg = d.rs2;
  }
  return w;
}

// Issue slots beyond one that a wide op takes on a tile with `p`'s memory paths
// (docs/xipu.md "Timing"): max(1, ceil(L / load B/cycle), ceil(S / store B/cycle)) - 1.
inline uint32_t wide_extra_slots(Op op, const TileParams& p) {
  const WideAccess w = wide_access(op, DecodedInsn{}, 0, 0);
  const uint32_t l = (w.load_bytes + p.load_bytes_per_cycle - 1) / p.load_bytes_per_cycle;
  const uint32_t s = (w.store_bytes + p.store_bytes_per_cycle - 1) / p.store_bytes_per_cycle;
  const uint32_t slots = l > s ? l : s;
  return slots > 1 ? slots - 1 : 0;
}

}  // namespace ipusim::iss
