// A million frames through every kind of fault at once: each payload is delivered once,
// in order, and the link's counters account for every injected fault.
#include <gtest/gtest.h>

#include <chrono>

#include "link_test_util.h"
#include "links/link_layer.h"

namespace ipusim::links {
namespace {

TEST(LinkStress, AMillionFramesThroughEveryFault) {
  constexpr uint64_t kPhases = 100, kPerPhase = 10000, kBytes = 16;
  LinkLayerConfig c;
  c.bytes_per_cycle = 16e9 / 1.325e9;  // the exchange's figure: a 24-byte frame takes 2 cycles
  auto inj = test::injector_for(
      "ber=2e-5,periodic=10007,burst=5000:1000:100003,drop=5e-4,drop_every=50021,dup=5e-4,"
      "dup_every=40009,ack_drop=2e-3,ack_drop_every=7919,seed=2024");
  LinkCounters total;
  uint64_t next_id = 0, lost = 0;
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t phase = 0; phase < kPhases; ++phase) {
    // Bursts of back-to-back frames with idle gaps between them.
    auto p = test::make_phase(kPerPhase, kBytes, 0, phase * kPerPhase);
    for (uint64_t i = 0; i < kPerPhase; ++i) p.frames[i].ready_cycle = 2 * i + (i / 64) * 100;
    uint64_t mismatches = 0;
    const auto r = carry_phase(c, inj, p.frames, [&](const Delivery& d) {
      mismatches += d.index + phase * kPerPhase != next_id ||
                    !std::equal(d.payload.begin(), d.payload.end(), p.payloads[d.index].begin(),
                                p.payloads[d.index].end()) ||
                    test::frame_id(d.payload) != next_id;
      ++next_id;
    });
    ASSERT_EQ(mismatches, 0u) << "phase " << phase;
    ASSERT_EQ(next_id, (phase + 1) * kPerPhase);
    EXPECT_EQ(r.last_delivery_cycle, r.fault_free_last_delivery_cycle + r.cycles_lost);
    lost += r.cycles_lost;
    total += r.stats;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const uint64_t n = kPhases * kPerPhase;
  const auto& in = total.injected;
  RecordProperty("seconds", std::to_string(seconds));
  std::printf("1e6 frames: %.2f s, %llu wire frames, %llu replays, %llu retrains, %llu cycles lost\n", seconds,
              static_cast<unsigned long long>(in.wire_frames), static_cast<unsigned long long>(total.replays),
              static_cast<unsigned long long>(total.retrains), static_cast<unsigned long long>(lost));

  // Every payload once, in order.
  EXPECT_EQ(total.frames_sent, n);
  EXPECT_EQ(total.frames_delivered, n);
  EXPECT_EQ(total.bytes_delivered, n * kBytes);
  // Every kind of fault happened.
  EXPECT_GT(in.ber_frames_hit, 100u);
  EXPECT_GT(in.frames_dropped, 100u);
  EXPECT_GT(in.frames_duplicated, 100u);
  EXPECT_GT(in.dllps_dropped, 100u);
  EXPECT_GT(total.retrains, 0u);
  // The deterministic policies hit exactly their transmissions.
  EXPECT_EQ(in.periodic_frames_hit, in.wire_frames / 10007);
  uint64_t burst = 0;
  for (uint64_t start_at = 5000; start_at < in.wire_frames; start_at += 100003)
    burst += std::min<uint64_t>(1000, in.wire_frames - start_at);
  EXPECT_EQ(in.burst_frames_hit, burst);
  // Transmissions: every new frame once, plus the replays; each one the injector saw.
  EXPECT_EQ(in.wire_frames, total.frames_sent + total.frames_replayed);
  // The receiver found every corrupted copy that reached it, and classified every arrival.
  EXPECT_EQ(total.crc_errors, in.corrupted_arrivals);
  const uint64_t arrivals = in.wire_frames - in.frames_dropped + in.frames_duplicated;
  EXPECT_EQ(arrivals, total.crc_errors + total.seq_errors + total.duplicates_discarded + total.frames_delivered);
  // Every ACK / NAK sent was offered to the return path, and arrived unless dropped.
  EXPECT_EQ(in.dllps_seen, total.acks_sent + total.naks_sent);
  EXPECT_EQ(total.acks_received + total.naks_received, in.dllps_seen - in.dllps_dropped);
  // Every replay came from a NAK or the timer; every retrain cost its time.
  EXPECT_LE(total.replays, total.naks_received + total.replay_timer_expiries);
  EXPECT_GE(total.replays, total.replay_timer_expiries);
  EXPECT_EQ(total.retrain_cycles, total.retrains * c.retrain_cycles);
  EXPECT_EQ(total.cycles_lost, lost);
  EXPECT_LT(seconds, 20.0);
}

}  // namespace
}  // namespace ipusim::links
