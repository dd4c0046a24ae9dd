// Test harness for the ISS: assembles a program with rvasm, wraps it in an in-memory ELF
// (code at 0x40000, 4 KiB of zeroed data at kData), runs it on a TileCore and captures
// console lines and stop information.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "iss/core_choice.h"
#include "iss/sram.h"
#include "iss/tile_core.h"
#include "rv_asm.h"
#include "test_elf.h"

namespace isstest {

using namespace ipusim::iss;
inline constexpr uint32_t kData = 0x50000;  // 4 KiB of .bss for test results

struct ConsoleLine {
  uint32_t thread;
  std::string text;
  bool operator==(const ConsoleLine&) const = default;
};

class CaptureConsole : public ConsoleSink {
 public:
  bool line(const TileIdentity& tile, uint32_t thread, std::string_view text) override {
    last_tile = tile;
    lines.push_back({thread, std::string(text)});
    return lines.size() < room;
  }
  std::vector<ConsoleLine> lines;
  size_t room = SIZE_MAX;  // lines held before the sink reports itself full
  TileIdentity last_tile;
};

// The engine of the tests' tiles: a system's default (iss/core_choice.h), the translator
// where it is built unless IPUSIM_ISS says otherwise (ctest's iss_unit_test_interp runs the
// whole suite with IPUSIM_ISS=interp, iss_unit_test_lockstep with IPUSIM_ISS=lockstep).
inline TileParams::Core test_core() { return default_core(); }

inline TileParams test_params(uint32_t quantum = 1024) {
  TileParams p;
  p.core = test_core();
  p.jit_hot_entries = 1;  // jit: translate every region at its first entry, so the suite runs translated code
  p.id = {3, 1, 16, 2};  // tile 3 of 16, ipu 1 of 2: messages must say so
  p.sram_bytes = 256 * 1024;
  p.workers = 6;
  p.thread_quantum = quantum;
  return p;
}

inline std::shared_ptr<const Program> make_program(const rvasm::Asm& a, testelf::Image img = {}) {
  img.code = a.finish();
  img.code_addr = a.base();
  if (img.entry == 0x40000) img.entry = a.base();
  if (img.data.empty() && img.bss_bytes == 0) {
    img.data_addr = kData;
    img.bss_bytes = 4096;
  }
  return Program::from_bytes(testelf::build(img), "test.elf");
}

// A tile's SRAM with `program`'s image in it, as a host's load leaves it.
inline std::unique_ptr<Sram> loaded_sram(uint32_t bytes, const Program& program) {
  auto sram = std::make_unique<Sram>(bytes);
  load_image(*sram, program);
  return sram;
}

// Movable (the tile and the console live on the heap, where the tile's pointers point).
class Harness {
 public:
  explicit Harness(const rvasm::Asm& a, TileParams params = test_params(), testelf::Image img = {})
      : program(make_program(a, std::move(img))),
        console_holder(std::make_unique<CaptureConsole>()),
        sram_holder(loaded_sram(params.sram_bytes, *program)),
        core_holder(std::make_unique<TileCore>(params, program, *sram_holder, console_holder.get())),
        console(*console_holder),
        core(*core_holder) {}
  Harness(Harness&&) = default;

  // The program's image written again, then TileCore::reset: a rerun from the start.
  void reset() {
    load_image(*sram_holder, *program);
    core.reset();
  }
  StopInfo run() {
    stop = core.run();
    return stop;
  }
  // Runs and expects a clean halt.
  void run_ok() {
    run();
    ASSERT_EQ(stop.reason, StopReason::Halted)
        << (stop.fault ? ipusim::to_text(*stop.fault) : std::string("stopped at a sync"));
  }
  uint32_t x(unsigned r, uint32_t thread = 0) const { return core.registers(thread).x[r]; }
  uint32_t f(unsigned r, uint32_t thread = 0) const { return core.registers(thread).f[r]; }
  uint32_t fcsr(uint32_t thread = 0) const { return core.registers(thread).fcsr; }
  uint32_t mem32(uint32_t addr) const {
    uint8_t b[4];
    EXPECT_TRUE(core.read(addr, b));
    uint32_t v;
    std::memcpy(&v, b, 4);
    return v;
  }
  std::string fault_message() const {
    return stop.fault ? ipusim::to_text(*stop.fault) : std::string("(no fault)");
  }

  std::shared_ptr<const Program> program;
  std::unique_ptr<CaptureConsole> console_holder;
  std::unique_ptr<Sram> sram_holder;  // the tile's SRAM, loaded as a host would
  std::unique_ptr<TileCore> core_holder;
  CaptureConsole& console;
  TileCore& core;
  StopInfo stop;
};

// Every instruction a traced core retires, in order.
class RecordingTrace : public TraceSink {
 public:
  void retire(const TileIdentity&, const Program&, const RetiredInsn& insn) override { log.push_back(insn); }
  std::vector<RetiredInsn> log;
};

inline uint32_t fbits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

// The program of `a` stopped on a fault of `kind` at the instruction labelled "bad"
// (disassembled as `disasm`) of `thread` (unless nullopt: any), whose detail starts with
// `detail`.
inline void expect_fault_at_bad(const StopInfo& stop, const rvasm::Asm& a, const char* kind, const char* detail,
                                const char* disasm, std::optional<uint32_t> thread) {
  ASSERT_EQ(stop.reason, StopReason::Fault);
  const Fault& f = *stop.fault;
  EXPECT_EQ(f.kind, kind);
  EXPECT_EQ(f.detail.substr(0, std::strlen(detail)), detail) << f.detail;
  EXPECT_EQ(f.disasm, disasm);
  EXPECT_EQ(f.pc, a.addr("bad"));
  if (thread) {
    EXPECT_EQ(f.thread, *thread);
  }
}

}  // namespace isstest
