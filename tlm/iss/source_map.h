// SourceMap: a tile pc -> the function and file:line it belongs to, from a tile ELF's
// DWARF (elfutils' libdw). Program::locate adds the symbol table's function (its
// CodeSymbols) where there is no debug information. Plain C++; built once from the ELF's bytes into sorted tables, so
// locate() is a const lookup, safe from any number of threads (docs/debugging.md).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ipusim::iss {

struct SourceLocation {
  std::string function;  // "vec_add" (the innermost inlined one when pc is inlined code)
  std::string file;      // shortened as docs/debugging.md says, e.g. "kernels/vecadd.c"
  uint32_t line = 0;     // 0: no line known
  // "kernels/vecadd.c:42", or "" when no line is known.
  std::string source() const;
  bool empty() const { return function.empty() && file.empty(); }
};

class SourceMap {
 public:
  // Reads the DWARF line tables and subprograms of `elf`, a whole ELF file's bytes, and
  // its executable ranges. An ELF without debug information gives an
  // empty map; debug information libdw cannot read is ignored the same way (a fault's
  // message must never fail for want of its source line).
  explicit SourceMap(const std::vector<uint8_t>& elf);

  // Where `pc` is; empty fields for what is not known.
  SourceLocation locate(uint32_t pc) const;

  bool has_lines() const { return !lines_.empty(); }

  // Shortens a DWARF file name for messages: a relative name is taken from `comp_dir`;
  // then the path relative to `comp_dir` when the file lies inside it, else its last two
  // components ("faults/fault_null.c": CMake compiles sources outside its build folder,
  // as "../../testbench/firmware/faults/fault_null.c" or an absolute path).
  static std::string short_path(const std::string& file, const std::string& comp_dir);
  // Whether `addr` lies in the program's executable PT_LOAD ranges.
  bool in_code(uint64_t addr) const;

 private:
  struct Range {  // a function's code [lo, hi); depth: nesting of inlined code (0 = outermost)
    uint32_t lo = 0, hi = 0;
    uint32_t depth = 0;
    uint32_t name = 0;  // index in names_
  };
  struct Row {  // a line-table row: from addr up to the next row's addr
    uint32_t addr = 0;
    uint32_t file = 0;  // index in names_
    uint32_t line = 0;
    bool end = false;   // end of a sequence: no line from here
  };
  uint32_t intern(const std::string& s);
  void read_code(const std::vector<uint8_t>& elf);
  void read_dwarf(const std::vector<uint8_t>& elf);
  static const Range* innermost(const std::vector<Range>& ranges, uint32_t pc);

  // The executable PT_LOAD ranges: DWARF of functions the linker dropped
  // (--gc-sections) stays in the file at address 0; only code is located.
  std::vector<std::pair<uint32_t, uint64_t>> code_;
  std::vector<std::string> names_;  // every file and function name once
  std::unordered_map<std::string, uint32_t> index_;  // names_ -> index, while building
  std::vector<Range> functions_;  // from DWARF, sorted by lo
  std::vector<Row> lines_;        // sorted by addr
};

}  // namespace ipusim::iss
