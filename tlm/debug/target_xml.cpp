#include "debug/target_xml.h"

#include "common/problem.h"

#include <fmt/format.h>

namespace ipusim::debug {
namespace {

// gdb's names for x0..x31 are the ABI's (common/problem.h) but x8's, which gdb calls fp
// (riscv-tdep.c accepts these or "xN"); the types follow gdb's 32bit-cpu.xml, so gdb
// shows ra / pc as code and sp / gp / tp / fp as data pointers.
const char* x_name(unsigned i) { return i == 8 ? "fp" : x_abi_name(i); }

const char* x_type(int i) {
  if (i == 1) return "code_ptr";
  if (i == 2 || i == 3 || i == 4 || i == 8) return "data_ptr";
  return "int";
}

// fflags, frm, fcsr: described in the fpu feature, where gdb looks for them.
bool fp_csr(uint32_t number) { return number >= 1 && number <= 3; }

}  // namespace

std::string target_xml(const std::vector<DebugTarget::CsrDesc>& csrs) {
  std::string x = "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n<target version=\"1.0\">\n";
  x += "  <architecture>riscv:rv32</architecture>\n";
  x += "  <feature name=\"org.gnu.gdb.riscv.cpu\">\n";
  for (unsigned i = 0; i < 32; ++i)
    x += fmt::format("    <reg name=\"{}\" bitsize=\"32\" type=\"{}\" regnum=\"{}\"/>\n", x_name(i), x_type(int(i)), i);
  x += fmt::format("    <reg name=\"pc\" bitsize=\"32\" type=\"code_ptr\" regnum=\"{}\"/>\n", kRegPc);
  x += "  </feature>\n  <feature name=\"org.gnu.gdb.riscv.fpu\">\n";
  for (uint32_t i = 0; i < 32; ++i)
    x += fmt::format("    <reg name=\"{}\" bitsize=\"32\" type=\"ieee_single\" regnum=\"{}\"/>\n", f_abi_name(i), kRegF0 + i);
  for (auto [name, number] : {std::pair{"fflags", 1u}, {"frm", 2u}, {"fcsr", 3u}})
    x += fmt::format("    <reg name=\"{}\" bitsize=\"32\" type=\"int\" regnum=\"{}\"/>\n", name, kRegCsr0 + number);
  x += "  </feature>\n  <feature name=\"org.gnu.gdb.riscv.csr\">\n";
  for (const auto& csr : csrs) {
    if (fp_csr(csr.number)) continue;
    x += fmt::format("    <reg name=\"{}\" bitsize=\"32\" type=\"int\" regnum=\"{}\" group=\"csr\"/>\n", csr.name,
                     kRegCsr0 + csr.number);
  }
  x += "  </feature>\n</target>\n";
  return x;
}

bool described_register(const std::vector<DebugTarget::CsrDesc>& csrs, uint32_t regno) {
  if (regno < kRegCsr0) return true;  // x0..x31, pc, f0..f31
  if (regno < kRegCsr0 + 4) return regno > kRegCsr0;  // fflags, frm, fcsr (not CSR 0)
  for (const auto& csr : csrs)
    if (kRegCsr0 + csr.number == regno) return true;
  return false;
}

std::string xfer_window(std::string_view document, uint64_t offset, uint64_t length) {
  if (offset >= document.size()) return "l";
  std::string_view part = document.substr(offset, length);
  bool last = offset + part.size() >= document.size();
  return (last ? "l" : "m") + std::string(part);
}

}  // namespace ipusim::debug
