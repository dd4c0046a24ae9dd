// Where the host time of a run goes, by component (docs/platform.md "Where the host time
// goes"): each model keeps the host ticks of its own work (common/host_clock.h: a few
// readings per superstep), and this turns them into seconds. Host figures only.
#include <algorithm>

#include "platform/platform.h"

namespace ipusim::platform {

std::vector<HostComponent> Platform::host_components(double host_seconds) const {
  exchange::ExchangeHostTicks ticks = exchange_group_->host_ticks();
  uint64_t sync = 0;
  for (const auto& ipu : ipus_) {
    ticks += ipu->exchange_fabric().host_ticks();
    sync += ipu->sync_controller().release_ticks();
  }
  auto seconds = [&](uint64_t n) { return host_clock_.seconds(n); };
  auto at_least_0 = [](double s) { return std::max(s, 0.0); };
  const double iss = engine_->iss_seconds(), batches = engine_->batch_seconds();
  const double plan = seconds(ticks.plan), plan_links = seconds(ticks.plan_links);
  const double links = plan_links + seconds(ticks.link_carry);
  const double delivery = seconds(ticks.delivery);
  const double plan_serial = at_least_0(plan - plan_links - seconds(ticks.plan_parallel));
  const double delivery_serial = at_least_0(delivery - seconds(ticks.delivery_parallel));
  std::vector<HostComponent> out{
      {"iss", iss, 0},
      {"stops", at_least_0(batches - iss), 0},
      {"exchange_plan", at_least_0(plan - plan_links), plan_serial},
      {"links", links, links},
      {"exchange_delivery", delivery, delivery_serial},
      {"sync", seconds(sync), seconds(sync)},
      {"console", seconds(console_ticks_), seconds(console_ticks_)},
      {"run_control", seconds(run_control_ticks_), seconds(run_control_ticks_)},
  };
  double counted = 0;
  for (const HostComponent& c : out) counted += c.seconds;
  const double other = at_least_0(host_seconds - counted);
  out.push_back({"other", other, other});
  return out;
}

}  // namespace ipusim::platform
