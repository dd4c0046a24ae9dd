// Buffer rules of one tile in one phase: receives never write the same bytes twice, and
// never write bytes the tile's own sends read. Sends may share bytes.
#include <algorithm>
#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "phase_builder.h"

namespace ipusim::exchange::test {
namespace {

ExchangeTiming chip() {
  ExchangeTiming t;
  t.tiles_per_ipu = 16;
  return t;
}

TEST(ExchangeOverlap, TwoReceivesIntoTheSameBytes) {
  Phase p;
  p.send(1, 0x0, 64, {3});
  p.send(2, 0x0, 32, {3});
  p.recv(3, 0x1000, 64, 1, 0x40100);
  p.recv(3, 0x1020, 32, 2, 0x40104);
  const ExchangePlan plan = p.plan(chip());
  ASSERT_EQ(plan.errors.size(), 1u);
  EXPECT_EQ(plan.errors[0].detail,
            "tile 3 receives twice into the same bytes: 64 bytes at 0x00001000 from tile 1 (pc 0x00040100) "
            "and 32 bytes at 0x00001020 from tile 2 (pc 0x00040104)");
  EXPECT_TRUE(plan.deliveries.empty());
}

TEST(ExchangeOverlap, NestedAndLaterOverlapsAreFound) {
  // [0x100, 0x200) holds [0x110, 0x120); [0x1f0, 0x210) overlaps the first, not the
  // second: one error each (the check keeps the receive reaching furthest).
  Phase p;
  p.send(1, 0x0, 256, {3}).send(1, 0x0, 16, {3}).send(1, 0x0, 32, {3});
  p.recv(3, 0x100, 256, 1).recv(3, 0x110, 16, 1).recv(3, 0x1f0, 32, 1);
  const ExchangePlan plan = p.plan(chip());
  ASSERT_EQ(plan.errors.size(), 2u);
  EXPECT_NE(plan.errors[0].detail.find("16 bytes at 0x00000110"), std::string::npos) << plan.errors[0].detail;
  EXPECT_NE(plan.errors[1].detail.find("32 bytes at 0x000001f0"), std::string::npos) << plan.errors[1].detail;
}

TEST(ExchangeOverlap, AdjacentReceivesAreFine) {
  Phase p;
  p.send(1, 0x0, 64, {3}).send(1, 0x0, 64, {3});
  p.recv(3, 0x1000, 64, 1).recv(3, 0x1040, 64, 1);
  const ExchangePlan plan = p.plan(chip());
  EXPECT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
  EXPECT_EQ(plan.deliveries.size(), 2u);
}

TEST(ExchangeOverlap, EmptyReceivesOverlapNothing) {
  Phase p;
  p.send(1, 0x0, 0, {3}).send(1, 0x0, 64, {3});
  p.recv(3, 0x1000, 0, 1).recv(3, 0x1000, 64, 1);
  const ExchangePlan plan = p.plan(chip());
  EXPECT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
}

// Receive buffers posted in any order give the same problems: in address order, in one
// descending run, in two descending runs (an all-to-all's receives from me - 1, me - 2,
// ...), in a few runs (merged) and shuffled into many runs (sorted).
TEST(ExchangeOverlap, AnyPostingOrderFindsTheSameOverlaps) {
  constexpr uint32_t kTiles = 48, kBase = 0x1000;
  // Tile 0 receives 64 bytes from every other tile s at kBase + 64 s, but the buffers of
  // tiles 9 and 13 are moved into those of 8 and 12.
  auto addr_of = [&](uint32_t s) { return s == 9 ? kBase + 64 * 8 + 32 : s == 13 ? kBase + 64 * 12 + 16 : kBase + 64 * s; };
  std::vector<uint32_t> ascending;
  for (uint32_t s = 1; s < kTiles; ++s) ascending.push_back(s);
  std::vector<uint32_t> descending(ascending.rbegin(), ascending.rend());
  std::vector<uint32_t> rotated;  // as in an all-to-all: from 19 down to 1, then 47 down to 20
  for (uint32_t s = 19; s >= 1; --s) rotated.push_back(s);
  for (uint32_t s = kTiles - 1; s >= 20; --s) rotated.push_back(s);
  std::vector<uint32_t> few_runs;  // ascending from 30, ascending from 1, descending from 29
  for (uint32_t s = 30; s < kTiles; ++s) few_runs.push_back(s);
  for (uint32_t s = 1; s < 15; ++s) few_runs.push_back(s);
  for (uint32_t s = 29; s >= 15; --s) few_runs.push_back(s);
  std::vector<uint32_t> shuffled = ascending;
  std::mt19937 rng(7);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  for (const std::vector<uint32_t>* order : {&ascending, &descending, &rotated, &few_runs, &shuffled}) {
    std::vector<uint32_t> sorted = *order;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(sorted, ascending);  // every source once
    ExchangeTiming timing;
    timing.tiles_per_ipu = kTiles;
    Phase p;
    for (uint32_t s = 1; s < kTiles; ++s) p.send(s, 0x0, 64, {0});
    for (uint32_t s : *order) p.recv(0, addr_of(s), 64, s, 0x40000 + 4 * s);
    const ExchangePlan plan = p.plan(timing);
    ASSERT_EQ(plan.errors.size(), 2u);
    auto names = [](const Problem& e, uint32_t a, uint32_t b) {
      return e.detail.find(fmt::format("64 bytes at {:#010x}", a)) != std::string::npos &&
             e.detail.find(fmt::format("64 bytes at {:#010x}", b)) != std::string::npos;
    };
    EXPECT_TRUE(names(plan.errors[0], kBase + 64 * 8, kBase + 64 * 8 + 32)) << plan.errors[0].detail;
    EXPECT_TRUE(names(plan.errors[1], kBase + 64 * 12, kBase + 64 * 12 + 16)) << plan.errors[1].detail;
  }
}

TEST(ExchangeOverlap, SendReadingBytesItsTileReceives) {
  Phase p;
  p.send(5, 0x2000, 64, {6, 7}, 0x40000);
  p.send(6, 0x0, 16, {5}, 0x40004);
  p.recv(5, 0x2030, 16, 6, 0x40008);
  p.recv(6, 0x100, 64, 5).recv(7, 0x100, 64, 5);
  const ExchangePlan plan = p.plan(chip());
  ASSERT_EQ(plan.errors.size(), 1u);
  EXPECT_EQ(plan.errors[0].detail,
            "tile 5 sends 64 bytes at 0x00002000 to tile 6 and 1 more (pc 0x00040000) while it receives "
            "16 bytes at 0x00002030 from tile 6 (pc 0x00040008) into overlapping bytes "
            "(what is sent would depend on order)");
  EXPECT_TRUE(plan.deliveries.empty());
}

TEST(ExchangeOverlap, SendOverlapFoundBehindAShortOne) {
  // Sorted by address the long send comes first and a short one second: the receive
  // after the short one still meets the long one.
  Phase p;
  p.send(5, 0x000, 0x400, {6}).send(5, 0x010, 0x10, {6});
  p.recv(6, 0x0, 0x400, 5).recv(6, 0x1000, 0x10, 5);
  p.send(6, 0x2000, 16, {5});
  p.recv(5, 0x300, 16, 6);
  const ExchangePlan plan = p.plan(chip());
  ASSERT_EQ(plan.errors.size(), 1u);
  EXPECT_NE(plan.errors[0].detail.find("1024 bytes at 0x00000000"), std::string::npos) << plan.errors[0].detail;
}

TEST(ExchangeOverlap, SendsMayShareBytesAndTouchReceives) {
  Phase p;
  p.send(5, 0x2000, 64, {6}).send(5, 0x2010, 64, {6});  // overlapping sends
  p.recv(5, 0x2050, 16, 6);                              // just after both
  p.send(6, 0x2050, 16, {5});                            // other tile: its own buffers
  p.recv(6, 0x2000, 64, 5).recv(6, 0x3000, 64, 5);
  const ExchangePlan plan = p.plan(chip());
  EXPECT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
  EXPECT_EQ(plan.deliveries.size(), 3u);
}

}  // namespace
}  // namespace ipusim::exchange::test
