// The sync controller's RTL at its pins, one model clocked every cycle through a long
// run of syncs: each tile arrives again from its own release (often while the other tiles
// of the sync before are still on their way out, sometimes in the very cycle it is
// released), zone-1 and zone-2 syncs (the test plays the group: group_release_i in a
// base cycle it picks). Every release pulse must come in the cycle docs/sync.md gives,
// and gathered_o must rise in the gather cycle. This is the overlap the transactor's two
// model instances never show one model (sync_transactor.h); no SystemC here.
// Also: the RTL's assertions catch a planted protocol violation, as a named failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cosim/rtl_checks.h"
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

// The delay straps: each tile's way in and out, and latency_min.
struct Straps {
  std::vector<uint32_t> in, out;
  uint32_t min = 1;
};

// As the platform ties them: sync_latency.h's formula.
Straps shipped(const sync::SyncLatency& lat) {
  Straps s;
  for (uint32_t t = 0; t < lat.tiles(); ++t) {
    s.in.push_back(lat.to_controller(t));
    s.out.push_back(lat.from_controller(t));
  }
  s.min = lat.min_cycles();
  return s;
}

// Any value each strap can take (8 bits; latency_min at least 1), tile by tile: what no
// formula ties, so every bit of the straps, the way-in counters and the release phase
// counter turns.
Straps random_straps(std::mt19937_64& rng, uint32_t tiles) {
  Straps s;
  for (uint32_t t = 0; t < tiles; ++t) {
    s.in.push_back(uint32_t(rng() % 256));
    s.out.push_back(uint32_t(rng() % 256));
  }
  s.min = 1 + uint32_t(rng() % 255);
  return s;
}

Expected plan(const Straps& lat, const std::vector<uint32_t>& tiles, uint32_t syncs, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](uint64_t lo, uint64_t hi) { return std::uniform_int_distribution<uint64_t>(lo, hi)(rng); };
  Expected e;
  e.releases.resize(lat.in.size());
  std::vector<uint64_t> last(lat.in.size(), 0);
  for (uint32_t s = 0; s < syncs; ++s) {
    const bool zone2 = uniform(0, 3) == 0;
    uint64_t gather = 0, last_release = 0;
    for (uint32_t t : tiles) last_release = std::max(last_release, last[t]);
    std::vector<uint64_t> arrival(lat.in.size());
    for (uint32_t t : tiles) {
      const uint64_t r = uniform(0, 9);
      const uint64_t gap = r < 2 ? 0 : r < 7 ? uniform(1, 30) : uniform(1, 400);
      arrival[t] = last[t] + gap;
      e.overlaps += arrival[t] < last_release;
      e.same_cycle += gap == 0 && s > 0;
      e.arrivals[arrival[t]].push_back({t, zone2});
      ++e.arrivals_total;
      gather = std::max(gather, arrival[t] + lat.in[t]);
    }
    uint64_t base = gather;
    if (zone2) {
      base = gather + uniform(0, 40);
      e.group_release[base] = true;
      e.gathers.push_back(gather);
    }
    for (uint32_t t : tiles) {
      last[t] = base + lat.min + lat.out[t];
      e.releases[t].push_back(last[t]);
      e.end = std::max(e.end, last[t]);
    }
  }
  return e;
}

// A run of `syncs` syncs through model `m` with these straps and participants, from a
// reset; every release and gather must come in its cycle.
template <class Model>
Expected run_syncs(RtlContext& ctx, Model& m, const Straps& straps, const std::vector<uint32_t>& parts,
                   uint32_t syncs, uint64_t seed) {
  const uint32_t tiles = uint32_t(straps.in.size());
  pins::clear(m.participate_i);
  for (uint32_t t : parts) pins::set_bit(m.participate_i, t, true);
  pins::clear(m.way_in_i);
  pins::clear(m.way_out_i);
  for (uint32_t t = 0; t < tiles; ++t) {
    pins::set_field(m.way_in_i, 8 * t, 8, straps.in[t]);
    pins::set_field(m.way_out_i, 8 * t, 8, straps.out[t]);
  }
  m.latency_min_i = straps.min;
  pins::clear(m.arrive_i);
  pins::clear(m.zone2_i);
  m.group_release_i = 0;
  m.clk_i = 0;
  m.rst_ni = 0;
  m.eval();
  m.rst_ni = 1;
  m.eval();

  const Expected e = plan(straps, parts, syncs, seed);
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
    ctx.check(c);  // no assertion fails on legal traffic
    pins::for_each_set(m.release_o, [&](uint32_t t) { got.at(t).push_back(c); });
  }
  EXPECT_EQ(gathers, e.gathers);
  for (uint32_t t = 0; t < tiles; ++t) EXPECT_EQ(got[t], e.releases[t]) << "tile " << t;
  return e;
}

std::vector<uint32_t> random_participants(std::mt19937_64& rng, uint32_t tiles) {
  std::vector<uint32_t> parts;
  for (uint32_t t = 0; t < tiles; ++t)
    if (rng() % 4 != 0) parts.push_back(t);
  if (parts.empty()) parts.push_back(0);
  return parts;
}

void run(uint32_t tiles, uint32_t min, uint32_t max, uint64_t seed) {
  RtlContext ctx("sync", "pins");
  Vsync_tiny16_vcd m(ctx.get(), "sync_ctrl");
  const sync::SyncLatency lat(tiles, min, max);
  std::mt19937_64 rng(seed);
  const std::vector<uint32_t> parts = random_participants(rng, tiles);
  const Expected e = run_syncs(ctx, m, shipped(lat), parts, 3000, seed);
  ctx.write_coverage();
  EXPECT_GT(e.overlaps, 100u);
  EXPECT_GT(e.same_cycle, 100u);
  std::printf("[ cosim    ] %llu arrivals over %llu cycles, %llu before the sync before ended, %llu in the "
              "cycle of their release\n",
              (unsigned long long)e.arrivals_total, (unsigned long long)e.end, (unsigned long long)e.overlaps,
              (unsigned long long)e.same_cycle);
}

