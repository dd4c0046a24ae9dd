// `--itrace FILE`: one line per retired instruction, in the order the tiles run
//
//   ipu tile thread cycle pc insn disasm
//   0 5 0 120 0x00040010 0x00a50533 add a0, a0, a0
//
// (decimal ipu / tile / thread / cycle, pc and insn as 0x%08x, then the disassembly).
// This format is a contract with the firmware differential test (testbench/firmware):
// change both together.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "iss/tile_core.h"

namespace ipusim::platform {

class InstructionTrace : public iss::TraceSink {
 public:
  using Disassembler = std::function<std::string(uint32_t pc, uint32_t insn)>;
  // Opens (truncates) `path`; throws std::runtime_error naming it if that fails.
  InstructionTrace(const std::string& path, Disassembler disassemble);
  ~InstructionTrace() override;
  InstructionTrace(const InstructionTrace&) = delete;
  InstructionTrace& operator=(const InstructionTrace&) = delete;

  void retire(const iss::TileIdentity& tile, uint32_t thread, uint64_t cycle, uint32_t pc,
              uint32_t insn) override;
  // Flushes and closes; throws std::runtime_error if a write failed.
  void close();
  uint64_t lines() const { return lines_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  Disassembler disassemble_;
  uint64_t lines_ = 0;
};

}  // namespace ipusim::platform
