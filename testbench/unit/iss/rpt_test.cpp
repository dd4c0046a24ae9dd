// The zero-overhead repeat (docs/xipu.md "Zero-overhead loops", docs/iss.md): rpt rs1,
// size runs the next size instructions rs1 times; the rpt takes one slot, the body's
// instructions their own each iteration, the loop-back nothing. Counts, sizes, the
// illegal bodies, faults inside a body, quanta ending inside it, two threads in the same
// body, jumping into a body, the count register written inside it, traces and the
// debugger's pc.
#include <fmt/format.h>

#include "iss_harness.h"

namespace {

using namespace isstest;
using namespace rvasm;

constexpr uint32_t kCycle = 0xc00, kInstret = 0xc02;

// li a0, count; rpt a0, 2 {t0 += 1; t1 += 3}; t2 += 1; csrr cycle / instret; halt.
Asm counted(uint32_t count) {
  Asm a;
  a.li(a0, count);  // 2 words
  a.label("rpt");
  a.rpt(a0, 2);
  a.label("b1");
  a.addi(t0, t0, 1);
  a.label("b2");
  a.addi(t1, t1, 3);
  a.label("after");
  a.addi(t2, t2, 1);
  a.csrr(s0, kCycle);
  a.csrr(s1, kInstret);
  a.halt(zero);
  return a;
}

TEST(IssRpt, CountsZeroOneAndManyWithNoOverhead) {
  for (uint32_t count : {0u, 1u, 2u, 7u, 1000u, 100000u}) {
    for (uint32_t q : {1u, 3u, 1024u}) {
      SCOPED_TRACE(testing::Message() << "count " << count << " quantum " << q);
      Harness h(counted(count), test_params(q));
      h.run_ok();
      EXPECT_EQ(h.x(t0), count);
      EXPECT_EQ(h.x(t1), 3 * count);
      EXPECT_EQ(h.x(t2), 1u);
      // li (2), rpt (1), the body (2 x count), addi: then the csrr reads.
      const uint64_t before = 2 + 1 + 2ull * count + 1;
      EXPECT_EQ(h.x(s0), static_cast<uint32_t>(6 * before));  // one slot each, nothing for the loop
      EXPECT_EQ(h.x(s1), static_cast<uint32_t>(before + 1));
      EXPECT_EQ(h.core.instret(), before + 3);
      EXPECT_EQ(h.core.cycle(), 6 * (before + 3));
    }
  }
}

// The count is unsigned: 0x80000000 is a count, not a negative number (paused after
// 1000 instructions, still repeating).
TEST(IssRpt, CountIsUnsigned) {
  Asm a;
  a.li(a0, 0x80000000u);
  a.rpt(a0, 1);
  a.addi(t0, t0, 1);
  a.halt(zero);
  Harness h(a);
  RunBounds b;
  b.instruction_limit = 1000;
  h.core.set_bounds(&b);
  ASSERT_EQ(h.run().reason, StopReason::Paused);
  EXPECT_EQ(h.x(t0), 997u);
  EXPECT_EQ(h.core.registers(0).pc, a.base() + 12);
}

TEST(IssRpt, BodiesOfOneAndThirtyOneInstructions) {
  for (uint32_t size : {1u, 31u}) {
    for (uint32_t q : {1u, 3u, 1024u}) {
      SCOPED_TRACE(testing::Message() << "size " << size << " quantum " << q);
      Asm a;
      a.li(a0, 5);
      a.rpt(a0, size);
      for (uint32_t i = 0; i < size; ++i) a.addi(static_cast<Reg>(5 + i % 3), static_cast<Reg>(5 + i % 3), 1);
      a.csrr(s0, kCycle);
      a.halt(zero);
      Harness h(a, test_params(q));
      h.run_ok();
      uint32_t want[3] = {};
      for (uint32_t i = 0; i < size; ++i) want[i % 3] += 5;
      EXPECT_EQ(h.x(t0), want[0]);
      EXPECT_EQ(h.x(t1), want[1]);
      EXPECT_EQ(h.x(t2), want[2]);
      EXPECT_EQ(h.x(s0), 6 * (3 + 5 * size));
      EXPECT_EQ(h.core.instret(), 3 + 5 * size + 2);
    }
  }
}

// Every instruction a body may not hold makes the rpt illegal, at the rpt's pc, naming
// the instruction and its pc; it faults even with a count of 0.
TEST(IssRpt, EveryForbiddenBodyInstructionMakesTheRptIllegal) {
  struct Bad {
    const char* name;
    void (*emit)(Asm&);
    const char* disasm;
  };
  const Bad cases[] = {
      {"beq", [](Asm& a) { a.beq(t0, t1, "end"); }, "beq"},
      {"bne", [](Asm& a) { a.bne(t0, t1, "end"); }, "bne"},
      {"blt", [](Asm& a) { a.blt(t0, t1, "end"); }, "blt"},
      {"bge", [](Asm& a) { a.bge(t0, t1, "end"); }, "bge"},
      {"bltu", [](Asm& a) { a.bltu(t0, t1, "end"); }, "bltu"},
      {"bgeu", [](Asm& a) { a.bgeu(t0, t1, "end"); }, "bgeu"},
      {"jal", [](Asm& a) { a.jal(ra, "end"); }, "jal"},
      {"j", [](Asm& a) { a.j("end"); }, "jal zero"},
      {"jalr", [](Asm& a) { a.jalr(zero, ra, 0); }, "jalr zero, 0(ra)"},
      {"beq outside the code", [](Asm& a) { a.word(b_type(0x800, t1, t0, 0)); }, "beq t0, t1, 0x"},
      {"jal outside the code", [](Asm& a) { a.word(j_type(0x10000, zero)); }, "jal zero, 0x"},
      {"rpt", [](Asm& a) { a.rpt(t0, 1); }, "rpt"},
      {"ecall", [](Asm& a) { a.ecall(); }, "ecall"},
      {"ebreak", [](Asm& a) { a.ebreak(); }, "ebreak"},
      {"run", [](Asm& a) { a.run(t0, t1, t2); }, "run"},
      {"join", [](Asm& a) { a.join(); }, "join"},
      {"wexit", [](Asm& a) { a.wexit(zero); }, "wexit"},
      {"halt", [](Asm& a) { a.halt(zero); }, "halt"},
      {"sync", [](Asm& a) { a.sync(zero); }, "sync"},
      {"cputc", [](Asm& a) { a.cputc(t0); }, "cputc"},
      {"cwrite", [](Asm& a) { a.cwrite(t0, t1, t2); }, "cwrite"},
      {"xdst", [](Asm& a) { a.xdst(t0, t1); }, "xdst"},
      {"send", [](Asm& a) { a.send(t0, t1); }, "send"},
      {"xsrc", [](Asm& a) { a.xsrc(t0); }, "xsrc"},
      {"recv", [](Asm& a) { a.recv(t0, t1); }, "recv"},
      {"xwait", [](Asm& a) { a.xwait(); }, "xwait"},
      {"smaddr", [](Asm& a) { a.smaddr(t0, t1); }, "smaddr"},
      {"smread", [](Asm& a) { a.smread(t0, t1); }, "smread"},
      {"smwrite", [](Asm& a) { a.smwrite(t0, t1); }, "smwrite"},
      {"hsid", [](Asm& a) { a.hsid(t0); }, "hsid"},
      {"hsread", [](Asm& a) { a.hsread(t0, t1); }, "hsread"},
      {"hswrite", [](Asm& a) { a.hswrite(t0, t1); }, "hswrite"},
  };
  for (const Bad& c : cases) {
    for (uint32_t count : {0u, 3u}) {
      SCOPED_TRACE(testing::Message() << c.name << " count " << count);
      Asm a;
      a.li(a0, count);
      a.label("bad");
      a.rpt(a0, 3);
      a.addi(t0, t0, 1);
      a.label("wrong");
      c.emit(a);
      a.addi(t0, t0, 1);
      a.label("end");
      a.halt(zero);
      Harness h(a);
      h.run();
      expect_fault_at_bad(h.stop, a, "illegal instruction", "its body of 3 instructions holds `", "rpt a0, 3", 0u);
      const std::string& d = h.stop.fault->detail;
      EXPECT_NE(d.find(fmt::format("` at 0x{:08x}", a.addr("wrong"))), std::string::npos) << d;
      EXPECT_NE(d.find(std::string("`") + c.disasm), std::string::npos) << d;
      EXPECT_EQ(h.x(t0), 0u);
      EXPECT_EQ(h.core.instret(), 2u);
    }
  }
}

// The first bad instruction is named; a bad one after the body does not matter.
TEST(IssRpt, OnlyTheBodyIsChecked) {
  Asm a;
  a.li(a0, 2);
  a.rpt(a0, 1);
  a.addi(t0, t0, 1);
  a.ecall();  // after the body: runs once, as plain code
  a.halt(zero);
  Harness h(a);
  h.run();
  ASSERT_EQ(h.stop.reason, StopReason::Fault);
  EXPECT_EQ(h.stop.fault->kind, "ecall");
  EXPECT_EQ(h.x(t0), 2u);
}

TEST(IssRpt, BodyPastTheEndOfTheCodeIsIllegal) {
  Asm a;
  a.li(a0, 1);
  a.j("bad");
  a.halt(zero);
  a.label("bad");
  a.rpt(a0, 3);
  a.addi(t0, t0, 1);  // the code ends after this word
  Harness h(a);
  h.run();
  expect_fault_at_bad(h.stop, a, "illegal instruction",
                      fmt::format("its body of 3 instructions runs past the end of the code (0x{:08x} is not code)",
                                  a.addr("bad") + 8)
                          .c_str(),
                      "rpt a0, 3", 0u);
}

// Size 0 is no rpt at all: an undefined encoding, disassembled as a word.
TEST(IssRpt, SizeZeroIsAnUndefinedEncoding) {
  Asm a;
  a.li(a0, 1);
  a.label("bad");
  a.word(ipu_encode_rpt(a0, 0));
  a.halt(zero);
  Harness h(a);
  h.run();
  expect_fault_at_bad(h.stop, a, "illegal instruction", "undefined encoding",
                      fmt::format(".word 0x{:08x}", ipu_encode_rpt(a0, 0)).c_str(), 0u);
}

// A load in the body faults on the third iteration: the fault names the load's own pc,
// with the registers as it found them; identical for every quantum.
TEST(IssRpt, FaultInsideTheBodyReportsTheBodyInstruction) {
  Asm a;
  a.li(a0, 10);
  a.li(t2, 0x7f008);  // SRAM ends at 0x80000: the third load is outside it
  a.rpt(a0, 3);
  a.addi(t0, t0, 1);
  a.label("bad");
  a.lw(t1, 0, t2);
  a.addi(t2, t2, 0x7fc);
  a.halt(zero);
  for (uint32_t q : {1u, 3u, 1024u}) {
    SCOPED_TRACE(q);
    Harness h(a, test_params(q));
    h.run();
    expect_fault_at_bad(h.stop, a, "access fault", "load of 4 bytes at 0x00080000", "lw t1, 0(t2)", 0u);
    // Before the fault: li (2), li (2), rpt, 2 whole iterations, the addi of the third.
    EXPECT_EQ(h.core.instret(), 4u + 1 + 6 + 1);
    EXPECT_EQ(h.stop.fault->registers->x[t0], 3u);
    EXPECT_EQ(h.stop.fault->registers->x[t2], 0x80000u);
    EXPECT_EQ(h.core.registers(0).pc, a.addr("bad"));
  }
}

// A body that reads cycle and instret and writes memory, run by two workers at once (a
// supervisor alone runs whole blocks whatever the quantum): quanta of 1 (the stepping
// loop: a quantum ends before every body instruction), 2, 3, 4 and 1024, and tracing,
// give the same registers, memory, instret and clocks.
TEST(IssRpt, QuantumEndsInsideTheBodyChangeNothing) {
  constexpr uint32_t kThreadCsr = 0xcc2;
  Asm a;
  a.la(t0, "worker");
  a.li(a2, 257);
  a.run(zero, t0, a2);
  a.li(a2, 100);
  a.run(zero, t0, a2);
  a.join();
  a.halt(zero);
  a.label("worker");
  a.csrr(s2, kThreadCsr);
  a.slli(s2, s2, 11);  // 2 KiB of results per worker
  a.li(s3, kData);
  a.add(s2, s2, s3);
  a.rpt(a0, 5);
  a.csrr(s0, kCycle);
  a.addi(t0, t0, 7);
  a.sw(t0, 0, s2);
  a.csrr(s1, kInstret);
  a.addi(s2, s2, 4);
  a.wexit(zero);
  struct Seen {
    std::vector<uint32_t> regs;
    uint64_t cycle, instret;
  };
  std::optional<Seen> first;
  RecordingTrace trace;
  for (uint32_t q : {1u, 2u, 3u, 4u, 1024u, 0u}) {
    SCOPED_TRACE(q);
    Harness h(a, test_params(q ? q : 1024));
    if (q == 0) h.core.set_trace(&trace);  // the stepping loop, reporting every instruction
    h.run_ok();
    Seen seen{{}, h.core.cycle(), h.core.instret()};
    for (uint32_t w : {1u, 2u}) {
      const uint32_t count = w == 1 ? 257 : 100;
      const uint32_t start = w == 1 ? 30 : 48;  // the run at 24 / 42, first issue 6 later
      EXPECT_EQ(h.x(t0, w), 7 * count);
      EXPECT_EQ(h.x(s0, w), start + 6 * (6 + 5 * (count - 1)));  // the last iteration's first
      EXPECT_EQ(h.x(s1, w), 6 + 5 * (count - 1) + 3);
      EXPECT_EQ(h.mem32(kData + 2048 * w + 4 * (count - 1)), 7 * count);
      EXPECT_EQ(h.core.thread_stats(w).instret, 6 + 5 * count + 1);
      for (unsigned r = 0; r < 32; ++r) seen.regs.push_back(h.x(r, w));
    }
    if (first) {
      EXPECT_EQ(seen.regs, first->regs);
      EXPECT_EQ(seen.cycle, first->cycle);
      EXPECT_EQ(seen.instret, first->instret);
    } else {
      first = seen;
    }
  }
  EXPECT_EQ(trace.log.size(), first->instret);
}

// Two workers run the same rpt with different counts: each thread has its own count.
TEST(IssRpt, TheCountIsPerThread) {
  Asm a;
  a.la(t0, "worker");
  a.li(a2, 50);
  a.run(zero, t0, a2);
  a.li(a2, 73);
  a.run(zero, t0, a2);
  a.join();
  a.halt(zero);
  a.label("worker");
  a.rpt(a0, 3);
  a.addi(t1, t1, 1);
  a.addi(t2, t2, 2);
  a.addi(s0, s0, 3);
  a.wexit(t1);
  for (uint32_t q : {1u, 3u, 7u, 1024u}) {
    SCOPED_TRACE(q);
    Harness h(a, test_params(q));
    h.run_ok();
    EXPECT_EQ(h.core.thread_stats(1).last_status, 50);
    EXPECT_EQ(h.core.thread_stats(2).last_status, 73);
    EXPECT_EQ(h.core.thread_stats(1).instret, 1u + 3 * 50 + 1);
    EXPECT_EQ(h.core.thread_stats(2).instret, 1u + 3 * 73 + 1);
  }
}

// A jump into a body runs the rest of it once, as plain code.
TEST(IssRpt, JumpIntoTheBodyRunsItAsPlainCode) {
  Asm a;
  a.li(a0, 5);
  a.j("inside");
  a.rpt(a0, 3);
  a.addi(t0, t0, 1);
  a.label("inside");
  a.addi(t1, t1, 1);
  a.addi(t2, t2, 1);
  a.halt(zero);
  Harness h(a);
  h.run_ok();
  EXPECT_EQ(h.x(t0), 0u);
  EXPECT_EQ(h.x(t1), 1u);
  EXPECT_EQ(h.x(t2), 1u);
}

// The count is read once, by the rpt: writing its register inside the body changes the
// register, not the number of iterations.
TEST(IssRpt, WritingTheCountRegisterInsideTheBodyKeepsTheCount) {
  Asm a;
  a.li(a0, 4);
  a.rpt(a0, 2);
  a.addi(a0, a0, 10);
  a.addi(t0, t0, 1);
  a.halt(zero);
  for (uint32_t q : {1u, 1024u}) {
    Harness h(a, test_params(q));
    h.run_ok();
    EXPECT_EQ(h.x(t0), 4u);
    EXPECT_EQ(h.x(a0), 44u);
  }
}

// A traced rpt loop: the rpt, then the body's own pcs each iteration (6 cycles apart,
// nothing for the loop-back), then the code after it.
TEST(IssRpt, TraceShowsTheBodyPcs) {
  const Asm a = counted(3);
  Harness h(a);
  RecordingTrace trace;
  h.core.set_trace(&trace);
  h.run_ok();
  std::vector<uint32_t> want = {a.base(), a.base() + 4, a.addr("rpt")};
  for (int i = 0; i < 3; ++i) {
    want.push_back(a.addr("b1"));
    want.push_back(a.addr("b2"));
  }
  for (uint32_t pc = a.addr("after"); pc <= a.addr("after") + 12; pc += 4) want.push_back(pc);
  std::vector<uint32_t> pcs;
  for (const RetiredInsn& r : trace.log) pcs.push_back(r.pc);
  EXPECT_EQ(pcs, want);
  for (size_t i = 0; i < trace.log.size(); ++i) EXPECT_EQ(trace.log[i].cycle, 6 * i) << i;
  ASSERT_GE(trace.log.size(), 5u);
  EXPECT_EQ(trace.log[3].insn, i_type(1, t0, 0, t0, rv::kOpImm));  // the body's own word
  EXPECT_EQ(trace.log[3].dest_value, 1u);
  EXPECT_EQ(trace.log[5].dest_value, 2u);  // the second iteration's t0
}

// Paused inside the body (instruction limit): the pc is the body's; resuming, or the
// debugger writing back the same registers, finishes the repeat; writing another pc
// moves the thread to plain code, which ends the repeat.
TEST(IssRpt, PauseInsideTheBodyAndTheDebuggersPc) {
  const Asm a = counted(10);
  // li (2), rpt, iterations 1 and 2, the first instruction of the third: 8 retired.
  for (int mode = 0; mode < 3; ++mode) {
    SCOPED_TRACE(mode);
    Harness h(a, test_params(1024));
    RunBounds b;
    b.instruction_limit = 8;
    h.core.set_bounds(&b);
    const StopInfo s = h.run();
    ASSERT_EQ(s.reason, StopReason::Paused);
    EXPECT_EQ(s.pause_pc, a.addr("b2"));
    ThreadRegisters r = h.core.registers(0);
    EXPECT_EQ(r.pc, a.addr("b2"));
    EXPECT_EQ(r.x[t0], 3u);
    EXPECT_EQ(r.x[t1], 6u);
    h.core.set_bounds(nullptr);
    if (mode == 1) {
      ASSERT_TRUE(h.core.set_registers(0, r));  // the same pc: still repeating
    }
    if (mode == 2) {
      r.pc = a.addr("b1");  // plain code from the body's first instruction
      ASSERT_TRUE(h.core.set_registers(0, r));
    }
    h.run_ok();
    EXPECT_EQ(h.x(t0), mode == 2 ? 4u : 10u);
    EXPECT_EQ(h.x(t1), mode == 2 ? 9u : 30u);
    EXPECT_EQ(h.x(t2), 1u);
  }
}

}  // namespace
