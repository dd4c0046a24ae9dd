// The timing model of docs/exchange.md with exact numbers: distance and latency, out-port
// serialisation, the start rule, the fluid in port, the pair rule, rounding, determinism.
#include <algorithm>
#include <random>

#include <gtest/gtest.h>

#include "phase_builder.h"

namespace ipusim::exchange::test {
namespace {

ExchangeTiming gc2() {
  ExchangeTiming t;
  t.tiles_per_ipu = 1216;
  return t;
}

TEST(ExchangeTiming, LatencyInOneColumn) {
  const ExchangeTiming t = column_of_four();
  EXPECT_EQ(max_tile_distance(t), 3u);
  EXPECT_EQ(latency_cycles(t, 2, 2), 8u);
  EXPECT_EQ(latency_cycles(t, 0, 1), 8u);
  EXPECT_EQ(latency_cycles(t, 1, 0), 8u);
  EXPECT_EQ(latency_cycles(t, 0, 2), 36u);  // 8 + 56 * 1/2
  EXPECT_EQ(latency_cycles(t, 3, 0), 64u);
}

TEST(ExchangeTiming, DistanceAndLatencyOnGc2Layout) {
  const ExchangeTiming t = gc2();  // 19 columns of 64 tiles
  EXPECT_EQ(max_tile_distance(t), 81u);  // 18 columns + 63 rows
  EXPECT_EQ(tile_distance(t, 0, 1), 1u);
  EXPECT_EQ(tile_distance(t, 0, 64), 1u);      // next column, same row
  EXPECT_EQ(tile_distance(t, 63, 64), 64u);    // top of column 0 to the foot of column 1
  EXPECT_EQ(tile_distance(t, 0, 1215), 81u);
  EXPECT_EQ(tile_distance(t, 1215, 0), 81u);
  EXPECT_EQ(latency_cycles(t, 0, 64), 8u);
  EXPECT_EQ(latency_cycles(t, 0, 65), 9u);     // 8 + 56 * 1/80 = 8.7, rounded half up
  EXPECT_EQ(latency_cycles(t, 0, 40), 35u);    // 40 hops: 8 + 56 * 39/80 = 35.3
  EXPECT_EQ(latency_cycles(t, 0, 41), 36u);    // 41 hops: 8 + 56 * 40/80 = 36 exactly
  EXPECT_EQ(latency_cycles(t, 0, 1215), 64u);
  // Another IPU: the farthest on-chip figure; within IPU 1 distances are local again.
  EXPECT_EQ(tile_distance(t, 0, 1216), 81u);
  EXPECT_EQ(latency_cycles(t, 0, 1216), 64u);
  EXPECT_EQ(latency_cycles(t, 1216, 1217), 8u);
}

TEST(ExchangeTiming, Gc200Layout) {
  ExchangeTiming t;
  t.tiles_per_ipu = 1472;  // 23 columns of 64
  EXPECT_EQ(max_tile_distance(t), 85u);
  EXPECT_EQ(tile_distance(t, 0, 1471), 85u);
  EXPECT_EQ(latency_cycles(t, 0, 1471), 64u);
  EXPECT_EQ(latency_cycles(t, 1471, 1470), 8u);
}

TEST(ExchangeTiming, PartialLastColumn) {
  ExchangeTiming t;
  t.tiles_per_ipu = 100;  // columns of 64 and 36
  EXPECT_EQ(max_tile_distance(t), 64u);
  EXPECT_EQ(tile_distance(t, 63, 64), 64u);
  EXPECT_EQ(tile_distance(t, 99, 0), 1u + 35u);
}

TEST(ExchangeTiming, SingleMessage) {
  Phase p;
  p.send(0, 0, 64, {1});
  p.recv(1, 0x100, 64, 0);
  const ExchangePlan plan = p.plan(column_of_four());
  ASSERT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
  EXPECT_EQ(p.outcome(plan, 0).done_cycle, 16u);       // 64 B / 4 B per cycle
  EXPECT_EQ(p.outcome(plan, 1).done_cycle, 8u + 16u);  // latency + last byte
}

TEST(ExchangeTiming, SendsLeaveInPostingOrder) {
  Phase p;
  p.send(0, 0, 64, {1}).send(0, 0, 64, {2});
  p.recv(1, 0x100, 64, 0);
  p.recv(2, 0x100, 64, 0);
  const ExchangePlan plan = p.plan(column_of_four());
  ASSERT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
  EXPECT_EQ(p.outcome(plan, 0).done_cycle, 32u);
  EXPECT_EQ(p.outcome(plan, 1).done_cycle, 24u);
  EXPECT_EQ(p.outcome(plan, 2).done_cycle, 16u + 36u + 16u);
}

TEST(ExchangeTiming, ReceiversShareTheirInPort) {
  Phase p;
  p.send(1, 0, 64, {2});
  p.send(3, 0, 64, {2});
  p.recv(2, 0x100, 64, 1).recv(2, 0x200, 64, 3);
  const ExchangePlan plan = p.plan(column_of_four());
  ASSERT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
  EXPECT_EQ(p.outcome(plan, 1).done_cycle, 16u);
  EXPECT_EQ(p.outcome(plan, 3).done_cycle, 16u);
  EXPECT_EQ(p.outcome(plan, 2).done_cycle, 8u + 128u / 4);  // both arrive at 8, 128 B at 4 B/cycle
}

TEST(ExchangeTiming, MessageWaitsForItsReceiver) {
  Phase p;
  p.tile(0, 0).tile(1, 100);
  p.send(0, 0, 64, {1});
  p.recv(1, 0x100, 64, 0);
  const ExchangePlan plan = p.plan(column_of_four());
  ASSERT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
  EXPECT_EQ(p.outcome(plan, 0).done_cycle, 116u);
  EXPECT_EQ(p.outcome(plan, 1).done_cycle, 124u);
}

TEST(ExchangeTiming, MessageWaitsForItsSender) {
  Phase p;
  p.tile(0, 40).tile(1, 0);
  p.send(0, 0, 64, {1});
  p.recv(1, 0x100, 64, 0);
  const ExchangePlan plan = p.plan(column_of_four());
  EXPECT_EQ(p.outcome(plan, 0).done_cycle, 56u);
  EXPECT_EQ(p.outcome(plan, 1).done_cycle, 64u);
}

TEST(ExchangeTiming, LateDestinationHoldsLaterSends) {
  // The out port keeps posting order: the send to late tile 1 holds the one to tile 2.
  Phase p;
  p.tile(0, 0).tile(1, 100).tile(2, 0);
  p.send(0, 0, 64, {1}).send(0, 0, 64, {2});
  p.recv(1, 0x100, 64, 0);
  p.recv(2, 0x100, 64, 0);
  const ExchangePlan plan = p.plan(column_of_four());
  EXPECT_EQ(p.outcome(plan, 0).done_cycle, 132u);
  EXPECT_EQ(p.outcome(plan, 1).done_cycle, 124u);
  EXPECT_EQ(p.outcome(plan, 2).done_cycle, 116u + 36u + 16u);
}

TEST(ExchangeTiming, MulticastWaitsForAllDestinations) {
  Phase p;
  p.tile(0, 0).tile(1, 0).tile(3, 50);
  p.send(0, 0, 64, {1, 3});
  p.recv(1, 0x100, 64, 0);
  p.recv(3, 0x100, 64, 0);
  const ExchangePlan plan = p.plan(column_of_four());
  ASSERT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
  EXPECT_EQ(p.outcome(plan, 0).done_cycle, 66u);
  EXPECT_EQ(p.outcome(plan, 1).done_cycle, 50u + 8u + 16u);
  EXPECT_EQ(p.outcome(plan, 3).done_cycle, 50u + 64u + 16u);
}

TEST(ExchangeTiming, IdleTileIsDoneAtItsStart) {
  Phase p;
  p.tile(2, 77);
  p.tile(0, 5).tile(1, 5);
  p.send(0, 0, 4, {1});
  p.recv(1, 0x100, 4, 0);
  const ExchangePlan plan = p.plan(column_of_four());
  EXPECT_EQ(p.outcome(plan, 2).done_cycle, 77u);
  EXPECT_EQ(p.outcome(plan, 1).done_cycle, 5u + 8u + 1u);
}

TEST(ExchangeTiming, SlowInPort) {
  ExchangeTiming t = column_of_four();
  t.in_bytes_per_cycle = 2;
  Phase p;
  p.send(0, 0, 64, {1});
  p.recv(1, 0x100, 64, 0);
  const ExchangePlan plan = p.plan(t);
  EXPECT_EQ(p.outcome(plan, 0).done_cycle, 16u);
  EXPECT_EQ(p.outcome(plan, 1).done_cycle, 8u + 32u);
}

TEST(ExchangeTiming, FluidInPortCountsBytesStillArriving) {
  // Out port 2 B/cycle, in port 4 B/cycle; tiles 1, 3, 5 neighbour tile 4 (3 x 3 grid).
  // X (1 -> 4) arrives over [8, 40) at 2 B/cycle: no queue on its own. Y (3 -> 4) and
  // Z (5 -> 4) leave at 16 and arrive over [24, 56): from 24 to 40 six bytes a cycle come
  // in and four go, so 32 B queue; from 40 to 56 four come and four go; the last 32 B
  // drain by 64. Formula: a = 24, W = 192, A(24) = 32: 24 + (192 - 32) / 4 = 64.
  // (Counting each message as arrived whole at its first byte would give 56.)
  ExchangeTiming t;
  t.tiles_per_ipu = 9;
  t.tiles_per_column = 3;
  t.out_bytes_per_cycle = 2;
  t.in_bytes_per_cycle = 4;
  ASSERT_EQ(latency_cycles(t, 1, 4), 8u);
  ASSERT_EQ(latency_cycles(t, 3, 4), 8u);
  ASSERT_EQ(latency_cycles(t, 5, 4), 8u);
  Phase p;
  p.tile(4, 0).tile(1, 0).tile(3, 16).tile(5, 16);
  p.send(1, 0, 64, {4});
  p.send(3, 0, 64, {4});
  p.send(5, 0, 64, {4});
  p.recv(4, 0x100, 64, 1).recv(4, 0x200, 64, 3).recv(4, 0x300, 64, 5);
  const ExchangePlan plan = p.plan(t);
  ASSERT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
  EXPECT_EQ(p.outcome(plan, 1).done_cycle, 32u);
  EXPECT_EQ(p.outcome(plan, 3).done_cycle, 48u);
  EXPECT_EQ(p.outcome(plan, 5).done_cycle, 48u);
  EXPECT_EQ(p.outcome(plan, 4).done_cycle, 64u);
}

TEST(ExchangeTiming, FractionalCyclesRoundUpOnce) {
  // 3 B/cycle out: a 64 B send takes 21 1/3 cycles. Two back to back end at 42 2/3; the
  // receiver's last byte lands at 50 2/3. Rounding each send would give 44 and 52.
  ExchangeTiming t = column_of_four();
  t.out_bytes_per_cycle = 3;
  Phase p;
  p.send(0, 0, 64, {1}).send(0, 0, 64, {1});
  p.recv(1, 0x100, 64, 0).recv(1, 0x200, 64, 0);
  const ExchangePlan plan = p.plan(t);
  ASSERT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
  EXPECT_EQ(p.outcome(plan, 0).done_cycle, 43u);
  EXPECT_EQ(p.outcome(plan, 1).done_cycle, 51u);
}

// Senders 0 and 1 each multicast 64 B to `dests`; every destination receives both.
ExchangePlan two_multicasts(const ExchangeTiming& t, std::vector<uint32_t> dests, Phase& p) {
  p.send(0, 0, 64, dests);
  p.send(1, 0, 64, dests);
  for (uint32_t d : dests) p.recv(d, 0x100, 64, 0).recv(d, 0x200, 64, 1);
  return p.plan(t);
}

ExchangeTiming flat_latency(uint32_t tiles_per_ipu) {
  ExchangeTiming t;
  t.tiles_per_ipu = tiles_per_ipu;
  t.latency_min_cycles = t.latency_max_cycles = 8;
  return t;
}

TEST(ExchangeTiming, PairRuleHalvesTheCharge) {
  // To the pair (2, 3): each message charges 32 B; both arrive over [8, 24) at 2 B/cycle
  // of charge each, which the 4 B/cycle port takes as it comes.
  Phase pair;
  const ExchangePlan a = two_multicasts(flat_latency(8), {2, 3}, pair);
  ASSERT_TRUE(a.errors.empty()) << a.errors[0];
  EXPECT_EQ(pair.outcome(a, 2).done_cycle, 24u);
  EXPECT_EQ(pair.outcome(a, 3).done_cycle, 24u);
  EXPECT_EQ(pair.outcome(a, 2).bytes_in, 128u);  // bytes received are not halved
  // To (2, 4), not a pair: 128 B through the port from 8 on.
  Phase apart;
  const ExchangePlan b = two_multicasts(flat_latency(8), {2, 4}, apart);
  EXPECT_EQ(apart.outcome(b, 2).done_cycle, 40u);
  EXPECT_EQ(apart.outcome(b, 4).done_cycle, 40u);
  // (3, 4) are neighbours but not a pair (pairs are 2k, 2k + 1).
  Phase odd;
  const ExchangePlan c = two_multicasts(flat_latency(8), {3, 4}, odd);
  EXPECT_EQ(odd.outcome(c, 3).done_cycle, 40u);
}

TEST(ExchangeTiming, PairRuleLooksOnlyAtItsOwnSend) {
  // Each sender's send to {2, 10} is followed by one to {11, 13}: 10 and 11 are a pair,
  // but not in one send, so tile 11 pays full length: 128 B arriving from 24, done at 56.
  Phase p;
  for (uint32_t src : {0u, 1u}) {
    p.send(src, 0, 64, {2, 10}).send(src, 0, 64, {11, 13});
    for (uint32_t d : {2u, 10u, 11u, 13u}) p.recv(d, 0x100 * (src + 1), 64, src);
  }
  const ExchangePlan plan = p.plan(flat_latency(16));
  ASSERT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
  EXPECT_EQ(p.outcome(plan, 11).done_cycle, 56u);
  EXPECT_EQ(p.outcome(plan, 13).done_cycle, 56u);
  EXPECT_EQ(p.outcome(plan, 2).done_cycle, 40u);
}

TEST(ExchangeTiming, PairsAreWithinOneIpu) {
  // Three tiles per IPU: tile 2 is local 2 (no partner), tile 3 is IPU 1's local 0.
  Phase across;
  const ExchangePlan a = two_multicasts(flat_latency(3), {2, 3}, across);
  EXPECT_EQ(across.outcome(a, 2).done_cycle, 40u);
  EXPECT_EQ(across.outcome(a, 3).done_cycle, 40u);
  // Tiles 3 and 4 are IPU 1's locals 0 and 1: a pair.
  Phase within;
  const ExchangePlan b = two_multicasts(flat_latency(3), {3, 4}, within);
  EXPECT_EQ(within.outcome(b, 3).done_cycle, 24u);
  EXPECT_EQ(within.outcome(b, 4).done_cycle, 24u);
}

// A valid random phase on `tiles` tiles: sends with 1..3 destinations, lengths 4..256,
// start cycles 0..99; every receive in its own buffer.
Phase random_phase(uint32_t tiles, uint32_t seed) {
  std::mt19937 rng(seed);
  Phase p;
  std::vector<uint32_t> next_recv(tiles, 0x10000);
  for (uint32_t t = 0; t < tiles; ++t) p.tile(t, rng() % 100);
  for (int i = 0; i < 2000; ++i) {
    const uint32_t src = rng() % tiles;
    const uint32_t len = 4 * (1 + rng() % 64);
    std::vector<uint32_t> dests;
    for (uint32_t k = 0, n = 1 + rng() % 3; k < n; ++k) dests.push_back(rng() % tiles);
    p.send(src, 4 * (rng() % 1024), len, dests);
    std::sort(dests.begin(), dests.end());
    dests.erase(std::unique(dests.begin(), dests.end()), dests.end());
    for (uint32_t d : dests) {
      p.recv(d, next_recv[d], len, src);
      next_recv[d] += len;
    }
  }
  return p;
}

void expect_same_plan(const ExchangePlan& a, const std::vector<TilePostings>& in_a,
                      const ExchangePlan& b, const std::vector<TilePostings>& in_b) {
  ASSERT_EQ(a.errors, b.errors);
  ASSERT_EQ(a.deliveries.size(), b.deliveries.size());
  for (size_t i = 0; i < a.deliveries.size(); ++i) {
    const Delivery &x = a.deliveries[i], &y = b.deliveries[i];
    EXPECT_TRUE(x.src_tile == y.src_tile && x.src_addr == y.src_addr && x.dst_tile == y.dst_tile &&
                x.dst_addr == y.dst_addr && x.len == y.len)
        << "delivery " << i;
  }
  for (size_t i = 0; i < in_a.size(); ++i) {
    const auto j = std::find_if(in_b.begin(), in_b.end(), [&](const TilePostings& t) { return t.tile == in_a[i].tile; }) -
                   in_b.begin();
    ASSERT_LT(size_t(j), in_b.size());
    EXPECT_EQ(a.tiles[i].done_cycle, b.tiles[j].done_cycle) << "tile " << in_a[i].tile;
    EXPECT_EQ(a.tiles[i].bytes_in, b.tiles[j].bytes_in);
    EXPECT_EQ(a.tiles[i].bytes_out, b.tiles[j].bytes_out);
  }
}

TEST(ExchangeTiming, SameInputSamePlan) {
  const Phase p = random_phase(64, 1);
  const ExchangePlan a = p.plan(flat_latency(64)), b = p.plan(flat_latency(64));
  ASSERT_TRUE(a.errors.empty()) << a.errors[0];
  expect_same_plan(a, p.input(), b, p.input());
}

TEST(ExchangeTiming, ShuffledTilesSamePlan) {
  ExchangeTiming t;
  t.tiles_per_ipu = 64;
  t.tiles_per_column = 8;
  for (uint32_t seed : {1u, 2u, 3u}) {
    const Phase p = random_phase(64, seed);
    const std::vector<TilePostings> in = p.input();
    std::vector<TilePostings> shuffled = in;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(seed + 100));
    const ExchangePlan a = plan_exchange(in, t), b = plan_exchange(shuffled, t);
    ASSERT_TRUE(a.errors.empty()) << a.errors[0];
    uint64_t latest = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      EXPECT_GE(a.tiles[i].done_cycle, in[i].start_cycle);
      latest = std::max(latest, a.tiles[i].done_cycle);
    }
    EXPECT_GT(latest, 100u);  // the phase did take time
    expect_same_plan(a, in, b, shuffled);
  }
}

TEST(ExchangeTiming, ShuffledTilesSameErrors) {
  Phase p = random_phase(32, 7);
  p.send(3, 0, 8, {40});  // absent tile
  p.send(4, 0, 8, {5});   // no receive
  const std::vector<TilePostings> in = p.input();
  std::vector<TilePostings> shuffled = in;
  std::reverse(shuffled.begin(), shuffled.end());
  const ExchangePlan a = plan_exchange(in, flat_latency(32)), b = plan_exchange(shuffled, flat_latency(32));
  EXPECT_EQ(a.errors.size(), 2u);
  EXPECT_EQ(a.errors, b.errors);
}

}  // namespace
}  // namespace ipusim::exchange::test
