// Credits and the replay buffer throttle the transmitter exactly when they must.
#include <gtest/gtest.h>

#include "link_test_util.h"
#include "links/link_layer.h"

namespace ipusim::links {
namespace {

using test::concatenated;
using test::make_phase;

constexpr uint64_t kT = 17, kL = 256;

std::vector<uint64_t> delivery_cycles(const LinkLayerConfig& c, const test::Phase& p) {
  std::vector<uint64_t> cycles;
  FaultInjector none;
  carry_phase(c, none, p.frames, [&](const Delivery& d) { cycles.push_back(d.cycle); });
  return cycles;
}

TEST(LinkFlowControl, CreditsThrottleWhenTheyCannotCoverTheRoundTrip) {
  auto p = make_phase(32, 256, 0);  // all ready at once
  LinkLayerConfig c;
  const auto free_run = delivery_cycles(c, p);
  EXPECT_EQ(free_run.back(), 31 * kT + kT + kL);
  // 8 credits cover 136 cycles of frames; a credit takes 17 + 2 * 256 = 529 to come
  // back, so frame k waits for frame k-8's: s_k = (k / 8) * 529 + (k % 8) * 17.
  c.credit_frames = 8;
  const auto throttled = delivery_cycles(c, p);
  for (uint64_t k = 0; k < 32; ++k)
    EXPECT_EQ(throttled[k], (k / 8) * (kT + 2 * kL) + (k % 8) * kT + kT + kL) << k;
}

TEST(LinkFlowControl, CreditsDoNotThrottleWhenTheyCoverTheRoundTrip) {
  auto p = make_phase(200, 256, 0);
  LinkLayerConfig c;
  const auto free_run = delivery_cycles(c, p);
  c.credit_frames = 32;  // 32 * 17 = 544 >= 529
  EXPECT_EQ(delivery_cycles(c, p), free_run);
  c.credit_frames = 31;  // 527 < 529: two cycles short every 31 frames
  const auto short_by_two = delivery_cycles(c, p);
  EXPECT_EQ(short_by_two[31], free_run[31] + 2);
  EXPECT_GT(short_by_two.back(), free_run.back());
}

TEST(LinkFlowControl, AFullReplayBufferStallsUntilAnAck) {
  auto p = make_phase(8, 256, 0);
  LinkLayerConfig c;
  c.replay_buffer_frames = 4;  // ACKs come only from the receiver's ACK timer (coalescing 8)
  auto d = delivery_cycles(c, p);
  // Frame 0 arrives at 273; the ACK timer sends ACK(3) at 529, it arrives at 785 and
  // frame 4 goes.
  EXPECT_EQ(d[3], 3 * kT + kT + kL);
  EXPECT_EQ(d[4], 785 + kT + kL);
  c.ack_coalesce_frames = 2;  // ACK(1) when frame 1 arrives (290), back at 546
  d = delivery_cycles(c, p);
  EXPECT_EQ(d[4], 546 + kT + kL);
  EXPECT_EQ(d[5], 546 + 2 * kT + kL);
}

TEST(LinkFlowControl, ASlowConsumerHoldsCreditsBack) {
  auto p = make_phase(40, 64, 0);
  LinkLayerConfig c;
  c.credit_frames = 4;
  c.drain_cycles_per_frame = 1000;
  FaultInjector none;
  auto r = carry_phase(c, none, p.frames);
  EXPECT_EQ(r.delivered, concatenated(p));
  // After the first four, each frame waits for a drain 1000 cycles after the last one.
  EXPECT_GE(r.last_delivery_cycle, 36u * 1000u);
}

}  // namespace
}  // namespace ipusim::links
