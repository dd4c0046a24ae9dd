// SuperstepTracker: a tile's cycles split into compute / sync / exchange per superstep,
// with the superstep ending where its exchange phase closes (tile/superstep.h).
#include <gtest/gtest.h>

#include <vector>

#include "tile/superstep.h"

namespace ipusim::tile {
namespace {

struct Recorder {
  std::vector<SuperstepRecord> records;
  SuperstepTracker tracker{[this](const SuperstepRecord& r) { records.push_back(r); }};
};

void expect_sums(const SuperstepRecord& r) {
  EXPECT_EQ(r.compute_cycles + r.sync_cycles + r.exchange_cycles, r.end - r.begin) << "superstep " << r.index;
}

TEST(SuperstepTracker, SyncThenExchangeThenHalt) {
  Recorder rec;
  rec.tracker.on_sync_arrival(100, 40, 1);     // computed 0..100, 40 instructions
  rec.tracker.on_sync_release(130);            // 30 cycles of sync
  rec.tracker.on_exchange_start(142, 42);      // 12 cycles posting
  rec.tracker.on_exchange_done(200, 64, 32);   // 58 cycles of exchange
  ASSERT_EQ(rec.records.size(), 1u);
  const SuperstepRecord& s0 = rec.records[0];
  EXPECT_EQ(s0.index, 0u);
  EXPECT_EQ(s0.begin, 0u);
  EXPECT_EQ(s0.end, 200u);
  EXPECT_EQ(s0.compute_cycles, 112u);
  EXPECT_EQ(s0.sync_cycles, 30u);
  EXPECT_EQ(s0.exchange_cycles, 58u);
  EXPECT_EQ(s0.instructions, 42u);
  EXPECT_EQ(s0.bytes_out, 64u);
  EXPECT_EQ(s0.bytes_in, 32u);
  EXPECT_EQ(s0.sync_zone, 1u);
  EXPECT_TRUE(s0.exchanged);
  EXPECT_TRUE(s0.complete);
  expect_sums(s0);

  rec.tracker.on_halt(260, 50);
  ASSERT_EQ(rec.records.size(), 2u);
  const SuperstepRecord& s1 = rec.records[1];
  EXPECT_EQ(s1.index, 1u);
  EXPECT_EQ(s1.begin, 200u);
  EXPECT_EQ(s1.end, 260u);
  EXPECT_EQ(s1.compute_cycles, 60u);
  EXPECT_EQ(s1.sync_cycles, 0u);
  EXPECT_EQ(s1.sync_zone, 0u);
  EXPECT_EQ(s1.instructions, 8u);
  EXPECT_FALSE(s1.exchanged);
  expect_sums(s1);
  rec.tracker.on_run_end(300, 60);  // after the halt: nothing more
  EXPECT_EQ(rec.records.size(), 2u);
}

TEST(SuperstepTracker, EmptyExchangeEndsTheSuperstepAtTheRelease) {
  Recorder rec;
  rec.tracker.on_sync_arrival(100, 10, 2);
  rec.tracker.on_sync_release(120);
  EXPECT_TRUE(rec.records.empty()) << "the exchange phase is still open";
  rec.tracker.on_sync_arrival(300, 30, 1);  // no xwait: the phase closed empty at 120
  ASSERT_EQ(rec.records.size(), 1u);
  EXPECT_EQ(rec.records[0].end, 120u);
  EXPECT_EQ(rec.records[0].compute_cycles, 100u);
  EXPECT_EQ(rec.records[0].sync_cycles, 20u);
  EXPECT_EQ(rec.records[0].exchange_cycles, 0u);
  EXPECT_EQ(rec.records[0].exchange_start, 120u);
  EXPECT_FALSE(rec.records[0].exchanged);
  EXPECT_EQ(rec.records[0].instructions, 10u);
  rec.tracker.on_sync_release(330);
  rec.tracker.on_halt(400, 45);  // closes superstep 1 at 330, superstep 2 = 330..400
  ASSERT_EQ(rec.records.size(), 3u);
  EXPECT_EQ(rec.records[1].begin, 120u);
  EXPECT_EQ(rec.records[1].end, 330u);
  EXPECT_EQ(rec.records[1].compute_cycles, 180u);
  EXPECT_EQ(rec.records[1].sync_cycles, 30u);
  EXPECT_EQ(rec.records[1].instructions, 20u);
  EXPECT_EQ(rec.records[2].begin, 330u);
  EXPECT_EQ(rec.records[2].compute_cycles, 70u);
  EXPECT_EQ(rec.records[2].instructions, 15u);
  for (const auto& r : rec.records) expect_sums(r);
}

TEST(SuperstepTracker, RunEndClosesTheOpenSuperstepIncomplete) {
  Recorder waiting_at_sync;
  waiting_at_sync.tracker.on_sync_arrival(100, 10, 1);
  waiting_at_sync.tracker.on_run_end(100, 10);
  ASSERT_EQ(waiting_at_sync.records.size(), 1u);
  EXPECT_FALSE(waiting_at_sync.records[0].complete);
  EXPECT_EQ(waiting_at_sync.records[0].sync_cycles, 0u);
  expect_sums(waiting_at_sync.records[0]);

  Recorder at_exchange;
  at_exchange.tracker.on_sync_arrival(100, 10, 1);
  at_exchange.tracker.on_sync_release(110);
  at_exchange.tracker.on_exchange_start(130, 14);
  at_exchange.tracker.on_run_end(130, 14);
  ASSERT_EQ(at_exchange.records.size(), 1u);
  EXPECT_FALSE(at_exchange.records[0].complete);
  EXPECT_EQ(at_exchange.records[0].end, 130u);
  expect_sums(at_exchange.records[0]);
}

}  // namespace
}  // namespace ipusim::tile
