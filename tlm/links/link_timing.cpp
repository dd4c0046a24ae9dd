#include "links/link_timing.h"

#include <algorithm>

#include <cmath>
#include <queue>
#include <stdexcept>
#include <string>

namespace ipusim::links {

LinkTimingConfig LinkTimingConfig::from(const config::ChipConfig& chip) {
  LinkTimingConfig c;
  c.bytes_per_second = chip.ipu_links.bytes_per_second;
  c.latency_ns = chip.ipu_links.latency_ns;
  c.clock_hz = chip.clock_hz;
  return c;
}

LinkScheduler::LinkScheduler(const Topology& topology, const LinkTimingConfig& config, uint64_t ticks_per_cycle)
    : topology_(topology), frame_bytes_(config.frame_bytes) {
  if (!(config.bytes_per_second > 0) || !(config.clock_hz > 0) || config.frame_bytes == 0 || ticks_per_cycle == 0)
    throw std::invalid_argument("link timing: bandwidth, clock, frame size and ticks per cycle must be positive");
  ticks_per_byte_ = double(ticks_per_cycle) * config.clock_hz / config.bytes_per_second;
  latency_ticks_ = uint64_t(std::llround(config.latency_ns * 1e-9 * config.clock_hz)) * ticks_per_cycle;
  free_.assign(2 * topology.wires().size(), 0);
  load_.assign(free_.size(), LinkLoad{});
  frames_.assign(free_.size(), {});
}

uint64_t LinkScheduler::frame_ticks(uint32_t bytes) const {
  // The small margin keeps an exact product (a whole number of ticks) from rounding up
  // through a last-bit error.
  return uint64_t(std::ceil(double(bytes) * ticks_per_byte_ - 1e-9));
}

void LinkScheduler::restore(const Saved& s) {
  if (s.free.size() != free_.size() || s.load.size() != load_.size())
    throw std::invalid_argument("link scheduler: " + std::to_string(s.free.size()) + " direction(s) saved, the system has " +
                                std::to_string(free_.size()));
  free_ = s.free;
  load_ = s.load;
  clear_frames();
}

void LinkScheduler::reset() {
  std::fill(free_.begin(), free_.end(), 0);
  std::fill(load_.begin(), load_.end(), LinkLoad{});
  clear_frames();
}

void LinkScheduler::schedule(std::vector<LinkLeg>& legs) {
  clear_frames();
  routes_.resize(legs.size());
  // A frame waiting for a link direction: ordered by time, then leg, then frame, so the
  // order every direction serves its frames in is fixed by the input alone.
  struct Event {
    uint64_t time;
    uint32_t leg, frame, hop;
    bool operator>(const Event& o) const {
      if (time != o.time) return time > o.time;
      if (leg != o.leg) return leg > o.leg;
      return frame > o.frame;
    }
  };
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> queue;
  auto frames_of = [&](const LinkLeg& l) { return l.len == 0 ? 1u : (l.len + frame_bytes_ - 1) / frame_bytes_; };
  auto frame_len = [&](const LinkLeg& l, uint32_t f) {
    return l.len == 0 ? 0u : std::min(frame_bytes_, l.len - f * frame_bytes_);
  };
  // Frame f is ready at the source port when its last byte has come out of the tile.
  auto ready_at_source = [&](const LinkLeg& l, uint32_t f) {
    return l.ready + uint64_t(f * frame_bytes_ + frame_len(l, f)) * l.ticks_per_byte;
  };
  for (uint32_t i = 0; i < legs.size(); ++i) {
    LinkLeg& l = legs[i];
    topology_.route(l.src_ipu, l.dst_ipu, l.spread, routes_[i]);
    l.first = l.last = l.ready;
    if (routes_[i].empty()) continue;  // same IPU: nothing to cross
    queue.push(Event{ready_at_source(l, 0), i, 0, 0});
  }
  while (!queue.empty()) {
    const Event e = queue.top();
    queue.pop();
    LinkLeg& l = legs[e.leg];
    const std::vector<Hop>& route = routes_[e.leg];
    const uint32_t dir = direction(route[e.hop]);
    const uint32_t len = frame_len(l, e.frame);
    const uint64_t start = std::max(e.time, free_[dir]);
    const uint64_t busy = frame_ticks(len);
    free_[dir] = start + busy;
    load_[dir].frames += 1;
    load_[dir].bytes += len;
    load_[dir].busy_ticks += busy;
    if (keep_frames_) frames_[dir].push_back(FrameRecord{e.leg, e.frame * frame_bytes_, len, start});
    const uint64_t arrive = start + busy + latency_ticks_;
    if (e.hop + 1 < route.size()) {
      queue.push(Event{arrive, e.leg, e.frame, e.hop + 1});
    } else {
      if (e.frame == 0) l.first = arrive;
      l.last = std::max(l.last, arrive);
    }
    // The next frame of the message enters the first hop once this one did (frames of
    // one message are ready in order, so the queue holds one per message there).
    if (e.hop == 0 && e.frame + 1 < frames_of(l)) queue.push(Event{ready_at_source(l, e.frame + 1), e.leg, e.frame + 1, 0});
  }
}

}  // namespace ipusim::links
