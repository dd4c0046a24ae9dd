// The fault injector: each policy hits what its spec says, counts it, and draws the same
// numbers for the same seed whatever else is combined with it.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <stdexcept>

#include "link_test_util.h"
#include "links/fault_injector.h"
#include "links/frame.h"

namespace ipusim::links {
namespace {

using test::injector_for;

std::vector<uint8_t> wire_of(size_t payload_bytes) {
  return encode_frame(1, std::vector<uint8_t>(payload_bytes, 0x5a));
}

TEST(LinkFaultInjector, PeriodicHitsEveryNthTransmissionWithOneBit) {
  auto inj = injector_for("periodic=5");
  const auto clean = wire_of(32);
  for (uint64_t i = 0; i < 50; ++i) {
    auto w = clean;
    inj.on_frame(w);
    size_t flipped = 0;
    for (size_t k = 0; k < w.size(); ++k) flipped += std::popcount(static_cast<unsigned>(w[k] ^ clean[k]));
    EXPECT_EQ(flipped, i % 5 == 4 ? 1u : 0u) << i;
  }
  EXPECT_EQ(inj.counts().periodic_frames_hit, 10u);
  EXPECT_EQ(inj.counts().frames_corrupted, 10u);
  EXPECT_EQ(inj.counts().wire_frames, 50u);
}

TEST(LinkFaultInjector, BurstsRepeatEveryPeriod) {
  auto inj = injector_for("burst=10:3:20");
  const auto clean = wire_of(16);
  std::vector<uint64_t> hit;
  for (uint64_t i = 0; i < 60; ++i) {
    auto w = clean;
    inj.on_frame(w);
    if (w != clean) hit.push_back(i);
  }
  EXPECT_EQ(hit, (std::vector<uint64_t>{10, 11, 12, 30, 31, 32, 50, 51, 52}));
  EXPECT_EQ(inj.counts().burst_frames_hit, 9u);
}

TEST(LinkFaultInjector, DropAndDuplicateEveryNth) {
  auto inj = injector_for("drop_every=4,dup_every=6");
  auto w = wire_of(8);
  uint64_t drops = 0, dups = 0;
  for (uint64_t i = 0; i < 24; ++i) {
    const auto v = inj.on_frame(w);
    drops += v.drop;
    dups += v.duplicate;
    EXPECT_FALSE(v.drop && v.duplicate);
  }
  // Transmissions 11 and 23 are both dropped and duplicated: lost, not doubled.
  EXPECT_EQ(drops, 6u);
  EXPECT_EQ(dups, 2u);
  EXPECT_EQ(inj.counts().frames_dropped, 6u);
  EXPECT_EQ(inj.counts().frames_duplicated, 2u);
}

TEST(LinkFaultInjector, BitErrorRateMatchesOverManyBits) {
  auto inj = injector_for("ber=1e-4,seed=11");
  const auto clean = wire_of(248);  // 2048 bits
  uint64_t flipped = 0;
  for (int i = 0; i < 20000; ++i) {
    auto w = clean;
    inj.on_frame(w);
    for (size_t k = 0; k < w.size(); ++k) flipped += std::popcount(static_cast<unsigned>(w[k] ^ clean[k]));
  }
  // 40.96 M bits at 1e-4: 4096 expected, sd 64.
  EXPECT_EQ(flipped, inj.counts().ber_bits_flipped);
  EXPECT_NEAR(static_cast<double>(flipped), 4096.0, 4 * 64.0);
  EXPECT_EQ(inj.counts().ber_frames_hit, inj.counts().frames_corrupted);
}

TEST(LinkFaultInjector, AckDropsOnTheReturnPath) {
  auto inj = injector_for("ack_drop_every=3");
  uint64_t dropped = 0;
  for (int i = 0; i < 30; ++i) dropped += inj.drop_dllp();
  EXPECT_EQ(dropped, 10u);
  EXPECT_EQ(inj.counts().dllps_seen, 30u);
  EXPECT_EQ(inj.counts().dllps_dropped, 10u);
}

// Each policy draws from its own stream: adding another policy leaves its pattern alone,
// and the same seed gives the same faults.
TEST(LinkFaultInjector, PoliciesAreIndependentAndSeeded) {
  auto pattern = [](const char* spec) {
    auto inj = injector_for(spec);
    const auto clean = wire_of(64);
    std::vector<std::vector<uint8_t>> out;
    for (int i = 0; i < 3000; ++i) {
      auto w = clean;
      inj.on_frame(w);
      out.push_back(w);
    }
    return out;
  };
  EXPECT_EQ(pattern("ber=1e-3,seed=5"), pattern("ber=1e-3,seed=5"));
  EXPECT_NE(pattern("ber=1e-3,seed=5"), pattern("ber=1e-3,seed=6"));
  EXPECT_EQ(pattern("ber=1e-3,seed=5"), pattern("ber=1e-3,drop=0.1,dup=0.1,ack_drop=0.5,seed=5"));
}

// A checkpoint's view (docs/checkpoints.md): an injector restored from another's state
// half-way goes on with exactly the faults the other one injects, every policy at once.
TEST(LinkFaultInjector, ARestoredStateGoesOnWithTheSameFaults) {
  const char* spec = "ber=1e-3,periodic=7,burst=20:3:50,drop=0.05,dup_every=9,ack_drop=0.1,seed=4";
  auto a = injector_for(spec);
  const auto clean = wire_of(64);
  for (int i = 0; i < 100; ++i) {
    auto w = clean;
    a.on_frame(w);
    a.drop_dllp();
  }
  auto b = injector_for(spec);
  b.restore(a.state());
  EXPECT_EQ(b.counts(), a.counts());
  for (int i = 0; i < 300; ++i) {
    auto wa = clean, wb = clean;
    const FrameVerdict va = a.on_frame(wa), vb = b.on_frame(wb);
    ASSERT_EQ(wa, wb) << i;
    ASSERT_EQ(va.drop, vb.drop) << i;
    ASSERT_EQ(va.duplicate, vb.duplicate) << i;
    ASSERT_EQ(a.drop_dllp(), b.drop_dllp()) << i;
  }
  EXPECT_EQ(b.counts(), a.counts());
  EXPECT_GT(a.counts().ber_frames_hit, 0u);
  EXPECT_GT(a.counts().frames_dropped, 0u);
  // A fresh injector does not follow: the state is what makes the difference.
  auto fresh = injector_for(spec);
  bool differs = false;
  for (int i = 0; i < 300 && !differs; ++i) {
    auto wa = clean, wf = clean;
    a.on_frame(wa);
    fresh.on_frame(wf);
    differs = wa != wf;
  }
  EXPECT_TRUE(differs);
  // Another set of policies is refused, naming it.
  auto other = injector_for("periodic=3");
  EXPECT_THROW(other.restore(a.state()), std::invalid_argument);
}

}  // namespace
}  // namespace ipusim::links
