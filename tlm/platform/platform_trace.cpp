#include "platform/platform_trace.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace ipusim::platform {

InstructionTrace::InstructionTrace(const std::string& path, Disassembler disassemble)
    : path_(path), disassemble_(std::move(disassemble)) {
  file_ = std::fopen(path.c_str(), "w");
  if (!file_)
    throw std::runtime_error(fmt::format("--itrace: cannot open '{}': {}", path, std::strerror(errno)));
  std::setvbuf(file_, nullptr, _IOFBF, 1 << 20);
}

InstructionTrace::~InstructionTrace() {
  if (file_) std::fclose(file_);
}

void InstructionTrace::retire(const iss::TileIdentity& tile, uint32_t thread, uint64_t cycle,
                              uint32_t pc, uint32_t insn) {
  fmt::print(file_, "{} {} {} {} 0x{:08x} 0x{:08x} {}\n", tile.ipu, tile.tile, thread, cycle, pc,
             insn, disassemble_(pc, insn));
  ++lines_;
}

void InstructionTrace::close() {
  if (!file_) return;
  const bool failed = std::ferror(file_) != 0;
  const bool close_failed = std::fclose(file_) != 0;
  file_ = nullptr;
  if (failed || close_failed)
    throw std::runtime_error(fmt::format("--itrace: writing '{}' failed", path_));
}

}  // namespace ipusim::platform
