#include "exchange/exchange_group.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "exchange/exchange_fabric.h"

namespace ipusim::exchange {

ExchangeGroup::ExchangeGroup(const links::Topology& topology, const links::LinkTimingConfig& links,
                             ExchangeTiming timing)
    : timing_(timing) {
  const uint64_t ticks_per_cycle = 2 * uint64_t(timing.out_bytes_per_cycle) * timing.in_bytes_per_cycle;
  scheduler_ = std::make_unique<links::LinkScheduler>(topology, links, ticks_per_cycle);
  timing_.links = scheduler_.get();
}

ExchangeGroup::~ExchangeGroup() = default;

void ExchangeGroup::join(ExchangeFabric& fabric) {
  if (std::find(members_.begin(), members_.end(), &fabric) == members_.end()) members_.push_back(&fabric);
}

void ExchangeGroup::reset() {
  members_.clear();
  parts_.clear();
  ++generation_;
  planned_.notify(sc_core::SC_ZERO_TIME);
  plan_seconds_ = 0;
  phases_ = 0;
  scheduler_->clear_totals();
}

bool ExchangeGroup::exchange(ExchangeFabric& fabric, Part& part) {
  const uint64_t generation = generation_;
  parts_.emplace_back(&fabric, &part);
  if (parts_.size() < members_.size()) {
    while (generation_ == generation) sc_core::wait(planned_);
    return part.done;
  }
  plan_and_deliver();
  ++generation_;
  planned_.notify(sc_core::SC_ZERO_TIME);
  return true;
}

void ExchangeGroup::plan_and_deliver() {
  // Members in IPU order, each in tile order: the plan's input in ascending global id.
  std::sort(parts_.begin(), parts_.end(),
            [](const auto& a, const auto& b) { return a.first->config().ipu < b.first->config().ipu; });
  all_.clear();
  for (const auto& [fabric, part] : parts_) all_.insert(all_.end(), part->postings->begin(), part->postings->end());
  const auto start = std::chrono::steady_clock::now();
  ExchangePlan plan = plan_exchange(all_, timing_);
  plan_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ++phases_;

  std::vector<Problem> errors = std::move(plan.errors);
  for (const auto& [fabric, part] : parts_)
    if (part->problems) errors.insert(errors.end(), part->problems->begin(), part->problems->end());
  if (errors.empty()) {
    // Every member's tiles are stopped in this phase, so nothing sees a half-done copy.
    std::vector<ExchangeFabric*> by_ipu(timing_.links->topology().ipus(), nullptr);
    for (const auto& [fabric, part] : parts_) by_ipu.at(fabric->config().ipu) = fabric;
    std::vector<uint8_t> buffer;
    const uint32_t per_ipu = timing_.tiles_per_ipu;
    for (const Delivery& d : plan.deliveries) {
      ExchangeFabric& src = *by_ipu[d.src_tile / per_ipu];
      ExchangeFabric& dst = *by_ipu[d.dst_tile / per_ipu];
      if (auto problem = dst.move(src, d, buffer)) {
        errors.push_back(std::move(*problem));
        break;
      }
    }
  }
  size_t offset = 0;
  for (const auto& [fabric, part] : parts_) {
    const size_t n = part->postings->size();
    if (errors.empty()) {
      part->outcomes.assign(plan.tiles.begin() + offset, plan.tiles.begin() + offset + n);
    } else {
      part->errors = errors;
    }
    part->done = true;
    offset += n;
  }
  parts_.clear();
}

}  // namespace ipusim::exchange
