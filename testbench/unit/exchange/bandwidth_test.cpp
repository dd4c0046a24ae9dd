// Headline figures from the plan: the GC2 all-to-all aggregate (1216 tiles x 4 B/cycle x
// 1.6 GHz = 7.78 TB/s) and one tile's bandwidth against message size.
#include <algorithm>
#include <cstdio>

#include <gtest/gtest.h>

#include "phase_builder.h"

namespace ipusim::exchange::test {
namespace {

constexpr uint32_t kGc2Tiles = 1216;
constexpr double kGc2ClockHz = 1.6e9;
constexpr double kGc2ExchangeBytesPerS = kGc2Tiles * 4 * kGc2ClockHz;  // 7.7824e12

ExchangeTiming gc2() {
  ExchangeTiming t;
  t.tiles_per_ipu = kGc2Tiles;
  t.in_bytes_per_cycle = t.out_bytes_per_cycle = 4;
  t.latency_min_cycles = 8;
  t.latency_max_cycles = 64;
  return t;
}

// Bytes received by every tile over the exchange's span (every tile starts at 0), in
// bytes per second at `clock_hz`.
double aggregate(const ExchangePlan& plan, double clock_hz) {
  uint64_t bytes = 0, end = 0;
  for (const TileOutcome& t : plan.tiles) {
    bytes += t.bytes_in;
    end = std::max(end, t.done_cycle);
  }
  return double(bytes) / double(end) * clock_hz;
}

double gc2_all_to_all(uint32_t len, bool naive = false) {
  const Phase phase = all_to_all(kGc2Tiles, len, naive);
  const ExchangePlan plan = phase.plan(gc2());
  EXPECT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
  EXPECT_EQ(plan.deliveries.size(), size_t(kGc2Tiles) * (kGc2Tiles - 1));
  const double agg = aggregate(plan, kGc2ClockHz);
  std::printf("GC2 all-to-all, %u B messages%s: %.3f TB/s (%.1f%% of %.3f TB/s)\n", len,
              naive ? " (naive order)" : "", agg / 1e12, 100 * agg / kGc2ExchangeBytesPerS,
              kGc2ExchangeBytesPerS / 1e12);
  return agg;
}

TEST(ExchangeBandwidth, Gc2AllToAllFitsSram) {
  // 212 B: 1215 receive buffers and one send buffer fit a GC2 tile's 256 KiB.
  ASSERT_LE(212u * kGc2Tiles, 256u * 1024);
  const double agg = gc2_all_to_all(212);
  EXPECT_NEAR(agg / kGc2ExchangeBytesPerS, 1.0, 0.05);
}

TEST(ExchangeBandwidth, Gc2AllToAllLargeMessages) {
  // 4 KiB messages (more than SRAM holds; the plan does not check addresses): the
  // aggregate no longer depends on the length.
  const double agg = gc2_all_to_all(4096);
  EXPECT_NEAR(agg / kGc2ExchangeBytesPerS, 1.0, 0.05);
  EXPECT_GT(agg / kGc2ExchangeBytesPerS, 0.995);
}

TEST(ExchangeBandwidth, NaiveOrderHalvesTheAggregate) {
  // Every tile sends to 0, 1, 2, ... in the same order: all senders queue on one
  // receiver at a time, and the last receiver finishes after about twice the ideal.
  const double agg = gc2_all_to_all(212, true);
  EXPECT_NEAR(agg / kGc2ExchangeBytesPerS, 0.5, 0.02);
}

TEST(ExchangeBandwidth, OneTileAgainstMessageSize) {
  // Tile 0 to the farthest tile (64 cycles of latency), one message: bandwidth is
  // len / (64 + len / 4) B/cycle: latency-bound when small, 4 B/cycle when large.
  const ExchangeTiming t = gc2();
  ASSERT_EQ(latency_cycles(t, 0, kGc2Tiles - 1), 64u);
  double previous = 0;
  for (uint32_t len : {4u, 16u, 64u, 256u, 1024u, 4096u, 16384u, 65536u}) {
    Phase p;
    p.send(0, 0, len, {kGc2Tiles - 1});
    p.recv(kGc2Tiles - 1, 0, len, 0);
    const ExchangePlan plan = p.plan(t);
    ASSERT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
    const uint64_t cycles = p.outcome(plan, kGc2Tiles - 1).done_cycle;
    EXPECT_EQ(cycles, 64u + len / 4);
    const double bw = double(len) / double(cycles);
    std::printf("%6u B: %6llu cycles, %.3f B/cycle (%.2f GB/s at 1.6 GHz)\n", len,
                (unsigned long long)cycles, bw, bw * kGc2ClockHz / 1e9);
    EXPECT_GT(bw, previous);
    previous = bw;
    if (len <= 16) {
      EXPECT_LT(bw, 0.25 * 4);  // latency dominates
    }
    if (len >= 16384) {
      EXPECT_GT(bw, 0.98 * 4);
    }
  }
}

}  // namespace
}  // namespace ipusim::exchange::test
