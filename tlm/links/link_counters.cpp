#include "links/link_counters.h"

namespace ipusim::links {

namespace {
// Every counter of InjectedCounts, so its sum and difference cannot miss one.
constexpr uint64_t InjectedCounts::*kInjected[] = {
    &InjectedCounts::wire_frames,        &InjectedCounts::frames_dropped,   &InjectedCounts::frames_duplicated,
    &InjectedCounts::frames_corrupted,   &InjectedCounts::corrupted_arrivals, &InjectedCounts::ber_bits_flipped,
    &InjectedCounts::ber_frames_hit,     &InjectedCounts::periodic_frames_hit, &InjectedCounts::burst_frames_hit,
    &InjectedCounts::dllps_seen,         &InjectedCounts::dllps_dropped};
}  // namespace

InjectedCounts& InjectedCounts::operator+=(const InjectedCounts& o) {
  for (auto field : kInjected) this->*field += o.*field;
  return *this;
}

InjectedCounts InjectedCounts::operator-(const InjectedCounts& o) const {
  InjectedCounts d = *this;
  for (auto field : kInjected) d.*field -= o.*field;
  return d;
}

LinkCounters& LinkCounters::operator+=(const LinkCounters& o) {
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
