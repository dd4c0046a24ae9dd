#include "cosim/link/rtl_link_carrier.h"

#include <fmt/format.h>

#include "cosim/link/rtl_link_direction.h"
#include "Vlink_gc200_fst.h"
#include "Vlink_gc200_vcd.h"
#include "Vlink_wide_fst.h"
#include "Vlink_wide_vcd.h"
#include "cosim/wave_file.h"

namespace ipusim::cosim::link {

struct RtlLinkCarrier::Direction {
  virtual ~Direction() = default;
  virtual links::PhaseResult carry(const links::LinkLayerConfig& config, links::FaultInjector& injector,
                                   std::span<const links::ScheduledFrame> frames) = 0;
};

namespace {

template <class Model, class Trace>
class ModelDirection final : public RtlLinkCarrier::Direction {
 public:
  ModelDirection(const LinkModelShape& shape, std::shared_ptr<Waves> waves, std::string instance, uint64_t period_ps)
      : rtl_(shape, std::move(waves), std::move(instance), period_ps) {}

  // As links::carry_phase(), with RtlLinkDirection for LinkDirection.
  links::PhaseResult carry(const links::LinkLayerConfig& config, links::FaultInjector& injector,
                           std::span<const links::ScheduledFrame> frames) override {
    using Link = RtlLinkDirection<Model, Trace>;
    std::vector<uint64_t> ready(frames.size());
    for (size_t i = 0; i < frames.size(); ++i) ready[i] = frames[i].ready_cycle;
    const links::InjectedCounts before = injector.counts();
    links::PhaseResult result;
    auto deliver = [&](const links::Delivery& d) {
      result.delivered.insert(result.delivered.end(), d.payload.begin(), d.payload.end());
    };
    if (!injector.active()) {
      Link link(rtl_, config, injector, frames, ready, links::Pacing::Ready, deliver);
      link.run();
      result.last_delivery_cycle = result.fault_free_last_delivery_cycle = link.last_delivery_cycle().value_or(0);
      result.stats = link.stats();
      result.stats.injected = injector.counts() - before;
      return result;
    }
    links::FaultInjector none;
    std::vector<uint64_t> schedule;
    {
      Link fault_free(rtl_, config, none, frames, ready, links::Pacing::Ready);
      fault_free.run();
      result.fault_free_last_delivery_cycle = fault_free.last_delivery_cycle().value_or(0);
      schedule.assign(fault_free.first_send_cycles().begin(), fault_free.first_send_cycles().end());
    }
    Link link(rtl_, config, injector, frames, schedule, links::Pacing::Stalled, deliver);
    link.run();
    result.last_delivery_cycle = link.last_delivery_cycle().value_or(0);
    result.cycles_lost = link.last_delivery_stall();
    result.stats = link.stats();
    result.stats.cycles_lost = result.cycles_lost;
    result.stats.injected = injector.counts() - before;
    return result;
  }

 private:
  RtlLinkModel<Model, Trace> rtl_;
};

}  // namespace

RtlLinkCarrier::RtlLinkCarrier(const links::LinkLayerConfig& layer, std::vector<std::string> instances,
                               std::shared_ptr<Waves> waves, uint64_t period_ps)
    : layer_(layer), instances_(std::move(instances)), waves_(std::move(waves)), period_ps_(period_ps) {
  // The narrow model when the wire fits it (cheaper to evaluate), else the wide one.
  try {
    fit(kGc200Shape, layer);
    wide_ = false;
  } catch (const std::invalid_argument&) {
    fit(kWideShape, layer);  // throws, naming the value and the widest model's limit
    wide_ = true;
  }
  directions_.resize(instances_.size());
  if (waves_)
    for (const std::string& name : instances_) waves_->add(name);
}

RtlLinkCarrier::~RtlLinkCarrier() = default;

std::string RtlLinkCarrier::instance_name(uint32_t direction) {
  return fmt::format("link{}.{}", direction / 2, direction % 2 == 0 ? "a_to_b" : "b_to_a");
}

links::PhaseResult RtlLinkCarrier::carry(uint32_t direction, const links::LinkLayerConfig& config,
                                         links::FaultInjector& injector, std::span<const links::ScheduledFrame> frames) {
  // Its waves' file opens with its first phase (RtlLinkModel::begin_phase): a direction
  // that never carries a frame is never called and writes none (docs/cosim.md).
  return model(direction).carry(config, injector, frames);
}

RtlLinkCarrier::Direction& RtlLinkCarrier::model(uint32_t direction) {
  std::unique_ptr<Direction>& d = directions_.at(direction);
  if (!d) {
    const std::string& name = instances_[direction];
    const bool fst = waves_ && waves_->format() == WaveFormat::Fst;
    const LinkModelShape& shape = wide_ ? kWideShape : kGc200Shape;
    if (wide_)
      d = fst ? std::unique_ptr<Direction>(new ModelDirection<Vlink_wide_fst, FstWaveFile>(shape, waves_, name, period_ps_))
              : std::unique_ptr<Direction>(new ModelDirection<Vlink_wide_vcd, VcdWaveFile>(shape, waves_, name, period_ps_));
    else
      d = fst ? std::unique_ptr<Direction>(new ModelDirection<Vlink_gc200_fst, FstWaveFile>(shape, waves_, name, period_ps_))
              : std::unique_ptr<Direction>(new ModelDirection<Vlink_gc200_vcd, VcdWaveFile>(shape, waves_, name, period_ps_));
  }
  return *d;
}

}  // namespace ipusim::cosim::link
