// The transactor of one IPU-Link direction in RTL: a drop-in for links::LinkDirection
// (same inputs: config, injector, frames, not_before, pacing, deliver callback; same
// outputs: deliveries with their cycles, stats, first send cycles, LinkFailure) that
// drives the Verilated link_top (hw/link/rtl) cycle by cycle.
//
// What lives here rather than in the RTL, and why (hw/link/README.md): the wire's latency
// and the return path's (delay lines of beats and DLLPs, latency_cycles long); the
// producer (frames, their pacing and the stall of Pacing::Stalled, the payload reads);
// the consumer (the drain rate, the receive buffer's bytes); and the FaultInjector, whose
// decisions enter the RTL through its error-injection inputs (inj_flip_i, inj_drop_i,
// inj_dup_i) and, for ACKs and NAKs, by not carrying them back.
//
// The model runs only in cycles with an event: a beat on the wire, a DLLP arriving, a
// timer deadline (the RTL's timers are absolute deadlines against now_i, read back from
// its outputs), a drain, or the cycle the next frame may start. Between them no eval().
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <optional>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "cosim/link/link_rate.h"
#include "cosim/link/rtl_link_model.h"
#include "links/link_direction.h"
#include "links/link_failure.h"
#include "links/link_counters.h"

namespace ipusim::cosim::link {

namespace detail {

// Verilator's port types: CData .. QData for up to 64 bits, VlWide<N> above.
template <class Port>
inline bool port_bit(const Port& p, size_t i) {
  if constexpr (std::is_integral_v<Port>) return (p >> i) & 1u;
  else return (p[i / 32] >> (i % 32)) & 1u;
}
template <class Port>
inline void port_bytes_in(Port& p, const uint8_t* src, size_t n) {
  static_assert(!std::is_integral_v<Port>, "beat ports are wider than 64 bits");
  std::memcpy(p.data(), src, n);  // little-endian host: byte j is bits 8j+7 .. 8j
}
template <class Port>
inline void port_bytes_out(const Port& p, uint8_t* dst, size_t n) {
  std::memcpy(dst, p.data(), n);
}

}  // namespace detail

template <class Model, class Trace>
class RtlLinkDirection {
 public:
  static constexpr size_t kBeatBytes = sizeof(Model::rd_data_i);

  // `rtl` is the model instance (kept across phases: its waves run on); config must be
  // valid and fit the model (RtlLinkModel::check); frames and not_before must outlive this.
  RtlLinkDirection(RtlLinkModel<Model, Trace>& rtl, const links::LinkLayerConfig& config,
                   links::FaultInjector& injector, std::span<const links::ScheduledFrame> frames,
                   std::span<const uint64_t> not_before, links::Pacing pacing, links::DeliverFn deliver = {})
      : rtl_(rtl), m_(rtl.model()), config_(config), injector_(injector), frames_(frames),
        not_before_(not_before), pacing_(pacing), deliver_(std::move(deliver)), first_send_(frames.size(), 0),
        rx_bytes_(config.frame_bytes + 2 * kBeatBytes) {
    if (auto e = config.validate(); !e.empty()) throw std::invalid_argument("link layer config: " + e);
    if (not_before.size() != frames.size())
      throw std::invalid_argument("RtlLinkDirection: one not_before cycle per frame");
    for (size_t i = 0; i < frames.size(); ++i)
      if (frames[i].payload.size() > config.frame_bytes)
        throw std::invalid_argument(fmt::format("link frame {}: payload of {} bytes exceeds frame_bytes {}", i,
                                                frames[i].payload.size(), config.frame_bytes));
    rate_ = rtl.check(config);
    rtl_.begin_phase(config, rate_);
    schedule_next();
  }
  ~RtlLinkDirection() { rtl_.end_phase(now_); }
  RtlLinkDirection(const RtlLinkDirection&) = delete;
  RtlLinkDirection& operator=(const RtlLinkDirection&) = delete;

  void set_wire_trace(links::WireTraceFn trace) { trace_ = std::move(trace); }

  // Runs the next cycle that has an event; false when nothing is left to happen.
  bool step() {
    if (!next_) return false;
    cycle(*next_);
    schedule_next();
    return true;
  }
  // Steps until quiet; std::logic_error if that leaves a frame undelivered or
  // unacknowledged, LinkFailure if the link gives up.
  void run() {
    while (step()) {
    }
    if (!all_delivered() || m_.unacked_o != 0 || sent_new_ != frames_.size())
      throw std::logic_error(fmt::format("link RTL went quiet with {} of {} frames delivered, {} unacknowledged",
                                         delivered_, frames_.size(), uint32_t(m_.unacked_o)));
  }

