#include "links/link_stats.h"

namespace ipusim::links {

InjectedCounts& InjectedCounts::operator+=(const InjectedCounts& o) {
  wire_frames += o.wire_frames;
  frames_dropped += o.frames_dropped;
  frames_duplicated += o.frames_duplicated;
  frames_corrupted += o.frames_corrupted;
  corrupted_arrivals += o.corrupted_arrivals;
  ber_bits_flipped += o.ber_bits_flipped;
  ber_frames_hit += o.ber_frames_hit;
  periodic_frames_hit += o.periodic_frames_hit;
  burst_frames_hit += o.burst_frames_hit;
  dllps_seen += o.dllps_seen;
  dllps_dropped += o.dllps_dropped;
  return *this;
}

InjectedCounts InjectedCounts::operator-(const InjectedCounts& o) const {
  InjectedCounts d;
  d.wire_frames = wire_frames - o.wire_frames;
  d.frames_dropped = frames_dropped - o.frames_dropped;
  d.frames_duplicated = frames_duplicated - o.frames_duplicated;
  d.frames_corrupted = frames_corrupted - o.frames_corrupted;
  d.corrupted_arrivals = corrupted_arrivals - o.corrupted_arrivals;
  d.ber_bits_flipped = ber_bits_flipped - o.ber_bits_flipped;
  d.ber_frames_hit = ber_frames_hit - o.ber_frames_hit;
  d.periodic_frames_hit = periodic_frames_hit - o.periodic_frames_hit;
  d.burst_frames_hit = burst_frames_hit - o.burst_frames_hit;
  d.dllps_seen = dllps_seen - o.dllps_seen;
  d.dllps_dropped = dllps_dropped - o.dllps_dropped;
  return d;
}

LinkStats& LinkStats::operator+=(const LinkStats& o) {
  frames_sent += o.frames_sent;
  frames_replayed += o.frames_replayed;
  replays += o.replays;
  replay_timer_expiries += o.replay_timer_expiries;
  retrains += o.retrains;
  retrain_cycles += o.retrain_cycles;
  acks_received += o.acks_received;
  naks_received += o.naks_received;
  frames_delivered += o.frames_delivered;
  bytes_delivered += o.bytes_delivered;
  crc_errors += o.crc_errors;
  seq_errors += o.seq_errors;
  duplicates_discarded += o.duplicates_discarded;
  acks_sent += o.acks_sent;
  naks_sent += o.naks_sent;
  cycles_lost += o.cycles_lost;
  injected += o.injected;
  return *this;
}

}  // namespace ipusim::links
