// Console lines (cputc / cwrite, per-thread line buffers, flush at thread end) and
// tracing (every retired instruction, with its thread, issue cycle, pc and word).
#include <map>

#include "iss/fpu.h"
#include "iss_harness.h"

namespace {

using namespace isstest;
using namespace rvasm;

void put_string(Asm& a, const std::string& s) {
  for (char c : s) {
    a.addi(t0, zero, c);
    a.cputc(t0);
  }
}

TEST(IssConsole, LinesPerThreadWithFlushAtExit) {
  Asm a;
  put_string(a, "hello\nsup ");
  a.la(t1, "worker");
  a.run(zero, t1, zero);
  a.join();
  a.li(a1, kData);
  a.addi(a2, zero, 7);
  a.cwrite(a3, a1, a2);        // "abc\ndef"
  a.halt(zero);                // flushes "sup def"
  a.label("worker");
  put_string(a, "w\nx");
  a.wexit(zero);               // flushes "x"
  testelf::Image img;
  img.data_addr = kData;
  const std::string text = "abc\ndef";
  img.data.assign(text.begin(), text.end());
  Harness h(a, test_params(), img);
  h.run_ok();
  EXPECT_EQ(h.x(a3), 7u);
  std::map<uint32_t, std::vector<std::string>> by_thread;
  for (const ConsoleLine& l : h.console.lines) by_thread[l.thread].push_back(l.text);
  EXPECT_EQ(by_thread[0], (std::vector<std::string>{"hello", "sup abc", "def"}));
  EXPECT_EQ(by_thread[1], (std::vector<std::string>{"w", "x"}));
  EXPECT_EQ(h.console.last_tile.tile, 3u);
  EXPECT_EQ(h.console.last_tile.ipu, 1u);
}

TEST(IssConsole, VeryLongLinesAreSplit) {
  Asm a;
  a.li(t1, 5000);
  a.addi(t0, zero, 'x');
  a.label("loop");
  a.cputc(t0);
  a.addi(t1, t1, -1);
  a.bne(t1, zero, "loop");
  a.halt(zero);
  Harness h(a);
  h.run_ok();
  ASSERT_EQ(h.console.lines.size(), 2u);
  EXPECT_EQ(h.console.lines[0].text, std::string(4096, 'x'));
  EXPECT_EQ(h.console.lines[1].text, std::string(904, 'x'));
}

TEST(IssConsole, WithoutSinkLinesGoToStdout) {
  Asm a;
  put_string(a, "to stdout\n");
  a.halt(zero);
  auto program = make_program(a);
  auto sram = loaded_sram(test_params().sram_bytes, *program);
  TileCore core(test_params(), program, *sram);
  testing::internal::CaptureStdout();
  const StopInfo s = core.run();
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(s.reason, StopReason::Halted);
  EXPECT_EQ(out, "[ipu 1 tile 3] to stdout\n");
}

using Retired = RetiredInsn;

class RecordingTrace : public TraceSink {
 public:
  void retire(const TileIdentity& tile, const Program&, const RetiredInsn& insn) override {
    EXPECT_EQ(tile.tile, 3u);
    log.push_back(insn);
  }
  std::vector<Retired> log;
};

// What an instruction changed: the register with its new value, a load's address (also
// when the load overwrites its own base register), a store's address and value (as many
// bytes as stored), f registers, and fcsr after it.
TEST(IssTrace, RecordsRegisterWritesMemoryAndFcsr) {
  Asm a;
  a.li(a1, 0x41000);
  a.addi(a0, zero, 0x2a);
  a.sw(a0, 4, a1);     // mem 0x41004 = 0x0000002a
  a.addi(t0, zero, -1);
  a.sb(t0, 9, a1);     // mem 0x41009 = 0xff
  a.lw(a1, 4, a1);     // x11 = 0x2a, from 0x41004 (the base is gone after it)
  a.fmv_w_x(3, a0);    // f3 = 0x0000002a
  a.fmv_w_x(4, zero);
  a.fdiv(5, 3, 4);     // divide by zero: fflags DZ
  a.addi(zero, a0, 1); // writes x0: no register
  a.halt(zero);
  for (uint32_t q : {1u, 1000u}) {
    Harness h(a, test_params(q));
    RecordingTrace trace;
    h.core.set_trace(&trace);
    h.run_ok();
    ASSERT_GE(trace.log.size(), 11u);
    const auto at = [&](uint32_t i) { return trace.log.at(trace.log.size() - 11 + i); };
    EXPECT_EQ(at(0).dest, RetiredInsn::Dest::X);  // li: its last instruction
    EXPECT_EQ(at(0).dest_reg, 11u);
    EXPECT_EQ(at(0).dest_value, 0x41000u);
    EXPECT_EQ(at(1).dest_value, 0x2au);
    EXPECT_EQ(at(2).dest, RetiredInsn::Dest::None);
    EXPECT_TRUE(at(2).mem_store);
    EXPECT_EQ(at(2).mem_size, 4u);
    EXPECT_EQ(at(2).mem_addr, 0x41004u);
    EXPECT_EQ(at(2).mem_value, 0x2au);
    EXPECT_EQ(at(4).mem_size, 1u);
    EXPECT_EQ(at(4).mem_addr, 0x41009u);
    EXPECT_EQ(at(4).mem_value, 0xffu);
    EXPECT_FALSE(at(5).mem_store);
    EXPECT_EQ(at(5).mem_size, 4u);
    EXPECT_EQ(at(5).mem_addr, 0x41004u);
    EXPECT_EQ(at(5).dest_reg, 11u);
    EXPECT_EQ(at(5).dest_value, 0x2au);
    EXPECT_EQ(at(6).dest, RetiredInsn::Dest::F);
    EXPECT_EQ(at(6).dest_reg, 3u);
    EXPECT_EQ(at(6).dest_value, 0x2au);
    EXPECT_EQ(at(7).fcsr, 0u);
    EXPECT_EQ(at(8).dest_reg, 5u);
    EXPECT_EQ(at(8).fcsr, uint32_t(fpu::DZ));
    EXPECT_EQ(at(9).dest, RetiredInsn::Dest::None);
    EXPECT_EQ(at(9).mem_size, 0u);
  }
}

TEST(IssTrace, EveryRetiredInstructionInOrder) {
  Asm a;
  a.addi(t1, zero, 3);
  a.label("loop");
  a.addi(t1, t1, -1);
  a.bne(t1, zero, "loop");
  a.la(t0, "worker");
  a.run(zero, t0, zero);
  a.join();
  a.halt(zero);
  a.label("worker");
  a.addi(a0, zero, 1);
  a.wexit(a0);
  const std::vector<uint32_t> words = a.finish();
  for (uint32_t q : {1u, 1000u}) {
    Harness h(a, test_params(q));
    RecordingTrace trace;
    h.core.set_trace(&trace);
    h.run_ok();
    ASSERT_EQ(trace.log.size(), h.core.instret());
    std::vector<uint32_t> sup_pcs;
    uint64_t last_cycle = 0;
    for (const Retired& r : trace.log) {
      EXPECT_EQ(r.insn, words[(r.pc - 0x40000) / 4]);
      if (r.thread == 0) {
        if (!sup_pcs.empty()) {
          EXPECT_GE(r.cycle, last_cycle + 6);
        }
        last_cycle = r.cycle;
        sup_pcs.push_back(r.pc);
      }
    }
    const uint32_t loop = a.addr("loop");
    const std::vector<uint32_t> want = {0x40000, loop, loop + 4, loop, loop + 4, loop, loop + 4,
                                        loop + 8, loop + 12, loop + 16, loop + 20, loop + 24};
    EXPECT_EQ(sup_pcs, want);
    // The worker: addi at 6 cycles after the run, then wexit.
    std::vector<Retired> worker;
    for (const Retired& r : trace.log)
      if (r.thread == 1) worker.push_back(r);
    ASSERT_EQ(worker.size(), 2u);
    EXPECT_EQ(worker[0].pc, a.addr("worker"));
    EXPECT_EQ(worker[0].cycle, 6u * 9 + 6);  // the run issues at 54
    EXPECT_EQ(worker[1].cycle, worker[0].cycle + 6);
    // Tracing changes nothing else.
    Harness plain(a, test_params(q));
    plain.run_ok();
    EXPECT_EQ(plain.core.cycle(), h.core.cycle());
  }
}

TEST(IssTrace, CanBeSwitchedOff) {
  Asm a;
  a.addi(t1, zero, 1);
  a.halt(zero);
  Harness h(a);
  RecordingTrace trace;
  h.core.set_trace(&trace);
  h.run_ok();
  EXPECT_EQ(trace.log.size(), 2u);
  h.core.set_trace(nullptr);
  h.reset();
  h.run_ok();
  EXPECT_EQ(trace.log.size(), 2u);
}

}  // namespace
