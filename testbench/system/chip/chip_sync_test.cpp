// The sync controller in a running platform: release cycles follow the distance model of
// docs/sync.md exactly, zone 2 spans IPUs, and syncs that can never complete end the run
// as deadlocks naming the tiles that never arrive. Also the superstep accounting. Each
// case elaborates, so each runs in its own process.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>

#include "platform/platform.h"
#include "sync/sync_latency.h"
#include "test_system.h"

namespace ipusim {
namespace {

using platform::Platform;
using platform::PlatformOptions;
using platform::RunResult;
using test::Asm;
using tile::TileState;
using namespace test;  // registers

using test::quiet_options;

// Spins (tile * 37 + ipu * 500 + 10) * step iterations, syncs over `zone`, `steps` times,
// then halts.
Asm staggered_syncs(uint32_t zone, uint32_t steps) {
  Asm a;
  a.csrr(s0, IPU_CSR_TILE);
  a.csrr(s1, IPU_CSR_IPU);
  a.addi(a4, zero, int32_t(steps));
  a.addi(a5, zero, 1);  // step number, from 1
  a.label("top");
  // a2 = (tile * 37 + ipu * 500 + 10) * step
  a.addi(a2, zero, 0);
  a.addi(a3, zero, 37);
  a.label("mul");  // a2 += tile, 37 times
  a.add(a2, a2, s0);
  a.addi(a3, a3, -1);
  a.bne(a3, zero, "mul");
  a.addi(a3, zero, 500);
  a.label("mul2");  // a2 += ipu, 500 times
  a.add(a2, a2, s1);
  a.addi(a3, a3, -1);
  a.bne(a3, zero, "mul2");
  a.addi(a2, a2, 10);
  a.addi(a3, a5, 0);
  a.addi(t2, zero, 0);
  a.label("scale");  // t2 = a2 * step
  a.add(t2, t2, a2);
  a.addi(a3, a3, -1);
  a.bne(a3, zero, "scale");
  a.spin(t2);
  a.addi(a0, zero, int32_t(zone));
  a.sync(a0);
  a.addi(a5, a5, 1);
  a.addi(a4, a4, -1);
  a.bne(a4, zero, "top");
  a.halt(zero);
  return a;
}

// Release cycle of every tile per docs/sync.md, from the arrivals of one sync.
std::vector<uint64_t> expected_releases(const std::vector<uint64_t>& arrivals, const sync::SyncLatency& l,
                                        uint64_t extra = 0) {
  uint64_t gather = 0;
  for (uint32_t t = 0; t < arrivals.size(); ++t) gather = std::max(gather, arrivals[t] + l.to_controller(t));
  std::vector<uint64_t> out;
  for (uint32_t t = 0; t < arrivals.size(); ++t) out.push_back(gather + extra + l.min_cycles() + l.from_controller(t));
  return out;
}

TEST(ChipSync, IpuReleaseCyclesFollowTheDistanceModel) {
  config::SystemConfig system = test::small_system(16);
  system.board.chip.sync.latency_min_cycles = 20;
  system.board.chip.sync.latency_max_cycles = 95;  // odd span: ways in and out differ
  Platform platform(system, quiet_options());
  platform.load(test::program(staggered_syncs(1, 3)));
  const RunResult r = platform.run();
  ASSERT_FALSE(r.end.fault()) << *r.end.fault();
  ASSERT_FALSE(r.end.deadlock()) << *r.end.deadlock();
  ASSERT_EQ(r.tiles.size(), 16u);
  const sync::SyncLatency latency(16, 20, 95);
  for (uint32_t step = 0; step < 3; ++step) {
    std::vector<uint64_t> arrivals;
    for (const auto& t : r.tiles) {
      ASSERT_EQ(t.supersteps.size(), 4u) << "3 syncs + the last superstep";
      arrivals.push_back(t.supersteps[step].sync_arrival);
    }
    const std::vector<uint64_t> want = expected_releases(arrivals, latency);
    for (uint32_t t = 0; t < 16; ++t) {
      EXPECT_EQ(r.tiles[t].supersteps[step].sync_release, want[t]) << "step " << step << " tile " << t;
      EXPECT_EQ(r.tiles[t].supersteps[step].sync_zone, 1u);
    }
  }
  // The last tile to arrive is the farthest one (tile 15 spins longest), so it waits
  // exactly latency_max, and tiles at equal distance finish together.
  EXPECT_EQ(r.tiles[15].supersteps[0].sync_cycles, 95u);
  EXPECT_EQ(r.tiles[3].cycles, r.tiles[12].cycles);
  EXPECT_EQ(platform.ipu(0).sync_controller().syncs_completed(1), 3u);
}

TEST(ChipSync, GroupSyncReleasesEveryIpuFromTheLastGather) {
  const config::SystemConfig system = test::small_system(4, 3);
  Platform platform(system, quiet_options());
  platform.load(test::program(staggered_syncs(2, 2)));
  const RunResult r = platform.run();
  ASSERT_FALSE(r.end.fault()) << *r.end.fault();
  ASSERT_FALSE(r.end.deadlock()) << *r.end.deadlock();
  ASSERT_EQ(r.tiles.size(), 12u);
  const sync::SyncLatency latency(4, 16, 80);
  for (uint32_t step = 0; step < 2; ++step) {
    uint64_t gather = 0;  // over every tile of every IPU
    for (const auto& t : r.tiles) gather = std::max(gather, t.supersteps[step].sync_arrival + latency.to_controller(t.tile));
    for (const auto& t : r.tiles)
      EXPECT_EQ(t.supersteps[step].sync_release, gather + 16 + latency.from_controller(t.tile))
          << "ipu " << t.ipu << " tile " << t.tile;
  }
  // IPU 2 spins longest: IPU 0 waits for it.
  EXPECT_GT(r.tiles[0].sync_stall_cycles, r.tiles[8].sync_stall_cycles + 6 * 1000);
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(platform.ipu(i).sync_controller().syncs_completed(2), 2u);
}

// The external sync over the IPU-Links: a zone-2 sync across IPUs releases
// 2 x radius x hop cycles later than the gather alone, radius = the hops from the group's
// centre (the sync master) to its farthest member (docs/sync.md).
void expect_group_latency(const config::SystemConfig& system, uint64_t group_cycles) {
  Platform platform(system, quiet_options());
  platform.load(test::program(staggered_syncs(2, 1)));
  const RunResult r = platform.run();
  ASSERT_FALSE(r.end.fault()) << *r.end.fault();
  ASSERT_FALSE(r.end.deadlock()) << *r.end.deadlock();
  const sync::SyncLatency latency(4, 16, 80);
  uint64_t gather = 0;
  for (const auto& t : r.tiles) gather = std::max(gather, t.supersteps[0].sync_arrival + latency.to_controller(t.tile));
  for (const auto& t : r.tiles)
    EXPECT_EQ(t.supersteps[0].sync_release, gather + group_cycles + 16 + latency.from_controller(t.tile))
        << "ipu " << t.ipu << " tile " << t.tile;
}

// A chain of 4 IPUs (0-1-2-3): the master is IPU 1 (IPU 3 is 2 hops away); 30 ns a hop
// at 1.325 GHz is 39.75, so 40 cycles: 2 x 2 x 40 = 160 cycles.
TEST(ChipSync, GroupLatencyFollowsTheHopsOfAChain) {
  config::SystemConfig system = test::small_system(4, 4);
  system.board.chip.ipu_links.sync_hop_ns = 30;
  expect_group_latency(system, 160);
}

// The same 4 IPUs as a star around IPU 3: the master is IPU 3, every member 1 hop away:
// 2 x 1 x 40 = 80 cycles.
TEST(ChipSync, GroupLatencyFollowsTheHopsOfAStar) {
  config::SystemConfig system = test::small_system(4, 4);
  system.board.chip.ipu_links.sync_hop_ns = 30;
  system.board.links = {{0, 0, 3, 0}, {1, 0, 3, 1}, {2, 0, 3, 2}};
  expect_group_latency(system, 80);
}

TEST(ChipSync, SuperstepAccountingAddsUp) {
  Platform platform(test::small_system(8, 2), quiet_options());
  platform.load(test::program(staggered_syncs(1, 3)));
  const RunResult r = platform.run();
  ASSERT_FALSE(r.end.fault()) << *r.end.fault();
  ASSERT_EQ(r.supersteps.size(), 2u);
  for (uint32_t ipu = 0; ipu < 2; ++ipu) {
    ASSERT_EQ(r.supersteps[ipu].size(), 4u);
    for (uint32_t k = 0; k < 4; ++k) {
      const platform::SuperstepTotals& tot = r.supersteps[ipu][k];
      EXPECT_EQ(tot.tiles, 8u);
      uint64_t compute = 0, sync = 0, instr = 0;
      for (const auto& t : r.tiles) {
        if (t.ipu != ipu) continue;
        const tile::SuperstepRecord& s = t.supersteps[k];
        EXPECT_EQ(s.compute_cycles + s.sync_cycles + s.exchange_cycles, s.end - s.begin);
        compute += s.compute_cycles;
        sync += s.sync_cycles;
        instr += s.instructions;
      }
      EXPECT_EQ(tot.compute_cycles, compute);
      EXPECT_EQ(tot.sync_cycles, sync);
      EXPECT_EQ(tot.exchange_cycles, 0u);
      EXPECT_EQ(tot.instructions, instr);
    }
    EXPECT_EQ(r.supersteps[ipu][3].sync_cycles, 0u) << "the last superstep ends at the halt";
  }
  for (const auto& t : r.tiles) {
    uint64_t instr = 0, sync = 0;
    for (const auto& s : t.supersteps) {
      instr += s.instructions;
      sync += s.sync_cycles;
    }
    EXPECT_EQ(instr, t.instructions);
    EXPECT_EQ(sync, t.sync_stall_cycles);
    EXPECT_EQ(t.supersteps.back().end, t.cycles);
  }
}

// Tile `odd` does something else than sync zone 1 (`what`): halt, or sync zone 2.
Asm one_tile_differs(uint32_t odd, bool halts) {
  Asm a;
  a.csrr(a1, IPU_CSR_TILE);
  a.addi(a2, zero, int32_t(odd));
  a.beq(a1, a2, "other");
  a.addi(a0, zero, 1);
  a.sync(a0);
  a.halt(zero);
  a.label("other");
  if (!halts) {
    a.addi(a0, zero, 2);
    a.sync(a0);
  }
  a.halt(zero);
  return a;
}

TEST(ChipSync, HaltedTileMakesADeadlockNamingIt) {
  Platform platform(test::small_system(4), quiet_options());
  platform.load(test::program(one_tile_differs(2, /*halts=*/true)));
  const RunResult r = platform.run();
  EXPECT_FALSE(r.end.fault());
  ASSERT_TRUE(r.end.deadlock());
  EXPECT_NE(ipusim::to_text(*r.end.deadlock()).find("sync deadlock: 3 tile(s) wait"), std::string::npos) << *r.end.deadlock();
  EXPECT_NE(ipusim::to_text(*r.end.deadlock()).find("ipu 0 tile 0 (zone 1, since cycle"), std::string::npos) << *r.end.deadlock();
  EXPECT_NE(ipusim::to_text(*r.end.deadlock()).find("ipu 0 tile 3 (zone 1, since cycle"), std::string::npos) << *r.end.deadlock();
  EXPECT_NE(ipusim::to_text(*r.end.deadlock()).find("1 tile(s) never arrive: ipu 0 tile 2 (halted at cycle"), std::string::npos)
      << *r.end.deadlock();
  EXPECT_EQ(r.tiles[2].state, TileState::Halted);
  EXPECT_EQ(r.tiles[0].state, TileState::AtSync);
}

TEST(ChipSync, TilesWaitingAtDifferentZonesAreADeadlock) {
  Platform platform(test::small_system(4), quiet_options());
  platform.load(test::program(one_tile_differs(1, /*halts=*/false)));
  const RunResult r = platform.run();
  ASSERT_TRUE(r.end.deadlock());
  EXPECT_NE(ipusim::to_text(*r.end.deadlock()).find("sync deadlock: 4 tile(s) wait"), std::string::npos) << *r.end.deadlock();
  EXPECT_NE(ipusim::to_text(*r.end.deadlock()).find("ipu 0 tile 1 (zone 2, since cycle"), std::string::npos) << *r.end.deadlock();
  EXPECT_NE(ipusim::to_text(*r.end.deadlock()).find("ipu 0 tile 1 (waits at zone 2)"), std::string::npos) << *r.end.deadlock();
  EXPECT_NE(ipusim::to_text(*r.end.deadlock()).find("ipu 0 tile 0 (waits at zone 1)"), std::string::npos) << *r.end.deadlock();
}

TEST(ChipSync, GroupSyncWithAHaltedTileElsewhereIsADeadlock) {
  // IPU 1's tile 0 halts; everyone else syncs zone 2.
  Asm a;
  a.csrr(a1, IPU_CSR_TILE);
  a.csrr(a2, IPU_CSR_IPU);
  a.add(a3, a1, a2);
  a.addi(a4, zero, 1);
  a.beq(a3, a4, "halt");  // tile + ipu == 1: ipu 1 tile 0 and ipu 0 tile 1
  a.addi(a0, zero, 2);
  a.sync(a0);
  a.label("halt");
  a.halt(zero);
  Platform platform(test::small_system(2, 2), quiet_options());
  platform.load(test::program(a));
  const RunResult r = platform.run();
  ASSERT_TRUE(r.end.deadlock());
  EXPECT_NE(ipusim::to_text(*r.end.deadlock()).find("(zone 2, since cycle"), std::string::npos) << *r.end.deadlock();
  EXPECT_NE(ipusim::to_text(*r.end.deadlock()).find("ipu 0 tile 1 (halted at cycle"), std::string::npos) << *r.end.deadlock();
  EXPECT_NE(ipusim::to_text(*r.end.deadlock()).find("ipu 1 tile 0 (halted at cycle"), std::string::npos) << *r.end.deadlock();
}

// Tile `halts` (of IPU `halt_ipu`) halts at once; tile `busy` of every IPU computes
// `spin` loop iterations (2 instructions each) before it syncs at `zone`; every other
// tile syncs at `zone` at once.
Asm deadlock_while_one_computes(uint32_t zone, uint32_t halt_ipu, uint32_t halts, uint32_t busy, uint32_t spin) {
  Asm a;
  a.csrr(a1, IPU_CSR_TILE);
  a.csrr(a3, IPU_CSR_IPU);
  a.addi(a2, zero, int32_t(halt_ipu));
  a.bne(a3, a2, "not_halting");
  a.addi(a2, zero, int32_t(halts));
  a.beq(a1, a2, "halt");
  a.label("not_halting");
  a.addi(a2, zero, int32_t(busy));
  a.bne(a1, a2, "sync");
  a.li(t3, spin);
  a.spin(t3);
  a.label("sync");
  a.addi(a0, zero, int32_t(zone));
  a.sync(a0);
  a.label("halt");
  a.halt(zero);
  return a;
}

// The controller reports a deadlock at the cycle it became certain, not when the
// simulation runs out of events: tile `busy` is still in a loop of 4 million instructions
// when tile `halts` has halted and the others wait, and the run ends there. (The
// end-of-run fallback would report the same tiles millions of cycles later, with tile
// `busy` at the sync too, and says so in its detail.) The host computes tile `busy`'s
// stretch to its sync before it sees the others' (in tile order), so with busy < halts the
// controller first sees a sync at cycle ~4M; the deadlock is still the early one.
void expect_deadlock_when_it_happens(uint32_t halts, uint32_t busy) {
  constexpr uint32_t kSpin = 2'000'000;  // tile `busy`: >= 2 * kSpin cycles before its sync
  // The others reach their sync or halt within a dozen instructions: well under a
  // thousand cycles with the sync's latency; 1/100 of the loop is far above that and far
  // below the loop.
  constexpr uint64_t kBound = 2 * kSpin / 100;
  Platform platform(test::small_system(4), quiet_options());
  platform.load(test::program(deadlock_while_one_computes(1, 0, halts, busy, kSpin)));
  const RunResult r = platform.run();
  EXPECT_FALSE(r.end.fault());
  ASSERT_TRUE(r.end.deadlock());
  const Problem& d = *r.end.deadlock();
  EXPECT_EQ(d.code, ProblemCode::Deadlock);
  EXPECT_EQ(d.kind, "sync");
  EXPECT_EQ(d.detail, "") << "the end-of-run fallback's record: " << d.detail;
  EXPECT_EQ(d.tile, halts) << d;
  ASSERT_TRUE(d.cycle);
  EXPECT_LT(*d.cycle, kBound) << d;
  EXPECT_EQ(d.superstep, 0u);
  ASSERT_EQ(d.absent.size(), 1u) << d;
  EXPECT_EQ(d.absent[0].tile, halts);
  ASSERT_EQ(d.waiters.size(), 2u) << "only the two tiles that wait by then: " << d;
  for (const SyncTile& w : d.waiters) {
    EXPECT_TRUE(w.tile != halts && w.tile != busy) << d;
  }
  EXPECT_LT(r.tile_cycles, kBound) << "the run went on after the deadlock";
  ASSERT_EQ(r.tiles.size(), 4u);
  EXPECT_EQ(r.tiles[busy].state, TileState::Running) << "tile " << busy << " was still in its loop";
  EXPECT_EQ(r.tiles[halts].state, TileState::Halted);
  for (const auto& t : r.tiles) {
    if (t.tile != halts && t.tile != busy) {
      EXPECT_EQ(t.state, TileState::AtSync) << t.tile;
    }
  }
}

TEST(ChipSync, DeadlockIsReportedWhenItHappensNotWhenTheRunEnds) {
  expect_deadlock_when_it_happens(/*halts=*/2, /*busy=*/3);
}

TEST(ChipSync, DeadlockIsReportedWhenItHappensWhateverTheOrderTheHostSawItIn) {
  expect_deadlock_when_it_happens(/*halts=*/1, /*busy=*/0);
}

// The same across IPUs: IPU 1's tile 0 halts while tile 3 of each IPU computes and the
// others wait at zone 2 (the group's departures are what make it certain).
TEST(ChipSync, GroupDeadlockIsReportedWhenItHappensNotWhenTheRunEnds) {
  constexpr uint32_t kSpin = 2'000'000;
  constexpr uint64_t kBound = 2 * kSpin / 100;
  Platform platform(test::small_system(4, 2), quiet_options());
  platform.load(test::program(deadlock_while_one_computes(2, 1, 0, 3, kSpin)));
  const RunResult r = platform.run();
  EXPECT_FALSE(r.end.fault());
  ASSERT_TRUE(r.end.deadlock());
  const Problem& d = *r.end.deadlock();
  EXPECT_EQ(d.kind, "sync");
  EXPECT_EQ(d.detail, "") << "the end-of-run fallback's record: " << d.detail;
  ASSERT_TRUE(d.cycle);
  EXPECT_LT(*d.cycle, kBound) << d;
  ASSERT_FALSE(d.absent.empty()) << d;
  EXPECT_EQ(d.absent[0].ipu, 1u) << d;
  EXPECT_EQ(d.absent[0].tile, 0u) << d;
  EXPECT_LT(r.tile_cycles, kBound) << "the run went on after the deadlock";
  for (const auto& t : r.tiles) {
    if (t.tile == 3) {
      EXPECT_EQ(t.state, TileState::Running) << "ipu " << t.ipu << " tile 3 was still in its loop";
    }
  }
}

struct LinkPeer : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<LinkPeer> socket{"socket"};
  explicit LinkPeer(sc_core::sc_module_name name) : sc_module(name) {}
};

TEST(ChipModules, IpuHasOneOptionalPortPairPerConfiguredLink) {
  config::SystemConfig system = test::small_system(2, 2);
  system.board.chip.ipu_links.count = 3;
  Platform platform(system, quiet_options());
  platform.load(test::program(staggered_syncs(1, 1)));
  for (uint32_t i = 0; i < 2; ++i) {
    EXPECT_EQ(platform.ipu(i).link_out.size(), 3u);
    EXPECT_EQ(platform.ipu(i).link_in.size(), 3u);
  }
  EXPECT_EQ(std::string(platform.ipu(1).link_out[2].name()), "ipu1.link_out_2");
  EXPECT_EQ(std::string(platform.ipu(0).sync_controller().name()), "ipu0.sync");
  EXPECT_EQ(std::string(platform.ipu(0).exchange_fabric().name()), "ipu0.exchange");
  // One link bound, the rest left open: elaboration and the run are fine, and the
  // unmodelled link answers with an error response.
  LinkPeer peer("peer");
  peer.socket.bind(platform.ipu(0).link_in[1]);
  const RunResult r = platform.run();
  EXPECT_FALSE(r.end.fault());
  EXPECT_FALSE(r.end.deadlock());
  tlm::tlm_generic_payload p;
  uint8_t byte = 0;
  p.set_command(tlm::TLM_WRITE_COMMAND);
  p.set_data_ptr(&byte);
  p.set_data_length(1);
  p.set_streaming_width(1);
  sc_core::sc_time delay;
  peer.socket->b_transport(p, delay);
  EXPECT_EQ(p.get_response_status(), tlm::TLM_COMMAND_ERROR_RESPONSE);
}

}  // namespace
}  // namespace ipusim
