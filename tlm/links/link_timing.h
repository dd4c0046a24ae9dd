// Timing of exchange traffic over the IPU-Links (plain C++, no SystemC): the
// approximately-timed link model the exchange plan calls for every message between IPUs.
//
// A message leaves its tile's out port at the tile's rate; it is cut into frames of
// `frame_bytes` at the source IPU's link port, and every frame crosses the links of its
// route (links::Topology) one after the other. Each direction of a link is a server of
// `bytes_per_second`: it sends one frame at a time, in the order the frames become ready
// (ties: the earlier message of the phase, then the earlier frame), and a frame reaches
// the far end `latency` after its last byte went out (store and forward per frame). So
// back-to-back frames pipeline on a link, frames of many tiles contend for it, and a
// multi-hop message pays every hop's latency and every hop's queue. docs/links.md, "Link
// timing".
//
// Times are in the caller's ticks (the exchange plan's: 1 / ticks_per_cycle cycle);
// a frame's serialisation is rounded up to a whole tick (at most 1 tick in ~680 for the
// GC200's 256-byte frames at 16 GB/s).
#pragma once

#include <cstdint>
#include <vector>

#include "common/config.h"
#include "links/topology.h"

namespace ipusim::links {

struct LinkTimingConfig {
  double bytes_per_second = 16e9;   // each link, each direction (ipu_links.gbytes_per_s_each_way)
  double latency_ns = 250;          // one way (ipu_links.latency_ns)
  uint32_t frame_bytes = 256;       // payload per frame
  double clock_hz = 1e9;            // tile clock: cycles of the exchange

  static LinkTimingConfig from(const config::ChipConfig& chip);
};

// One message between IPUs, as the exchange plan hands it over.
struct LinkLeg {
  uint32_t src_ipu = 0, dst_ipu = 0;
  uint32_t spread = 0;        // picks among parallel links (the sending tile's id)
  uint32_t len = 0;           // bytes
  uint64_t ready = 0;         // ticks: its first byte reaches the source IPU's link port
  uint64_t ticks_per_byte = 1;  // ticks the source takes per byte (its out port's rate)
  // Results of schedule(), ticks:
  uint64_t first = 0;         // its first frame is complete at the destination IPU
  uint64_t last = 0;          // its last frame is complete there
};

// One frame a link direction carried in a phase, in the order it was sent.
struct FrameRecord {
  uint32_t leg = 0;            // index in the legs of the phase
  uint32_t offset = 0, len = 0;  // payload bytes of the message
  uint64_t sent = 0;           // ticks: its first byte went out
};

// Per direction of a link: what it carried since the last reset().
struct LinkLoad {
  uint64_t frames = 0, bytes = 0;
  uint64_t busy_ticks = 0;     // sending
};

class LinkScheduler {
 public:
  LinkScheduler(const Topology& topology, const LinkTimingConfig& config, uint64_t ticks_per_cycle);

  // Times every leg (fills first / last). Deterministic: a pure function of the legs and
  // their order. Records each direction's frames of this call when keep_frames() is on.
  void schedule(std::vector<LinkLeg>& legs);

  // Direction d of link l is index 2 l + d (d = 0: from the wire's ipu_a side).
  static uint32_t direction(const Hop& hop) { return 2 * hop.link + (hop.a_to_b ? 0 : 1); }
  uint32_t directions() const { return uint32_t(free_.size()); }
  void keep_frames(bool on) { keep_frames_ = on; }
  // Forgets the recorded frames: a phase without messages between IPUs never calls
  // schedule(), and must not see the previous phase's frames.
  void clear_frames() {
    for (auto& f : frames_) f.clear();
  }
  const std::vector<FrameRecord>& frames(uint32_t direction) const { return frames_.at(direction); }
  const LinkLoad& load(uint32_t direction) const { return load_.at(direction); }
  // A new run: every direction free from cycle 0 (the times are the run's cycles), no
  // totals, no frames.
  void reset();
  // A checkpoint's view (docs/checkpoints.md): when each direction is free, and its
  // totals. restore() throws std::invalid_argument for another number of directions.
  struct Saved {
    std::vector<uint64_t> free;
    std::vector<LinkLoad> load;
  };
  Saved saved() const { return {free_, load_}; }
  void restore(const Saved& s);

  const Topology& topology() const { return topology_; }
  uint64_t frame_ticks(uint32_t bytes) const;   // serialisation of a frame of `bytes`
  uint64_t latency_ticks() const { return latency_ticks_; }
  uint32_t frame_bytes() const { return frame_bytes_; }

 private:
  const Topology& topology_;
  uint32_t frame_bytes_;
  double ticks_per_byte_;        // on the link
  uint64_t latency_ticks_;
  std::vector<uint64_t> free_;   // per direction: when it can start the next frame
  std::vector<LinkLoad> load_;
  bool keep_frames_ = false;
  std::vector<std::vector<FrameRecord>> frames_;
  std::vector<std::vector<Hop>> routes_;  // per leg of the current call
};

}  // namespace ipusim::links
