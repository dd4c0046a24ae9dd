// Reads instruction traces from qemu-riscv32 (`-singlestep -d nochain,exec`) and from
// `ipusim run --itrace` into the sequence of program counters a program retired below
// its platform range (the code it shares with its qemu twin; docs/firmware.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "elf_image.h"

namespace ipusim::fwtest {

struct PcTrace {
  std::vector<uint32_t> common_pcs;  // retired pcs below the platform start, in order
  uint64_t total = 0;                // every traced instruction
  std::vector<std::string> errors;   // malformed lines, instruction words that do not
                                     // match the ELF, ... (the first few)
};

// qemu logs "Trace 0: 0x<host> [<cs_base>/<pc>/<flags>/<cflags>] <symbol>" for each
// translated block it executes; with -singlestep every block is one instruction.
PcTrace read_qemu_trace(const std::filesystem::path& path, uint32_t platform_start);

// ipusim logs "ipu tile thread cycle pc <symbol> insn disasm..." per retired instruction,
// pc and insn as 0x-prefixed hex. Every insn is checked against the word at pc in `elf`.
PcTrace read_ipusim_trace(const std::filesystem::path& path, uint32_t platform_start,
                          const ElfImage& elf);

// "" if equal, else where the two sequences first differ.
std::string first_divergence(const std::vector<uint32_t>& expected,
                             const std::vector<uint32_t>& actual);

}  // namespace ipusim::fwtest
