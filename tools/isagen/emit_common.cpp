// Formatting helpers the emitters share (isa_emit.h).
#include <fmt/format.h>

#include "isa_emit.h"

namespace isagen {

std::string number(uint64_t v) { return v < 4096 ? fmt::format("{}", v) : fmt::format("0x{:X}", v); }

std::string operand_list(const Insn& i) {
  std::string out;
  for (const Operand& o : i.operands) out += (out.empty() ? "" : ", ") + o.name;
  return out;
}

}  // namespace isagen
