// `--itrace FILE`: one line per retired instruction of the traced tiles, threads and
// cycles, in the manner of Spike's commit log (docs/platform.md "Instruction trace"):
//
//   ipu tile thread cycle pc <symbol+off> insn disasm[ ; effects]
//   0 5 1 1206 0x00040120 <main+0x1c> 0x00a50533 add a0, a0, a0 ; x10 0x0000002a
//   0 5 1 1212 0x00040124 <main+0x20> 0x00a5a023 sw a0, 0(a1) ; mem 0x00041000 0x0000002a
//   0 5 1 1218 0x00040128 <main+0x24> 0x0005a603 lw a2, 0(a1) ; x12 0x0000002a mem 0x00041000
//
// decimal ipu / tile / thread / cycle; pc and insn as 0x%08x; the function (or label)
// holding pc from the ELF's symbol table (<?> without one); the ISS's disassembly; then,
// after " ; " and only when there is any: the register written with its new value
// (x1..x31 / f0..f31, 0x%08x), the memory accessed (a load's address; a store's address
// and the value stored, as many hex digits as bytes stored), and `fcsr 0x%02x` when the
// thread's fcsr changed. The firmware differential test (testbench/firmware) reads the
// first fields: change both together.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <unordered_map>

#include "iss/tile_core.h"
#include "platform/platform_tiles.h"

namespace ipusim::platform {

// What an instruction trace keeps (everything by default). Tiles outside it get no trace
// sink at all and run the fast loop.
struct TraceFilter {
  static constexpr uint64_t kForever = std::numeric_limits<uint64_t>::max();
  TileSelection ipus;     // --itrace-ipus
  TileSelection tiles;    // --itrace-tiles: of every traced IPU
  TileSelection threads;  // --itrace-threads: 0 = supervisor, 1.. = workers
  uint64_t cycle_from = 0, cycle_to = kForever;  // --itrace-cycles FROM:TO: [from, to)

  bool traces_tile(uint32_t ipu, uint32_t tile) const { return ipus.contains(ipu) && tiles.contains(tile); }
  bool keeps(uint32_t thread, uint64_t cycle) const {
    return cycle >= cycle_from && cycle < cycle_to && threads.contains(thread);
  }
  // "FROM:TO", "FROM:" or ":TO" (decimal tile cycles). Throws std::invalid_argument
  // naming the option and the value for bad syntax or an empty window.
  void parse_cycles(const std::string& text);
};

class InstructionTrace : public iss::TraceSink {
 public:
  using Disassembler = std::function<std::string(uint32_t pc, uint32_t insn)>;
  // Opens (truncates) `path`; throws std::runtime_error naming it if that fails.
  InstructionTrace(const std::string& path, Disassembler disassemble, TraceFilter filter = {});
  ~InstructionTrace() override;
  InstructionTrace(const InstructionTrace&) = delete;
  InstructionTrace& operator=(const InstructionTrace&) = delete;

  void retire(const iss::TileIdentity& tile, const iss::Program& program, const iss::RetiredInsn& insn) override;
  // Flushes and closes; throws std::runtime_error if a write failed.
  void close();
  uint64_t lines() const { return lines_; }
  const TraceFilter& filter() const { return filter_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  Disassembler disassemble_;
  TraceFilter filter_;
  uint64_t lines_ = 0;
  // The fcsr each (global tile, thread) had after its last retired instruction (0 at
  // reset), to print it when it changes; kept for filtered-out lines too.
  std::unordered_map<uint64_t, uint32_t> fcsr_;
};

}  // namespace ipusim::platform
