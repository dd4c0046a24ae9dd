// Planning on several host threads (docs/exchange.md, "Planning on several host
// threads"): the plan's work is cut into chunks of tiles, run on any threads in any
// order, and put together in chunk order. Every cut and every schedule must give the plan
// of one pass over all tiles: the same deliveries in the same order, the same outcomes,
// the same problems in the same order (the first one named, the capped list, the count
// of the rest), with and without the IPU-Links' timing.
#include <algorithm>
#include <atomic>
#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "exchange/plan_internal.h"
#include "links/link_timing.h"
#include "phase_builder.h"
#include "plan_compare.h"

namespace ipusim::exchange::test {
namespace {

// One chunk for the whole plan: the serial reference.
constexpr uint32_t kOneChunk = 1u << 30;

// Runs the items backwards on the calling thread: a schedule no serial loop has.
const PlanThreads kBackwards = [](size_t count, const std::function<void(size_t)>& body) {
  for (size_t i = count; i-- > 0;) body(i);
};

// Runs the items on four host threads, taken from a shared counter.
const PlanThreads kFourThreads = [](size_t count, const std::function<void(size_t)>& body) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < count;) body(i);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
};

// Plans `phase` in one chunk, then in chunks of 1, 3, 7 and 32 tiles on the calling
// thread, backwards and on four threads: all must be equal.
void expect_any_cut_same(const Phase& phase, const ExchangeTiming& timing, links::LinkScheduler* links = nullptr) {
  const std::vector<TilePostings> in = phase.input();
  // The links' scheduler keeps per-phase state: each plan starts it afresh.
  auto plan = [&](const PlanThreads* threads, uint32_t per_chunk) {
    if (links) links->reset();
    return detail::plan_exchange_in_chunks(in, timing, threads, per_chunk);
  };
  const ExchangePlan want = plan(nullptr, kOneChunk);
  for (uint32_t per_chunk : {1u, 3u, 7u, 32u}) {
    expect_same(want, plan(nullptr, per_chunk), "chunks of " + std::to_string(per_chunk));
    expect_same(want, plan(&kBackwards, per_chunk), "backwards, chunks of " + std::to_string(per_chunk));
    expect_same(want, plan(&kFourThreads, per_chunk), "four threads, chunks of " + std::to_string(per_chunk));
  }
  if (links) links->reset();
  expect_same(want, plan_exchange(in, timing, &kFourThreads), "plan_exchange on four threads");
}

// A random valid phase on `tiles` tiles: multicasts (some to pairs), staggered starts,
// receive buffers laid end to end per receiver.
Phase random_phase(uint32_t tiles, uint32_t seed, int sends) {
  std::mt19937 rng(seed);
  Phase phase;
  std::vector<uint32_t> next_recv(tiles, 0x10000);
  for (uint32_t t = 0; t < tiles; ++t) phase.tile(t, rng() % 200);
  for (int i = 0; i < sends; ++i) {
    const uint32_t src = rng() % tiles, len = 4 * (rng() % 65);
    std::vector<uint32_t> dests;
    if (rng() % 3 == 0) {
      const uint32_t k = rng() % (tiles / 2);
      dests = {2 * k, 2 * k + 1};
    }
    for (uint32_t k = 0, n = rng() % 3; k < n || dests.empty(); ++k) dests.push_back(rng() % tiles);
    std::sort(dests.begin(), dests.end());
    dests.erase(std::unique(dests.begin(), dests.end()), dests.end());
    phase.send(src, 4 * (rng() % 256), len, dests);
    for (uint32_t d : dests) {
      phase.recv(d, next_recv[d], len, src);
      next_recv[d] += len;
    }
  }
  return phase;
}

TEST(ExchangeThreads, ValidPhasesAnyCutSamePlan) {
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    ExchangeTiming t = column_of_four();
    t.tiles_per_ipu = 16;
    t.out_bytes_per_cycle = 1 + seed % 3;
    const Phase phase = random_phase(64, seed, 800);
    ASSERT_TRUE(phase.plan(t).errors.empty());
    expect_any_cut_same(phase, t);
  }
}

TEST(ExchangeThreads, AllToAllAnyCutSamePlan) {
  ExchangeTiming t;
  t.tiles_per_ipu = 96;
  expect_any_cut_same(all_to_all(96, 64), t);
}

TEST(ExchangeThreads, ErrorsAnyCutSameProblemsInTheSameOrder) {
  // Every kind of problem on tiles all over the phase, more than the cap: the same first
  // problem, the same list and the same count of the rest whatever the cut.
  std::mt19937 rng(7);
  Phase phase = random_phase(64, 7, 400);
  for (int i = 0; i < 200; ++i) {
    const uint32_t a = rng() % 64, b = rng() % 64;
    switch (rng() % 6) {
      case 0: phase.send(a, 0x100, 16, {b}); break;                      // send without receive
      case 1: phase.recv(a, 0x90000 + 64 * i, 16, b); break;             // receive without send
      case 2: phase.send(a, 0x100, 16, {b}).recv(b, 0x80000 + 64 * i, 32, a); break;  // length mismatch
      case 3: phase.send(a, 0x100, 16, {200}); break;                    // peer not in the exchange
      case 4: phase.recv(a, 0x10000, 8, b).send(b, 0, 8, {a}); break;    // overlapping receives
      default: phase.send(a, 0xA0000, 64, {b}).recv(b, 0xA0000 + 64 * i, 64, a).recv(a, 0xA0010, 16, b).send(b, 0, 16, {a});
    }
  }
  ExchangeTiming t = column_of_four();
  t.tiles_per_ipu = 16;
  const ExchangePlan plan = phase.plan(t);
  ASSERT_EQ(plan.errors.size(), kMaxPlanErrors + 1) << "the phase must overflow the cap";
  EXPECT_EQ(plan.errors.back().kind, "more errors");
  expect_any_cut_same(phase, t);
}

TEST(ExchangeThreads, FewErrorsAnyCutSameFirstProblem) {
  Phase phase = random_phase(64, 11, 300);
  phase.send(50, 0x100, 16, {3});  // the only problems: on tiles far apart
  phase.recv(9, 0x90000, 16, 60);
  ExchangeTiming t = column_of_four();
  t.tiles_per_ipu = 16;
  const ExchangePlan plan = phase.plan(t);
  ASSERT_EQ(plan.errors.size(), 2u);
  expect_any_cut_same(phase, t);
}

TEST(ExchangeThreads, LinksAnyCutSamePlan) {
  // Four IPUs of 16 tiles in a ring: the messages between IPUs are timed by the links,
  // whose legs the receiver chunks pick up in match order.
  links::LinkTimingConfig lc;
  lc.bytes_per_second = 8e9;
  lc.latency_ns = 100;
  lc.frame_bytes = 64;
  lc.clock_hz = 1e9;
  const links::Topology topology(4, 10, {{0, 0, 1, 0}, {1, 1, 2, 0}, {2, 1, 3, 0}, {3, 1, 0, 1}});
  links::LinkScheduler scheduler(topology, lc, 32);
  ExchangeTiming t = column_of_four();
  t.tiles_per_ipu = 16;
  t.links = &scheduler;
  for (uint32_t seed = 21; seed <= 23; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    expect_any_cut_same(random_phase(64, seed, 600), t, &scheduler);
  }
}

}  // namespace
}  // namespace ipusim::exchange::test
