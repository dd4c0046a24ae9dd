// The RV32 base instruction formats, written once: the major opcodes and field extraction
// (decoder, disassembler, CSR unit, the Xipu table's operands). The inverse encoders are
// the test assembler's (testbench/support/rv_asm.h). The Xipu encodings come from the ISA
// source instead (ipu/xipu_isa.h, generated from hw/isa/xipu.yaml).
#pragma once

#include <cstdint>

namespace ipusim::iss::rv {

// Major opcodes (bits 6:0) of RV32IMF + Zicsr.
enum Major : uint32_t {
  kLoad = 0x03, kLoadFp = 0x07, kMiscMem = 0x0f, kOpImm = 0x13, kAuipc = 0x17,
  kStore = 0x23, kStoreFp = 0x27, kOp = 0x33, kLui = 0x37,
  kMadd = 0x43, kMsub = 0x47, kNmsub = 0x4b, kNmadd = 0x4f, kOpFp = 0x53,
  kBranch = 0x63, kJalr = 0x67, kJal = 0x6f, kSystem = 0x73,
};

// Field extraction.
inline uint32_t opcode(uint32_t w) { return w & 0x7f; }
inline uint32_t rd(uint32_t w) { return (w >> 7) & 31; }
inline uint32_t funct3(uint32_t w) { return (w >> 12) & 7; }
inline uint32_t rs1(uint32_t w) { return (w >> 15) & 31; }
inline uint32_t rs2(uint32_t w) { return (w >> 20) & 31; }
inline uint32_t rs3(uint32_t w) { return w >> 27; }
inline uint32_t funct7(uint32_t w) { return w >> 25; }
inline int32_t imm_i(uint32_t w) { return static_cast<int32_t>(w) >> 20; }
inline int32_t imm_s(uint32_t w) {
  return (static_cast<int32_t>(w) >> 25 << 5) | static_cast<int32_t>((w >> 7) & 31);
}
inline int32_t imm_b(uint32_t w) {
  return (static_cast<int32_t>(w) >> 31 << 12) | static_cast<int32_t>(((w >> 7) & 1) << 11) |
         static_cast<int32_t>(((w >> 25) & 63) << 5) | static_cast<int32_t>(((w >> 8) & 15) << 1);
}
inline int32_t imm_u(uint32_t w) { return static_cast<int32_t>(w & 0xfffff000u); }
inline int32_t imm_j(uint32_t w) {
  return (static_cast<int32_t>(w) >> 31 << 20) | static_cast<int32_t>(w & 0xff000u) |
         static_cast<int32_t>(((w >> 20) & 1) << 11) | static_cast<int32_t>(((w >> 21) & 1023) << 1);
}
// A rounding-mode field is usable unless it is one of the reserved values 5 and 6.
inline bool rm_valid(uint32_t rm) { return rm <= 4 || rm == 7; }
}  // namespace ipusim::iss::rv
