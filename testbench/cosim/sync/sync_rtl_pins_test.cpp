// The sync controller's RTL at its pins, one model clocked every cycle through a long
// run of syncs: each tile arrives again from its own release (often while the other tiles
// of the sync before are still on their way out, sometimes in the very cycle it is
// released), zone-1 and zone-2 syncs (the test plays the group: group_release_i in a
// base cycle it picks). Every release pulse must come in the cycle docs/sync.md gives,
// and gathered_o must rise in the gather cycle. This is the overlap the transactor's two
// model instances never show one model (sync_transactor.h); no SystemC here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "cosim/sync/pins.h"
#include "Vsync_tiny16_vcd.h"
#include "sync/sync_latency.h"

namespace ipusim::cosim {
namespace {

struct Expected {
  std::map<uint64_t, std::vector<std::pair<uint32_t, bool>>> arrivals;  // cycle -> (tile, zone 2)
  std::map<uint64_t, bool> group_release;                               // base cycles
  std::vector<uint64_t> gathers;                                        // zone-2 gather cycles, in order
  std::vector<std::vector<uint64_t>> releases;                          // per tile, in order
  uint64_t end = 0, overlaps = 0, same_cycle = 0, arrivals_total = 0;
};

Expected plan(const sync::SyncLatency& lat, const std::vector<uint32_t>& tiles, uint32_t syncs, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](uint64_t lo, uint64_t hi) { return std::uniform_int_distribution<uint64_t>(lo, hi)(rng); };
  Expected e;
  e.releases.resize(lat.tiles());
  std::vector<uint64_t> last(lat.tiles(), 0);
  for (uint32_t s = 0; s < syncs; ++s) {
    const bool zone2 = uniform(0, 3) == 0;
    uint64_t gather = 0, last_release = 0;
    for (uint32_t t : tiles) last_release = std::max(last_release, last[t]);
    std::vector<uint64_t> arrival(lat.tiles());
    for (uint32_t t : tiles) {
      const uint64_t r = uniform(0, 9);
      const uint64_t gap = r < 2 ? 0 : r < 7 ? uniform(1, 30) : uniform(1, 400);
      arrival[t] = last[t] + gap;
      e.overlaps += arrival[t] < last_release;
      e.same_cycle += gap == 0 && s > 0;
      e.arrivals[arrival[t]].push_back({t, zone2});
      ++e.arrivals_total;
      gather = std::max(gather, arrival[t] + lat.to_controller(t));
    }
    uint64_t base = gather;
    if (zone2) {
      base = gather + uniform(0, 40);
      e.group_release[base] = true;
      e.gathers.push_back(gather);
    }
    for (uint32_t t : tiles) {
      last[t] = base + lat.min_cycles() + lat.from_controller(t);
      e.releases[t].push_back(last[t]);
      e.end = std::max(e.end, last[t]);
    }
  }
  return e;
}

void run(uint32_t tiles, uint32_t min, uint32_t max, uint64_t seed) {
  VerilatedContext ctx;
  Vsync_tiny16_vcd m(&ctx, "sync_ctrl");
  const sync::SyncLatency lat(tiles, min, max);
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> parts;
  for (uint32_t t = 0; t < tiles; ++t)
    if (rng() % 4 != 0) parts.push_back(t);
  if (parts.empty()) parts.push_back(0);
  pins::clear(m.participate_i);
  for (uint32_t t : parts) pins::set_bit(m.participate_i, t, true);
  for (uint32_t t = 0; t < tiles; ++t) {
    pins::set_field(m.way_in_i, 8 * t, 8, lat.to_controller(t));
    pins::set_field(m.way_out_i, 8 * t, 8, lat.from_controller(t));
  }
  m.latency_min_i = min;
  m.clk_i = 0;
  m.rst_ni = 0;
  m.eval();
  m.rst_ni = 1;
  m.eval();

  const Expected e = plan(lat, parts, 3000, seed);
  std::vector<std::vector<uint64_t>> got(tiles);
  std::vector<uint64_t> gathers;
  bool gathered = false;
  for (uint64_t c = 0; c <= e.end + 1; ++c) {
    pins::clear(m.arrive_i);
    pins::clear(m.zone2_i);
    if (auto it = e.arrivals.find(c); it != e.arrivals.end())
      for (auto [t, z2] : it->second) {
        pins::set_bit(m.arrive_i, t, true);
        pins::set_bit(m.zone2_i, t, z2);
      }
    m.group_release_i = e.group_release.count(c) ? 1 : 0;
    m.clk_i = 0;
    m.eval();
    if (m.gathered_o && !gathered) gathers.push_back(c);
    gathered = m.gathered_o;
    m.clk_i = 1;
    m.eval();
    pins::for_each_set(m.release_o, [&](uint32_t t) { got.at(t).push_back(c); });
  }
  EXPECT_GT(e.overlaps, 100u);
  EXPECT_GT(e.same_cycle, 100u);
  EXPECT_EQ(gathers, e.gathers);
  for (uint32_t t = 0; t < tiles; ++t) ASSERT_EQ(got[t], e.releases[t]) << "tile " << t;
  std::printf("[ cosim    ] %llu arrivals over %llu cycles, %llu before the sync before ended, %llu in the "
              "cycle of their release\n",
              (unsigned long long)e.arrivals_total, (unsigned long long)e.end, (unsigned long long)e.overlaps,
              (unsigned long long)e.same_cycle);
}

TEST(SyncRtlPins, SixteenTilesShippedLatencies) { run(16, 16, 80, 11); }
TEST(SyncRtlPins, FiveTilesOddSpanMinimumOne) { run(5, 1, 30, 5); }

}  // namespace
}  // namespace ipusim::cosim
