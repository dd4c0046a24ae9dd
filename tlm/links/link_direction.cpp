#include "links/link_direction.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace ipusim::links {

LinkDirection::LinkDirection(const LinkLayerConfig& config, FaultInjector& injector,
                             std::span<const ScheduledFrame> frames, std::span<const uint64_t> not_before,
                             Pacing pacing, DeliverFn deliver)
    : config_(config), injector_(injector), frames_(frames), not_before_(not_before), pacing_(pacing),
      deliver_(std::move(deliver)), tx_(config), rx_(config), first_send_(frames.size(), 0) {
  if (auto e = config.validate(); !e.empty()) throw std::invalid_argument("link layer config: " + e);
  if (not_before.size() != frames.size())
    throw std::invalid_argument("LinkDirection: one not_before cycle per frame");
  for (size_t i = 0; i < frames.size(); ++i)
    if (frames[i].payload.size() > config.frame_bytes)
      throw std::invalid_argument(fmt::format("link frame {}: payload of {} bytes exceeds frame_bytes {}", i,
                                              frames[i].payload.size(), config.frame_bytes));
}

std::optional<uint64_t> LinkDirection::transmit_cycle() const {
  const uint64_t stall = pacing_ == Pacing::Stalled ? stall_ : 0;
  if (tx_.replaying()) {
    const uint64_t paced = pacing_ == Pacing::Stalled ? not_before_[tx_.next_replay().index] + stall : 0;
    return std::max({now_, wire_free_, paced});
  }
  if (next_new_ < frames_.size() && tx_.can_send_new())
    return std::max({now_, wire_free_, not_before_[next_new_] + stall});
  return std::nullopt;  // waits for an ACK or a credit
}

std::optional<uint64_t> LinkDirection::next_event() const {
  std::optional<uint64_t> next;
  auto consider = [&](std::optional<uint64_t> c) {
    if (c && (!next || *c < *next)) next = c;
  };
  if (!forward_.empty()) consider(forward_.front().arrival);
  if (!back_.empty()) consider(back_.front().arrival);
  if (!drains_.empty()) consider(drains_.front());
  consider(rx_.ack_deadline());
  consider(tx_.timer_deadline());
  consider(transmit_cycle());
  return next;
}

void LinkDirection::send_dllp(const Dllp& dllp) {
  // Credit updates are cumulative and never lost here: a real link repeats them on a
  // timer, which this model does not need to spend events on.
  if (dllp.kind != Dllp::Kind::Credit && injector_.drop_dllp()) return;
  back_.push_back({now_ + config_.latency_cycles, dllp});
}

void LinkDirection::recover(Recovery r) {
  // Retraining takes the wire once the frame on it is out; the replay follows.
  if (r == Recovery::RetrainThenReplay) wire_free_ = std::max(now_, wire_free_) + config_.retrain_cycles;
}

void LinkDirection::receive(InFlightFrame& frame) {
  const RxResult r = rx_.on_frame(frame.wire, now_);
  if (r.reply) send_dllp(*r.reply);
  if (r.kind != RxResult::Kind::Accepted) return;
  const uint64_t index = delivered_++;
  if (index + 1 == frames_.size()) {
    last_delivery_cycle_ = now_;
    last_delivery_stall_ = frame.stall;
  }
  if (deliver_) deliver_(Delivery{index, now_, frame.stall, r.payload});
  last_drain_ = config_.drain_cycles_per_frame == 0 ? now_
                : std::max(now_, last_drain_ + config_.drain_cycles_per_frame);
  drains_.push_back(last_drain_);
}

void LinkDirection::transmit(uint64_t t) {
  const bool replay = tx_.replaying();
  const size_t index = replay ? tx_.next_replay().index : next_new_;
  const uint64_t cycles = config_.frame_cycles(frames_[index].payload.size());
  const TxFrame& f = replay ? tx_.send_replay(t, cycles) : tx_.send_new(frames_[index].payload, index, t, cycles);
  if (!replay) first_send_[next_new_++] = t;
  const uint64_t frame_stall = pacing_ == Pacing::Stalled ? t - not_before_[index] : 0;
  stall_ = std::max(stall_, frame_stall);

  std::vector<uint8_t> wire = f.wire;
  const FrameVerdict v = injector_.on_frame(wire);
  if (trace_) trace_(WireEvent{t, index, f.seq, replay, v});
  wire_free_ = t + cycles;
  if (v.drop) return;
  if (v.duplicate) {
    // The copy follows the original and takes the wire as long.
    forward_.push_back({wire_free_ + config_.latency_cycles, frame_stall, wire});
    wire_free_ += cycles;
  }
  forward_.push_back({wire_free_ + config_.latency_cycles, frame_stall, std::move(wire)});
}

bool LinkDirection::step() {
  const auto next = next_event();
  if (!next) return false;
  now_ = *next;
  // Order within a cycle: the receiver sees arrivals, then the transmitter sees DLLPs and
  // its timer, then it decides what to send. DLLPs sent this cycle arrive latency later.
  while (!forward_.empty() && forward_.front().arrival == now_) {
    receive(forward_.front());
    forward_.pop_front();
  }
  if (rx_.ack_deadline() == now_) send_dllp(rx_.on_ack_timer(now_));
  while (!drains_.empty() && drains_.front() == now_) {
    send_dllp(rx_.on_drain());
    drains_.pop_front();
  }
  while (!back_.empty() && back_.front().arrival == now_) {
    recover(tx_.on_dllp(back_.front().dllp, now_));
    back_.pop_front();
  }
  if (tx_.timer_deadline() == now_) recover(tx_.on_timer(now_));
  if (const auto t = transmit_cycle(); t && *t == now_) transmit(now_);
  return true;
}

void LinkDirection::run() {
  while (step()) {
  }
  if (!all_delivered() || tx_.unacked() != 0 || next_new_ != frames_.size())
    throw std::logic_error(fmt::format("link went quiet with {} of {} frames delivered, {} unacknowledged",
                                       delivered_, frames_.size(), tx_.unacked()));
}

LinkCounters LinkDirection::stats() const {
  LinkCounters s = tx_.stats();
  s += rx_.stats();
  return s;
}

}  // namespace ipusim::links
