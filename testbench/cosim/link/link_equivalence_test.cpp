// The link RTL (hw/link/rtl, through tlm/cosim/link's transactor) against the C++ link
// layer (links::LinkDirection): the same randomised phases (payload sizes, ready cycles,
// configurations that throttle by credits, replay buffer and consumer, both pacings) with
// the same seeded faults (bit errors, periodic and burst corruption, drops, duplicates,
// lost ACKs) through both. Every delivery (index, cycle, stall, payload bytes), every
// wire event (cycle, frame, sequence number, replay, verdict), the first send cycles, the
// stats and the injector's counters must be equal: the RTL is cycle-exact, no tolerance.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cosim/link/rtl_link_direction.h"  // first: cosim/verilated_sc.h before the model
#include "Vlink_gc200_vcd.h"
#include "Vlink_wide_vcd.h"
#include "links/fault_spec.h"
#include "links/link_layer.h"
#include "verilated_vcd_c.h"

namespace ipusim::cosim::link {
namespace {

using Rtl = RtlLinkModel<Vlink_gc200_vcd, VerilatedVcdC>;
using RtlDirection = RtlLinkDirection<Vlink_gc200_vcd, VerilatedVcdC>;

struct Seen {
  std::vector<links::Delivery> deliveries;     // payload spans point into `bytes`
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<links::WireEvent> wire;
  std::vector<uint64_t> first_send;
  links::LinkCounters stats;
  links::InjectedCounts injected;
  std::optional<uint64_t> last_delivery_cycle;
  uint64_t last_delivery_stall = 0;
  std::string failure;
};

template <class Direction, class... Extra>
Seen run(const links::LinkLayerConfig& c, links::FaultInjector& inj, std::span<const links::ScheduledFrame> frames,
         std::span<const uint64_t> not_before, links::Pacing pacing, Extra&... extra) {
  Seen s;
  const links::InjectedCounts before = inj.counts();
  Direction d(extra..., c, inj, frames, not_before, pacing, [&](const links::Delivery& del) {
    s.deliveries.push_back(del);
    s.bytes.emplace_back(del.payload.begin(), del.payload.end());
  });
  d.set_wire_trace([&](const links::WireEvent& e) { s.wire.push_back(e); });
  try {
    d.run();
  } catch (const links::LinkFailure& e) {
    s.failure = e.what();
  }
  s.first_send.assign(d.first_send_cycles().begin(), d.first_send_cycles().end());
  s.stats = d.stats();
  s.injected = inj.counts() - before;
  s.last_delivery_cycle = d.last_delivery_cycle();
  s.last_delivery_stall = d.last_delivery_stall();
  return s;
}

// Equal transaction for transaction; returns how many frames the phase delivered.
uint64_t expect_equal(const Seen& tlm, const Seen& rtl, const std::string& where) {
  EXPECT_EQ(tlm.failure, rtl.failure) << where;
  EXPECT_EQ(tlm.deliveries.size(), rtl.deliveries.size()) << where;
  const size_t n = std::min(tlm.deliveries.size(), rtl.deliveries.size());
  for (size_t i = 0; i < n; ++i) {
    const auto& a = tlm.deliveries[i];
    const auto& b = rtl.deliveries[i];
    if (a.index != b.index || a.cycle != b.cycle || a.stall != b.stall || tlm.bytes[i] != rtl.bytes[i]) {
      ADD_FAILURE() << where << ": delivery " << i << ": TLM frame " << a.index << " cycle " << a.cycle << " stall "
                    << a.stall << " " << tlm.bytes[i].size() << " bytes; RTL frame " << b.index << " cycle " << b.cycle
                    << " stall " << b.stall << " " << rtl.bytes[i].size() << " bytes"
                    << (tlm.bytes[i] == rtl.bytes[i] ? "" : " (payloads differ)");
      break;
    }
  }
  EXPECT_EQ(tlm.wire.size(), rtl.wire.size()) << where;
  for (size_t i = 0; i < std::min(tlm.wire.size(), rtl.wire.size()); ++i) {
    const auto& a = tlm.wire[i];
    const auto& b = rtl.wire[i];
    if (a.cycle != b.cycle || a.index != b.index || a.seq != b.seq || a.replay != b.replay ||
        a.verdict.drop != b.verdict.drop || a.verdict.duplicate != b.verdict.duplicate) {
      ADD_FAILURE() << where << ": wire event " << i << ": TLM cycle " << a.cycle << " frame " << a.index
                    << (a.replay ? " replay" : "") << "; RTL cycle " << b.cycle << " frame " << b.index
                    << (b.replay ? " replay" : "");
      break;
    }
  }
  EXPECT_EQ(tlm.first_send, rtl.first_send) << where;
  EXPECT_EQ(tlm.stats, rtl.stats) << where;
  EXPECT_EQ(tlm.injected, rtl.injected) << where;
  EXPECT_EQ(tlm.last_delivery_cycle, rtl.last_delivery_cycle) << where;
  EXPECT_EQ(tlm.last_delivery_stall, rtl.last_delivery_stall) << where;
  return rtl.deliveries.size();
}

struct Phase {
  links::LinkLayerConfig config;
  std::vector<std::vector<uint8_t>> payloads;
  std::vector<links::ScheduledFrame> frames;
  std::vector<uint64_t> ready;
};

// Raw draws only: std::uniform_*_distribution differs between standard libraries.
struct Draw {
  std::mt19937_64 rng;
  uint64_t below(uint64_t n) { return rng() % n; }
  uint64_t in(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }
  bool chance(uint32_t percent) { return below(100) < percent; }
};

// The wire rates of the shipped chips (16 GB/s at GC200, GC2 and Bow clocks) and others,
// whole and fractional, down to a byte every few cycles.
constexpr double kRates[] = {16.0, 16e9 / 1.325e9, 16e9 / 1.6e9, 16e9 / 1.85e9, 4.5, 1.5, 0.4, 3.0 / 7.0};

// What a case stresses beyond the random mix.
enum class Stress {
  None,
  // A short wire and a consumer slower than the credits' round trip: every buffer the
  // receiver advertised fills (c_buffers_full), the transmitter stalls on credits.
  SlowConsumer,
  // Configuration values over the inputs' ranges (timeouts, coalescing, retrain time,
  // replay limit): their high bits in toggle coverage; the wire stays fast enough that a
  // phase keeps within a few thousand cycles a frame.
  WideConfig,
};

Phase random_phase(Draw& d, size_t frames, bool small, bool wide = false, Stress stress = Stress::None) {
  Phase p;
  links::LinkLayerConfig& c = p.config;
  c.frame_bytes = small ? uint32_t(d.in(1, 64)) : 256;
  // Full frames at less than a byte a cycle would spend the test's time on serialising.
  c.bytes_per_cycle = kRates[d.below(small ? std::size(kRates) : std::size(kRates) - 2)];
  // The wide model's wire: the test chips' 160 bytes a cycle, and others above 16.
  if (wide && d.chance(70)) c.bytes_per_cycle = d.chance(50) ? 160.0 : 16.0 + double(d.below(1440)) / 10;
  // Throttling: a replay buffer, credits or a consumer too small or slow for the latency.
  c.replay_buffer_frames = d.chance(50) ? uint32_t(d.in(1, 16)) : uint32_t(d.in(17, 128));
  c.credit_frames = d.chance(50) ? uint32_t(d.in(1, 16)) : uint32_t(d.in(17, 128));
  c.ack_coalesce_frames = uint32_t(d.in(1, 12));
  c.ack_timeout_cycles = uint32_t(d.in(1, 200));
  c.latency_cycles = uint32_t(d.in(1, 200));
  c.replay_limit = uint32_t(d.in(1, 5));
  c.retrain_cycles = uint32_t(d.in(0, 400));
  c.drain_cycles_per_frame = d.chance(60) ? 0 : uint32_t(d.in(1, 30));
  if (stress == Stress::SlowConsumer) {
    c.latency_cycles = uint32_t(d.in(1, 8));
    c.credit_frames = uint32_t(d.in(1, 8));
    c.drain_cycles_per_frame = uint32_t(d.in(20, 80));
  } else if (stress == Stress::WideConfig) {
    c.ack_coalesce_frames = uint32_t(d.chance(50) ? d.in(1, 128) : d.in(129, 65535));
    c.ack_timeout_cycles = uint32_t(d.chance(50) ? d.in(1, 5000) : d.in(5001, 200000));
    c.latency_cycles = uint32_t(d.in(1, 3000));
    c.replay_limit = uint32_t(d.in(1, 255));
    c.retrain_cycles = uint32_t(d.in(0, 100000));
  }
  c.replay_timeout_cycles = d.chance(50) ? 0 : uint32_t(c.min_replay_timeout() + d.below(100));
  if (stress == Stress::WideConfig && d.chance(50))
    c.replay_timeout_cycles = uint32_t(c.min_replay_timeout() + d.below(500000));
  p.payloads.resize(frames);
  p.frames.resize(frames);
  p.ready.resize(frames);
  uint64_t t = d.below(50);
  for (size_t i = 0; i < frames; ++i) {
    auto& b = p.payloads[i];
    b.resize(d.chance(30) ? c.frame_bytes : d.in(0, c.frame_bytes));
    for (auto& x : b) x = uint8_t(d.rng());
    // Back to back, small gaps or an idle stretch.
    const uint64_t r = d.below(100);
    t += r < 50 ? 0 : r < 90 ? d.below(20) : d.below(2000);
    p.frames[i] = links::ScheduledFrame{t, b};
    p.ready[i] = t;
  }
  return p;
}

std::string random_spec(Draw& d) {
  std::string s = "seed=" + std::to_string(d.rng() % 1000000);
  if (d.chance(70)) s += ",ber=" + std::to_string(1e-5 * double(d.in(1, 30)));
  if (d.chance(30)) s += ",periodic=" + std::to_string(d.in(5, 200));
  if (d.chance(20)) s += ",burst=" + std::to_string(d.in(0, 500)) + ":" + std::to_string(d.in(1, 12)) + ":" +
                         std::to_string(d.in(600, 3000));
  if (d.chance(50)) s += ",drop=" + std::to_string(0.001 * double(d.in(1, 20)));
  if (d.chance(20)) s += ",drop_every=" + std::to_string(d.in(20, 300));
  if (d.chance(50)) s += ",dup=" + std::to_string(0.001 * double(d.in(1, 20)));
  if (d.chance(20)) s += ",dup_every=" + std::to_string(d.in(20, 300));
  if (d.chance(50)) s += ",ack_drop=" + std::to_string(0.005 * double(d.in(1, 20)));
  if (d.chance(20)) s += ",ack_drop_every=" + std::to_string(d.in(5, 100));
  return s;
}

links::FaultInjector injector(const std::string& spec) {
  std::string error;
  auto s = links::parse_fault_spec(spec, &error);
  if (!s) throw std::invalid_argument(error);
  return links::FaultInjector(*s);
}

// `phases` random phases of about `frames` frames; each runs as carry_phase does (a
// fault-free run fixes the schedule, the faulty run is stalled against it), both runs
// through both models. Returns the frames the RTL delivered.
template <class Model = Vlink_gc200_vcd>
uint64_t random_phases(uint64_t seed, int phases, size_t frames, bool small, Stress stress = Stress::None) {
  using RtlDirection = RtlLinkDirection<Model, VerilatedVcdC>;
  constexpr bool kWide = std::is_same_v<Model, Vlink_wide_vcd>;
  Draw d{std::mt19937_64(seed)};
  RtlLinkModel<Model, VerilatedVcdC> rtl(kWide ? kWideShape : kGc200Shape);
  uint64_t delivered = 0;
  links::LinkCounters faulty;
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < phases; ++k) {
    const Phase p = random_phase(d, frames / 2 + d.below(frames), small, kWide, stress);
    const std::string spec = random_spec(d);
    const std::string where = "seed " + std::to_string(seed) + " phase " + std::to_string(k) + " [" + spec + "]";
    links::FaultInjector none_tlm, none_rtl;
    const Seen clean = run<links::LinkDirection>(p.config, none_tlm, p.frames, p.ready, links::Pacing::Ready);
    delivered += expect_equal(clean, run<RtlDirection>(p.config, none_rtl, p.frames, p.ready, links::Pacing::Ready, rtl),
                              where + " fault-free");
    auto tlm_inj = injector(spec), rtl_inj = injector(spec);
    const auto pacing = d.chance(75) ? links::Pacing::Stalled : links::Pacing::Ready;
    const Seen tlm = run<links::LinkDirection>(p.config, tlm_inj, p.frames, clean.first_send, pacing);
    const Seen got = run<RtlDirection>(p.config, rtl_inj, p.frames, clean.first_send, pacing, rtl);
    delivered += expect_equal(tlm, got, where);
    faulty += got.stats;
    faulty.injected += got.injected;
    if (testing::Test::HasFailure()) break;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("seed %llu: %llu frames delivered by the RTL in %.2f s (both models); with faults: %llu wire frames, "
              "%llu corrupted, %llu dropped, %llu duplicated, %llu ACK/NAK lost, %llu replays, %llu retrains\n",
              (unsigned long long)seed, (unsigned long long)delivered, seconds,
              (unsigned long long)faulty.injected.wire_frames, (unsigned long long)faulty.injected.frames_corrupted,
              (unsigned long long)faulty.injected.frames_dropped, (unsigned long long)faulty.injected.frames_duplicated,
              (unsigned long long)faulty.injected.dllps_dropped, (unsigned long long)faulty.replays,
              (unsigned long long)faulty.retrains);
  return delivered;
}

// Small frames and small buffers: the most protocol events per frame.
TEST(LinkRtlEquivalence, SmallFramesSeed1) { EXPECT_GT(random_phases(1, 40, 800, true), 25000u); }
TEST(LinkRtlEquivalence, SmallFramesSeed2) { EXPECT_GT(random_phases(2, 40, 800, true), 25000u); }
TEST(LinkRtlEquivalence, SmallFramesSeed3) { EXPECT_GT(random_phases(3, 40, 800, true), 25000u); }
// The GC200's 256-byte frames.
TEST(LinkRtlEquivalence, FullFramesSeed4) { EXPECT_GT(random_phases(4, 30, 600, false), 15000u); }
TEST(LinkRtlEquivalence, FullFramesSeed5) { EXPECT_GT(random_phases(5, 30, 600, false), 15000u); }

// A consumer slower than the credits' round trip: the receiver's buffers fill.
TEST(LinkRtlEquivalence, SlowConsumerSeed8) {
  EXPECT_GT(random_phases(8, 12, 400, true, Stress::SlowConsumer), 4000u);
}
// A phase of 4,100 - 12,300 frames: the 12-bit sequence number wraps (in the TLM model
// and the RTL alike) while replays and NAKs are about.
TEST(LinkRtlEquivalence, LongPhasesSeed10) { EXPECT_GT(random_phases(10, 1, 8200, true), 8200u); }
// Configuration values over the inputs' ranges: large timeouts, coalescing, latency,
// replay limits and retrain times.
TEST(LinkRtlEquivalence, WideConfigsSeed11) {
  EXPECT_GT(random_phases(11, 16, 300, true, Stress::WideConfig), 4000u);
}

// The wide model (160-byte beats) the platform takes for the test chips' links.
TEST(LinkRtlEquivalence, WideModelSeed6) { EXPECT_GT(random_phases<Vlink_wide_vcd>(6, 8, 300, false), 2000u); }

// Unknown values (docs/cosim.md "Unknown values"): the model starts with random register
// contents (--x-initial unique, +verilator+rand+reset+2) from a fixed seed; the reset
// at each phase's start must make them irrelevant.
TEST(LinkRtlEquivalence, RandomInitialValues) {
  cosim::set_rtl_run_settings({.rand_reset = 2, .seed = 3518});
  EXPECT_GT(random_phases(7, 4, 200, true), 800u);
  cosim::set_rtl_run_settings({});
}

// Faults that leave nothing through: both give up with the same LinkFailure.
TEST(LinkRtlEquivalence, LinkFailureAlike) {
  Draw d{std::mt19937_64(9)};
  Phase p = random_phase(d, 50, true);
  p.config.retrain_cycles = 10;
  links::FaultInjector a = injector("burst=3:1000000,seed=3"), b = injector("burst=3:1000000,seed=3");
  Rtl rtl(kGc200Shape);
  const Seen tlm = run<links::LinkDirection>(p.config, a, p.frames, p.ready, links::Pacing::Ready);
  const Seen got = run<RtlDirection>(p.config, b, p.frames, p.ready, links::Pacing::Ready, rtl);
  EXPECT_NE(tlm.failure.find("link failed: 16 retrains"), std::string::npos) << tlm.failure;
  expect_equal(tlm, got, "burst for ever");
}

// The same over random configurations and pacings (replay limits, retrain times, timers,
// buffers), the burst starting at various frames: the failure comes at the same cycle
// with the same counters and deliveries before it.
TEST(LinkRtlEquivalence, LinkFailureAlikeRandomConfigs) {
  Draw d{std::mt19937_64(12)};
  Rtl rtl(kGc200Shape);
  for (int k = 0; k < 8; ++k) {
    const Phase p = random_phase(d, 60, k % 2 == 0);
    const std::string spec = "burst=" + std::to_string(d.below(40)) + ":1000000,seed=" + std::to_string(k);
    links::FaultInjector a = injector(spec), b = injector(spec);
    const auto pacing = d.chance(50) ? links::Pacing::Stalled : links::Pacing::Ready;
    const Seen tlm = run<links::LinkDirection>(p.config, a, p.frames, p.ready, pacing);
    const Seen got = run<RtlDirection>(p.config, b, p.frames, p.ready, pacing, rtl);
    EXPECT_NE(tlm.failure.find("link failed: 16 retrains"), std::string::npos) << spec << ": " << tlm.failure;
    expect_equal(tlm, got, "phase " + std::to_string(k) + " [" + spec + "]");
  }
}

// A configuration the verilated parameters cannot take is refused by name.
TEST(LinkRtlEquivalence, RefusesWhatTheModelCannotTake) {
  Rtl rtl(kGc200Shape);
  links::FaultInjector none;
  links::LinkLayerConfig c;
  c.replay_buffer_frames = 200;
  try {
    RtlDirection link(rtl, c, none, {}, {}, links::Pacing::Ready);
    FAIL() << "accepted replay_buffer_frames 200";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "link RTL (gc200 model): replay_buffer_frames 200 exceeds the model's REPLAY_FRAMES 128");
  }
  c = links::LinkLayerConfig{};
  c.bytes_per_cycle = 160;
  EXPECT_THROW(RtlDirection(rtl, c, none, {}, {}, links::Pacing::Ready), std::invalid_argument);
}

}  // namespace
}  // namespace ipusim::cosim::link
