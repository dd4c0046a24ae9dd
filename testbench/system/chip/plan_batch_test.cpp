// The batch of the IPUs' own exchange plans (exchange/plan_batch.h): IPUs that hand in
// their plans in one evaluation phase are planned in one batch, each getting exactly the
// plan it would have made alone (errors and the first problem named included), in the
// same delta cycle and in the order they handed in, on 1, 2 and 3 host threads; a later
// hand-in makes a batch of its own. Each case elaborates, so each runs in its own process.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "exchange/plan_batch.h"
#include "tile/host_pool.h"

namespace ipusim {
namespace {

using exchange::ExchangePlan;
using exchange::TilePostings;
using iss::ExchangePost;

constexpr uint32_t kTiles = 64;  // per IPU: an all-to-all of 8064 postings, enough for the host threads

// An all-to-all on IPU `ipu` (16 bytes a message); `broken` > 0 drops that many tiles'
// first receive (sends without receive, each IPU's own problems).
struct IpuPhase {
  std::vector<std::vector<ExchangePost>> posts;
  std::vector<TilePostings> tiles;

  IpuPhase(uint32_t ipu, uint32_t broken) : posts(kTiles) {
    const uint32_t base = ipu * kTiles;
    for (uint32_t t = 0; t < kTiles; ++t) {
      for (uint32_t k = 1; k < kTiles; ++k) {
        ExchangePost s;
        s.kind = ExchangePost::Kind::Send;
        s.addr = 0x1000;
        s.len = 16;
        s.peers = {base + (t + k) % kTiles};
        s.pc = 0x40000 + 4 * k;
        posts[t].push_back(s);
        if (t < broken && k == 1) continue;
        ExchangePost r;
        r.kind = ExchangePost::Kind::Recv;
        r.addr = 0x2000 + 16 * k;
        r.len = 16;
        r.peers = {base + (t + kTiles - k) % kTiles};
        r.pc = 0x40400 + 4 * k;
        posts[t].push_back(r);
      }
      tiles.push_back(TilePostings{base + t, 10 + t % 3, &posts[t], nullptr});
    }
  }
};

exchange::ExchangeTiming timing() {
  exchange::ExchangeTiming t;
  t.tiles_per_ipu = kTiles;
  return t;
}

void expect_same(const ExchangePlan& got, const ExchangePlan& want, uint32_t ipu) {
  ASSERT_EQ(got.errors.size(), want.errors.size()) << "ipu " << ipu;
  for (size_t i = 0; i < want.errors.size(); ++i) {
    EXPECT_EQ(got.errors[i].kind, want.errors[i].kind) << "ipu " << ipu << " problem " << i;
    EXPECT_EQ(got.errors[i].detail, want.errors[i].detail) << "ipu " << ipu << " problem " << i;
  }
  ASSERT_EQ(got.deliveries.size(), want.deliveries.size()) << "ipu " << ipu;
  for (size_t i = 0; i < want.deliveries.size(); ++i) {
    const exchange::Delivery &a = got.deliveries[i], &b = want.deliveries[i];
    ASSERT_TRUE(a.src_tile == b.src_tile && a.src_addr == b.src_addr && a.dst_tile == b.dst_tile &&
                a.dst_addr == b.dst_addr && a.len == b.len)
        << "ipu " << ipu << " delivery " << i;
  }
  ASSERT_EQ(got.tiles.size(), want.tiles.size());
  for (size_t i = 0; i < want.tiles.size(); ++i) {
    EXPECT_EQ(got.tiles[i].done_cycle, want.tiles[i].done_cycle) << "ipu " << ipu << " tile " << i;
    EXPECT_EQ(got.tiles[i].bytes_in, want.tiles[i].bytes_in) << "ipu " << ipu << " tile " << i;
    EXPECT_EQ(got.tiles[i].bytes_out, want.tiles[i].bytes_out) << "ipu " << ipu << " tile " << i;
  }
}

// Stands in for an IPU's fabric: hands its phase in at `at` and notes what it got back,
// in which delta cycle, and when it went on relative to the others.
struct Planner : sc_core::sc_module {
  exchange::PlanBatch& batch;
  const IpuPhase& phase;
  exchange::ExchangeTiming plan_timing = timing();
  sc_core::sc_time at;
  std::vector<uint32_t>& handed_in;
  std::vector<uint32_t>& went_on;
  uint32_t ipu;
  ExchangePlan plan;
  uint64_t handed_in_delta = 0, went_on_delta = 0;
  sc_core::sc_time went_on_at;
  const exchange::PlanBatch::Deliver* deliver = nullptr;  // set: hands its delivery in too

  Planner(sc_core::sc_module_name name, exchange::PlanBatch& b, const IpuPhase& p, sc_core::sc_time t,
          std::vector<uint32_t>& in_order, std::vector<uint32_t>& on_order, uint32_t i)
      : sc_module(name), batch(b), phase(p), at(t), handed_in(in_order), went_on(on_order), ipu(i) {
    SC_HAS_PROCESS(Planner);
    SC_THREAD(run);
  }
  void run() {
    wait(at);
    handed_in_delta = sc_core::sc_delta_count();
    handed_in.push_back(ipu);
    plan = batch.plan(phase.tiles, plan_timing, deliver);
    went_on_delta = sc_core::sc_delta_count();
    went_on_at = sc_core::sc_time_stamp();
    went_on.push_back(ipu);
  }
};

class PlanBatchTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(PlanBatchTest, PlansOfOneMomentAreOneBatchAndEachIsThePlanMadeAlone) {
  tile::HostPool pool(GetParam());
  const exchange::PlanThreads threads = [&](size_t count, const std::function<void(size_t)>& body) {
    pool.run(count, body);
  };
  exchange::PlanBatch batch;
  batch.set_plan_threads(&threads);
  // IPUs 0..3 at 10 ns (IPUs 1 and 3 broken: two IPUs fail in the batch), IPU 4 alone at 20 ns.
  std::vector<std::unique_ptr<IpuPhase>> phases;
  std::vector<std::unique_ptr<Planner>> planners;
  std::vector<uint32_t> handed_in, went_on;
  for (uint32_t ipu = 0; ipu < 5; ++ipu) {
    phases.push_back(std::make_unique<IpuPhase>(ipu, ipu % 2 == 1 ? ipu : 0));
    planners.push_back(std::make_unique<Planner>(("ipu" + std::to_string(ipu)).c_str(), batch, *phases.back(),
                                                 sc_core::sc_time(ipu < 4 ? 10 : 20, sc_core::SC_NS), handed_in, went_on,
                                                 ipu));
  }
  sc_core::sc_start();

