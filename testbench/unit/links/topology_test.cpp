// links::Topology on small hand-made graphs and on the reference configs: hop counts,
// deterministic routes (lowest next IPU first, parallel links picked by `spread`),
// unreachable IPUs, wiring errors, sync-group centres and the m2000 / pod16 / pod64
// diameters.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "config/config_loader.h"
#include "links/topology.h"

namespace ipusim::links {
namespace {

using config::LinkWire;

// A ring of n IPUs: IPU i port 0 to IPU i+1 port 1.
Topology ring(uint32_t n) {
  std::vector<LinkWire> w;
  for (uint32_t i = 0; i < n; ++i) w.push_back({i, 0, (i + 1) % n, 1});
  return Topology(n, 2, w);
}

std::vector<uint32_t> all(uint32_t n) {
  std::vector<uint32_t> v(n);
  std::iota(v.begin(), v.end(), 0u);
  return v;
}

TEST(LinksTopology, HopsOnARing) {
  const Topology t = ring(6);
  EXPECT_EQ(t.hops(0, 0), 0u);
  EXPECT_EQ(t.hops(0, 1), 1u);
  EXPECT_EQ(t.hops(0, 3), 3u);
  EXPECT_EQ(t.hops(0, 5), 1u);
  EXPECT_EQ(t.hops(4, 1), 3u);
  EXPECT_EQ(t.diameter(), 3u);
  EXPECT_TRUE(t.connected());
}

TEST(LinksTopology, RouteTakesTheLowestNextIpuAmongEqualPaths) {
  const Topology t = ring(6);
  std::vector<Hop> r;
  t.route(0, 3, 0, r);  // via 1 and 2, or via 5 and 4: the lower next IPU (1) wins
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], (Hop{0, true, 0, 1}));
  EXPECT_EQ(r[1], (Hop{1, true, 1, 2}));
  EXPECT_EQ(r[2], (Hop{2, true, 2, 3}));
  t.route(0, 5, 0, r);  // one hop against the wire's direction
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], (Hop{5, false, 0, 5}));
  t.route(2, 2, 7, r);
  EXPECT_TRUE(r.empty());
}

