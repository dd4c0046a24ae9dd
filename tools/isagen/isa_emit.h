// The generated files, each a string from a checked Isa (isa_model.h). `source` is how the
// files name the source (hw/isa/xipu.yaml), not where it was read from.
#pragma once

#include <string>

#include "isa_model.h"
#include "text.h"

namespace isagen {

std::string emit_header(const Isa& isa, const std::string& source);    // ipu/xipu_isa.h
std::string emit_ld(const Isa& isa, const std::string& source);        // xipu_isa.ld
std::string emit_iss_ops(const Isa& isa, const std::string& source);   // tlm/iss/xipu_ops.inc
std::string emit_iss_csrs(const Isa& isa, const std::string& source);  // tlm/iss/xipu_csrs.inc
std::string emit_doc(const Isa& isa, const std::string& source);       // docs/xipu_isa.md

// Helpers the emitters share (and ipusim::gen's upper, lower, md_escape: text.h).
using ipusim::gen::lower;
using ipusim::gen::md_escape;
using ipusim::gen::upper;
std::string operand_list(const Insn& i);  // "rd, rs1, bank" (assembly order)
std::string number(uint64_t v);            // decimal below 4096, else 0x hex

}  // namespace isagen
