// The AMP state of one thread context (docs/xipu.md, custom-1), ISS-internal.
//
// W is kept as f32 (an f16 W is converted exactly at amp.ldw) and transposed: w[j][i] is
// W[i][j], so one column of W over consecutive rows is one host vector and amp.mac
// updates four rows per vector operation while adding the four products of each row in
// the contract's order. A thread allocates its state at its first AMP instruction
// (tiles that never use the AMP pay nothing); the arithmetic is in amp_math.h.
//
// The accumulators are kAmpBanks banks of R f32 each (amp.mac / amp.st name one in their
// rs2 field): a GEMM loads one W and issues one amp.mac per bank, i.e. per output column.
#pragma once

#include <ipu/xipu_isa.h>

#include <cstdint>

namespace ipusim::iss {

// From the ISA source (hw/isa/xipu.yaml): the most rows any tile has, and the banks
// (CSR ampbanks; the decoder checks a bank operand against it).
inline constexpr uint32_t kAmpMaxRows = IPU_AMP_MAX_ROWS;
inline constexpr uint32_t kAmpBanks = IPU_AMP_BANKS;

enum class AmpType : uint8_t { None, F16, F32 };

struct AmpState {
  alignas(64) float w[4][kAmpMaxRows] = {};  // transposed weights: w[j][i] = W[i][j]
  alignas(64) float acc[kAmpBanks][kAmpMaxRows] = {};  // shared by both types
  AmpType type = AmpType::None;              // of W: set by the last amp.ldw
  uint32_t rows = 0;                         // R of `type` (the rows amp.mac updates)
  // The tile's R16 / R32 and the fast path's amp.ldw bound: with off = addr - SRAM_BASE,
  // a load of R x 4 weights is aligned and inside SRAM iff rotr(off, 2) < ldw_limit
  // (0 when the type has no rows, so the fast path always falls back and faults).
  uint32_t rows16 = 0, rows32 = 0;
  uint32_t ldw_limit16 = 0, ldw_limit32 = 0;
  // amp.clr zeroes rows 0 .. clr_rows-1 of every bank: max(R16, R32) rounded up to 8
  // (rows beyond either R are never read, and clear() zeroes them all).
  uint32_t clr_rows = 0;
  // With an AMP datapath attached (amp_datapath.h) only: W's bits as the last amp.ldw
  // read them (R x 4, row-major, f16 or f32), for the datapath, which converts f16
  // itself. Not cleared by clear(): read only after an amp.ldw has written it.
  uint8_t w_raw[kAmpMaxRows * 16];

  // Back to the state of a fresh context: no weights, zero accumulators.
  void clear() {
    for (auto& col : w)
      for (float& v : col) v = 0.0f;
    for (auto& bank : acc)
      for (float& v : bank) v = 0.0f;
    type = AmpType::None;
    rows = 0;
  }
};

}  // namespace ipusim::iss