  uint64_t now() const { return now_; }
  uint64_t stall() const { return stall_; }
  bool all_delivered() const { return delivered_ == frames_.size(); }
  std::optional<uint64_t> last_delivery_cycle() const { return last_delivery_cycle_; }
  uint64_t last_delivery_stall() const { return last_delivery_stall_; }
  std::span<const uint64_t> first_send_cycles() const { return first_send_; }
  links::LinkCounters stats() const { return stats_; }
  // Cycles the model was evaluated in (for the benchmark: the rest were skipped).
  uint64_t active_cycles() const { return active_cycles_; }

 private:
  struct Beat {
    uint64_t arrival;
    uint64_t stall;
    bool sof, eof;
    uint32_t nbytes;
    std::array<uint8_t, kBeatBytes> data;
  };
  struct Ack {
    uint64_t arrival;
    bool nak;
    uint16_t seq;
  };
  struct Credit {
    uint64_t arrival;
    uint32_t limit;
  };

  uint64_t paced(uint64_t index, bool replay) const {
    const uint64_t stall = pacing_ == links::Pacing::Stalled ? stall_ : 0;
    if (replay && pacing_ != links::Pacing::Stalled) return 0;
    return not_before_[index] + stall;
  }
  bool drain_ready(uint64_t now) const {
    return config_.drain_cycles_per_frame == 0 || now >= last_drain_ + config_.drain_cycles_per_frame;
  }

  // The wire bytes at offsets pos .. pos + kBeatBytes - 1 of frame `index` as the
  // producer's memory has them: payload byte k at offset 4 + k, zeros elsewhere.
  void read_payload(uint64_t index, uint32_t pos) {
    std::array<uint8_t, kBeatBytes> beat{};
    if (index < frames_.size()) {
      const auto p = frames_[index].payload;
      for (size_t j = 0; j < kBeatBytes; ++j) {
        const size_t b = pos + j;
        if (b >= links::kFrameHeaderBytes && b - links::kFrameHeaderBytes < p.size())
          beat[j] = p[b - links::kFrameHeaderBytes];
      }
    }
    detail::port_bytes_in(m_.rd_data_i, beat.data(), kBeatBytes);
  }
  void inject(uint32_t pos) {
    std::array<uint8_t, kBeatBytes> flip{};
    for (size_t j = 0; j < kBeatBytes && pos + j < mask_.size(); ++j) flip[j] = mask_[pos + j];
    detail::port_bytes_in(m_.inj_flip_i, flip.data(), kBeatBytes);
    m_.inj_drop_i = drop_;
  }

  void cycle(uint64_t now) {
    if (now >= (1ull << 31))
      throw std::runtime_error(fmt::format("link RTL: a phase of more than 2^31 cycles ({}) overflows its 32-bit "
                                           "cycle counter",
                                           now));
    now_ = now;
    ++active_cycles_;
    m_.clk_i = 0;
    m_.now_i = static_cast<uint32_t>(now);
    // The wire and the return path, as they arrive this cycle.
    const bool beat_in = !forward_.empty() && forward_.front().arrival == now;
    m_.rxw_valid_i = beat_in;
    if (beat_in) {
      const Beat& b = forward_.front();
      m_.rxw_sof_i = b.sof;
      m_.rxw_eof_i = b.eof;
      m_.rxw_nbytes_i = b.nbytes;
      detail::port_bytes_in(m_.rxw_data_i, b.data.data(), kBeatBytes);
    }
    const bool ack_in = !back_.empty() && back_.front().arrival == now;
    m_.tx_dllp_valid_i = ack_in;
    if (ack_in) {
      m_.tx_dllp_nak_i = back_.front().nak;
      m_.tx_dllp_seq_i = back_.front().seq;
    }
    const bool credit_in = !credits_.empty() && credits_.front().arrival == now;
    m_.tx_credit_valid_i = credit_in;
    if (credit_in) m_.tx_credit_limit_i = credits_.front().limit;
    m_.drain_ready_i = drain_ready(now);
    m_.src_ready_i = 0;
    m_.inj_dup_i = 0;
    const bool mid_frame = m_.sending_o;
    if (mid_frame) {
      // The frame on the wire: its registered index and offset are on the outputs.
      read_payload(m_.rd_index_o, m_.rd_pos_o);
      inject(m_.rd_pos_o);
    } else {
      m_.inj_drop_i = 0;
    }
    m_.eval();

    if (!mid_frame) {
      // The frame the transmitter would start now, after this cycle's DLLPs and timer.
      const uint64_t index = m_.src_index_o;
      const bool replay = m_.src_replay_o;
      const bool valid = replay || index < frames_.size();
      if (valid && now >= paced(index, replay)) {
        m_.src_valid_i = 1;
        m_.src_ready_i = 1;
        m_.src_len_i = static_cast<uint32_t>(frames_[index].payload.size());
        read_payload(index, 0);
        m_.eval();
        if (m_.src_start_o) start_frame(now, index, replay);
      }
    }
    const bool failed = !collect(now);
    rtl_.dump(now, false);
    m_.clk_i = 1;
    m_.eval();
    rtl_.dump(now, true);
    rtl_.check(now);
    // The link gives up after the edge of the cycle that decided it, so the RTL's state,
    // its waveform and its cover point (c_failed) have that cycle too.
    if (failed)
      throw links::LinkFailure(fmt::format("link failed: {} retrains without an ACK making progress (oldest "
                                           "unacknowledged sequence number {})",
                                           kMaxRetrainsWithoutProgress, failed_oldest_seq_));
    if (beat_in) forward_.pop_front();
    if (ack_in) back_.pop_front();
    if (credit_in) credits_.pop_front();
  }

