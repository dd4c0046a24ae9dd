// The symbols of a program's code, by address: what `--itrace` prints as <func+0x1c>.
// Built once when the Program loads (nothing in the ISS is filled lazily), read-only after.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ipusim::iss {

class CodeSymbols {
 public:
  struct Entry {
    std::string name;
    uint32_t value = 0, size = 0;  // st_value, st_size
    bool function = false;         // STT_FUNC (else a label: STT_NOTYPE)
    bool global = false;           // not STB_LOCAL
  };
  struct Location {
    std::string_view name;  // lives as long as the CodeSymbols
    uint32_t offset = 0;    // pc - the symbol's value
  };

  CodeSymbols() = default;
  // `entries`: the symbols whose value lies in the code range, in any order.
  explicit CodeSymbols(std::vector<Entry> entries);

  // The function whose [value, value + size) holds `pc`; else (assembly without .type /
  // .size, or between functions) the nearest symbol at or below it; nullopt below every
  // symbol. Functions win so that a label inside C code (a linker-script boundary such
  // as __ipu_platform_start) does not hide the function. At one address a global wins
  // over a local, then the greater name (a fixed rule: traces must not depend on the
  // ELF's symbol order).
  std::optional<Location> locate(uint32_t pc) const;
  // The sized function holding `pc` alone (no label, no function that ended below it):
  // what names a pc's function when there is no DWARF (Program::locate).
  std::optional<std::string_view> function_at(uint32_t pc) const;
  // Whether `pc` is the first word of a sized function (a call's or tail call's target).
  bool function_entry(uint32_t pc) const;
  bool empty() const { return functions_.empty() && labels_.empty(); }

 private:
  std::vector<Entry> functions_;  // sized functions, by value
  std::vector<Entry> labels_;     // everything else, by value
};

}  // namespace ipusim::iss
