// Instruction decoder: one RV32IMF / Zicsr / Xipu word into a DecodedInsn of the
// decoded-instruction cache (ISS-internal). Encodings docs/xipu.md and RV32IMF do not
// define decode to Op::illegal, which faults only if executed.
#pragma once

#include <cstdint>

#include "iss/decoded.h"
#include "iss/rv_fields.h"  // rv::: the base formats, shared with the disassembler and the CSR unit

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

}  // namespace ipusim::iss
