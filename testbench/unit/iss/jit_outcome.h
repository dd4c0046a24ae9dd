// One run of a test program on an engine, and the comparison of two (jit_lockstep_test.cpp,
// jit_hoist_test.cpp): everything observable of a tile after the run must be equal.
#pragma once

#include <vector>

#include "iss_harness.h"

namespace isstest {

struct Outcome {
  StopInfo stop;
  std::vector<ThreadRegisters> regs;
  std::vector<ThreadStats> stats;
  std::vector<uint8_t> data;
  uint64_t cycle = 0, instret = 0;
  uint64_t regions = 0;  // jit: regions translated
  uint64_t hoisted_loops = 0;  // jit: of those, loops with their bounds checks hoisted
};

inline Outcome run(const rvasm::Asm& a, uint32_t quantum, TileParams::Core core, uint32_t hot, bool co_issue,
                   uint32_t data_from = kData, uint32_t data_bytes = 4096) {
  TileParams p = test_params(quantum);
  p.core = core;
  p.jit_hot_entries = hot;
  p.co_issue = co_issue;
  Harness h(a, p);
  Outcome o;
  o.stop = h.run();
  for (uint32_t t = 0; t <= p.workers; ++t) {
    o.regs.push_back(h.core.registers(t));
    o.stats.push_back(h.core.thread_stats(t));
  }
  o.data.resize(data_bytes);
  EXPECT_TRUE(h.core.read(data_from, o.data));
  o.cycle = h.core.cycle();
  o.instret = h.core.instret();
  if (core != TileParams::Core::interp) {
    EXPECT_TRUE(h.core.jit_stats().active);
    o.regions = h.core.jit_stats().program_regions;
    o.hoisted_loops = h.core.jit_stats().program_hoisted_loops;
  }
  return o;
}

inline void expect_same(const Outcome& i, const Outcome& j) {
  ASSERT_EQ(i.stop.reason, j.stop.reason);
  ASSERT_EQ(i.stop.fault != nullptr, j.stop.fault != nullptr);
  if (i.stop.fault) {
    EXPECT_EQ(i.stop.fault->kind, j.stop.fault->kind);
    EXPECT_EQ(i.stop.fault->pc, j.stop.fault->pc);
    EXPECT_EQ(i.stop.fault->thread, j.stop.fault->thread);
    EXPECT_EQ(i.stop.fault->detail, j.stop.fault->detail);
  }
  EXPECT_EQ(i.cycle, j.cycle);
  EXPECT_EQ(i.instret, j.instret);
  for (size_t t = 0; t < i.regs.size(); ++t) {
    SCOPED_TRACE(t);
    EXPECT_EQ(i.regs[t].pc, j.regs[t].pc);
    for (unsigned r = 0; r < 32; ++r) {
      EXPECT_EQ(i.regs[t].x[r], j.regs[t].x[r]) << "x" << r;
      EXPECT_EQ(i.regs[t].f[r], j.regs[t].f[r]) << "f" << r;
    }
    EXPECT_EQ(i.regs[t].fcsr, j.regs[t].fcsr);
    EXPECT_EQ(i.stats[t].instret, j.stats[t].instret);
    EXPECT_EQ(i.stats[t].stall_cycles, j.stats[t].stall_cycles);
    EXPECT_EQ(i.stats[t].last_status, j.stats[t].last_status);
  }
  EXPECT_TRUE(i.data == j.data) << "data SRAM differs";
}

}  // namespace isstest
