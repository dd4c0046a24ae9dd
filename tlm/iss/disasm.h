// Disassembler for the tile ISA (RV32IMF, Zicsr, Xipu), objdump style with ABI register
// names and canonical (non-alias) mnemonics: "lw a0, 2(a1)", "bne a5, a7, 0x40154".
// Used for fault messages and traces; an undefined encoding prints as ".word 0x...".
#pragma once

#include <cstdint>
#include <string>

namespace ipusim::iss {

std::string disassemble(uint32_t word, uint32_t pc);

const char* xreg_name(unsigned r);  // "zero", "ra", ... "t6"
const char* freg_name(unsigned r);  // "ft0", ... "ft11"
const char* csr_name(uint32_t csr); // "fflags", "cycle", "tile", ...; nullptr if unknown

}  // namespace ipusim::iss