  EXPECT_EQ(batch.batches(), 2u) << "IPUs 0..3 together, IPU 4 alone";
  EXPECT_EQ(batch.plans(), 5u);
  ASSERT_EQ(went_on.size(), 5u) << "every planner went on";
  EXPECT_EQ(went_on, handed_in) << "in the order they handed in";
  EXPECT_EQ(handed_in.back(), 4u);
  for (uint32_t ipu = 0; ipu < 5; ++ipu) {
    const Planner& p = *planners[ipu];
    EXPECT_EQ(p.went_on_delta, p.handed_in_delta) << "ipu " << ipu << ": the batch adds no delta cycle";
    EXPECT_EQ(p.went_on_at, p.at) << "ipu " << ipu << ": nor simulated time";
    const ExchangePlan alone = exchange::plan_exchange(phases[ipu]->tiles, timing());
    EXPECT_EQ(alone.errors.empty(), ipu % 2 == 0) << "ipu " << ipu;
    expect_same(p.plan, alone, ipu);
  }
  ASSERT_FALSE(planners[1]->plan.errors.empty());
  EXPECT_EQ(planners[1]->plan.errors[0].kind, "send without receive") << planners[1]->plan.errors[0].detail;
}

// Plans made two at once: a batch of five is three groups; each valid plan handed in with
// its delivery is delivered by the batch (its deliveries those of the plan made alone), in
// hand-in order, before the planner goes on, and comes back without them; a failed plan
// and a plan handed in without a delivery come back whole.
TEST_P(PlanBatchTest, GroupsOfPlansAtOnceAndTheBatchDeliversValidPlansInHandInOrder) {
  tile::HostPool pool(GetParam());
  const exchange::PlanThreads threads = [&](size_t count, const std::function<void(size_t)>& body) {
    pool.run(count, body);
  };
  exchange::PlanBatch batch;
  batch.set_plan_threads(&threads, 2);
  std::vector<std::unique_ptr<IpuPhase>> phases;
  std::vector<std::unique_ptr<Planner>> planners;
  std::vector<uint32_t> handed_in, went_on, delivered_order;
  std::vector<ExchangePlan> delivered(5);
  std::vector<exchange::PlanBatch::Deliver> deliver(5);
  for (uint32_t ipu = 0; ipu < 5; ++ipu) {
    phases.push_back(std::make_unique<IpuPhase>(ipu, ipu % 2 == 1 ? ipu : 0));
    planners.push_back(std::make_unique<Planner>(("ipu" + std::to_string(ipu)).c_str(), batch, *phases.back(),
                                                 sc_core::sc_time(10, sc_core::SC_NS), handed_in, went_on, ipu));
    deliver[ipu] = [&, ipu](const ExchangePlan& p) {
      EXPECT_TRUE(std::find(went_on.begin(), went_on.end(), ipu) == went_on.end()) << "ipu " << ipu;
      delivered_order.push_back(ipu);
      delivered[ipu] = p;
    };
    if (ipu != 4) planners.back()->deliver = &deliver[ipu];  // IPU 4 delivers itself (as with copies)
  }
  sc_core::sc_start();

  EXPECT_EQ(batch.batches(), 1u);
  EXPECT_EQ(batch.plans(), 5u);
  EXPECT_EQ(batch.groups(), 3u) << "two, two and one plans";
  EXPECT_EQ(batch.delivered(), 2u);
  ASSERT_EQ(went_on.size(), 5u);
  EXPECT_EQ(went_on, handed_in);
  std::vector<uint32_t> valid_in_order;  // the valid plans handed in with a delivery
  for (uint32_t ipu : handed_in)
    if (ipu == 0 || ipu == 2) valid_in_order.push_back(ipu);
  EXPECT_EQ(delivered_order, valid_in_order) << "in hand-in order";
  for (uint32_t ipu = 0; ipu < 5; ++ipu) {
    const Planner& p = *planners[ipu];
    EXPECT_EQ(p.went_on_delta, p.handed_in_delta) << "ipu " << ipu;
    const ExchangePlan alone = exchange::plan_exchange(phases[ipu]->tiles, timing());
    if (ipu == 0 || ipu == 2) {
      expect_same(delivered[ipu], alone, ipu);
      EXPECT_TRUE(p.plan.deliveries.empty()) << "ipu " << ipu << ": the batch keeps them";
      ExchangePlan back = p.plan;
      back.deliveries = alone.deliveries;
      expect_same(back, alone, ipu);
    } else {
      expect_same(p.plan, alone, ipu);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(HostThreads, PlanBatchTest, ::testing::Values(1u, 2u, 3u));

}  // namespace
}  // namespace ipusim
