// Threads and barrel timing (docs/xipu.md "Threads"): run / join / wexit / halt / sync,
// worker start state, the supervisor's stall while six workers run, context reuse, and
// cycle counts that are exact and identical for every thread_quantum.
#include "iss_harness.h"

namespace {

using namespace isstest;
using namespace rvasm;

constexpr uint32_t kCycle = 0xc00, kThread = 0xcc2, kSuperstep = 0xcc8;

// Hand-computed: every instruction takes 6 cycles of its thread; a worker's first
// instruction issues 6 cycles after the run; join resumes at the worker's exit.
TEST(IssThreads, RunJoinWexitTimingIsExact) {
  Asm a;
  a.la(t0, "worker");         // 0, 6
  a.addi(a2, zero, 5);        // 12
  a.run(a1, t0, a2);          // 18: worker 1 issues first at 24
  a.join();                   // 24, then waits for the exit at 66
  a.halt(zero);               // 66 -> tile cycle 72
  a.label("worker");
  a.csrr(s0, kCycle);         // 24
  a.csrr(s1, kThread);        // 30
  for (int i = 0; i < 4; ++i) a.addi(a0, a0, 10);  // 36..54
  a.wexit(a0);                // 60 -> exit 66
  for (uint32_t q : {1u, 2u, 3u, 1000u}) {
    SCOPED_TRACE(q);
    Harness h(a, test_params(q));
    h.run_ok();
    EXPECT_EQ(h.core.cycle(), 72u);
    EXPECT_EQ(h.x(a1), 1u);
    EXPECT_EQ(h.x(s0, 1), 24u);
    EXPECT_EQ(h.x(s1, 1), 1u);
    const ThreadStats sup = h.core.thread_stats(0), w = h.core.thread_stats(1);
    EXPECT_EQ(sup.instret, 6u);
    EXPECT_EQ(sup.stall_cycles, 36u);  // join from 30 to 66
    EXPECT_EQ(w.instret, 7u);
    EXPECT_EQ(w.stall_cycles, 0u);
    EXPECT_EQ(w.starts, 1u);
    EXPECT_EQ(w.last_status, 45);
    EXPECT_EQ(h.core.instret(), 13u);
  }
}

// Six workers hold all six issue slots: the supervisor's next instruction waits for the
// first exit (84); join then waits for the last (114).
TEST(IssThreads, SupervisorStallsWhileSixWorkersRun) {
  Asm a;
  a.la(t0, "worker");                          // 0, 6
  for (int i = 0; i < 6; ++i) a.run(zero, t0, zero);  // 12..42: workers start at 18..48
  a.csrr(a0, kCycle);                          // would issue at 48: stalls to 84
  a.join();                                    // 90; last exit at 114
  a.halt(zero);                                // 114 -> 120
  a.label("worker");
  for (int i = 0; i < 10; ++i) a.addi(a1, a1, 1);
  a.wexit(zero);                               // worker k: wexit at 18 + 6(k-1) + 60
  for (uint32_t q : {1u, 4u, 1000u}) {
    SCOPED_TRACE(q);
    Harness h(a, test_params(q));
    h.run_ok();
    EXPECT_EQ(h.x(a0), 84u);
    EXPECT_EQ(h.core.cycle(), 120u);
    EXPECT_EQ(h.core.thread_stats(0).instret, 11u);
    EXPECT_EQ(h.core.thread_stats(0).stall_cycles, 54u);
    for (uint32_t w = 1; w <= 6; ++w) EXPECT_EQ(h.core.thread_stats(w).instret, 11u);
    EXPECT_EQ(h.core.instret(), 77u);
  }
}

// With fewer than six workers running the supervisor never stalls for a slot.
TEST(IssThreads, FiveWorkersLeaveTheSupervisorASlot) {
  Asm a;
  a.la(t0, "worker");
  for (int i = 0; i < 5; ++i) a.run(zero, t0, zero);  // 12..36
  a.csrr(a0, kCycle);                                  // 42
  a.join();
  a.halt(zero);
  a.label("worker");
  for (int i = 0; i < 10; ++i) a.addi(a1, a1, 1);
  a.wexit(zero);
  Harness h(a, test_params(1000));
  h.run_ok();
  EXPECT_EQ(h.x(a0), 42u);
  // join at 48 waits for worker 5 (first issue 42, wexit at 102, exit 108).
  EXPECT_EQ(h.core.cycle(), 114u);
}

TEST(IssThreads, WorkerStartState) {
  Asm a;
  a.li(t0, 0x58000);
  a.csrw(0x8c0, t0);            // wstackbase
  a.li(t0, 0x400);
  a.csrw(0x8c1, t0);            // wstacksize
  a.la(t0, "wexit_stub");
  a.csrw(0x8c2, t0);            // wexitpc
  a.li(gp, 0x1111);
  a.li(tp, 0x2222);
  a.li(s5, 77);
  a.csrrwi(zero, 0x002, 3);     // the supervisor's frm is not inherited
  a.la(t0, "worker");
  a.li(a1, 0x99);
  a.run(zero, t0, a1);
  a.run(zero, t0, a1);
  a.join();
  a.halt(zero);
  a.label("worker");
  a.addi(a0, a0, 1);
  a.jalr(zero, ra, 0);          // return to wexitpc
  a.label("wexit_stub");
  a.wexit(a0);
  Harness h(a);
  h.run_ok();
  for (uint32_t w : {1u, 2u}) {
    const ThreadRegisters r = h.core.registers(w);
    EXPECT_EQ(r.x[a0], 0x9au);
    EXPECT_EQ(r.x[ra], a.addr("wexit_stub"));
    EXPECT_EQ(r.x[sp], 0x58000u + w * 0x400);
    EXPECT_EQ(r.x[gp], 0x1111u);
    EXPECT_EQ(r.x[tp], 0x2222u);
    EXPECT_EQ(r.x[s5], 0u);
    EXPECT_EQ(r.fcsr, 0u);
    EXPECT_EQ(h.core.thread_stats(w).last_status, 0x9a);
  }
}

// A tile holds its workers' contexts only once one may be written (core_state.h's
// ThreadContexts): before, every worker reads as never started; a debugger's write to a
// worker's registers, a run and a reset behave as with every context held.
TEST(IssThreads, WorkersNeverStartedReadAsIdle) {
  Asm a;
  a.li(a0, 7);
  a.halt(a0);
  a.label("worker");
  a.wexit(a0);
  Harness h(a);
  h.run_ok();
  ASSERT_EQ(h.core.params().workers, 6u);
  for (uint32_t w = 1; w <= h.core.params().workers; ++w) {
    SCOPED_TRACE(w);
    EXPECT_FALSE(h.core.thread_alive(w));
    const ThreadStats st = h.core.thread_stats(w);
    EXPECT_EQ(st.instret, 0u);
    EXPECT_EQ(st.starts, 0u);
    EXPECT_EQ(st.stall_cycles, 0u);
    const ThreadRegisters r = h.core.registers(w);
    EXPECT_EQ(r.pc, 0u);
    for (unsigned i = 0; i < 32; ++i) EXPECT_EQ(r.x[i], 0u) << "x" << i;
    EXPECT_EQ(h.core.read_csr(w, kThread), w);  // its id, as a held context's
  }
  EXPECT_EQ(h.core.instret(), h.core.thread_stats(0).instret);  // the supervisor's alone
  ThreadRegisters r = h.core.registers(3);
  r.pc = a.addr("worker");
  r.x[a0] = 0x55;
  ASSERT_TRUE(h.core.set_registers(3, r));
  EXPECT_EQ(h.core.registers(3).x[a0], 0x55u);
  EXPECT_EQ(h.core.registers(3).pc, a.addr("worker"));
  EXPECT_EQ(h.core.registers(2).x[a0], 0u);
  EXPECT_FALSE(h.core.thread_alive(3));  // written, still not started
  h.core.reset();
  EXPECT_EQ(h.core.registers(3).x[a0], 0u);
  h.run_ok();
  EXPECT_EQ(h.stop.exit_code, 7);
}

// A worker may start a worker; choosing the context waits until the starter is the
// earliest thread, so the timing does not depend on the quantum.
TEST(IssThreads, WorkersStartWorkers) {
  Asm a;
  a.la(t0, "w1");               // 0, 6
  a.run(s0, t0, zero);          // 12: w1 starts at 18
  a.join();                     // 18: waits for the last exit (48)
  a.halt(zero);                 // 48 -> 54
  a.label("w1");
  a.la(t1, "w2");               // 18, 24
  a.run(s1, t1, zero);          // 30: w2 (context 2) starts at 36
  a.wexit(zero);                // 36 -> exit 42
  a.label("w2");
  a.addi(a0, zero, 7);          // 36
  a.wexit(a0);                  // 42 -> exit 48
  for (uint32_t q : {1u, 1000u}) {
    Harness h(a, test_params(q));
    h.run_ok();
    EXPECT_EQ(h.core.cycle(), 54u);
    EXPECT_EQ(h.x(s0), 1u);
    EXPECT_EQ(h.x(s1, 1), 2u);
    EXPECT_EQ(h.core.thread_stats(2).last_status, 7);
  }
}

TEST(IssThreads, ExitedContextsAreReused) {
  Asm a;
  a.la(t0, "worker");
  a.addi(s1, zero, 3);
  a.label("again");
  a.run(s0, t0, zero);
  a.join();
  a.addi(s1, s1, -1);
  a.bne(s1, zero, "again");
  a.halt(zero);
  a.label("worker");
  a.wexit(zero);
  Harness h(a);
  h.run_ok();
  EXPECT_EQ(h.x(s0), 1u);
  EXPECT_EQ(h.core.thread_stats(1).starts, 3u);
  EXPECT_EQ(h.core.thread_stats(2).starts, 0u);
}

TEST(IssThreads, HaltWaitsForRunningWorkers) {
  Asm a;
  a.la(t0, "worker");           // 0, 6
  a.run(zero, t0, zero);        // 12: worker from 18
  a.addi(a0, zero, 9);          // 18
  a.halt(a0);                   // 24: waits for the exit
  a.label("worker");
  a.li(t1, 50);                 // 18, 24
  a.label("loop");
  a.addi(t1, t1, -1);
  a.bne(t1, zero, "loop");      // 100 instructions: 30..624
  a.wexit(zero);                // 630 -> exit 636
  Harness h(a);
  h.run_ok();
  EXPECT_EQ(h.stop.exit_code, 9);
  EXPECT_EQ(h.core.cycle(), 636u);
  EXPECT_EQ(h.core.thread_stats(1).instret, 103u);
}

TEST(IssThreads, SyncStopsAndResumes) {
  Asm a;
  a.addi(t0, zero, 1);
  a.sync(t0);                   // 6: zone 1 -> stop at 12
  a.csrr(a0, kCycle);           // resumes at the release cycle
  a.csrr(a1, kSuperstep);
  a.addi(t0, zero, 2);
  a.sync(t0);
  a.la(t1, "worker");
  a.run(zero, t1, zero);
  a.sync(zero);                 // zone 0 = join with the worker
  a.csrr(a2, kSuperstep);
  a.halt(zero);
  a.label("worker");
  a.wexit(zero);
  Harness h(a);
  StopInfo s = h.run();
  ASSERT_EQ(s.reason, StopReason::Sync);
  EXPECT_EQ(s.sync_zone, 1u);
  EXPECT_EQ(h.core.cycle(), 12u);
  EXPECT_EQ(h.core.run().reason, StopReason::Sync);  // not released: same stop again
  EXPECT_THROW(h.core.release_sync(11), std::invalid_argument);
  h.core.release_sync(100);
  s = h.run();
  ASSERT_EQ(s.reason, StopReason::Sync);
  EXPECT_EQ(s.sync_zone, 2u);
  EXPECT_EQ(h.x(a0), 100u);
  EXPECT_EQ(h.x(a1), 1u);
  EXPECT_EQ(h.core.thread_stats(0).stall_cycles, 88u);
  h.core.release_sync(h.core.cycle());
  h.run_ok();
  EXPECT_EQ(h.x(a2), 3u);
  EXPECT_THROW(h.core.release_sync(1000), std::logic_error);
  EXPECT_EQ(h.core.run().reason, StopReason::Halted);  // stays halted
}

TEST(IssThreads, FewerWorkerContexts) {
  Asm a;
  a.csrr(a0, 0xcc5);
  a.la(t0, "worker");
  a.run(zero, t0, zero);
  a.run(zero, t0, zero);
  a.run(zero, t0, zero);        // third: no free context
  a.halt(zero);
  a.label("worker");
  a.label("spin");
  a.j("spin");
  TileParams p = test_params();
  p.workers = 2;
  Harness h(a, p);
  h.run();
  ASSERT_EQ(h.stop.reason, StopReason::Fault);
  EXPECT_EQ(h.stop.fault->kind, "worker start");
  EXPECT_EQ(h.stop.fault->detail, "run while all 2 workers run");
  EXPECT_EQ(h.x(a0), 2u);
  EXPECT_THROW(h.core.thread_stats(3), std::out_of_range);
}

// A program with several phases of unequal workers, a worker starting a worker and the
// supervisor's slot stall: every count must be identical for every quantum.
TEST(IssThreads, ResultsAreIdenticalForEveryQuantum) {
  Asm a;
  a.li(s0, kData);
  a.la(t0, "worker");
  a.addi(s2, zero, 2);              // two rounds
  a.label("round");
  for (int i = 1; i <= 6; ++i) {
    a.addi(a1, zero, 37 * i);       // loop length differs per worker
    a.run(zero, t0, a1);
  }
  a.csrr(s3, kCycle);
  a.join();
  a.addi(s2, s2, -1);
  a.bne(s2, zero, "round");
  a.la(t0, "starter");
  a.run(zero, t0, zero);
  a.join();
  a.lw(a0, 4, s0);
  a.halt(a0);
  a.label("worker");                // sum of 1..a0 into kData + 4*thread
  a.csrr(t1, kThread);
  a.slli(t1, t1, 2);
  a.li(t5, kData);
  a.add(t1, t1, t5);
  a.addi(t2, zero, 0);
  a.label("wloop");
  a.add(t2, t2, a0);
  a.addi(a0, a0, -1);
  a.bne(a0, zero, "wloop");
  a.lw(t3, 0, t1);
  a.add(t3, t3, t2);
  a.sw(t3, 0, t1);
  a.wexit(t2);
  a.label("starter");
  a.la(t4, "worker");
  a.addi(a1, zero, 10);
  a.run(zero, t4, a1);
  a.wexit(zero);

  struct Result {
    uint64_t cycle;
    std::vector<uint64_t> instret, stall;
    std::vector<uint32_t> mem;
    uint32_t s3;
    bool operator==(const Result&) const = default;
  };
  auto run = [&](uint32_t q) {
    Harness h(a, test_params(q));
    h.run_ok();
    Result r{h.core.cycle(), {}, {}, {}, h.x(s3)};
    for (uint32_t t = 0; t <= 6; ++t) {
      r.instret.push_back(h.core.thread_stats(t).instret);
      r.stall.push_back(h.core.thread_stats(t).stall_cycles);
      r.mem.push_back(h.mem32(kData + 4 * t));
    }
    return r;
  };
  const Result ref = run(1);
  EXPECT_EQ(ref.mem[1], 2u * (37 * 38 / 2));
  EXPECT_EQ(ref.mem[2], 2u * (74 * 75 / 2) + 55);  // the starter (context 1) started context 2
  EXPECT_EQ(ref.mem[6], 2u * (222 * 223 / 2));
  for (uint32_t q : {2u, 3u, 17u, 64u, 1000u, 100000u}) EXPECT_TRUE(run(q) == ref) << "quantum " << q;
}

}  // namespace
