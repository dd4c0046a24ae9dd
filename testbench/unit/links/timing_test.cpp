// Fault-free timing, the cycles_lost identity under stall semantics, and determinism.
#include <gtest/gtest.h>

#include "link_test_util.h"
#include "links/link_layer.h"

namespace ipusim::links {
namespace {

using test::concatenated;
using test::injector_for;
using test::make_phase;

TEST(LinkTiming, FaultFreeFramesGoAtTheirReadyCycle) {
  LinkLayerConfig c;
  c.bytes_per_cycle = 16e9 / 1.325e9;
  auto p = make_phase(500, 200, 40);
  FaultInjector none;
  std::vector<uint64_t> cycles;
  auto r = carry_phase(c, none, p.frames, [&](const Delivery& d) { cycles.push_back(d.cycle); });
  const uint64_t t = c.frame_cycles(200);
  for (size_t i = 0; i < cycles.size(); ++i) EXPECT_EQ(cycles[i], p.frames[i].ready_cycle + t + 256) << i;
  EXPECT_EQ(r.last_delivery_cycle, p.frames.back().ready_cycle + t + 256);
  EXPECT_EQ(r.fault_free_last_delivery_cycle, r.last_delivery_cycle);
  EXPECT_EQ(r.cycles_lost, 0u);
  EXPECT_EQ(r.stats.replays, 0u);
  EXPECT_EQ(r.stats.frames_sent, 500u);
  EXPECT_EQ(r.stats.bytes_delivered, 500u * 200u);
}

TEST(LinkTiming, AnEmptyPhaseDeliversNothing) {
  FaultInjector inj = injector_for("ber=1e-3");
  auto r = carry_phase(LinkLayerConfig{}, inj, {});
  EXPECT_TRUE(r.delivered.empty());
  EXPECT_EQ(r.last_delivery_cycle, 0u);
  EXPECT_EQ(r.cycles_lost, 0u);
}

// Every frame arrives exactly its stall later than without faults, the stall never
// shrinks, and the last frame's stall is cycles_lost: last delivery with faults ==
// without + cycles_lost.
void expect_identity(const LinkLayerConfig& c, const test::Phase& p, const char* spec, bool must_lose) {
  SCOPED_TRACE(spec);
  FaultInjector none;
  std::vector<uint64_t> clean;
  const auto ref = carry_phase(c, none, p.frames, [&](const Delivery& d) { clean.push_back(d.cycle); });
  auto inj = injector_for(spec);
  std::vector<Delivery> got;
  const auto r = carry_phase(c, inj, p.frames, [&](const Delivery& d) { got.push_back(d); });
  ASSERT_EQ(got.size(), p.frames.size());
  uint64_t stall = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].cycle, clean[i] + got[i].stall) << i;
    EXPECT_GE(got[i].stall, stall) << i;
    stall = got[i].stall;
  }
  EXPECT_EQ(r.fault_free_last_delivery_cycle, ref.last_delivery_cycle);
  EXPECT_EQ(r.last_delivery_cycle, ref.last_delivery_cycle + r.cycles_lost);
  EXPECT_EQ(r.stats.cycles_lost, r.cycles_lost);
  if (must_lose) {
    EXPECT_GT(r.cycles_lost, 0u);
  }
}

TEST(LinkTiming, CyclesLostIdentity) {
  LinkLayerConfig c;
  const auto dense = make_phase(3000, 256, 17);
  const auto sparse = make_phase(3000, 100, 50);
  for (const char* spec : {"ber=1e-5,seed=1", "burst=100:16,seed=2", "periodic=97", "drop=1e-3,seed=4",
                           "dup=1e-2,seed=5", "ack_drop=0.05,seed=6",
                           "ber=1e-5,drop=1e-3,dup=1e-3,ack_drop=1e-2,burst=500:8:1000,periodic=777,seed=8"}) {
    // A lost ACK costs time only when the next one is lost too (then the timer replays),
    // and sparse frames leave room for a duplicate's extra frame time.
    const std::string_view s = spec;
    const bool corrupts = s.rfind("dup=", 0) != 0 && s.rfind("ack_drop=", 0) != 0;
    expect_identity(c, dense, spec, corrupts);
    expect_identity(c, sparse, spec, corrupts);
  }
  // Throttled by credits and a small replay buffer, at the exchange's fractional rate.
  c.credit_frames = 12;
  c.replay_buffer_frames = 20;
  c.bytes_per_cycle = 16e9 / 1.325e9;
  expect_identity(c, dense, "ber=1e-5,drop=1e-3,dup=1e-3,ack_drop=1e-2,seed=9", true);
  c.drain_cycles_per_frame = 30;
  expect_identity(c, dense, "ber=1e-5,drop=1e-3,dup=1e-3,ack_drop=1e-2,seed=10", true);
}

TEST(LinkTiming, RetrainTimeIsPartOfCyclesLost) {
  LinkLayerConfig c;
  auto p = make_phase(20, 256, 17);
  // The last frame (transmission 19) fails five times: a NAK, three timer replays, and
  // the fourth replay without progress retrains first.
  auto a = injector_for("burst=19:5");
  const auto ra = carry_phase(c, a, p.frames);
  c.retrain_cycles += 777;
  auto b = injector_for("burst=19:5");
  const auto rb = carry_phase(c, b, p.frames);
  EXPECT_EQ(ra.stats.retrains, 1u);
  EXPECT_EQ(rb.cycles_lost - ra.cycles_lost, 777u);
}

TEST(LinkTiming, DeterministicForASeedAndDifferentForAnother) {
  LinkLayerConfig c;
  auto p = make_phase(5000, 64, 6);
  const char* spec = "ber=3e-5,drop=5e-4,dup=5e-4,ack_drop=5e-3,seed=";
  auto run = [&](int seed) {
    auto inj = injector_for((std::string(spec) + std::to_string(seed)).c_str());
    std::vector<uint64_t> cycles;
    auto r = carry_phase(c, inj, p.frames, [&](const Delivery& d) { cycles.push_back(d.cycle); });
    EXPECT_EQ(cycles.size(), 5000u);
    return std::make_pair(r.stats, cycles);
  };
  const auto a = run(42), b = run(42), d = run(43);
  EXPECT_EQ(a.first, b.first);
  EXPECT_EQ(a.second, b.second);
  EXPECT_NE(a.first, d.first);
  EXPECT_NE(a.second, d.second);
}

TEST(LinkTiming, TheInjectorCarriesItsScheduleAcrossPhases) {
  LinkLayerConfig c;
  auto p = make_phase(100, 32, 3);
  auto inj = injector_for("burst=150:1");  // the 51st transmission of the second phase
  const auto first = carry_phase(c, inj, p.frames);
  EXPECT_EQ(first.stats.crc_errors, 0u);
  EXPECT_EQ(first.stats.injected.wire_frames, 100u);
  const auto second = carry_phase(c, inj, p.frames);
  EXPECT_EQ(second.stats.crc_errors, 1u);
  EXPECT_EQ(second.stats.injected.burst_frames_hit, 1u);
  EXPECT_EQ(second.delivered, concatenated(p));
  LinkCounters total = first.stats;
  total += second.stats;
  EXPECT_EQ(total.frames_delivered, 200u);
  EXPECT_EQ(total.injected.wire_frames, inj.counts().wire_frames);
}

}  // namespace
}  // namespace ipusim::links
