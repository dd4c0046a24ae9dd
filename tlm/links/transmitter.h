// The transmitting half of the data link layer, without time of its own: the caller
// (LinkDirection, or an RTL equivalence test) says when frames go and DLLPs arrive.
// Keeps a replay buffer of unacknowledged frames, replays go-back-N from the oldest on a
// NAK or when the replay timer expires, retrains after replay_limit replays without
// progress, and spends one credit per new frame (replays spend none: their credit was
// spent when they were first sent and their receive buffer slot is still reserved).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "links/dllp.h"
#include "links/link_config.h"
#include "links/link_counters.h"

namespace ipusim::links {

struct TxFrame {
  uint16_t seq = 0;
  uint64_t index = 0;              // the frame's place in the phase (the caller's tag)
  std::vector<uint8_t> wire;       // the encoded frame, as first sent
};

// What a NAK or an expired timer asks of the link.
enum class Recovery { None, Replay, RetrainThenReplay };

class Transmitter {
 public:
  explicit Transmitter(const LinkLayerConfig& config);

  // A new frame may go: not replaying, room in the replay buffer and a credit.
  bool can_send_new() const { return !replaying_ && has_room() && has_credit(); }
  bool has_room() const { return buffer_.size() < config_.replay_buffer_frames; }
  bool has_credit() const { return credits_used_ < credit_limit_; }
  bool replaying() const { return replaying_; }
  const TxFrame& next_replay() const { return buffer_[replay_cursor_]; }

  // Start transmitting at `now` a frame taking `frame_cycles`; the frame is returned to
  // be put on the wire. The replay timer starts (if it is not running) at its end.
  const TxFrame& send_new(std::span<const uint8_t> payload, uint64_t index, uint64_t now,
                          uint64_t frame_cycles);
  const TxFrame& send_replay(uint64_t now, uint64_t frame_cycles);

  Recovery on_dllp(const Dllp& dllp, uint64_t now);
  std::optional<uint64_t> timer_deadline() const { return timer_deadline_; }
  Recovery on_timer(uint64_t now);

  size_t unacked() const { return buffer_.size(); }
  uint16_t next_seq() const { return next_seq_; }
  uint64_t credits_available() const { return credit_limit_ - credits_used_; }
  uint32_t replay_count() const { return replay_count_; }
  const LinkCounters& stats() const { return stats_; }

  // A link retraining this often without an ACK making progress is broken (the fault
  // spec hits every transmission): LinkFailure rather than running for ever.
  static constexpr uint32_t kMaxRetrainsWithoutProgress = 16;

 private:
  void acknowledge(uint16_t seq, uint64_t now);
  Recovery start_replay();
  void start_timer(uint64_t now, uint64_t frame_cycles);

  LinkLayerConfig config_;
  uint64_t timeout_;
  std::deque<TxFrame> buffer_;     // unacknowledged, oldest first
  size_t replay_cursor_ = 0;       // next buffer_ entry to replay
  bool replaying_ = false;
  uint16_t next_seq_ = 0;
  uint64_t credit_limit_;
  uint64_t credits_used_ = 0;
  uint32_t replay_count_ = 0;      // replays since the last progress
  uint32_t retrains_without_progress_ = 0;
  std::optional<uint64_t> timer_deadline_;
  LinkCounters stats_;
};

}  // namespace ipusim::links
