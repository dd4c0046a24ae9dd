// The RV32 base instruction formats, written once: the major opcodes, field extraction
// (decoder, disassembler, CSR unit) and the inverse encoders (the test assembler,
// testbench/support/rv_asm.h). The Xipu encodings come from the ISA source instead
// (ipu/xipu_isa.h, generated from hw/isa/xipu.yaml).
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

// Encoders: the inverse of the extractors (immediates are cut to their fields).
inline uint32_t r_type(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
  return f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}
inline uint32_t r4_type(uint32_t rs3, uint32_t rs2, uint32_t rs1, uint32_t rm, uint32_t rd, uint32_t op) {
  return rs3 << 27 | rs2 << 20 | rs1 << 15 | rm << 12 | rd << 7 | op;
}
inline uint32_t i_type(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
  return static_cast<uint32_t>(imm & 0xfff) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}
inline uint32_t s_type(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t op) {
  const uint32_t u = static_cast<uint32_t>(imm);
  return (u >> 5 & 0x7f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (u & 31) << 7 | op;
}
inline uint32_t b_type(int32_t off, uint32_t rs2, uint32_t rs1, uint32_t f3) {
  const uint32_t u = static_cast<uint32_t>(off);
  return (u >> 12 & 1) << 31 | (u >> 5 & 0x3f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 |
         (u >> 1 & 15) << 8 | (u >> 11 & 1) << 7 | kBranch;
}
inline uint32_t u_type(uint32_t imm20, uint32_t rd, uint32_t op) { return imm20 << 12 | rd << 7 | op; }
inline uint32_t j_type(int32_t off, uint32_t rd) {
  const uint32_t u = static_cast<uint32_t>(off);
  return (u >> 20 & 1) << 31 | (u >> 1 & 0x3ff) << 21 | (u >> 11 & 1) << 20 | (u >> 12 & 0xff) << 12 |
         rd << 7 | kJal;
}

}  // namespace ipusim::iss::rv
