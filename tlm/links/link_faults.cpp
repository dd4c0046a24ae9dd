#include "links/link_faults.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace ipusim::links {

LinkFaults::LinkFaults(const FaultPlan& plan, const LinkLayerConfig& layer, uint32_t links)
    : plan_(plan), layer_(layer), stats_(2 * size_t(links)) {
  if (const std::string bad = layer.validate(); !bad.empty()) throw std::invalid_argument("link layer: " + bad);
  reset();
}

void LinkFaults::reset() {
  injectors_.clear();
  injectors_.reserve(stats_.size());
  for (uint32_t d = 0; d < stats_.size(); ++d) {
    FaultSpec s = plan_.for_link(d / 2);
    // splitmix64's increment spreads the directions' seeds apart.
    s.seed += 0x9e3779b97f4a7c15ull * (d + 1);
    injectors_.emplace_back(s);
  }
  std::fill(stats_.begin(), stats_.end(), LinkCounters{});
}

std::vector<LinkFaults::DirectionState> LinkFaults::saved() const {
  std::vector<DirectionState> out;
  for (size_t d = 0; d < stats_.size(); ++d) out.push_back({injectors_[d].state(), stats_[d]});
  return out;
}

void LinkFaults::restore(const std::vector<DirectionState>& state) {
  if (state.size() != stats_.size())
    throw std::invalid_argument(fmt::format("link faults: {} direction(s) saved, the system has {}", state.size(),
                                            stats_.size()));
  for (size_t d = 0; d < state.size(); ++d) {
    try {
      injectors_[d].restore(state[d].injector);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("link direction {}: {}", d, e.what()));
    }
    stats_[d] = state[d].stats;
  }
}

LinkLayerConfig LinkFaults::layer_config(const config::ChipConfig& chip) {
  return LinkLayerConfig::for_rates(chip.ipu_links.bytes_per_second, chip.ipu_links.latency_ns, chip.clock_hz);
}

uint64_t LinkFaults::carry_direction(uint32_t direction) {
  const PhaseResult r = carrier_ ? carrier_(direction, layer_, injectors_.at(direction), frames_)
                                 : carry_phase(layer_, injectors_.at(direction), frames_);
  size_t at = 0;
  for (const ScheduledFrame& f : frames_) {
    if (at + f.payload.size() > r.delivered.size() ||
        std::memcmp(r.delivered.data() + at, f.payload.data(), f.payload.size()) != 0)
      throw std::logic_error(fmt::format("link direction {}: the link layer delivered other bytes than it was given "
                                         "(frame at byte {})",
                                         direction, at));
    at += f.payload.size();
  }
  stats_[direction] += r.stats;
  return r.cycles_lost;
}

}  // namespace ipusim::links
