// The ISA source (hw/isa/xipu.yaml) as plain structs, parsed and checked once by
// parse_isa(); the emitters (isa_emit.h) only format what is here.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "generated_files.h"

namespace isagen {

// A problem in the source: "file:line: key: what" (exit status 2).
using SourceError = ipusim::gen::SourceError;

struct Constant {  // a limit, an enum value or a major opcode
  std::string name, doc;
  uint64_t value = 0;
  bool ld = false;  // a limit the linker script needs (a symbol in xipu_isa.ld)
};

struct Enum {
  std::string name, doc;
  std::vector<Constant> values;
};

// rs3: bits 31:27 (the R4-type layout); an instruction with an rs3 operand has a 2-bit
// funct7 (bits 26:25, "funct2") and is written with `.insn r4`.
enum class Field { rd, rs1, rs2, rs3 };
// fpair / fquad: an f register whose number is a multiple of 2 / 4, naming f[n .. n+1] /
// f[n .. n+3] (64 / 128 bits); another number is an illegal instruction.
enum class Kind { xreg, freg, fpair, fquad, imm };

struct Operand {
  std::string name;   // in assembly and as the encoder's parameter: rd, rs1, rs2, bank, ...
  Field field = Field::rd;
  Kind kind = Kind::xreg;
  std::string below;  // imm: the limit (a name of `limits`) its value stays under; "" = none
  uint64_t below_value = 0;
  uint32_t min = 0;   // imm: the smallest legal value (a smaller one is an undefined encoding)
  bool optional = false;  // imm: the disassembly leaves it out when 0
};

struct Insn {
  std::string mnemonic;  // "amp.mac.f16"
  std::string cname;     // "AMP_MAC_F16": IPU_OP_<cname>_*, ipu_encode_<lower cname>
  bool group_funct3 = false;  // funct3 comes from the group (IPU_F3_<group>)
  uint32_t funct3 = 0, funct7 = 0;  // the major opcode is the group's
  std::vector<Operand> operands;
  std::string who, iss, doc;
  uint32_t match = 0, mask = 0;  // word & mask == match; operand fields are outside mask
  int line = 0;                  // in the source, for errors found after parsing
};

struct Group {
  std::string name, title, major;  // major: the name of one of Isa::majors
  uint32_t opcode = 0;             // that major's value
  std::optional<uint32_t> funct3;
  std::vector<Insn> insns;
};

struct Csr {
  std::string name, access, doc;  // access: ro | rw
  uint32_t number = 0;
  bool standard = false;  // defined by RISC-V (F, Zicntr), not by Xipu
};

struct Isa {
  std::string name, prefix;
  uint32_t version_major = 0, version_minor = 0;
  uint32_t address_bits = 32;
  uint32_t sram_base = 0;
  std::vector<Constant> limits;
  std::vector<Enum> enums;
  std::vector<Constant> majors;
  std::vector<Group> groups;
  std::vector<Csr> csrs;

  // Every instruction, in source order.
  std::vector<const Insn*> insns() const {
    std::vector<const Insn*> out;
    for (const Group& g : groups)
      for (const Insn& i : g.insns) out.push_back(&i);
    return out;
  }
};

// Reads and checks `path`; throws SourceError naming file, line and key.
Isa parse_isa(const std::string& path);

const char* field_name(Field f);
unsigned field_shift(Field f);  // rd 7, rs1 15, rs2 20, rs3 27 (5 bits each)
bool uses_rs3(const Insn& i);    // an R4-type instruction: funct7 is a 2-bit funct2
unsigned kind_alignment(Kind k);  // fpair 2, fquad 4, else 1

}  // namespace isagen