  // A transmission starts: the injector decides its faults from its length (its
  // policies flip bit positions; what the bits were does not matter), and they go to the
  // RTL's injection inputs for the beats of this frame.
  void start_frame(uint64_t now, uint64_t index, bool replay) {
    const size_t wire_bytes = frames_[index].payload.size() + links::kFrameOverheadBytes;
    mask_.assign(wire_bytes, 0);
    const links::FrameVerdict v = injector_.on_frame(mask_);
    drop_ = v.drop;
    const uint64_t frame_stall = pacing_ == links::Pacing::Stalled ? now - not_before_[index] : 0;
    stall_ = std::max(stall_, frame_stall);
    tx_stall_ = frame_stall;
    if (replay) {
      ++stats_.frames_replayed;
    } else {
      first_send_[index] = now;
      ++sent_new_;
      ++stats_.frames_sent;
    }
    if (trace_) trace_(links::WireEvent{now, index, static_cast<uint16_t>(m_.src_seq_o), replay, v});
    m_.inj_dup_i = v.duplicate;
    inject(0);
    m_.eval();
  }

  // The outputs of the settled cycle: a beat onto the wire, a frame's end at the
  // receiver, DLLPs onto the return path, the transmitter's events. False if the link
  // failed in this cycle: then nothing after the failure is counted (as the model).
  bool collect(uint64_t now) {
    if (m_.tx_dllp_valid_i) ++(m_.tx_dllp_nak_i ? stats_.naks_received : stats_.acks_received);
    // As the model counts them when the link gives up: the retrain, not its replay.
    if (m_.ev_timer_o) ++stats_.replay_timer_expiries;
    if (m_.ev_retrain_o) {
      ++stats_.retrains;
      stats_.retrain_cycles += config_.retrain_cycles;
    }
    if (m_.failed_o) {
      failed_oldest_seq_ = uint32_t(m_.oldest_seq_o);
      return false;
    }
    if (m_.ev_replay_o) ++stats_.replays;
    if (m_.txw_valid_o) {
      Beat b{now + config_.latency_cycles + 1, tx_stall_, bool(m_.txw_sof_o), bool(m_.txw_eof_o),
             uint32_t(m_.txw_nbytes_o), {}};
      detail::port_bytes_out(m_.txw_data_o, b.data.data(), kBeatBytes);
      forward_.push_back(b);
    }
    if (m_.pl_valid_o) {
      const size_t pos = m_.pl_pos_o;
      std::array<uint8_t, kBeatBytes> data;
      detail::port_bytes_out(m_.pl_data_o, data.data(), kBeatBytes);
      for (size_t j = 0; j < kBeatBytes; ++j)
        if (detail::port_bit(m_.pl_be_o, j)) {
          const size_t at = pos + j - links::kFrameHeaderBytes;
          if (at < rx_bytes_.size()) rx_bytes_[at] = data[j];
        }
    }
    if (m_.frame_end_o) {
      if (m_.overflow_o)
        throw std::logic_error("link RTL receiver: a frame arrived with the receive buffer full (credit protocol broken)");
      switch (m_.frame_result_o) {
        case 0: deliver(now, m_.frame_len_o); break;
        case 1: ++stats_.crc_errors; break;
        case 2: ++stats_.seq_errors; break;
        default: ++stats_.duplicates_discarded; break;
      }
    }
    if (m_.rx_dllp_valid_o) {
      const bool nak = m_.rx_dllp_nak_o;
      ++(nak ? stats_.naks_sent : stats_.acks_sent);
      if (!injector_.drop_dllp())
        back_.push_back(Ack{now + config_.latency_cycles, nak, static_cast<uint16_t>(m_.rx_dllp_seq_o)});
    }
    if (m_.rx_credit_valid_o) {
      // Credit updates are never lost (as the model: a real link repeats them).
      credits_.push_back(Credit{now + config_.latency_cycles, uint32_t(m_.rx_credit_limit_o)});
      last_drain_ = now;
    }
    return true;
  }

