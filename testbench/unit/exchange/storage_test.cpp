// A plan reuses the storage of the plans made before it on the same host thread
// (plan_internal.h, PlanStorage; docs/exchange.md "Planning cost"): nothing of an earlier
// plan, larger, failed, of other tiles or cut otherwise, may reach a later one. Each phase
// is planned once on a new thread (fresh storage) and once on a thread that planned the
// others first: the plans must be equal.
#include <thread>

#include <gtest/gtest.h>

#include "exchange/plan_internal.h"
#include "phase_builder.h"
#include "plan_compare.h"

namespace ipusim::exchange::test {
namespace {

ExchangePlan on_new_thread(const std::vector<TilePostings>& in, const ExchangeTiming& timing, uint32_t per_chunk) {
  ExchangePlan plan;
  std::thread([&] { plan = detail::plan_exchange_in_chunks(in, timing, nullptr, per_chunk); }).join();
  return plan;
}

TEST(ExchangeStorage, APlanAfterOtherPlansOnItsThreadIsThePlanOfFreshStorage) {
  ExchangeTiming t;
  t.tiles_per_ipu = 96;
  // A large valid phase; one with problems (absent peers and a destination named twice:
  // chunks written short of their counts); a few tiles with ids far apart (no direct
  // table of ids); a small valid phase with destinations named twice and pairs.
  const Phase big = all_to_all(96, 64);
  Phase failing = all_to_all(40, 16);
  failing.send(3, 0x100, 16, {7, 7, 500}).send(30, 0x100, 8, {2});
  Phase sparse;
  sparse.send(5, 0x100, 32, {90000}).recv(90000, 0x200, 32, 5).tile(1000000, 7);
  Phase small;
  small.tile(0, 3).tile(1, 9).tile(2).tile(3, 1);
  small.send(0, 0x100, 16, {2, 3, 2}).recv(2, 0x1000, 16, 0).recv(3, 0x1000, 16, 0);
  small.send(1, 0x100, 8, {1, 0, 1}).recv(1, 0x2000, 8, 1).recv(0, 0x2000, 8, 1);
  const std::vector<const Phase*> phases{&big, &failing, &sparse, &small, &big, &small};
  std::vector<ExchangePlan> fresh;
  for (const Phase* p : phases) fresh.push_back(on_new_thread(p->input(), t, 7));
  EXPECT_FALSE(fresh[1].errors.empty());
  EXPECT_TRUE(fresh[3].errors.empty());
  std::thread([&] {
    for (uint32_t per_chunk : {7u, 1u, 32u}) {
      for (size_t i = 0; i < phases.size(); ++i) {
        const std::vector<TilePostings> in = phases[i]->input();
        const ExchangePlan reused = detail::plan_exchange_in_chunks(in, t, nullptr, per_chunk);
        expect_same(fresh[i], reused, "phase " + std::to_string(i) + ", chunks of " + std::to_string(per_chunk));
      }
    }
  }).join();
}

// A fabric gives each plan the deliveries of the one before (exchange_plan.h): whatever
// they hold, larger or smaller, the plan is the plan made into new storage; a failed
// plan returns none.
TEST(ExchangeStorage, APlanIntoAnEarlierPlansDeliveriesIsThePlanOfNewDeliveries) {
  ExchangeTiming t;
  t.tiles_per_ipu = 96;
  const Phase big = all_to_all(96, 64);
  Phase failing = all_to_all(40, 16);
  failing.send(3, 0x100, 16, {7, 7, 500});
  Phase small;
  small.send(0, 0x100, 16, {2, 3}).recv(2, 0x1000, 16, 0).recv(3, 0x1000, 16, 0);
  const std::vector<const Phase*> phases{&big, &small, &big, &failing, &small, &big};
  std::vector<Delivery> kept;  // not cleared: the plan must replace what it holds
  for (size_t i = 0; i < phases.size(); ++i) {
    const std::vector<TilePostings> in = phases[i]->input();
    const ExchangePlan fresh = plan_exchange(in, t);
    const size_t held = kept.size();
    ExchangePlan reused = plan_exchange(in, t, nullptr, std::move(kept));
    expect_same(fresh, reused, "phase " + std::to_string(i) + " into " + std::to_string(held) + " deliveries");
    if (phases[i] == &failing) {
      EXPECT_TRUE(reused.deliveries.empty());
    }
    kept = std::move(reused.deliveries);
  }
}

// The phase of one IPU of a system names its tiles from ipu x tiles on (the direct table
// of ids then starts there): planned there, it is the same phase planned at tile 0, every
// delivery's tiles moved by the base; a peer just below the base or just above the IPU is
// absent from it, as any other.
TEST(ExchangeStorage, OneIpusPhaseAwayFromTileZeroIsItsPhaseAtTileZeroMoved) {
  constexpr uint32_t kTiles = 48, kBase = 5 * kTiles;
  ExchangeTiming t;
  t.tiles_per_ipu = kTiles;
  const Phase at_zero = all_to_all(kTiles, 32);
  Phase moved;
  for (uint32_t s = 0; s < kTiles; ++s) moved.tile(kBase + s);
  for (uint32_t s = 0; s < kTiles; ++s) {
    for (uint32_t k = 1; k < kTiles; ++k) moved.send(kBase + s, 0, 32, {kBase + (s + k) % kTiles});
    for (uint32_t k = 1; k < kTiles; ++k) moved.recv(kBase + s, 32 * k, 32, kBase + (s + kTiles - k) % kTiles);
  }
  for (uint32_t per_chunk : {1u, 7u, 32u}) {
    const ExchangePlan want = on_new_thread(at_zero.input(), t, per_chunk);
    const ExchangePlan got = on_new_thread(moved.input(), t, per_chunk);
    ASSERT_TRUE(want.errors.empty());
    ASSERT_TRUE(got.errors.empty()) << got.errors.front().detail;
    ASSERT_EQ(got.deliveries.size(), want.deliveries.size());
    for (size_t i = 0; i < want.deliveries.size(); ++i) {
      const Delivery &a = got.deliveries[i], &b = want.deliveries[i];
      ASSERT_TRUE(a.src_tile == b.src_tile + kBase && a.dst_tile == b.dst_tile + kBase && a.src_addr == b.src_addr &&
                  a.dst_addr == b.dst_addr && a.len == b.len)
          << "delivery " << i << ", chunks of " << per_chunk;
    }
    ASSERT_EQ(got.tiles.size(), want.tiles.size());
    for (size_t i = 0; i < want.tiles.size(); ++i) {
      EXPECT_EQ(got.tiles[i].done_cycle, want.tiles[i].done_cycle) << "tile " << i;
      EXPECT_EQ(got.tiles[i].bytes_in, want.tiles[i].bytes_in) << "tile " << i;
    }
  }
  Phase outside = moved;
  outside.send(kBase + 3, 0x4000, 16, {kBase - 1}).send(kBase + 4, 0x4000, 16, {kBase + kTiles});
  const ExchangePlan plan = on_new_thread(outside.input(), t, 7);
  ASSERT_EQ(plan.errors.size(), 2u);
  EXPECT_EQ(plan.errors[0].kind, "peer not in the exchange") << plan.errors[0].detail;
  EXPECT_NE(plan.errors[0].detail.find(std::to_string(kBase - 1)), std::string::npos) << plan.errors[0].detail;
  EXPECT_EQ(plan.errors[1].kind, "peer not in the exchange") << plan.errors[1].detail;
  EXPECT_NE(plan.errors[1].detail.find(std::to_string(kBase + kTiles)), std::string::npos) << plan.errors[1].detail;
}

}  // namespace
}  // namespace ipusim::exchange::test