TEST(LinksTopology, SpreadPicksAmongParallelLinks) {
  // Three links between IPUs 0 and 1 (ports 0-2), one from 1 to 2.
  const Topology t(3, 4, {{0, 0, 1, 0}, {0, 1, 1, 1}, {0, 2, 1, 2}, {1, 3, 2, 0}});
  EXPECT_EQ(std::vector<uint32_t>(t.links_between(0, 1).begin(), t.links_between(0, 1).end()), (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(std::vector<uint32_t>(t.links_between(1, 0).begin(), t.links_between(1, 0).end()), (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_TRUE(t.links_between(0, 2).empty());
  std::vector<Hop> r;
  for (uint32_t spread = 0; spread < 6; ++spread) {
    t.route(0, 2, spread, r);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].link, spread % 3) << spread;
    EXPECT_EQ(r[1].link, 3u);
  }
  t.route(1, 0, 4, r);  // backwards over link 1
  EXPECT_EQ(r.front(), (Hop{1, false, 1, 0}));
}

TEST(LinksTopology, UnreachableIpus) {
  // 0-1 and 2-3, no link between the pairs.
  const Topology t(4, 2, {{0, 0, 1, 0}, {2, 0, 3, 0}});
  EXPECT_FALSE(t.connected());
  EXPECT_EQ(t.hops(0, 2), Topology::kUnreachable);
  EXPECT_EQ(t.hops(3, 2), 1u);
  EXPECT_EQ(t.diameter(), 1u);  // of the connected pairs
  std::vector<Hop> r;
  EXPECT_THROW(t.route(0, 3, 0, r), std::invalid_argument);
  const std::vector<uint32_t> both = {0, 2};
  EXPECT_THROW(t.centre(both), std::invalid_argument);
  const std::vector<uint32_t> one_pair = {2, 3};
  EXPECT_EQ(t.centre(one_pair).radius, 1u);
}

TEST(LinksTopology, WiringErrors) {
  auto message = [](uint32_t ipus, uint32_t ports, std::vector<LinkWire> w) -> std::string {
    try {
      Topology t(ipus, ports, std::move(w));
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_EQ(message(2, 2, {{0, 0, 2, 0}}), "link 0: IPU 2 does not exist (the system has 2)");
  EXPECT_EQ(message(2, 2, {{0, 0, 1, 2}}), "link 0: IPU 1 has no port 2 (ports 0 to 1)");
  EXPECT_EQ(message(2, 2, {{0, 0, 1, 0}, {0, 0, 1, 1}}), "link 1: port 0 of IPU 0 is already used by link 0");
  EXPECT_EQ(message(2, 2, {{1, 0, 1, 1}}), "link 0: joins IPU 1 to itself");
}

TEST(LinksTopology, CentreIsTheMemberNearestToTheFarthest) {
  const Topology chain(5, 2, {{0, 1, 1, 0}, {1, 1, 2, 0}, {2, 1, 3, 0}, {3, 1, 4, 0}});
  EXPECT_EQ(chain.centre(all(5)).ipu, 2u);
  EXPECT_EQ(chain.centre(all(5)).radius, 2u);
  const std::vector<uint32_t> low = {0, 1, 2, 3};  // 1 and 2 are as central: the lower wins
  EXPECT_EQ(chain.centre(low).ipu, 1u);
  EXPECT_EQ(chain.centre(low).radius, 2u);
  const std::vector<uint32_t> ends = {4, 0};  // the centre is a member, not IPU 2
  EXPECT_EQ(chain.centre(ends).ipu, 0u);
  EXPECT_EQ(chain.centre(ends).radius, 4u);
  const std::vector<uint32_t> single = {3};
  EXPECT_EQ(chain.centre(single).radius, 0u);
  EXPECT_THROW(chain.centre(std::vector<uint32_t>{}), std::invalid_argument);
  const std::vector<uint32_t> missing = {0, 5};
  EXPECT_THROW(chain.centre(missing), std::invalid_argument);
}

TEST(LinksTopology, SyncGroupPathRoundsTheHopToCycles) {
  config::ChipConfig chip;
  chip.clock_hz = 1.325e9;
  chip.ipu_links.sync_hop_ns = 15;  // 19.875 cycles
  const Topology t = ring(8);
  const SyncGroupPath p = sync_group_path(t, all(8), chip);
  EXPECT_EQ(p.master, 0u);
  EXPECT_EQ(p.radius, 4u);
  EXPECT_EQ(p.hop_cycles, 20u);
  EXPECT_EQ(p.latency_cycles, 2u * 4 * 20);
  chip.ipu_links.sync_hop_ns = 0;
  EXPECT_EQ(sync_group_path(t, all(8), chip).latency_cycles, 0u);
}

TEST(LinksTopology, M2000IsFullyConnected) {
  const Topology t = Topology::of(config::load_system("configs/m2000.yaml"));
  EXPECT_EQ(t.ipus(), 4u);
  EXPECT_EQ(t.diameter(), 1u);
  EXPECT_EQ(t.links_between(0, 1).size(), 3u);
  EXPECT_EQ(t.links_between(0, 3).size(), 3u);
  EXPECT_EQ(t.links_between(0, 2).size(), 2u);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(t.links_of(i).size(), 8u);
}

TEST(LinksTopology, Pod16LadderHasDiameterFour) {
  const Topology t = Topology::of(config::load_system("configs/pod16.yaml"));
  EXPECT_EQ(t.ipus(), 16u);
  EXPECT_EQ(t.diameter(), 4u);
  EXPECT_EQ(t.hops(0, 15), 4u);  // 3 boards down, 1 across
  EXPECT_EQ(t.hops(0, 12), 3u);  // straight down the rail
  std::vector<Hop> r;
  t.route(0, 15, 0, r);  // across first (to IPU 3, the lowest next), then down
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].to_ipu, 3u);
  EXPECT_EQ(r[1].to_ipu, 7u);
  EXPECT_EQ(r[3].to_ipu, 15u);
  const Centre c = t.centre(all(16));
  EXPECT_EQ(c.ipu, 4u);
  EXPECT_EQ(c.radius, 3u);
}

TEST(LinksTopology, Pod64TorusHasDiameterNine) {
  const Topology t = Topology::of(config::load_system("configs/pod64.yaml"));
  EXPECT_EQ(t.ipus(), 64u);
  EXPECT_TRUE(t.connected());
  EXPECT_EQ(t.diameter(), 9u);
  EXPECT_EQ(t.hops(0, 60), 1u);  // the torus joins the last board to the first
  EXPECT_EQ(t.hops(0, 33), 9u);  // 8 boards round the ring, 1 across
  const Centre c = t.centre(all(64));
  EXPECT_EQ(c.ipu, 0u);  // every IPU is as central
  EXPECT_EQ(c.radius, 9u);
}

}  // namespace
}  // namespace ipusim::links
