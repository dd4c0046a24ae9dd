// Fault injection on the IPU-Links of a system, for the exchange (plain C++).
//
// With a fault plan, every direction of every link gets its own seeded FaultInjector from
// its link's spec (seed = the spec's seed mixed with the direction's index, so a run with
// faults is as deterministic as one without) and the frames the LinkScheduler sent over it in an
// exchange phase go through the link layer (carry_phase: CRC, NAK, go-back-N replay,
// replay timer, retrain). The exchange is scheduled ahead of time, so a link that
// recovers holds the whole phase: the phase's done cycles grow by the sum of every
// direction's cycles_lost (docs/links.md, "Faults in an exchange").
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "common/config.h"
#include "links/fault_plan.h"
#include "links/link_layer.h"
#include "links/link_timing.h"

namespace ipusim::links {

class LinkFaults {
 public:
  // Both directions of link l (directions 2l and 2l + 1) get plan.for_link(l); `links`
  // is the topology's link count.
  LinkFaults(const FaultPlan& plan, const LinkLayerConfig& layer, uint32_t links);
  static LinkLayerConfig layer_config(const config::ChipConfig& chip);

  // Carries the frames `scheduler` recorded in its last schedule() through the link
  // layer; `payload(leg)` is the message of leg `leg` (its bytes, all of them). Returns
  // the cycles the phase loses. Throws LinkFailure if a link gives up (retrains without
  // progress) and std::logic_error if the link layer delivered other bytes than it was
  // given (a model bug, never user input).
  template <class Payload>
  uint64_t carry(const LinkScheduler& scheduler, uint64_t ticks_per_cycle, Payload payload) {
    uint64_t lost = 0;
    for (uint32_t d = 0; d < scheduler.directions(); ++d) {
      const std::vector<FrameRecord>& records = scheduler.frames(d);
      if (records.empty()) continue;
      frames_.clear();
      for (const FrameRecord& r : records)
        frames_.push_back(ScheduledFrame{r.sent / ticks_per_cycle, payload(r.leg).subspan(r.offset, r.len)});
      lost += carry_direction(d);
    }
    return lost;
  }

  // What carries a direction's phase: carry_phase() (the C++ link layer) unless set; the
  // platform sets the link RTL's (tlm/cosim/link) when the config says `cosim: {link: rtl}`.
  using Carrier = std::function<PhaseResult(uint32_t direction, const LinkLayerConfig&, FaultInjector&,
                                            std::span<const ScheduledFrame>)>;
  void set_carrier(Carrier carrier) { carrier_ = std::move(carrier); }

  const LinkCounters& stats(uint32_t direction) const { return stats_.at(direction); }
  // A checkpoint's view (docs/checkpoints.md): per direction, what the next phase's
  // faults depend on and the statistics so far. Between phases nothing else persists (a
  // phase starts each direction's link layer afresh and drains it: see carry_phase).
  struct DirectionState {
    FaultInjector::State injector;
    LinkCounters stats;
  };
  std::vector<DirectionState> saved() const;
  // Throws std::invalid_argument if `state` is of another system or plan.
  void restore(const std::vector<DirectionState>& state);
  uint32_t directions() const { return uint32_t(stats_.size()); }
  const FaultPlan& plan() const { return plan_; }
  // A new run: every injector back at its seed (a run's faults do not depend on the runs
  // before it), no statistics.
  void reset();

 private:
  uint64_t carry_direction(uint32_t direction);

  FaultPlan plan_;
  LinkLayerConfig layer_;
  std::vector<FaultInjector> injectors_;
  std::vector<LinkCounters> stats_;
  std::vector<ScheduledFrame> frames_;
  Carrier carrier_;
};

}  // namespace ipusim::links
