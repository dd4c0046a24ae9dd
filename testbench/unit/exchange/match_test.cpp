// Matching rules of plan_exchange(): the k-th send from A naming B meets the k-th
// receive on B from A; multicast; every error names both tiles and the pcs; any error
// empties the deliveries.
#include <gtest/gtest.h>

#include "phase_builder.h"

namespace ipusim::exchange::test {
namespace {

ExchangeTiming small_chip() {
  ExchangeTiming t;
  t.tiles_per_ipu = 16;
  return t;
}

bool same(const Delivery& d, uint32_t src, uint32_t src_addr, uint32_t dst, uint32_t dst_addr, uint32_t len) {
  return d.src_tile == src && d.src_addr == src_addr && d.dst_tile == dst && d.dst_addr == dst_addr &&
         d.len == len;
}

TEST(ExchangeMatch, OneSendMeetsOneReceive) {
  Phase p;
  p.send(3, 0x100, 64, {7});
  p.recv(7, 0x200, 64, 3);
  const ExchangePlan plan = p.plan(small_chip());
  ASSERT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
  ASSERT_EQ(plan.deliveries.size(), 1u);
  EXPECT_TRUE(same(plan.deliveries[0], 3, 0x100, 7, 0x200, 64));
  EXPECT_EQ(p.outcome(plan, 3).bytes_out, 64u);
  EXPECT_EQ(p.outcome(plan, 3).bytes_in, 0u);
  EXPECT_EQ(p.outcome(plan, 7).bytes_in, 64u);
  EXPECT_EQ(p.outcome(plan, 7).bytes_out, 0u);
}

TEST(ExchangeMatch, KthSendMeetsKthReceivePerPair) {
  // Tile 1 sends to 2, 3, 2, 2; tile 2's receives from 1 are matched in their own order,
  // whatever else tile 2 posts in between.
  Phase p;
  p.send(1, 0x000, 8, {2}).send(1, 0x010, 12, {3}).send(1, 0x020, 16, {2}).send(1, 0x030, 20, {2});
  p.recv(2, 0x100, 8, 1).recv(2, 0x200, 4, 3).recv(2, 0x300, 16, 1).recv(2, 0x400, 20, 1);
  p.recv(3, 0x100, 12, 1);
  p.send(3, 0x500, 4, {2});
  const ExchangePlan plan = p.plan(small_chip());
  ASSERT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
  // Deliveries come in (destination, receive posting order) order.
  ASSERT_EQ(plan.deliveries.size(), 5u);
  EXPECT_TRUE(same(plan.deliveries[0], 1, 0x000, 2, 0x100, 8));
  EXPECT_TRUE(same(plan.deliveries[1], 3, 0x500, 2, 0x200, 4));
  EXPECT_TRUE(same(plan.deliveries[2], 1, 0x020, 2, 0x300, 16));
  EXPECT_TRUE(same(plan.deliveries[3], 1, 0x030, 2, 0x400, 20));
  EXPECT_TRUE(same(plan.deliveries[4], 1, 0x010, 3, 0x100, 12));
}

TEST(ExchangeMatch, MulticastNeedsOneReceivePerDestination) {
  Phase p;
  p.send(0, 0x40, 32, {5, 2, 9});
  p.recv(2, 0x100, 32, 0).recv(5, 0x200, 32, 0).recv(9, 0x300, 32, 0);
  const ExchangePlan plan = p.plan(small_chip());
  ASSERT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
  ASSERT_EQ(plan.deliveries.size(), 3u);
  EXPECT_TRUE(same(plan.deliveries[0], 0, 0x40, 2, 0x100, 32));
  EXPECT_TRUE(same(plan.deliveries[1], 0, 0x40, 5, 0x200, 32));
  EXPECT_TRUE(same(plan.deliveries[2], 0, 0x40, 9, 0x300, 32));
  EXPECT_EQ(p.outcome(plan, 0).bytes_out, 32u);  // a multicast leaves once
  EXPECT_EQ(p.outcome(plan, 5).bytes_in, 32u);
}

TEST(ExchangeMatch, MulticastMissingOneReceiveFailsWhole) {
  Phase p;
  p.send(0, 0x40, 32, {1, 2});
  p.recv(1, 0x100, 32, 0);
  p.tile(2);
  const ExchangePlan plan = p.plan(small_chip());
  ASSERT_EQ(plan.errors.size(), 1u);
  EXPECT_EQ(plan.errors[0].detail, "tile 0 sends 32 bytes to tile 2 (pc 0x00040000) but tile 2 posts no receive from tile 0");
  EXPECT_TRUE(plan.deliveries.empty());  // tile 1's receive is not delivered either
}

TEST(ExchangeMatch, DestinationNamedTwiceIsSentOnce) {
  Phase p;
  p.send(0, 0x40, 16, {4, 4});
  p.recv(4, 0x80, 16, 0);
  const ExchangePlan plan = p.plan(small_chip());
  ASSERT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
  EXPECT_EQ(plan.deliveries.size(), 1u);
}

TEST(ExchangeMatch, TileMaySendToItself) {
  Phase p;
  p.send(6, 0x00, 16, {6});
  p.recv(6, 0x10, 16, 6);
  const ExchangePlan plan = p.plan(small_chip());
  ASSERT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
  ASSERT_EQ(plan.deliveries.size(), 1u);
  EXPECT_TRUE(same(plan.deliveries[0], 6, 0x00, 6, 0x10, 16));
}

TEST(ExchangeMatch, SendWithoutReceive) {
  Phase p;
  p.send(3, 0x100, 64, {7}, 0x00040120);
  p.tile(7);
  const ExchangePlan plan = p.plan(small_chip());
  ASSERT_EQ(plan.errors.size(), 1u);
  EXPECT_EQ(plan.errors[0].detail, "tile 3 sends 64 bytes to tile 7 (pc 0x00040120) but tile 7 posts no receive from tile 3");
  EXPECT_TRUE(plan.deliveries.empty());
}

// The problem record names both tiles by IPU and index, and the postings' pcs.
TEST(ExchangeMatch, ProblemsNameBothTilesWithTheirIpus) {
  Phase p;
  p.send(19, 0x100, 64, {23}, 0x00040120);  // ipu 1 tile 3 -> ipu 1 tile 7 (16 tiles per IPU)
  p.recv(23, 0x200, 32, 19, 0x00040200);
  const ExchangePlan plan = p.plan(small_chip());
  ASSERT_EQ(plan.errors.size(), 1u);
  const Problem& e = plan.errors[0];
  EXPECT_EQ(e.code, ProblemCode::Exchange);
  EXPECT_EQ(e.kind, "length mismatch");
  EXPECT_EQ(e.ipu, 1u);
  EXPECT_EQ(e.tile, 3u);
  EXPECT_EQ(e.pc, 0x00040120u);
  ASSERT_TRUE(e.peer);
  EXPECT_EQ(e.peer->ipu, 1u);
  EXPECT_EQ(e.peer->tile, 7u);
  EXPECT_EQ(e.peer->pc, 0x00040200u);

  Phase q;
  q.tile(3);
  q.recv(7, 0x200, 64, 3, 0x00040200);
  const ExchangePlan r = q.plan(small_chip());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].kind, "receive without send");
  EXPECT_EQ(r.errors[0].tile, 7u);  // the receiver is named first, the sender is the peer
  ASSERT_TRUE(r.errors[0].peer);
  EXPECT_EQ(r.errors[0].peer->tile, 3u);
}

