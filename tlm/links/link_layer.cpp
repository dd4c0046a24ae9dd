#include "links/link_layer.h"

namespace ipusim::links {

PhaseResult carry_phase(const LinkLayerConfig& config, FaultInjector& injector,
                        std::span<const ScheduledFrame> frames, const DeliverFn& deliver) {
  std::vector<uint64_t> ready(frames.size());
  for (size_t i = 0; i < frames.size(); ++i) ready[i] = frames[i].ready_cycle;
  const InjectedCounts before = injector.counts();
  PhaseResult result;

  if (!injector.active()) {
    // Nothing to inject: the fault-free run is the result.
    LinkDirection link(config, injector, frames, ready, Pacing::Ready, deliver);
    link.run();
    result.last_delivery_cycle = result.fault_free_last_delivery_cycle = link.last_delivery_cycle().value_or(0);
    result.stats = link.stats();
    result.stats.injected = injector.counts() - before;
    return result;
  }

  // The fault-free run fixes the schedule (each frame's send cycle) that the stalled run
  // keeps to; its injector injects nothing and leaves `injector`'s state alone.
  FaultInjector none;
  LinkDirection fault_free(config, none, frames, ready, Pacing::Ready);
  fault_free.run();
  result.fault_free_last_delivery_cycle = fault_free.last_delivery_cycle().value_or(0);

  LinkDirection link(config, injector, frames, fault_free.first_send_cycles(), Pacing::Stalled, deliver);
  link.run();
  result.last_delivery_cycle = link.last_delivery_cycle().value_or(0);
  // The stall the last frame's accepted copy was sent with: the schedule had been pushed
  // back by exactly this much when it went, so it arrives exactly this much late.
  result.cycles_lost = link.last_delivery_stall();
  result.stats = link.stats();
  result.stats.cycles_lost = result.cycles_lost;
  result.stats.injected = injector.counts() - before;
  return result;
}

PhaseResult carry_phase(const LinkLayerConfig& config, FaultInjector& injector,
                        std::span<const ScheduledFrame> frames) {
  std::vector<uint8_t> out;
  PhaseResult r = carry_phase(config, injector, frames, [&](const Delivery& d) {
    out.insert(out.end(), d.payload.begin(), d.payload.end());
  });
  r.delivered = std::move(out);
  return r;
}

}  // namespace ipusim::links
