// Co-issue (docs/xipu.md "Timing"): an integer / memory instruction and an adjacent
// floating-point one issue in one slot when the pairing rule allows. Every clause of the
// rule, read through the cycle CSR; the same clocks from the fast and the stepping loop,
// for every thread quantum, with a trace and a probe; cycle limits with pairs.
#include <functional>

#include "iss/co_issue.h"
#include "iss/decoded.h"
#include "iss_harness.h"

namespace {

using namespace isstest;
using namespace rvasm;

constexpr uint32_t kCycle = 0xC00;

TileParams params(bool co_issue, uint32_t quantum = 1024) {
  TileParams p = test_params(quantum);
  p.co_issue = co_issue;
  return p;
}

// The slots `body` takes: csrr s0, cycle; body; csrr s1, cycle; the difference is
// 6 x (1 + the body's slots). a5 = 1, a4 = kData, f2 = 1.5, f3 = 2.5 before the body.
uint64_t body_slots(const std::function<void(Asm&)>& body, bool co_issue = true) {
  Asm a;
  a.li(a5, 1);
  a.li(a4, kData);
  a.li(t0, fbits(1.5f));
  a.fmv_w_x(2, t0);
  a.li(t0, fbits(2.5f));
  a.fmv_w_x(3, t0);
  a.csrr(s0, kCycle);
  body(a);
  a.csrr(s1, kCycle);
  a.halt(zero);
  Harness h(a, params(co_issue));
  h.run_ok();
  EXPECT_EQ((h.x(s1) - h.x(s0)) % 6, 0u);
  return (h.x(s1) - h.x(s0)) / 6 - 1;
}

TEST(IssCoIssue, IntegerAndFloatingPointPairInEitherOrder) {
  EXPECT_EQ(body_slots([](Asm& a) { a.addi(a1, a1, 1); a.fadd(1, 2, 3, RNE); }), 1u);
  EXPECT_EQ(body_slots([](Asm& a) { a.fadd(1, 2, 3, RNE); a.addi(a1, a1, 1); }), 1u);
  EXPECT_EQ(body_slots([](Asm& a) { a.flw(1, 0, a4); a.fmul(4, 2, 3, RNE); }), 1u);
  EXPECT_EQ(body_slots([](Asm& a) { a.fmadd(4, 2, 3, 2, RNE); a.fsw(3, 4, a4); }), 1u);
  EXPECT_EQ(body_slots([](Asm& a) { a.mul(a1, a5, a5); a.fmin(4, 2, 3); }), 1u);
  EXPECT_EQ(body_slots([](Asm& a) { a.lw(a1, 0, a4); a.fcvt_s_w(4, a5); }), 1u);
  // Off in the config: one slot each.
  EXPECT_EQ(body_slots([](Asm& a) { a.fadd(1, 2, 3, RNE); a.addi(a1, a1, 1); }, false), 2u);
  EXPECT_EQ(body_slots([](Asm& a) { a.flw(1, 0, a4); a.fmul(4, 2, 3, RNE); }, false), 2u);
}

TEST(IssCoIssue, TwoOfOneClassDoNotPair) {
  EXPECT_EQ(body_slots([](Asm& a) { a.addi(a1, a1, 1); a.addi(a2, a2, 1); }), 2u);
  EXPECT_EQ(body_slots([](Asm& a) { a.lw(a1, 0, a4); a.sw(a5, 4, a4); }), 2u);
  EXPECT_EQ(body_slots([](Asm& a) { a.fadd(1, 2, 3, RNE); a.fmul(4, 2, 3, RNE); }), 2u);
  // fadd pairs with the addi after it; the fmul after that issues alone (a slot has two).
  EXPECT_EQ(body_slots([](Asm& a) { a.fadd(1, 2, 3, RNE); a.addi(a1, a1, 1); a.fmul(4, 2, 3, RNE); }), 2u);
}

TEST(IssCoIssue, ADependenceEitherWayOrACommonDestinationSplitsThePair) {
  // The second reads an f register the first writes.
  EXPECT_EQ(body_slots([](Asm& a) { a.flw(1, 0, a4); a.fadd(4, 1, 3, RNE); }), 2u);
  EXPECT_EQ(body_slots([](Asm& a) { a.fadd(1, 2, 3, RNE); a.fsw(1, 0, a4); }), 2u);
  // ... an x register (FP ops writing x: compares, fmv.x.w, fcvt.w.s, fclass).
  EXPECT_EQ(body_slots([](Asm& a) { a.feq(a1, 2, 3); a.addi(a2, a1, 1); }), 2u);
  EXPECT_EQ(body_slots([](Asm& a) { a.fcvt_w_s(a1, 2, RTZ); a.sw(a1, 0, a4); }), 2u);
  EXPECT_EQ(body_slots([](Asm& a) { a.addi(a1, a5, 1); a.fcvt_s_w(4, a1); }), 2u);
  EXPECT_EQ(body_slots([](Asm& a) { a.addi(a1, a5, 1); a.fmv_w_x(4, a1); }), 2u);
  // ... the address register of a load (f5 = kData; fmv.w.x, fmv.x.w: two FP ops, 2 slots).
  EXPECT_EQ(body_slots([](Asm& a) { a.fmv_w_x(5, a4); a.fmv_x_w(a1, 5); a.lw(a2, 0, a1); }), 3u);
  // Both write one register.
  EXPECT_EQ(body_slots([](Asm& a) { a.flw(1, 0, a4); a.fmv_w_x(1, a5); }), 2u);
  EXPECT_EQ(body_slots([](Asm& a) { a.fclass(a1, 2); a.addi(a1, a5, 1); }), 2u);
  // The second writing what the first reads is no dependence (both read at issue);
  // neither are writes to x0, nor reads of it, nor the accrued fflags.
  EXPECT_EQ(body_slots([](Asm& a) { a.fadd(1, 2, 3, RNE); a.flw(2, 0, a4); }), 1u);
  EXPECT_EQ(body_slots([](Asm& a) { a.fsw(2, 0, a4); a.fmv_w_x(2, a5); }), 1u);
  EXPECT_EQ(body_slots([](Asm& a) { a.feq(zero, 2, 3); a.addi(zero, zero, 1); }), 1u);
  EXPECT_EQ(body_slots([](Asm& a) { a.fdiv(1, 2, 3, RNE); a.addi(a1, zero, 1); }), 1u);
}

TEST(IssCoIssue, AControlTransferPairsOnlyAsTheSecond) {
  // Not taken (a5 = 1): the branch issues alone, then the fadd alone.
  EXPECT_EQ(body_slots([](Asm& a) { a.beq(a5, zero, "x"); a.label("x"); a.fadd(1, 2, 3, RNE); }), 2u);
  // fadd then a taken branch / a jump: one slot.
  EXPECT_EQ(body_slots([](Asm& a) { a.fadd(1, 2, 3, RNE); a.bne(a5, zero, "y"); a.label("y"); }), 1u);
  EXPECT_EQ(body_slots([](Asm& a) { a.fadd(1, 2, 3, RNE); a.j("z"); a.label("z"); }), 1u);
  // ... a not-taken one too; but not a branch reading the FP op's x result.
  EXPECT_EQ(body_slots([](Asm& a) { a.fadd(1, 2, 3, RNE); a.beq(a5, zero, "w"); a.label("w"); }), 1u);
  EXPECT_EQ(body_slots([](Asm& a) { a.flt(a1, 2, 3); a.bne(a1, zero, "v"); a.label("v"); }), 2u);
}

TEST(IssCoIssue, ASecondEnteredByAJumpIssuesAlone) {
  // j, then the addi that pairs with the fadd before it when entered from there.
  EXPECT_EQ(body_slots([](Asm& a) {
              a.j("second");
              a.fadd(1, 2, 3, RNE);
              a.label("second");
              a.addi(a1, a1, 1);
            }),
            2u);
  // The same by jalr, whose target the loader cannot see (la is lui + addi: 2 slots).
  EXPECT_EQ(body_slots([](Asm& a) {
              a.la(t1, "second");
              a.jalr(zero, t1, 0);
              a.fadd(1, 2, 3, RNE);
              a.label("second");
              a.addi(a1, a1, 1);
            }),
            4u);
  // A loop whose head is the second of a pair: entered by falling through it pairs, by the
  // back branch it issues alone. 3 iterations, after addi a2 (1 slot):
  // fadd+addi (1) bne (1) | addi (1) bne (1) | addi (1) bne (1) = 6.
  EXPECT_EQ(body_slots([](Asm& a) {
              a.addi(a2, zero, 3);
              a.fadd(1, 2, 3, RNE);
              a.label("head");
              a.addi(a2, a2, -1);
              a.bne(a2, zero, "head");
            }),
            1u + 6u);
}

TEST(IssCoIssue, XipuCsrAndSystemInstructionsNeverPair) {
  EXPECT_EQ(body_slots([](Asm& a) { a.fadd(1, 2, 3, RNE); a.csrr(a1, kCycle); }), 2u);
  EXPECT_EQ(body_slots([](Asm& a) { a.addi(a0, zero, 'x'); a.cputc(a0); a.fadd(1, 2, 3, RNE); }), 3u);
  EXPECT_EQ(body_slots([](Asm& a) { a.fadd(1, 2, 3, RNE); a.amp_clr(IPU_AMP_F32); }), 2u);
  EXPECT_EQ(body_slots([](Asm& a) { a.amp_clr(IPU_AMP_F32); a.fadd(1, 2, 3, RNE); }), 2u);
  // A cycle read right after a pair sees one slot for both.
  Asm a;
  a.csrr(s0, kCycle);
  a.fadd(1, 2, 3, RNE);
  a.addi(a1, a1, 1);
  a.csrr(s1, kCycle);
  a.csrr(s2, 0xC02);  // instret: both counted
  a.halt(zero);
  Harness h(a);
  h.run_ok();
  EXPECT_EQ(h.x(s1) - h.x(s0), 12u);
  EXPECT_EQ(h.x(s2), 4u);
}

TEST(IssCoIssue, TheRuleOnDecodedOps) {
  // Classes (the vector and wide ops as well: their timing comes with their semantics).
  EXPECT_EQ(issue_class(Op::ld128_pi), IssueClass::integer);
  EXPECT_EQ(issue_class(Op::ld128st64_pi), IssueClass::integer);
  EXPECT_EQ(issue_class(Op::f32v2_mac), IssueClass::fp);
  EXPECT_EQ(issue_class(Op::f16v4_tof32), IssueClass::fp);
  EXPECT_EQ(issue_class(Op::jalr), IssueClass::control);
  for (Op op : {Op::rpt, Op::csr, Op::ecall, Op::ebreak, Op::xrun, Op::xsync, Op::xsend, Op::smread,
                Op::hswrite, Op::cputc, Op::amp_mac16, Op::illegal, Op::fetch_fault})
    EXPECT_EQ(issue_class(op), IssueClass::none) << static_cast<int>(op);
  auto insn = [](uint8_t rd, uint8_t rs1, uint8_t rs2 = 0, uint8_t rs3 = 0) {
    return DecodedInsn{nullptr, 0, rd, rs1, rs2, rs3};
  };
  const uint8_t f0 = kFReg0, f4 = kFReg0 + 4, f8 = kFReg0 + 8;
  // ld128.pi f4..f7 from a0 (x10), then f32v2.mac f8 += f6 * f0: reads f6, f7 of the quad.
  EXPECT_FALSE(co_issues(Op::ld128_pi, insn(f4, 10), Op::f32v2_mac, insn(f8, f4 + 2, f0)));
  EXPECT_TRUE(co_issues(Op::ld128_pi, insn(f4, 10), Op::f32v2_mac, insn(f8, f0, f0)));
  // f32v2.mac writes f8, f9; st64.pi of f8 after it depends, of f0 not.
  EXPECT_FALSE(co_issues(Op::f32v2_mac, insn(f8, f0, f0), Op::st64_pi, insn(0, 11, f8)));
  EXPECT_TRUE(co_issues(Op::f32v2_mac, insn(f8, f0, f0), Op::st64_pi, insn(0, 11, f0)));
  // A post-increment writes its address register: an FP op reading it (fmv.w.x) waits.
  EXPECT_FALSE(co_issues(Op::ld64_pi, insn(f4, 10), Op::fmv_w_x, insn(f0, 10)));
  // ld128st64.pi reads the pair at rs3 and writes the quad at rd.
  EXPECT_FALSE(co_issues(Op::f32v2_add, insn(f8, f0, f0), Op::ld128st64_pi, insn(f4, 10, 11, f8)));
  EXPECT_FALSE(co_issues(Op::f32v2_add, insn(f4 + 2, f0, f0), Op::ld128st64_pi, insn(f4, 10, 11, f8)));
  EXPECT_TRUE(co_issues(Op::f32v2_add, insn(f0, f8, f8), Op::ld128st64_pi, insn(f4, 10, 11, f8)));
}

// A worker kernel like the stream triad (a[i] = b[i] + s * c[i]) on six workers and the
// supervisor, gcc's loop shape: flw, flw, fmadd, fsw, addi x3, bne.
Asm triad_program(uint32_t n) {
  Asm a;
  a.la(t0, "worker");
  for (int i = 0; i < 6; ++i) a.run(zero, t0, zero);
  a.jal(ra, "kernel");
  a.join();
  a.csrr(s1, kCycle);
  a.halt(zero);
  a.label("worker");
  a.jal(ra, "kernel");
  // kData + 3072 + 4 x thread = the cycle the worker ends at.
  a.csrr(t2, kCycle);
  a.csrr(t3, 0xCC2);
  a.slli(t3, t3, 2);
  a.li(t4, kData + 3072);
  a.add(t4, t4, t3);
  a.sw(t2, 0, t4);
  a.wexit(zero);
  a.label("kernel");
  a.li(a0, kData);
  a.li(a1, kData + 1024);
  a.li(a2, kData + 2048);
  a.li(a3, n);
  a.li(t1, fbits(3.0f));
  a.fmv_w_x(0, t1);
  a.label("loop");
  a.flw(1, 0, a1);
  a.flw(2, 0, a2);
  a.fmadd(3, 0, 2, 1, RNE);
  a.addi(a1, a1, 4);
  a.fsw(3, 0, a0);
  a.addi(a2, a2, 4);
  a.addi(a0, a0, 4);
  a.addi(a3, a3, -1);
  a.bne(a3, zero, "loop");
  a.jalr(zero, ra, 0);
  return a;
}

struct Clocks {
  uint64_t cycle, instret;
  std::vector<uint64_t> ends, stalls;  // per worker: its end cycle; per thread: stall cycles
  uint32_t s1;
};

Clocks run_clocks(const Asm& a, TileParams p, bool trace) {
  struct NullTrace : TraceSink {
    void retire(const TileIdentity&, const Program&, const RetiredInsn&) override {}
  } sink;
  Harness h(a, p);
  if (trace) h.core.set_trace(&sink);
  h.run_ok();
  Clocks c{h.core.cycle(), h.core.instret(), {}, {}, h.x(s1)};
  for (uint32_t t = 0; t <= p.workers; ++t) {
    c.stalls.push_back(h.core.thread_stats(t).stall_cycles);
    if (t > 0) c.ends.push_back(h.mem32(kData + 3072 + 4 * t));
  }
  return c;
}

TEST(IssCoIssue, FastAndSteppingLoopsCountTheSameSlotsForEveryQuantum) {
  const Asm a = triad_program(100);
  const Clocks ref = run_clocks(a, params(true, 1024), false);
  for (uint32_t q : {1u, 3u, 7u, 64u, 1024u})
    for (bool trace : {false, true}) {
      SCOPED_TRACE(testing::Message() << "quantum " << q << " trace " << trace);
      const Clocks c = run_clocks(a, params(true, q), trace);
      EXPECT_EQ(c.cycle, ref.cycle);
      EXPECT_EQ(c.instret, ref.instret);
      EXPECT_EQ(c.s1, ref.s1);
      EXPECT_EQ(c.ends, ref.ends);
      EXPECT_EQ(c.stalls, ref.stalls);
    }
  // The loop body: flw | flw | fmadd+addi | fsw | addi | addi | addi | bne, 9 instructions
  // in 8 slots (the second flw feeds the fmadd; the fsw has no FP partner left). A worker
  // alone would take 100 x 8 slots; six workers and the supervisor share the barrel.
  const Clocks off = run_clocks(a, params(false, 1024), false);
  EXPECT_EQ(off.instret, ref.instret);
  EXPECT_LT(ref.s1, off.s1);
  for (size_t w = 0; w < ref.ends.size(); ++w) EXPECT_LT(ref.ends[w], off.ends[w]);
}

TEST(IssCoIssue, TheTraceShowsTheSecondAtItsFirstsCycle) {
  Asm a;
  a.fadd(1, 2, 3, RNE);
  a.addi(a1, a1, 1);
  a.addi(a2, a2, 1);
  a.halt(zero);
  struct Cycles : TraceSink {
    void retire(const TileIdentity&, const Program&, const RetiredInsn& r) override { cycles.push_back(r.cycle); }
    std::vector<uint64_t> cycles;
  } sink;
  Harness h(a);
  h.core.set_trace(&sink);
  h.run_ok();
  EXPECT_EQ(sink.cycles, (std::vector<uint64_t>{0, 0, 6, 12}));
}

// An endless loop of a pair and a jump: 3 instructions in 2 slots.
Asm paired_spin() {
  Asm a;
  a.label("spin");
  a.fadd(1, 1, 2, RNE);
  a.addi(a0, a0, 1);
  a.j("spin");
  return a;
}

TEST(IssCoIssue, ACycleLimitStopsBeforeTheFirstSlotAtTheLimit) {
  for (uint32_t q : {1u, 7u, 1024u}) {
    SCOPED_TRACE(q);
    Harness h(paired_spin(), params(true, q));
    RunBounds b;
    b.cycle_limit = 600;  // 100 slots: 50 iterations
    h.core.set_bounds(&b);
    const StopInfo s = h.run();
    ASSERT_EQ(s.reason, StopReason::Paused);
    EXPECT_EQ(s.pause, PauseReason::CycleLimit);
    EXPECT_EQ(s.pause_cycle, 600u);
    EXPECT_EQ(h.core.instret(), 150u);
    EXPECT_EQ(h.x(a0), 50u);
    // A limit inside a slot's cycles: the pair at 594 has issued (both halves), nothing at 600.
    b.cycle_limit = 1201;
    EXPECT_EQ(h.run().reason, StopReason::Paused);
    EXPECT_EQ(h.core.instret(), 302u);  // 100 iterations + the fadd+addi pair at 1200
    EXPECT_EQ(h.x(a0), 101u);
  }
}

class PcProbe : public DebugProbe {
 public:
  bool stop_before(const TileIdentity&, const Insn& insn) override {
    pcs.push_back(insn.pc);
    cycles.push_back(insn.cycle);
    if (insn.pc != stop_pc || stopped) return false;
    return stopped = true;
  }
  std::vector<uint32_t> pcs;
  std::vector<uint64_t> cycles;
  uint32_t stop_pc = 0;
  bool stopped = false;
};

TEST(IssCoIssue, TheProbeSeesBothHalvesAndStopsOnlyBeforeThePair) {
  Asm a;
  a.li(t0, fbits(1.0f));
  a.fmv_w_x(2, t0);
  a.label("first");
  a.fadd(1, 2, 2, RNE);
  a.label("second");
  a.addi(a1, a1, 1);
  a.label("after");
  a.addi(a2, a2, 1);
  a.halt(zero);
  for (bool stop : {false, true}) {
    SCOPED_TRACE(stop);
    Harness h(a);
    PcProbe probe;
    probe.stop_pc = stop ? a.addr("second") : 0;
    RunBounds b;
    b.probe = &probe;
    h.core.set_bounds(&b);
    if (stop) {
      // A breakpoint on the second stops before the pair: neither has issued.
      const StopInfo s = h.run();
      ASSERT_EQ(s.reason, StopReason::Paused);
      EXPECT_EQ(s.pause, PauseReason::Probe);
      EXPECT_EQ(s.pause_pc, a.addr("first"));
      EXPECT_EQ(s.pause_cycle, 18u);
      EXPECT_EQ(h.core.registers(0).pc, a.addr("first"));
      EXPECT_EQ(h.f(1), 0u);
      EXPECT_EQ(h.x(a1), 0u);
      probe.pcs.clear();
      probe.cycles.clear();
    }
    h.run_ok();
    // Both halves are shown at the pair's cycle; the run's cycles are the same with or
    // without the stop (which left out li and fmv.w.x, before it).
    std::vector<uint32_t> pcs{a.addr("first"), a.addr("second"), a.addr("after"), a.addr("after") + 4};
    std::vector<uint64_t> cycles{18, 18, 24, 30};
    if (!stop) {
      pcs.insert(pcs.begin(), {a.base(), a.base() + 4, a.base() + 8});
      cycles.insert(cycles.begin(), {0, 6, 12});
    }
    EXPECT_EQ(probe.pcs, pcs);
    EXPECT_EQ(probe.cycles, cycles);
    EXPECT_EQ(h.core.cycle(), 36u);  // li (2), fmv 12, fadd+addi 18, addi 24, halt 30 (+6)
    EXPECT_EQ(h.x(a1), 1u);
    EXPECT_EQ(h.f(1), fbits(2.0f));
  }
}

TEST(IssCoIssue, MemoryPathWidthsArePowersOfTwoFrom4To64) {
  Asm a;
  a.halt(zero);
  for (uint32_t bytes : {0u, 2u, 12u, 128u}) {
    TileParams p = test_params();
    p.load_bytes_per_cycle = bytes;
    EXPECT_THROW(Harness(a, p), std::invalid_argument) << bytes;
    p = test_params();
    p.store_bytes_per_cycle = bytes;
    EXPECT_THROW(Harness(a, p), std::invalid_argument) << bytes;
  }
  TileParams p = test_params();
  p.load_bytes_per_cycle = 4;
  p.store_bytes_per_cycle = 64;
  Harness h(a, p);
  h.run_ok();
}

}  // namespace
