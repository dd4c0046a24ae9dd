// SyncLatency: the controller's distance model ends exactly at the config's min and max
// (docs/sync.md).
#include <gtest/gtest.h>

#include <stdexcept>

#include "sync/sync_latency.h"

namespace ipusim::sync {
namespace {

TEST(SyncLatency, MiddleTileCostsMinEndTilesCostMax) {
  const SyncLatency l(1472, 16, 80);
  // Arriving together, tile t is released min + round_trip(t) after the arrival.
  EXPECT_EQ(l.round_trip(0), 64u);
  EXPECT_EQ(l.round_trip(1471), 64u);
  EXPECT_EQ(l.round_trip(735), 0u);
  EXPECT_EQ(l.round_trip(736), 0u);
  for (uint32_t t = 0; t < 1472; ++t) {
    EXPECT_LE(l.round_trip(t), 64u);
    EXPECT_EQ(l.to_controller(t) + l.from_controller(t), l.round_trip(t));
    EXPECT_EQ(l.round_trip(t), l.round_trip(1471 - t)) << "symmetric about the middle";
    if (t > 0 && t <= 735) {
      EXPECT_LE(l.round_trip(t), l.round_trip(t - 1)) << "nearer is not slower";
    }
  }
  EXPECT_EQ(l.to_controller(0), 32u);
  EXPECT_EQ(l.from_controller(0), 32u);
}

TEST(SyncLatency, SmallIpus) {
  const SyncLatency one(1, 16, 80);
  EXPECT_EQ(one.round_trip(0), 0u);
  const SyncLatency four(4, 16, 80);
  EXPECT_EQ(four.round_trip(0), 64u);
  EXPECT_EQ(four.round_trip(1), 21u);  // floor(64 / 3)
  EXPECT_EQ(four.to_controller(1), 10u);
  EXPECT_EQ(four.from_controller(1), 11u);
  const SyncLatency odd(3, 10, 15);  // odd span: the way out takes the extra cycle
  EXPECT_EQ(odd.round_trip(0), 5u);
  EXPECT_EQ(odd.to_controller(0), 2u);
  EXPECT_EQ(odd.from_controller(0), 3u);
  EXPECT_EQ(odd.round_trip(1), 0u);
  EXPECT_THROW(SyncLatency(0, 1, 2), std::invalid_argument);
  EXPECT_THROW(SyncLatency(4, 20, 10), std::invalid_argument);
}

}  // namespace
}  // namespace ipusim::sync
