// What one direction of one link did, and what was injected into it. The counters obey
// conservation rules that the tests check (docs/links.md, "Statistics").
#pragma once

#include <cstdint>

namespace ipusim::links {

// Counted by the fault injector, per frame transmission put on the wire.
struct InjectedCounts {
  uint64_t wire_frames = 0;          // frame transmissions seen (new and replayed)
  uint64_t frames_dropped = 0;       // transmissions lost (drop, drop_every)
  uint64_t frames_duplicated = 0;    // transmissions that arrive twice (dup, dup_every)
  uint64_t frames_corrupted = 0;     // not dropped, and some bit differs after every policy
  uint64_t corrupted_arrivals = 0;   // corrupted copies reaching the receiver (a duplicate counts twice)
  uint64_t ber_bits_flipped = 0;     // by the bit-error-rate policy (on dropped frames too)
  uint64_t ber_frames_hit = 0;
  uint64_t periodic_frames_hit = 0;
  uint64_t burst_frames_hit = 0;
  uint64_t dllps_seen = 0;           // ACKs and NAKs offered to the return path
  uint64_t dllps_dropped = 0;

  InjectedCounts& operator+=(const InjectedCounts& o);
  InjectedCounts operator-(const InjectedCounts& o) const;
  bool operator==(const InjectedCounts&) const = default;
};

struct LinkCounters {
  // Transmitter
  uint64_t frames_sent = 0;            // new frames (each payload once)
  uint64_t frames_replayed = 0;        // retransmissions
  uint64_t replays = 0;                // go-back-N events (NAK or replay timer)
  uint64_t replay_timer_expiries = 0;
  uint64_t retrains = 0;
  uint64_t retrain_cycles = 0;         // time the link spent retraining
  uint64_t acks_received = 0;
  uint64_t naks_received = 0;
  // Receiver
  uint64_t frames_delivered = 0;       // accepted in order, handed to the consumer
  uint64_t bytes_delivered = 0;        // their payload bytes
  uint64_t crc_errors = 0;             // frames failing the CRC / length check
  uint64_t seq_errors = 0;             // good frames ahead of the expected sequence number
  uint64_t duplicates_discarded = 0;   // good frames behind it (already delivered)
  uint64_t acks_sent = 0;
  uint64_t naks_sent = 0;
  // Timing: the stall of the stalled schedule when the last frame was sent
  // (docs/links.md, "cycles_lost"); summed over phases by operator+=.
  uint64_t cycles_lost = 0;
  InjectedCounts injected;

  LinkCounters& operator+=(const LinkCounters& o);
  bool operator==(const LinkCounters&) const = default;
};

}  // namespace ipusim::links
