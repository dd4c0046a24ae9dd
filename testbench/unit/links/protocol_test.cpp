// The protocol's paths, each with exact counts and cycles. Default config unless said:
// 256-byte frames take 17 cycles (264 bytes at 16 per cycle), latency 256.
#include <gtest/gtest.h>

#include <algorithm>

#include "link_test_util.h"
#include "links/link_layer.h"

namespace ipusim::links {
namespace {

using test::concatenated;
using test::injector_for;
using test::make_phase;

constexpr uint64_t kT = 17, kL = 256;

TEST(LinkProtocol, AcksAreCumulativeAndCoalesced) {
  LinkLayerConfig c;
  auto p = make_phase(64, 256, kT);
  FaultInjector none;
  auto r = carry_phase(c, none, p.frames);
  EXPECT_EQ(r.delivered, concatenated(p));
  EXPECT_EQ(r.stats.acks_sent, 8u);  // one per 8 frames
  EXPECT_EQ(r.stats.acks_received, 8u);
  // 20 frames: two ACKs by count, the last 4 by the ACK timer.
  auto q = make_phase(20, 256, kT);
  auto r2 = carry_phase(c, none, q.frames);
  EXPECT_EQ(r2.stats.acks_sent, 3u);
  // Coalescing 1: an ACK per frame.
  c.ack_coalesce_frames = 1;
  EXPECT_EQ(carry_phase(c, none, q.frames).stats.acks_sent, 20u);
}

TEST(LinkProtocol, AckTimerAcknowledgesAnIdleTail) {
  LinkLayerConfig c;
  auto p = make_phase(3, 256, kT);
  FaultInjector none;
  const std::vector<uint64_t> ready = {0, kT, 2 * kT};
  LinkDirection link(c, none, p.frames, ready, Pacing::Ready);
  uint64_t ack_cycle = 0;
  while (link.step())
    if (link.rx().stats().acks_sent == 1 && ack_cycle == 0) ack_cycle = link.now();
  // The first frame arrived at 17 + 256; the ACK timer runs 256 from there.
  EXPECT_EQ(ack_cycle, kT + kL + c.ack_timeout_cycles);
  EXPECT_EQ(link.stats().acks_sent, 1u);
  EXPECT_EQ(link.tx().unacked(), 0u);
}

TEST(LinkProtocol, NakReplaysGoBackNFromTheCorruptedFrame) {
  LinkLayerConfig c;
  auto p = make_phase(100, 256, kT);  // back to back
  auto inj = injector_for("burst=10:1");
  std::vector<WireEvent> wire;
  std::vector<uint64_t> ready;
  for (auto& f : p.frames) ready.push_back(f.ready_cycle);
  LinkDirection link(c, inj, p.frames, ready, Pacing::Stalled);
  link.set_wire_trace([&](const WireEvent& e) { wire.push_back(e); });
  link.run();
  // Frame 10 goes at 170, arrives at 443, the NAK reaches the transmitter at 699 while
  // frame 41 (697-714) is on the wire; the replay starts at 714 with frame 10.
  std::vector<uint64_t> replayed;
  for (const auto& e : wire)
    if (e.replay) replayed.push_back(e.index);
  std::vector<uint64_t> expected;
  for (uint64_t i = 10; i <= 41; ++i) expected.push_back(i);
  EXPECT_EQ(replayed, expected);
  const auto first_replay = std::find_if(wire.begin(), wire.end(), [](auto& e) { return e.replay; });
  EXPECT_EQ(first_replay->cycle, 714u);
  EXPECT_EQ(first_replay->seq, 10);
  const auto s = link.stats();
  EXPECT_EQ(s.crc_errors, 1u);
  EXPECT_EQ(s.naks_sent, 1u);
  EXPECT_EQ(s.naks_received, 1u);
  EXPECT_EQ(s.seq_errors, 31u);  // frames 11..41 arrived ahead of 10, one NAK for all
  EXPECT_EQ(s.replays, 1u);
  EXPECT_EQ(s.frames_replayed, 32u);
  EXPECT_EQ(s.frames_delivered, 100u);
  EXPECT_EQ(s.replay_timer_expiries, 0u);
  EXPECT_EQ(link.last_delivery_stall(), 714u - 170u);
  EXPECT_EQ(*link.last_delivery_cycle(), 99 * kT + kT + kL + (714 - 170));
}

TEST(LinkProtocol, ReplayTimerRecoversADroppedLastFrame) {
  LinkLayerConfig c;
  auto p = make_phase(10, 256, kT);
  auto inj = injector_for("drop_every=10");  // the 10th transmission: the last frame
  auto r = carry_phase(c, inj, p.frames);
  EXPECT_EQ(r.delivered, concatenated(p));
  EXPECT_EQ(r.stats.injected.frames_dropped, 1u);
  EXPECT_EQ(r.stats.replay_timer_expiries, 1u);
  EXPECT_EQ(r.stats.replays, 1u);
  EXPECT_EQ(r.stats.frames_replayed, 1u);  // frames 0-8 were acknowledged by then
  EXPECT_EQ(r.stats.naks_sent, 0u);
  // Frame 8 arrives at 8*17 + 17 + 256 = 409; the receiver's ACK timer acknowledges it at
  // 409 + 256, the ACK arrives 256 later and restarts the replay timer (progress), which
  // expires a timeout after that: frame 9 goes again then.
  const uint64_t ack8 = 8 * kT + kT + kL + c.ack_timeout_cycles + kL;
  const uint64_t resend = ack8 + c.effective_replay_timeout();
  EXPECT_EQ(r.last_delivery_cycle, resend + kT + kL);
  EXPECT_EQ(r.cycles_lost, resend - 9 * kT);
}

TEST(LinkProtocol, LostAcksAreRecoveredByTheTimerAndDuplicatesReAcked) {
  LinkLayerConfig c;
  auto p = make_phase(16, 256, kT);
  // The ACK for frames 0-7 gets through, the one for 8-15 is lost: the timer replays
  // 8-15, the receiver discards them as duplicates and ACKs each (every other one lost).
  auto inj = injector_for("ack_drop_every=2");
  auto r = carry_phase(c, inj, p.frames);
  EXPECT_EQ(r.delivered, concatenated(p));
  EXPECT_EQ(r.stats.replay_timer_expiries, 1u);
  EXPECT_EQ(r.stats.frames_replayed, 8u);
  EXPECT_EQ(r.stats.duplicates_discarded, 8u);
  EXPECT_EQ(r.stats.acks_sent, 2u + 8u);
  EXPECT_EQ(r.stats.injected.dllps_dropped, 5u);
  EXPECT_EQ(r.stats.acks_received, r.stats.acks_sent - r.stats.injected.dllps_dropped);
}

TEST(LinkProtocol, ReplayLimitRetrainsAndTheRetrainIsTimed) {
  auto run = [](uint32_t retrain) {
    LinkLayerConfig c;
    c.retrain_cycles = retrain;
    auto p = make_phase(1, 256, kT);
    // The first five transmissions are corrupted: a NAK, then four timer replays with the
    // NAK still outstanding; the fifth replay has to retrain first.
    auto inj = injector_for("burst=0:5");
    return carry_phase(c, inj, p.frames);
  };
  const auto a = run(4096), b = run(5096);
  EXPECT_EQ(a.stats.retrains, 1u);
  EXPECT_EQ(a.stats.retrain_cycles, 4096u);
  EXPECT_EQ(a.stats.replays, 5u);
  EXPECT_EQ(a.stats.naks_sent, 1u);
  EXPECT_EQ(a.stats.replay_timer_expiries, 4u);
  EXPECT_EQ(a.stats.crc_errors, 5u);
  EXPECT_EQ(a.stats.frames_delivered, 1u);
  EXPECT_EQ(b.last_delivery_cycle - a.last_delivery_cycle, 1000u);
  EXPECT_EQ(b.cycles_lost - a.cycles_lost, 1000u);
  // Exact: NAK back at 17 + 512 = 529; replays at 529, then each timer (from the
  // replay's end) later; the fifth waits for the retrain.
  const uint64_t t = LinkLayerConfig{}.effective_replay_timeout();
  const uint64_t r4 = 529 + 3 * (kT + t);          // fourth replay starts
  const uint64_t r5 = r4 + kT + t + 4096;          // fifth replay, after the retrain
  EXPECT_EQ(a.last_delivery_cycle, r5 + kT + kL);
}

TEST(LinkProtocol, ALinkThatNeverGetsThroughFails) {
  LinkLayerConfig c;
  c.retrain_cycles = 10;
  auto p = make_phase(1, 16, kT);
  auto inj = injector_for("burst=0:1000000");
  EXPECT_THROW(carry_phase(c, inj, p.frames), LinkFailure);
}

TEST(LinkProtocol, SequenceNumbersWrapThroughRecovery) {
  LinkLayerConfig c;
  auto p = make_phase(10000, 16, 2);
  // Corrupt transmissions around the wrap (4095 -> 0) and drop one after it.
  auto inj = injector_for("burst=4090:3:4096,drop_every=4101");
  auto r = carry_phase(c, inj, p.frames);
  EXPECT_EQ(r.delivered, concatenated(p));
  EXPECT_GT(r.stats.replays, 0u);
  EXPECT_EQ(r.stats.frames_delivered, 10000u);
}

TEST(LinkProtocol, InjectedDuplicatesAreDiscarded) {
  LinkLayerConfig c;
  auto p = make_phase(50, 64, 5);
  auto inj = injector_for("dup_every=5");
  auto r = carry_phase(c, inj, p.frames);
  EXPECT_EQ(r.delivered, concatenated(p));
  EXPECT_EQ(r.stats.injected.frames_duplicated, 10u);
  EXPECT_EQ(r.stats.duplicates_discarded, 10u);
  EXPECT_EQ(r.stats.replays, 0u);
}

}  // namespace
}  // namespace ipusim::links
