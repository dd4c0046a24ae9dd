// The Xipu instructions and the CSRs as tables, generated from the ISA source
// (hw/isa/xipu.yaml -> tools/isagen -> xipu_ops.inc, xipu_csrs.inc). The decoder and the
// disassembler both look Xipu words up here, so they accept exactly the same encodings;
// the CSR unit's write switch accepts exactly the CSRs marked writable here (a test,
// csr_test.cpp, checks it). ISS-internal; load time and rare paths only (the run loop
// never looks anything up).
#pragma once

#include <cstdint>
#include <span>

#include "iss/decoded.h"
#include "iss/rv_fields.h"

namespace ipusim::iss::isa {

enum class Field : uint8_t { rd, rs1, rs2, rs3 };  // the 5-bit register field an operand sits in
// How its value is read; fpair / fquad: an f register number that is even / a multiple of 4.
enum class Kind : uint8_t { xreg, freg, fpair, fquad, imm };

struct Operand {
  Field field;
  Kind kind;
  uint8_t below;  // imm: a legal value is less than this (0: any 5-bit value)
  bool optional;  // imm: the disassembly leaves it out when 0
  uint8_t min = 0;  // imm: a legal value is at least this (rpt's size: an empty body is undefined)
};

struct XipuInsn {
  const char* mnemonic;
  uint32_t match, mask;  // word & mask == match
  Op op;                 // what the decoder makes of it
  uint8_t count;         // operands, in assembly order
  Operand operands[4];
};

// The Xipu instruction `word` encodes, with every operand in range; nullptr if none.
const XipuInsn* find_xipu(uint32_t word);

// The mnemonic of the Xipu instruction `word` encodes ("amp.mac.f16"), for fault
// messages: a decoded Xipu word is always in the table.
inline const char* xipu_mnemonic(uint32_t word) {
  const XipuInsn* x = find_xipu(word);
  return x ? x->mnemonic : "(not a Xipu instruction)";
}

inline uint32_t operand_value(const Operand& o, uint32_t word) {
  switch (o.field) {
    case Field::rd: return rv::rd(word);
    case Field::rs1: return rv::rs1(word);
    case Field::rs2: return rv::rs2(word);
    case Field::rs3: break;
  }
  return word >> 27;
}

struct Csr {
  uint32_t number;
  const char* name;
  bool writable;  // false: a write is an illegal instruction (the CSR unit's write switch
                  // accepts exactly the writable ones; csr_test checks it against this table)
};

// The CSR numbered `number`; nullptr if the tile has none.
const Csr* find_csr(uint32_t number);
// Every CSR of the tile, in the ISA source's order.
std::span<const Csr> csrs();

}  // namespace ipusim::iss::isa