TEST(SyncRtlPins, SixteenTilesShippedLatencies) { run(16, 16, 80, 11); }
TEST(SyncRtlPins, FiveTilesOddSpanMinimumOne) { run(5, 1, 30, 5); }

// Straps over their whole range, tile by tile (ways in and out 0 - 255, latency_min
// 1 - 255), new ones after each reset of the one model: rounds of syncs, each round's
// releases in the cycles its straps give.
TEST(SyncRtlPins, RandomStrapsOverTheirWholeRange) {
  RtlContext ctx("sync", "pins");
  Vsync_tiny16_vcd m(ctx.get(), "sync_ctrl");
  std::mt19937_64 rng(2035);
  uint64_t arrivals = 0, overlaps = 0, same_cycle = 0, cycles = 0;
  for (int round = 0; round < 12 && !testing::Test::HasFailure(); ++round) {
    const Straps straps = random_straps(rng, 16);
    const std::vector<uint32_t> parts = random_participants(rng, 16);
    const Expected e = run_syncs(ctx, m, straps, parts, 200, rng());
    arrivals += e.arrivals_total;
    overlaps += e.overlaps;
    same_cycle += e.same_cycle;
    cycles += e.end;
  }
  ctx.write_coverage();
  EXPECT_GT(overlaps, 100u);
  EXPECT_GT(same_cycle, 100u);
  std::printf("[ cosim    ] %llu arrivals over %llu cycles, %llu before the sync before ended, %llu in the "
              "cycle of their release\n",
              (unsigned long long)arrivals, (unsigned long long)cycles, (unsigned long long)overlaps,
              (unsigned long long)same_cycle);
}

// Planted violations: stimulus the protocol forbids, which the RTL's assertions must name
// (block, instance, the assertion, the cycle, its message) through RtlContext::check().
struct Planted {
  RtlContext ctx{"sync", "ipu0.sync"};
  Vsync_tiny16_vcd m{ctx.get(), "sync_ctrl"};
  Planted(uint32_t latency_min) {
    pins::clear(m.participate_i);
    for (uint32_t t = 0; t < 4; ++t) pins::set_bit(m.participate_i, t, true);
    pins::clear(m.way_in_i);
    pins::clear(m.way_out_i);
    for (uint32_t t = 0; t < 4; ++t) pins::set_field(m.way_in_i, 8 * t, 8, 3);
    m.latency_min_i = latency_min;
    pins::clear(m.arrive_i);
    pins::clear(m.zone2_i);
    m.group_release_i = 0;
    m.clk_i = 0;
    m.rst_ni = 0;
    m.eval();
    m.rst_ni = 1;
    m.eval();
  }
  ~Planted() { m.final(); }
  // One cycle with these tiles requesting; the check after its edge.
  void cycle(uint64_t c, std::vector<uint32_t> arriving) {
    pins::clear(m.arrive_i);
    for (uint32_t t : arriving) pins::set_bit(m.arrive_i, t, true);
    m.clk_i = 0;
    m.eval();
    m.clk_i = 1;
    m.eval();
    ctx.check(c);
  }
};

TEST(SyncRtlAssertions, LatencyMinZeroIsNamed) {
  Planted p(0);
  try {
    p.cycle(0, {});
    FAIL() << "no assertion failed";
  } catch (const RtlCheckError& e) {
    std::printf("[ cosim    ] %s\n", e.what());
    const RtlCheckFailure& f = e.failure();
    EXPECT_EQ(f.block, "sync");
    EXPECT_EQ(f.instance, "ipu0.sync");
    EXPECT_EQ(f.check, "a_latency_min");
    EXPECT_EQ(f.cycle, 0u);
    EXPECT_NE(f.scope.find("sync_ctrl"), std::string::npos) << f.scope;
    EXPECT_NE(f.message.find("latency_min_i is 0"), std::string::npos) << f.message;
    EXPECT_EQ(std::string(e.what()), to_text(f));
  }
}

TEST(SyncRtlAssertions, SecondRequestBeforeTheReleaseIsNamed) {
  Planted p(4);
  p.cycle(0, {0, 1});
  p.cycle(1, {2});
  try {
    p.cycle(2, {1});  // tile 1 is still on its way in
    FAIL() << "no assertion failed";
  } catch (const RtlCheckError& e) {
    EXPECT_EQ(e.failure().check, "a_arrive_once");
    EXPECT_EQ(e.failure().cycle, 2u);
    EXPECT_NE(std::string(e.what()).find("RTL assertion a_arrive_once failed in sync ipu0.sync"), std::string::npos)
        << e.what();
  }
  // The failure was raised once; the list keeps it.
  EXPECT_EQ(p.ctx.failures().size(), 1u);
  EXPECT_NO_THROW(p.cycle(3, {}));
}

TEST(SyncRtlAssertions, ARequestFromANonMemberIsNamed) {
  Planted p(4);
  try {
    p.cycle(0, {9});
    FAIL() << "no assertion failed";
  } catch (const RtlCheckError& e) {
    EXPECT_EQ(e.failure().check, "a_arrive_member");
    EXPECT_NE(e.failure().message.find("does not participate"), std::string::npos) << e.failure().message;
  }
}

}  // namespace
}  // namespace ipusim::cosim
