// RunBounds (tile_core.h): cycle and instruction limits, the interrupt flag and the debug
// probe pause a run before an instruction, exactly and whatever the thread quantum, and
// a paused run goes on to the same end as one never paused.
#include <algorithm>
#include <atomic>
#include <tuple>

#include "iss_harness.h"

namespace {

using namespace isstest;
using namespace rvasm;

// Four workers each add 1..200 into a0 and store it; the supervisor joins and halts.
Asm workers_program() {
  Asm a;
  a.la(t0, "worker");
  for (int i = 0; i < 4; ++i) a.run(zero, t0, zero);
  a.join();
  a.halt(zero);
  a.label("worker");
  a.li(t1, 200);
  a.label("loop");
  a.add(a0, a0, t1);
  a.addi(t1, t1, -1);
  a.bne(t1, zero, "loop");
  a.label("store");
  a.li(t2, kData);
  a.sw(a0, 0, t2);
  a.wexit(zero);
  return a;
}

Asm endless_loop() {
  Asm a;
  a.label("spin");
  a.addi(a0, a0, 1);
  a.j("spin");
  return a;
}

TEST(IssBounds, CycleLimitPausesBeforeTheFirstInstructionAtTheLimit) {
  for (uint32_t q : {1u, 7u, 1024u}) {
    SCOPED_TRACE(q);
    Harness h(endless_loop(), test_params(q));
    RunBounds b;
    b.cycle_limit = 600;
    h.core.set_bounds(&b);
    const StopInfo s = h.run();
    ASSERT_EQ(s.reason, StopReason::Paused);
    EXPECT_EQ(s.pause, PauseReason::CycleLimit);
    EXPECT_EQ(s.pause_cycle, 600u);  // instructions issue at 0, 6, ..., 594
    EXPECT_EQ(h.core.instret(), 100u);
    EXPECT_EQ(h.x(a0), 50u);
    // Raised, the run goes on from there.
    b.cycle_limit = 1200;
    EXPECT_EQ(h.run().reason, StopReason::Paused);
    EXPECT_EQ(h.core.instret(), 200u);
  }
}

TEST(IssBounds, InstructionLimitCountsEveryThread) {
  for (uint32_t q : {1u, 1024u}) {
    SCOPED_TRACE(q);
    Harness h(workers_program(), test_params(q));
    RunBounds b;
    b.instruction_limit = 333;
    h.core.set_bounds(&b);
    const StopInfo s = h.run();
    ASSERT_EQ(s.reason, StopReason::Paused);
    EXPECT_EQ(s.pause, PauseReason::InstructionLimit);
    EXPECT_EQ(h.core.instret(), 333u);
    h.core.set_bounds(nullptr);
    h.run_ok();
  }
}

TEST(IssBounds, InterruptPausesAnEndlessLoop) {
  Harness h(endless_loop());
  std::atomic<bool> interrupt{true};
  RunBounds b;
  b.interrupt = &interrupt;
  h.core.set_bounds(&b);
  const StopInfo s = h.run();
  ASSERT_EQ(s.reason, StopReason::Paused);
  EXPECT_EQ(s.pause, PauseReason::Interrupt);
  EXPECT_EQ(s.pause_pc, h.program->entry());
}

// Records every instruction it is asked about; stops before `stop_pc` of `stop_thread`
// once, and before any store to kData.
class RecordingProbe : public DebugProbe {
 public:
  bool stop_before(const TileIdentity& tile, const Insn& insn) override {
    EXPECT_EQ(tile.tile, 3u);
    seen.push_back(insn);
    if (insn.pc == stop_pc && insn.thread == stop_thread && !stopped_at_pc) return stopped_at_pc = true;
    if (watch_stores && insn.store && insn.address == kData) {
      ++store_stops;
      return true;
    }
    return false;
  }
  std::vector<Insn> seen;
  uint32_t stop_pc = 0, stop_thread = 0;
  bool stopped_at_pc = false;
  bool watch_stores = false;
  int store_stops = 0;
};

TEST(IssBounds, ProbeSeesEveryInstructionInIssueOrderAndChangesNothing) {
  const Asm a = workers_program();
  Harness plain(a);
  plain.run_ok();

  Harness h(a);
  RecordingProbe probe;
  probe.stop_pc = a.addr("store");
  probe.stop_thread = 3;
  RunBounds b;
  b.probe = &probe;
  h.core.set_bounds(&b);
  const StopInfo s = h.run();
  ASSERT_EQ(s.reason, StopReason::Paused);
  EXPECT_EQ(s.pause, PauseReason::Probe);
  EXPECT_EQ(s.pause_thread, 3u);
  EXPECT_EQ(s.pause_pc, a.addr("store"));
  EXPECT_EQ(h.core.registers(3).pc, a.addr("store"));
  EXPECT_EQ(h.x(a0, 3), 20100u);  // the loop is done, the store not yet issued
  h.run_ok();
  EXPECT_EQ(h.core.cycle(), plain.core.cycle());
  EXPECT_EQ(h.core.instret(), plain.core.instret());
  EXPECT_EQ(h.mem32(kData), plain.mem32(kData));
  // Strict (cycle, thread) order; every retired instruction was asked about at least once.
  for (size_t i = 1; i < probe.seen.size(); ++i)
    EXPECT_LE(std::tie(probe.seen[i - 1].cycle, probe.seen[i - 1].thread),
              std::tie(probe.seen[i].cycle, probe.seen[i].thread))
        << "at " << i;
  EXPECT_GE(probe.seen.size(), plain.core.instret());
}

TEST(IssBounds, ProbeSeesStoreAddresses) {
  Harness h(workers_program());
  RecordingProbe probe;
  probe.watch_stores = true;
  RunBounds b;
  b.probe = &probe;
  h.core.set_bounds(&b);
  // Each worker's store pauses the tile before it issues; a debugger would step over it
  // with the probe off for one instruction.
  int pauses = 0;
  for (StopInfo s = h.run(); s.reason == StopReason::Paused; s = h.run()) {
    ++pauses;
    EXPECT_EQ(s.pause, PauseReason::Probe);
    const DebugProbe::Insn& last = probe.seen.back();
    EXPECT_TRUE(last.store);
    EXPECT_EQ(last.size, 4u);
    b.probe = nullptr;
    b.instruction_limit = h.core.instret() + 1;
    ASSERT_EQ(h.run().reason, StopReason::Paused);  // the store, alone
    b.instruction_limit = RunBounds::kNone;
    b.probe = &probe;
    ASSERT_LT(pauses, 10);
  }
  EXPECT_EQ(pauses, 4);
  EXPECT_EQ(h.stop.reason, StopReason::Halted);
}

}  // namespace