  void deliver(uint64_t now, size_t len) {
    const uint64_t index = delivered_++;
    ++stats_.frames_delivered;
    stats_.bytes_delivered += len;
    const uint64_t stall = forward_.front().stall;  // the copy whose last beat arrived
    if (index + 1 == frames_.size()) {
      last_delivery_cycle_ = now;
      last_delivery_stall_ = stall;
    }
    if (deliver_)
      deliver_(links::Delivery{index, now, stall, std::span<const uint8_t>(rx_bytes_.data(), len)});
  }

  // The next cycle with an event, from the RTL's registered state and the queues here.
  void schedule_next() {
    std::optional<uint64_t> next;
    const uint64_t after = active_cycles_ == 0 ? 0 : now_ + 1;
    auto consider = [&](uint64_t c) {
      c = std::max(c, after);
      if (!next || c < *next) next = c;
    };
    if (m_.sending_o) consider(after);
    if (!forward_.empty()) consider(forward_.front().arrival);
    if (!back_.empty()) consider(back_.front().arrival);
    if (!credits_.empty()) consider(credits_.front().arrival);
    if (m_.timer_on_o) consider(m_.timer_at_o);
    if (m_.ack_on_o) consider(m_.ack_at_o);
    if (m_.buffered_o != 0) consider(last_drain_ + config_.drain_cycles_per_frame);
    if (!m_.sending_o && m_.want_o) {
      const uint64_t index = m_.next_index_o;
      const bool replay = m_.next_replay_o;
      if (replay || index < frames_.size()) consider(std::max<uint64_t>(m_.wire_free_o, paced(index, replay)));
    }
    next_ = next;
  }

  static constexpr uint32_t kMaxRetrainsWithoutProgress = 16;

  RtlLinkModel<Model, Trace>& rtl_;
  Model& m_;
  links::LinkLayerConfig config_;
  links::FaultInjector& injector_;
  std::span<const links::ScheduledFrame> frames_;
  std::span<const uint64_t> not_before_;
  links::Pacing pacing_;
  links::DeliverFn deliver_;
  links::WireTraceFn trace_;
  RtlRate rate_;

  std::optional<uint64_t> next_;
  uint64_t now_ = 0;
  uint64_t active_cycles_ = 0;
  uint64_t stall_ = 0;
  uint64_t tx_stall_ = 0;              // the stall of the transmission on the wire
  uint64_t sent_new_ = 0;
  uint64_t delivered_ = 0;
  // The consumer's last take. It starts the phase as if it had taken a frame at cycle 0,
  // as links::LinkDirection's does: its first take is at cycle drain_cycles_per_frame at
  // the earliest.
  uint64_t last_drain_ = 0;
  std::optional<uint64_t> last_delivery_cycle_;
  uint64_t last_delivery_stall_ = 0;
  std::vector<uint64_t> first_send_;
  std::vector<uint8_t> mask_;          // the injector's bit flips of the transmission on the wire
  bool drop_ = false;
  uint32_t failed_oldest_seq_ = 0;     // the link's failure: its oldest unacknowledged sequence number
  std::vector<uint8_t> rx_bytes_;      // the payload of the frame arriving
  std::deque<Beat> forward_;
  std::deque<Ack> back_;
  std::deque<Credit> credits_;
  links::LinkCounters stats_;
};

}  // namespace ipusim::cosim::link
