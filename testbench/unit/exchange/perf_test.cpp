// Planning speed: a 1472-tile (GC200) all-to-all, 2.2 M messages. Prints the time; no
// timing assertion (the machine is shared), only that the plan is complete and right.
#include <chrono>
#include <cstdio>
#include <ctime>

#include <gtest/gtest.h>

#include "phase_builder.h"

namespace ipusim::exchange::test {
namespace {

TEST(ExchangePerf, Gc200AllToAll) {
  constexpr uint32_t kTiles = 1472;
  const Phase phase = all_to_all(kTiles, 64);
  const std::vector<TilePostings> in = phase.input();
  ExchangeTiming t;
  t.tiles_per_ipu = kTiles;
  // CPU time as well as wall time: on a shared machine the wall time includes waiting.
  const auto begin = std::chrono::steady_clock::now();
  const std::clock_t cpu_begin = std::clock();
  const ExchangePlan plan = plan_exchange(in, t);
  const double cpu = double(std::clock() - cpu_begin) / CLOCKS_PER_SEC;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  std::printf("plan_exchange: %u-tile all-to-all, %zu messages: %.3f s CPU, %.3f s wall\n", kTiles,
              plan.deliveries.size(), cpu, wall);
  ASSERT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
  EXPECT_EQ(plan.deliveries.size(), size_t(kTiles) * (kTiles - 1));
  // Rotated order: the out port is the bound, 1471 x 16 cycles, plus latency.
  for (const TileOutcome& o : plan.tiles) {
    EXPECT_GE(o.done_cycle, 1471u * 16);
    EXPECT_LE(o.done_cycle, 1471u * 16 + 16 + 64);
  }
}

}  // namespace
}  // namespace ipusim::exchange::test
