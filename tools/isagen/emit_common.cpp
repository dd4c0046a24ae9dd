// Formatting helpers the emitters share (isa_emit.h).
#include <fmt/format.h>

#include <cctype>

#include "isa_emit.h"

namespace isagen {

std::string upper(const std::string& s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string lower(const std::string& s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string number(uint64_t v) { return v < 4096 ? fmt::format("{}", v) : fmt::format("0x{:X}", v); }

std::string operand_list(const Insn& i) {
  std::string out;
  for (const Operand& o : i.operands) out += (out.empty() ? "" : ", ") + o.name;
  return out;
}

}  // namespace isagen
