#include "links/receiver.h"

#include <stdexcept>

#include "links/frame.h"

namespace ipusim::links {

Receiver::Receiver(const LinkLayerConfig& config) : config_(config) {}

Dllp Receiver::ack() {
  unacked_ = 0;
  ack_deadline_.reset();
  ++stats_.acks_sent;
  return Dllp{Dllp::Kind::Ack, seq_add(expected_, kSeqModulo - 1), 0};
}

RxResult Receiver::on_frame(std::span<const uint8_t> wire, uint64_t now) {
  RxResult r;
  const DecodedFrame f = decode_frame(wire);
  auto nak = [&] {
    if (nak_scheduled_) return;
    nak_scheduled_ = true;
    // A NAK acknowledges what came before it, so pending ACKs go with it.
    unacked_ = 0;
    ack_deadline_.reset();
    ++stats_.naks_sent;
    r.reply = Dllp{Dllp::Kind::Nak, seq_add(expected_, kSeqModulo - 1), 0};
  };
  if (!f.ok) {
    ++stats_.crc_errors;
    r.kind = RxResult::Kind::CrcError;
    nak();
    return r;
  }
  r.seq = f.seq;
  const uint32_t d = seq_distance(expected_, f.seq);
  if (d == 0) {
    if (buffered_ >= config_.credit_frames)
      throw std::logic_error("link receiver: a frame arrived with the receive buffer full (credit protocol broken)");
    r.kind = RxResult::Kind::Accepted;
    r.payload = f.payload;
    expected_ = seq_add(expected_, 1);
    nak_scheduled_ = false;
    ++buffered_;
    ++stats_.frames_delivered;
    stats_.bytes_delivered += f.payload.size();
    if (++unacked_ >= config_.ack_coalesce_frames) {
      r.reply = ack();
    } else if (!ack_deadline_) {
      ack_deadline_ = now + config_.ack_timeout_cycles;
    }
  } else if (d < kSeqModulo / 2) {
    ++stats_.seq_errors;
    r.kind = RxResult::Kind::SeqAhead;
    nak();
  } else {
    // Already delivered: its ACK was lost or is on its way; say again how far we are.
    ++stats_.duplicates_discarded;
    r.kind = RxResult::Kind::Duplicate;
    r.reply = ack();
  }
  return r;
}

Dllp Receiver::on_ack_timer(uint64_t /*now*/) { return ack(); }

Dllp Receiver::on_drain() {
  if (buffered_ == 0) throw std::logic_error("link receiver: drain with nothing buffered");
  --buffered_;
  ++drained_;
  return Dllp{Dllp::Kind::Credit, 0, config_.credit_frames + drained_};
}

}  // namespace ipusim::links
