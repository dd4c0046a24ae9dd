// Messages between IPUs: the plan times them over the IPU-Links (links::LinkScheduler),
// exactly. Test numbers: 4 tiles per IPU, 4 B/cycle each way, on-chip latency 8..64 (a
// message between IPUs spends 64 cycles on chip in all), links of 8 B/cycle (8 GB/s at
// 1 GHz) and 100 cycles one way, 64-byte frames (8 cycles on a link). A 256-byte message
// leaves its tile in 64 cycles, so its frames reach the link port at 80, 96, 112, 128.
#include <gtest/gtest.h>

#include "exchange/exchange_plan.h"
#include "links/link_timing.h"
#include "phase_builder.h"

namespace ipusim::exchange {
namespace {

using test::Phase;

links::LinkTimingConfig link_config() {
  links::LinkTimingConfig c;
  c.bytes_per_second = 8e9;
  c.latency_ns = 100;
  c.frame_bytes = 64;
  c.clock_hz = 1e9;
  return c;
}

struct Links {
  links::Topology topology;
  links::LinkScheduler scheduler;
  ExchangeTiming timing;
  explicit Links(uint32_t ipus, std::vector<config::LinkWire> wires)
      : topology(ipus, 10, std::move(wires)), scheduler(topology, link_config(), 32), timing(test::column_of_four()) {
    timing.links = &scheduler;
  }
};

TEST(ExchangeLinks, OneMessageCrossesOneLinkFrameByFrame) {
  Links l(2, {{0, 0, 1, 0}});
  Phase p;
  p.send(0, 0x1000, 256, {4}).recv(4, 0x2000, 256, 0);
  const ExchangePlan plan = p.plan(l.timing);
  ASSERT_TRUE(plan.errors.empty()) << plan.errors[0];
  EXPECT_EQ(p.outcome(plan, 0).done_cycle, 64u) << "the sender is done when its last byte left";
  // Last frame: ready 128, on the link 128..136, arrives 236.
  EXPECT_EQ(p.outcome(plan, 4).done_cycle, 236u);
  EXPECT_EQ(l.scheduler.load(0).frames, 4u);
  EXPECT_EQ(l.scheduler.load(0).bytes, 256u);
  EXPECT_EQ(l.scheduler.load(1).frames, 0u) << "the other direction carried nothing";
}

TEST(ExchangeLinks, TwoSendersShareALinkAtItsRate) {
  // Two tiles at 4 B/cycle fill an 8 B/cycle link exactly: each frame waits for the other's.
  Links l(2, {{0, 0, 1, 0}});
  Phase p;
  p.send(0, 0x1000, 256, {4}).recv(4, 0x2000, 256, 0);
  p.send(1, 0x1000, 256, {5}).recv(5, 0x2000, 256, 1);
  const ExchangePlan plan = p.plan(l.timing);
  ASSERT_TRUE(plan.errors.empty());
  EXPECT_EQ(p.outcome(plan, 4).done_cycle, 236u);
  EXPECT_EQ(p.outcome(plan, 5).done_cycle, 244u) << "one frame time behind";
  EXPECT_EQ(l.scheduler.load(0).busy_ticks, 8u * 8 * 32) << "eight frames of 8 cycles";
}

TEST(ExchangeLinks, ParallelLinksSpreadBySendingTile) {
  Links l(2, {{0, 0, 1, 0}, {0, 1, 1, 1}});
  Phase p;
  p.send(0, 0x1000, 256, {4}).recv(4, 0x2000, 256, 0);
  p.send(1, 0x1000, 256, {5}).recv(5, 0x2000, 256, 1);
  const ExchangePlan plan = p.plan(l.timing);
  ASSERT_TRUE(plan.errors.empty());
  EXPECT_EQ(p.outcome(plan, 4).done_cycle, 236u);
  EXPECT_EQ(p.outcome(plan, 5).done_cycle, 236u) << "its own link: no wait";
  EXPECT_EQ(l.scheduler.load(0).frames, 4u);
  EXPECT_EQ(l.scheduler.load(2).frames, 4u);
}

TEST(ExchangeLinks, EveryHopAddsItsLatencyAndFrameTime) {
  // IPUs 0 - 1 - 2 in a line: one 64-byte frame, ready at 80: link 0 80..88, arrives at
  // IPU 1 at 188, link 1 188..196, arrives at 296.
  Links l(3, {{0, 0, 1, 0}, {1, 1, 2, 0}});
  Phase p;
  p.send(0, 0x1000, 64, {8}).recv(8, 0x2000, 64, 0);
  const ExchangePlan plan = p.plan(l.timing);
  ASSERT_TRUE(plan.errors.empty());
  EXPECT_EQ(p.outcome(plan, 8).done_cycle, 296u);
  EXPECT_EQ(l.topology.hops(0, 2), 2u);
}

TEST(ExchangeLinks, BackToBackFramesPipeline) {
  // 4 KiB: 64 frames, one every 16 cycles from the tile; the link (8 cycles a frame) keeps
  // up, so the last arrives 100 + 8 after it is ready: 64 + 1024 + 8 + 100.
  Links l(2, {{0, 0, 1, 0}});
  Phase p;
  p.send(0, 0x1000, 4096, {4}).recv(4, 0x10000, 4096, 0);
  const ExchangePlan plan = p.plan(l.timing);
  ASSERT_TRUE(plan.errors.empty());
  EXPECT_EQ(p.outcome(plan, 4).done_cycle, 64u + 1024 + 8 + 100);
}

TEST(ExchangeLinks, NoPathIsAnErrorNamingBothTiles) {
  Links l(3, {{0, 0, 1, 0}});
  Phase p;
  p.send(0, 0x1000, 64, {8}).recv(8, 0x2000, 64, 0);
  const ExchangePlan plan = p.plan(l.timing);
  ASSERT_EQ(plan.errors.size(), 1u);
  EXPECT_EQ(plan.errors[0].kind, "no link path");
  EXPECT_EQ(plan.errors[0].detail,
            "tile 0 (ipu 0) sends 64 bytes to tile 8 (ipu 2) (pc 0x00040000) but no IPU-Link path joins IPU 0 to IPU 2");
  ASSERT_TRUE(plan.errors[0].peer);
  EXPECT_EQ(plan.errors[0].peer->ipu, 2u);
  EXPECT_TRUE(plan.deliveries.empty());
}

TEST(ExchangeLinks, SameInputSameTimesWhateverTheOrder) {
  Links a(2, {{0, 0, 1, 0}}), b(2, {{0, 0, 1, 0}});
  Phase p, q;
  for (uint32_t t = 0; t < 4; ++t) p.send(t, 0x1000, 512, {4 + (t + 1) % 4}).recv(4 + t, 0x2000, 512, (t + 3) % 4);
  for (uint32_t t = 4; t-- > 0;) q.recv(4 + t, 0x2000, 512, (t + 3) % 4).send(t, 0x1000, 512, {4 + (t + 1) % 4});
  const ExchangePlan pa = p.plan(a.timing), pb = q.plan(b.timing);
  ASSERT_TRUE(pa.errors.empty() && pb.errors.empty());
  for (uint32_t t = 0; t < 8; ++t) EXPECT_EQ(p.outcome(pa, t).done_cycle, q.outcome(pb, t).done_cycle) << t;
}

}  // namespace
}  // namespace ipusim::exchange
