// Where the exchange's host time goes (host figures, never read by anything simulated;
// docs/platform.md "Where the host time goes"), in common/host_clock.h ticks: a few
// readings per phase.
#pragma once

#include <cstdint>
#include <functional>

#include "common/host_clock.h"
#include "exchange/exchange_plan.h"

namespace ipusim::exchange {

struct ExchangeHostTicks {
  uint64_t plan = 0;               // inside plan_exchange()
  uint64_t plan_parallel = 0;      // of which in its chunks on the host threads
  uint64_t plan_links = 0;         // of which in the links' schedule (ExchangePlan::link_ticks)
  uint64_t link_carry = 0;         // with link faults: the phase's frames through the link layer
  uint64_t delivery = 0;           // moving the messages
  uint64_t delivery_parallel = 0;  // of which in its parts on the host threads

  ExchangeHostTicks& operator+=(const ExchangeHostTicks& o) {
    plan += o.plan;
    plan_parallel += o.plan_parallel;
    plan_links += o.plan_links;
    link_carry += o.link_carry;
    delivery += o.delivery;
    delivery_parallel += o.delivery_parallel;
    return *this;
  }
};

// The plan's host threads, timed: forwards to `threads` and adds the ticks of every
// call to the sink given last (the plan's or the delivery's parallel ticks).
class TimedPlanThreads {
 public:
  TimedPlanThreads() = default;
  TimedPlanThreads(const TimedPlanThreads&) = delete;
  TimedPlanThreads& operator=(const TimedPlanThreads&) = delete;

  void set(const PlanThreads* threads) { threads_ = threads; }
  // The threads to hand to a plan or a delivery, whose parallel ticks go to `sink`;
  // null when there are none (the caller's thread alone).
  const PlanThreads* into(uint64_t& sink) {
    sink_ = &sink;
    return threads_ && *threads_ ? &timed_ : nullptr;
  }

 private:
  const PlanThreads* threads_ = nullptr;
  uint64_t* sink_ = nullptr;
  const PlanThreads timed_ = [this](size_t count, const std::function<void(size_t)>& body) {
    HostTicksScope scope(*sink_);
    (*threads_)(count, body);
  };
};

}  // namespace ipusim::exchange
