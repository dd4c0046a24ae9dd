#include "links/transmitter.h"

#include <fmt/format.h>

#include "links/frame.h"
#include "links/link_failure.h"

namespace ipusim::links {

Transmitter::Transmitter(const LinkLayerConfig& config)
    : config_(config), timeout_(config.effective_replay_timeout()), credit_limit_(config.credit_frames) {}

void Transmitter::start_timer(uint64_t now, uint64_t frame_cycles) {
  if (!timer_deadline_) timer_deadline_ = now + frame_cycles + timeout_;
}

const TxFrame& Transmitter::send_new(std::span<const uint8_t> payload, uint64_t index, uint64_t now,
                                     uint64_t frame_cycles) {
  if (!can_send_new()) throw std::logic_error("Transmitter::send_new without room, credit or while replaying");
  buffer_.push_back(TxFrame{next_seq_, index, encode_frame(next_seq_, payload)});
  next_seq_ = seq_add(next_seq_, 1);
  ++credits_used_;
  ++stats_.frames_sent;
  start_timer(now, frame_cycles);
  return buffer_.back();
}

const TxFrame& Transmitter::send_replay(uint64_t now, uint64_t frame_cycles) {
  if (!replaying_) throw std::logic_error("Transmitter::send_replay while not replaying");
  const TxFrame& frame = buffer_[replay_cursor_++];
  if (replay_cursor_ == buffer_.size()) replaying_ = false;
  ++stats_.frames_replayed;
  start_timer(now, frame_cycles);
  return frame;
}

void Transmitter::acknowledge(uint16_t seq, uint64_t now) {
  if (buffer_.empty()) return;
  // seq is the last frame received in order: behind the oldest we keep (distance past
  // the buffer) it is a stale ACK and acknowledges nothing new.
  const uint32_t d = seq_distance(buffer_.front().seq, seq);
  if (d >= buffer_.size()) return;
  const size_t n = d + 1;
  buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(n));
  replay_cursor_ = replay_cursor_ > n ? replay_cursor_ - n : 0;
  if (buffer_.empty() || replay_cursor_ >= buffer_.size()) replaying_ = false;
  replay_count_ = 0;
  retrains_without_progress_ = 0;
  // PCIe's rule: progress restarts the timer, an empty buffer stops it.
  timer_deadline_.reset();
  if (!buffer_.empty()) timer_deadline_ = now + timeout_;
}

Recovery Transmitter::start_replay() {
  Recovery r = Recovery::Replay;
  if (replay_count_ >= config_.replay_limit) {
    r = Recovery::RetrainThenReplay;
    replay_count_ = 0;
    ++stats_.retrains;
    stats_.retrain_cycles += config_.retrain_cycles;
    if (++retrains_without_progress_ > kMaxRetrainsWithoutProgress)
      throw LinkFailure(fmt::format("link failed: {} retrains without an ACK making progress (oldest "
                                    "unacknowledged sequence number {})",
                                    retrains_without_progress_ - 1, buffer_.front().seq));
  }
  ++replay_count_;
  ++stats_.replays;
  replaying_ = true;
  replay_cursor_ = 0;
  timer_deadline_.reset();  // held while replaying; restarts with the first replayed frame
  return r;
}

Recovery Transmitter::on_dllp(const Dllp& dllp, uint64_t now) {
  switch (dllp.kind) {
    case Dllp::Kind::Credit:
      if (dllp.credit_limit > credit_limit_) credit_limit_ = dllp.credit_limit;
      return Recovery::None;
    case Dllp::Kind::Ack:
      ++stats_.acks_received;
      acknowledge(dllp.seq, now);
      return Recovery::None;
    case Dllp::Kind::Nak:
      ++stats_.naks_received;
      acknowledge(dllp.seq, now);
      // A NAK for frames all acknowledged since (a stale one) asks for nothing.
      return buffer_.empty() ? Recovery::None : start_replay();
  }
  return Recovery::None;
}

Recovery Transmitter::on_timer(uint64_t now) {
  if (!timer_deadline_ || *timer_deadline_ != now) return Recovery::None;
  timer_deadline_.reset();
  if (buffer_.empty()) return Recovery::None;
  ++stats_.replay_timer_expiries;
  return start_replay();
}

}  // namespace ipusim::links
