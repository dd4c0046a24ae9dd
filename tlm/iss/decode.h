// Instruction decoder: one RV32IMF / Zicsr / Xipu word into a DecodedInsn of the
// decoded-instruction cache (ISS-internal). Encodings docs/xipu.md and RV32IMF do not
// define decode to Op::illegal, which faults only if executed.
#pragma once

#include <cstdint>

#include "iss/decoded.h"

namespace ipusim::iss {

// What the decoder needs to know about the program to pre-process operands.
struct DecodeLayout {
  uint32_t code_begin = 0;  // pc of the first decoded word
  uint32_t code_words = 0;  // decoded words: a jump target must lie in [begin, begin + 4*words)
  uint32_t store_lo = 0;    // start of the fast-path store range (end of code, 4-aligned)
};

struct Decoded {
  Op op = Op::illegal;
  DecodedInsn insn{};  // handler left null: the caller fills it from op
};

Decoded decode(uint32_t word, uint32_t pc, const DecodeLayout& layout);

// Field extraction shared by the decoder, the disassembler and the CSR unit.
namespace rv {
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
}  // namespace rv

}  // namespace ipusim::iss