TEST(ExchangeMatch, ReceiveWithoutSend) {
  Phase p;
  p.tile(3);
  p.recv(7, 0x200, 64, 3, 0x00040200);
  const ExchangePlan plan = p.plan(small_chip());
  ASSERT_EQ(plan.errors.size(), 1u);
  EXPECT_EQ(plan.errors[0].detail, "tile 7 expects 64 bytes from tile 3 (pc 0x00040200) but tile 3 sends nothing to tile 7");
  EXPECT_TRUE(plan.deliveries.empty());
}

TEST(ExchangeMatch, MoreSendsThanReceives) {
  Phase p;
  p.send(1, 0x0, 8, {2}).send(1, 0x0, 8, {2}).send(1, 0x0, 8, {2});
  p.recv(2, 0x100, 8, 1);
  const ExchangePlan plan = p.plan(small_chip());
  ASSERT_EQ(plan.errors.size(), 2u);
  EXPECT_EQ(plan.errors[0].detail,
            "tile 1 sends 8 bytes to tile 2 (pc 0x00040004, send 2 of 3 to it) but tile 2 posts only 1 receive from tile 1");
  EXPECT_EQ(plan.errors[1].detail,
            "tile 1 sends 8 bytes to tile 2 (pc 0x00040008, send 3 of 3 to it) but tile 2 posts only 1 receive from tile 1");
  EXPECT_TRUE(plan.deliveries.empty());
}

