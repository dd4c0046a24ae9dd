#include "exchange/exchange_group.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "exchange/exchange_delivery.h"
#include "exchange/exchange_fabric.h"

namespace ipusim::exchange {

ExchangeGroup::ExchangeGroup(const links::Topology& topology, const links::LinkTimingConfig& links,
                             ExchangeTiming timing)
    : timing_(timing) {
  ticks_per_cycle_ = timing.ticks_per_cycle();
  scheduler_ = std::make_unique<links::LinkScheduler>(topology, links, ticks_per_cycle_);
  timing_.links = scheduler_.get();
}

ExchangeGroup::~ExchangeGroup() = default;

void ExchangeGroup::join(ExchangeFabric& fabric) {
  if (std::find(members_.begin(), members_.end(), &fabric) == members_.end()) members_.push_back(&fabric);
}

void ExchangeGroup::set_faults(std::unique_ptr<links::LinkFaults> faults) {
  faults_ = std::move(faults);
  scheduler_->keep_frames(faults_ != nullptr);
}

uint64_t ExchangeGroup::carry_over_links(const ExchangePlan& plan, std::vector<std::vector<uint8_t>>& data,
                                         std::vector<Problem>& errors) {
  // Leg k of the scheduler is the k-th delivery between IPUs (both in match order).
  for (const Delivery& d : plan.deliveries) {
    if (!timing_.between_ipus(d.src_tile, d.dst_tile)) continue;
    data.emplace_back(d.len);
    ExchangeFabric& src = *by_ipu_[timing_.ipu_of(d.src_tile)];
    if (auto problem = src.read(d.src_tile, d.src_addr, data.back())) {
      errors.push_back(std::move(*problem));
      return 0;
    }
  }
  try {
    return faults_->carry(*scheduler_, ticks_per_cycle_,
                          [&](uint32_t leg) { return std::span<const uint8_t>(data.at(leg)); });
  } catch (const links::LinkFailure& e) {
    Problem p;
    p.code = ProblemCode::Exchange;
    p.kind = "link failed";
    p.detail = e.what();
    errors.push_back(std::move(p));
    return 0;
  }
}

ExchangeGroup::Saved ExchangeGroup::saved() const {
  Saved s{phases_, scheduler_->saved(), std::nullopt};
  if (faults_) s.faults = faults_->saved();
  return s;
}

void ExchangeGroup::restore(const Saved& s) {
  // A group whose links run as RTL has a link layer without faults: a run without faults
  // on TLM links saved none, and the fresh layer is where that run's would be; one on RTL
  // links saved a layer that injects nothing, which TLM links without faults do not keep.
  const bool saved_injects =
      s.faults && std::any_of(s.faults->begin(), s.faults->end(),
                              [](const links::LinkFaults::DirectionState& d) { return !d.injector.policies.empty(); });
  if (saved_injects && !faults_) throw std::invalid_argument("link faults were saved for a run without them");
  if (!s.faults && faults_ && faults_->plan().any())
    throw std::invalid_argument("no link faults were saved for a run with them");
  scheduler_->restore(s.links);
  if (faults_ && s.faults) faults_->restore(*s.faults);
  phases_ = s.phases;
}

void ExchangeGroup::reset() {
  members_.clear();
  parts_.clear();
  ++generation_;
  planned_.notify(sc_core::SC_ZERO_TIME);
  host_ticks_ = {};
  batch_.reset_figures();
  phases_ = 0;
  scheduler_->reset();
  if (faults_) faults_->reset();
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
  scheduler_->clear_frames();
  ExchangePlan plan;
  {
    HostTicksScope timed(host_ticks_.plan);
    plan = plan_exchange(all_, timing_, plan_threads_.into(host_ticks_.plan_parallel), std::move(kept_deliveries_));
  }
  host_ticks_.plan_links += plan.link_ticks;
  ++phases_;

  std::vector<Problem> errors = std::move(plan.errors);
  for (const auto& [fabric, part] : parts_)
    if (part->problems) errors.insert(errors.end(), part->problems->begin(), part->problems->end());
  by_ipu_.assign(timing_.links->topology().ipus(), nullptr);
  for (const auto& [fabric, part] : parts_) by_ipu_.at(fabric->config().ipu) = fabric;
  uint64_t lost = 0;
  std::vector<std::vector<uint8_t>> carried;  // with faults: the messages between IPUs, as the links delivered them
  if (errors.empty() && faults_) {
    HostTicksScope timed(host_ticks_.link_carry);
    lost = carry_over_links(plan, carried, errors);
  }
  if (errors.empty()) {
    HostTicksScope timed(host_ticks_.delivery);
    // Every member's tiles are stopped in this phase, so nothing sees a half-done copy;
    // parts of whole destination tiles on the plan's threads (exchange_delivery.h).
    const std::vector<Delivery>& all = plan.deliveries;
    std::vector<uint32_t> leg_of;  // with faults: delivery -> its leg in `carried`
    if (faults_) {
      leg_of.resize(all.size());
      uint32_t leg = 0;
      for (size_t i = 0; i < all.size(); ++i)
        if (timing_.between_ipus(all[i].src_tile, all[i].dst_tile)) leg_of[i] = leg++;
    }
    for (ExchangeFabric* member : by_ipu_)
      if (member) member->prepare_direct();
    const Delivered done = deliver_in_parts(
        all, timing_.tiles_per_ipu, uint32_t(by_ipu_.size()), plan_threads_.into(host_ticks_.delivery_parallel),
        [&](size_t i) {
          const Delivery& d = all[i];
          const uint8_t* from = faults_ && timing_.between_ipus(d.src_tile, d.dst_tile)
                                    ? carried[leg_of[i]].data()
                                    : by_ipu_[timing_.ipu_of(d.src_tile)]->direct_read(d.src_tile, d.src_addr, d.len);
          return DirectCopy{from, by_ipu_[timing_.ipu_of(d.dst_tile)]->direct_write(d.dst_tile, d.dst_addr, d.len)};
        },
        [&](size_t i, tlm::tlm_generic_payload& trans, std::vector<uint8_t>& buffer) {
          const Delivery& d = all[i];
          ExchangeFabric& dst = *by_ipu_[timing_.ipu_of(d.dst_tile)];
          if (faults_ && timing_.between_ipus(d.src_tile, d.dst_tile)) return dst.write(d, trans, carried[leg_of[i]]);
          return dst.copy(*by_ipu_[timing_.ipu_of(d.src_tile)], d, trans, buffer);
        });
    for (size_t ipu = 0; ipu < by_ipu_.size(); ++ipu)
      if (by_ipu_[ipu]) by_ipu_[ipu]->count(done.by_ipu[ipu]);
    if (done.problem) errors.push_back(*done.problem);
  }
  // The exchange is scheduled ahead of time: a link's recovery holds the whole phase.
  if (errors.empty() && lost > 0)
    for (TileOutcome& t : plan.tiles) t.done_cycle += lost;
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
  kept_deliveries_ = std::move(plan.deliveries);  // for the next plan (exchange_plan.h)
  kept_deliveries_.clear();
}

}  // namespace ipusim::exchange
