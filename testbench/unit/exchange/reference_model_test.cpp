// The timing against an independent reference: the out ports replayed directly and every
// in port simulated tick by tick (a tick is 1 / (2 o c) cycle, so every rate is a whole
// number of charge units per tick), on random valid phases with multicasts and pairs.
// The plan computes the in port with a closed formula; both must agree on every tile.
#include <algorithm>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "phase_builder.h"

namespace ipusim::exchange::test {
namespace {

struct Leg {
  uint32_t send;  // index into RandomPhase::sends
  uint32_t dst;
  bool pair;
};

struct SendRecord {
  uint32_t src, len;
  std::vector<uint32_t> dests;  // sorted, unique
};

struct RandomPhase {
  Phase phase;
  std::vector<uint64_t> start;  // by tile id
  std::vector<SendRecord> sends;  // in generation order (per tile: posting order)
  std::vector<Leg> legs;
};

// `one_len`: every message that long (else random lengths).
RandomPhase make_phase(uint32_t tiles, uint32_t tiles_per_ipu, uint32_t seed, uint32_t one_len = 0) {
  std::mt19937 rng(seed);
  RandomPhase r;
  std::vector<uint32_t> next_recv(tiles, 0x10000);
  for (uint32_t t = 0; t < tiles; ++t) {
    r.start.push_back(rng() % 200);
    r.phase.tile(t, r.start.back());
  }
  for (int i = 0; i < 600; ++i) {
    SendRecord s{uint32_t(rng() % tiles), uint32_t(4 * (rng() % 65)), {}};
    if (one_len) s.len = one_len;
    if (rng() % 3 == 0) {  // a pair, sometimes with more
      const uint32_t k = rng() % (tiles / 2);
      s.dests = {2 * k, 2 * k + 1};
    }
    for (uint32_t k = 0, n = rng() % 3; k < n || s.dests.empty(); ++k) s.dests.push_back(rng() % tiles);
    std::sort(s.dests.begin(), s.dests.end());
    s.dests.erase(std::unique(s.dests.begin(), s.dests.end()), s.dests.end());
    r.phase.send(s.src, 4 * (rng() % 256), s.len, s.dests);
    for (uint32_t d : s.dests) {
      const uint32_t partner = (d % tiles_per_ipu) % 2 == 0 ? d + 1 : d - 1;
      const bool pair = (d % tiles_per_ipu) + ((d % tiles_per_ipu) % 2 == 0 ? 1 : 0) < tiles_per_ipu &&
                        partner / tiles_per_ipu == d / tiles_per_ipu &&
                        std::binary_search(s.dests.begin(), s.dests.end(), partner);
      r.legs.push_back({uint32_t(r.sends.size()), d, pair});
      r.phase.recv(d, next_recv[d], s.len, s.src);
      next_recv[d] += s.len;
    }
    r.sends.push_back(s);
  }
  return r;
}

// Done cycle of every tile by the reference: out ports replayed, in ports simulated.
std::vector<uint64_t> reference_done(const RandomPhase& r, const ExchangeTiming& t) {
  const uint64_t o = t.out_bytes_per_cycle, c = t.in_bytes_per_cycle, q = 2 * o * c;
  const uint32_t tiles = uint32_t(r.start.size());
  std::vector<uint64_t> done(tiles), port_free(tiles), leave(r.sends.size());
  for (uint32_t i = 0; i < tiles; ++i) done[i] = port_free[i] = r.start[i] * q;
  // Sends of one tile leave in posting order; tiles do not interact on the out side.
  for (size_t i = 0; i < r.sends.size(); ++i) {
    const SendRecord& s = r.sends[i];
    uint64_t ready = r.start[s.src] * q;
    for (uint32_t d : s.dests) ready = std::max(ready, r.start[d] * q);
    leave[i] = std::max(port_free[s.src], ready);
    port_free[s.src] = leave[i] + s.len * q / o;
    done[s.src] = std::max(done[s.src], port_free[s.src]);
  }
  // In ports, tick by tick: charge units of 1 / (4c) byte; a message brings 2 units a
  // tick (1 under the pair rule); the port takes 2c / o units a tick.
  const uint64_t drain = 2 * c / o;
  EXPECT_EQ(drain * o, 2 * c) << "the reference needs o to divide 2c";
  for (uint32_t dst = 0; dst < tiles; ++dst) {
    std::map<uint64_t, int64_t> rate_change;  // tick -> change of the arrival rate
    uint64_t last_end = 0;
    bool any = false;
    for (const Leg& leg : r.legs) {
      if (leg.dst != dst) continue;  // (an empty message still arrives: its receive waits for it)
      const SendRecord& s = r.sends[leg.send];
      const uint64_t a = leave[leg.send] + latency_cycles(t, s.src, dst) * q;
      const uint64_t e = a + s.len * q / o;
      rate_change[a] += leg.pair ? 1 : 2;
      rate_change[e] -= leg.pair ? 1 : 2;
      last_end = std::max(last_end, e);
      any = true;
    }
    if (!any) continue;
    uint64_t queue = 0;
    int64_t rate = 0;
    auto change = rate_change.begin();
    for (uint64_t tick = change->first; tick < last_end; ++tick) {
      for (; change != rate_change.end() && change->first == tick; ++change) rate += change->second;
      queue += uint64_t(rate);
      queue -= std::min(queue, drain);
    }
    // After the last arrival the queue drains at `drain` units a tick.
    const uint64_t in_done_ticks_times_drain = last_end * drain + queue;  // exact: (last_end + queue / drain) * drain
    const uint64_t in_done = (in_done_ticks_times_drain + drain - 1) / drain;
    done[dst] = std::max(done[dst], in_done);
  }
  for (uint64_t& d : done) d = (d + q - 1) / q;
  return done;
}

void compare(uint32_t out_rate, uint32_t in_rate, uint32_t seed, uint32_t one_len = 0) {
  ExchangeTiming t;
  t.tiles_per_ipu = 16;
  t.tiles_per_column = 4;
  t.out_bytes_per_cycle = out_rate;
  t.in_bytes_per_cycle = in_rate;
  const RandomPhase r = make_phase(32, t.tiles_per_ipu, seed, one_len);  // two IPUs
  const ExchangePlan plan = r.phase.plan(t);
  ASSERT_TRUE(plan.errors.empty()) << plan.errors[0].detail;
  const std::vector<uint64_t> want = reference_done(r, t);
  for (uint32_t tile = 0; tile < want.size(); ++tile) {
    EXPECT_EQ(r.phase.outcome(plan, tile).done_cycle, want[tile]) << "tile " << tile << " seed " << seed;
  }
}

TEST(ExchangeReference, EqualRates) {
  for (uint32_t seed = 1; seed <= 12; ++seed) compare(4, 4, seed);
}

TEST(ExchangeReference, FasterInPort) {
  for (uint32_t seed = 1; seed <= 12; ++seed) compare(2, 4, seed);
}

TEST(ExchangeReference, SlowerInPort) {
  for (uint32_t seed = 1; seed <= 12; ++seed) compare(4, 2, seed);
}

// Messages of one length end in the order they start: the in port then sorts once
// (plan_timing.cpp). Their arrivals still come in any order, some nearly sorted, some not.
TEST(ExchangeReference, MessagesOfOneLength) {
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    compare(4, 4, seed, 64);
    compare(2, 4, seed, 12);
    compare(4, 2, seed, 128);
  }
}

}  // namespace
}  // namespace ipusim::exchange::test