TEST(ExchangeMatch, MoreReceivesThanSends) {
  Phase p;
  p.send(1, 0x0, 8, {2}).send(1, 0x0, 8, {2});
  p.recv(2, 0x100, 8, 1).recv(2, 0x200, 8, 1).recv(2, 0x300, 8, 1);
  const ExchangePlan plan = p.plan(small_chip());
  ASSERT_EQ(plan.errors.size(), 1u);
  EXPECT_EQ(plan.errors[0].detail,
            "tile 2 expects 8 bytes from tile 1 (pc 0x00040008, receive 3 of 3 from it) but tile 1 sends only 2 messages to tile 2");
}

TEST(ExchangeMatch, LengthMismatchNamesBothLengthsAndPcs) {
  Phase p;
  p.send(4, 0x0, 64, {5}, 0x40100);
  p.recv(5, 0x0, 32, 4, 0x40200);
  const ExchangePlan plan = p.plan(small_chip());
  ASSERT_EQ(plan.errors.size(), 1u);
  EXPECT_EQ(plan.errors[0].detail,
            "tile 4 sends 64 bytes to tile 5 (pc 0x00040100) but the matching receive on tile 5 from tile 4 "
            "expects 32 bytes (pc 0x00040200)");
  EXPECT_TRUE(plan.deliveries.empty());
}

// A send shorter than its receive is as much a mismatch as a longer one: the receive
// would otherwise be left half written.
TEST(ExchangeMatch, SendShorterThanItsReceiveIsALengthMismatch) {
  Phase p;
  p.send(4, 0x0, 16, {5}, 0x40100);
  p.recv(5, 0x0, 64, 4, 0x40200);
  const ExchangePlan plan = p.plan(small_chip());
  ASSERT_EQ(plan.errors.size(), 1u);
  const Problem& e = plan.errors[0];
  EXPECT_EQ(e.code, ProblemCode::Exchange);
  EXPECT_EQ(e.kind, "length mismatch");
  EXPECT_EQ(e.tile, 4u);
  EXPECT_EQ(e.pc, 0x00040100u);
  ASSERT_TRUE(e.peer);
  EXPECT_EQ(e.peer->tile, 5u);
  EXPECT_EQ(e.peer->pc, 0x00040200u);
  EXPECT_EQ(e.detail,
            "tile 4 sends 16 bytes to tile 5 (pc 0x00040100) but the matching receive on tile 5 from tile 4 "
            "expects 64 bytes (pc 0x00040200)");
  EXPECT_TRUE(plan.deliveries.empty());
}

TEST(ExchangeMatch, MismatchDoesNotShiftLaterMatches) {
  // The first pair mismatches; the second still pairs with the second: one error only.
  Phase p;
  p.send(4, 0x0, 64, {5}).send(4, 0x0, 16, {5});
  p.recv(5, 0x0, 32, 4).recv(5, 0x100, 16, 4);
  const ExchangePlan plan = p.plan(small_chip());
  EXPECT_EQ(plan.errors.size(), 1u);
}

TEST(ExchangeMatch, DestinationNotTakingPart) {
  Phase p;
  p.send(2, 0x0, 16, {9, 11}, 0x40010);
  p.recv(9, 0x0, 16, 2);
  const ExchangePlan plan = p.plan(small_chip());
  ASSERT_EQ(plan.errors.size(), 1u);
  EXPECT_EQ(plan.errors[0].detail,
            "tile 2 sends 16 bytes to tile 11 (pc 0x00040010) but tile 11 takes no part in this exchange "
            "(halted, not loaded or not a tile)");
  EXPECT_TRUE(plan.deliveries.empty());
}

TEST(ExchangeMatch, SourceNotTakingPart) {
  Phase p;
  p.recv(9, 0x0, 16, 12, 0x40020);
  const ExchangePlan plan = p.plan(small_chip());
  ASSERT_EQ(plan.errors.size(), 1u);
  EXPECT_EQ(plan.errors[0].detail,
            "tile 9 expects 16 bytes from tile 12 (pc 0x00040020) but tile 12 takes no part in this exchange "
            "(halted, not loaded or not a tile)");
}

TEST(ExchangeMatch, MalformedPostings) {
  Phase p;
  p.send(1, 0x0, 16, {}, 0x40000);
  p.post(2, iss::ExchangePost::Kind::Recv, 0x0, 16, {1, 3}, 0x40004);
  p.tile(3);
  const ExchangePlan plan = p.plan(small_chip());
  ASSERT_EQ(plan.errors.size(), 2u);
  EXPECT_EQ(plan.errors[0].detail, "tile 1 posts a send of 16 bytes with no destination (pc 0x00040000)");
  EXPECT_EQ(plan.errors[1].detail, "tile 2 posts a receive of 16 bytes with 2 sources (pc 0x00040004); a receive has one");
}

TEST(ExchangeMatch, TileGivenTwice) {
  std::vector<iss::ExchangePost> none;
  const std::vector<TilePostings> in = {{4, 0, &none}, {2, 0, &none}, {4, 10, &none}};
  const ExchangePlan plan = plan_exchange(in, small_chip());
  ASSERT_EQ(plan.errors.size(), 1u);
  EXPECT_EQ(plan.errors[0].detail, "tile 4 is given twice to the exchange (inputs 0 and 2)");
  ASSERT_EQ(plan.tiles.size(), 3u);
  EXPECT_EQ(plan.tiles[2].done_cycle, 10u);
}

TEST(ExchangeMatch, BadTimingIsReported) {
  ExchangeTiming t = small_chip();
  t.in_bytes_per_cycle = 0;
  t.latency_max_cycles = 1;
  Phase p;
  p.tile(0);
  const ExchangePlan plan = p.plan(t);
  ASSERT_EQ(plan.errors.size(), 2u);
  EXPECT_EQ(plan.errors[0].detail, "exchange timing: in_bytes_per_cycle must be at least 1");
  EXPECT_EQ(plan.errors[1].detail, "exchange timing: latency_max_cycles must be at least latency_min_cycles");
}

TEST(ExchangeMatch, FailedExchangeLeavesTilesAtTheirStart) {
  Phase p;
  p.tile(0, 100).tile(1, 250);
  p.send(0, 0x0, 64, {1});
  const ExchangePlan plan = p.plan(small_chip());
  ASSERT_EQ(plan.tiles.size(), 2u);
  EXPECT_EQ(p.outcome(plan, 0).done_cycle, 100u);
  EXPECT_EQ(p.outcome(plan, 1).done_cycle, 250u);
  EXPECT_EQ(p.outcome(plan, 0).bytes_out, 0u);
}

TEST(ExchangeMatch, ErrorsAreCapped) {
  Phase p;
  p.tile(1);
  for (uint32_t i = 0; i < kMaxPlanErrors + 50; ++i) p.send(0, 0x0, 4, {1});
  const ExchangePlan plan = p.plan(small_chip());
  ASSERT_EQ(plan.errors.size(), kMaxPlanErrors + 1);
  EXPECT_EQ(plan.errors.back().detail, "... and 50 further exchange errors");
}

TEST(ExchangeMatch, EmptyExchange) {
  const ExchangePlan plan = plan_exchange({}, small_chip());
  EXPECT_TRUE(plan.errors.empty());
  EXPECT_TRUE(plan.deliveries.empty());
  EXPECT_TRUE(plan.tiles.empty());
}

}  // namespace
}  // namespace ipusim::exchange::test
